/* msg.h: where APPENDed messages come from.  A pool of complete messages
 * (CRLF line endings) built once at startup and shared read-only by every
 * worker thread, so APPEND can send bodies by reference without copying.
 *
 * Two sources: an mbox file (mbox=FILE; From_-separated, LF or CRLF; sent
 * as CRLF, ">From " unquoted, an X-Imapstress field in a message's header
 * left out) and a deterministic generator (seeded; real-looking headers,
 * a size mix around a configurable mean), or imaptest's random_msg_size=S
 * (random printable bytes, uniform 1..S).
 *
 * What the sender prepends (msg_head), so that the pool stays shared and
 * immutable while every stored message is ours and unique:
 * - the marker, msg_mark_line(): "X-Imapstress: run=<run id> (imapstress
 *   VERSION)", the first header line of every message imapstress puts on a
 *   server (APPEND, LMTP, init, the scripted tests' set-up), so that a run
 *   can tell its own mail from mail it must not destroy (issue 31);
 * - generated messages carry no Message-ID header of their own: after the
 *   marker comes msg_id_line(), a fixed-width line, so every APPEND stores
 *   a message with its own id.
 * Both lines have fixed widths, so the size of a message as sent is known
 * before it is written (msg_wire_len). */
#ifndef IMAPSTRESS_MSG_H
#define IMAPSTRESS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "version.h"

struct msg {
	const char *data;	/* CRLF text, not NUL-terminated */
	size_t len;
	bool needs_id;		/* prepend msg_id_line() when sending */
};

struct msg_pool;
struct msg_sizes;
struct rng;

/* The largest mbox= read.  Its arena is the file with CRLF line ends, up
 * to twice the file for bare-LF input. */
#define MSG_MBOX_MAX ((size_t)1 << 30)

/* A generated pool holds at least this many messages, however large. */
#define MSG_POOL_MIN_COUNT	8

/* The most memory a generated pool of messages of up to `size` octets
 * (--msg-size's mean, random_msg_size=) can take while it is built: at
 * least MSG_POOL_MIN_COUNT messages, in an arena that doubles as it
 * grows.  Inline, so config.c can check sizes without linking msg.c. */
static inline uint64_t
msg_pool_peak(uint64_t size)
{
	const uint64_t per = 2 * MSG_POOL_MIN_COUNT;
	return size > UINT64_MAX / per ? UINT64_MAX : size * per;
}

/* Read an mbox: a regular file of at most MSG_MBOX_MAX octets.  NULL with
 * a message in err (naming the file and line) when it cannot be read, is
 * not a regular file (a FIFO, /dev/zero), or holds no message. */
struct msg_pool *msg_pool_from_mbox(const char *path, char *err, size_t errlen);

/* Generated messages whose sizes average mean_size (at least 512 bytes),
 * at most max_total bytes in all (the pool then holds fewer, at least 8).
 * Same seed and arguments -> byte-identical pool. */
struct msg_pool *msg_pool_generate(uint32_t seed, uint64_t mean_size,
				   uint64_t max_total);

/* imaptest's random_msg_size=S: random printable text, uniform 1..S bytes
 * (CRLF every <=76 chars, ending in CRLF), deterministic per seed. */
struct msg_pool *msg_pool_random(uint32_t seed, uint64_t max_size,
				 uint64_t max_total);

/* --msg-sizes: for each bucket, messages of exactly its size as sent
 * (msg_wire_len), at least MSG_POOL_MIN_COUNT of each, about max_total
 * bytes in all; msg_pool_pick draws a bucket by its weight, then one of
 * its messages.  Same seed and arguments -> byte-identical pool. */
struct msg_pool *msg_pool_generate_sizes(uint32_t seed,
					 const struct msg_sizes *sizes,
					 uint64_t max_total);

/* The index of the message to send next, drawn with r: uniform over the
 * pool (one draw, as every sender did before --msg-sizes), or by bucket
 * weight for a msg_pool_generate_sizes pool (two draws). */
unsigned msg_pool_pick(const struct msg_pool *p, struct rng *r);

void msg_pool_free(struct msg_pool *p);		/* NULL is a no-op */
unsigned msg_pool_count(const struct msg_pool *p);
const struct msg *msg_pool_get(const struct msg_pool *p, unsigned idx);
uint64_t msg_pool_bytes(const struct msg_pool *p);	/* sum of lens */

/* "Message-ID: <%016llx.%08x@imapstress.invalid>\r\n": exactly
 * MSG_ID_LINE_LEN bytes, written to out (which needs LEN+1). */
#define MSG_ID_LINE_LEN 60
void msg_id_line(char *out, uint64_t run_id, uint32_t seq);

/* The marker's field name, and its line: "X-Imapstress: run=%016llx
 * (imapstress VERSION)\r\n", exactly MSG_MARK_LINE_LEN bytes (the run id
 * in 16 lowercase hex digits), written to out (which needs LEN+1).  The
 * guard finds mail that is not ours by the field's absence, so the name
 * must not change; the value may grow. */
#define MSG_MARK_FIELD "X-Imapstress"
#define MSG_MARK_PREFIX MSG_MARK_FIELD ": run="
#define MSG_MARK_SUFFIX " (imapstress " IMAPSTRESS_VERSION ")\r\n"
#define MSG_MARK_LINE_LEN \
	(sizeof(MSG_MARK_PREFIX) - 1 + 16 + sizeof(MSG_MARK_SUFFIX) - 1)
void msg_mark_line(char *out, uint64_t run_id);

/* What goes on the wire before m's own bytes: the marker, then (when m
 * needs one) the Message-ID line with seq.  Writes msg_head_len(m) bytes
 * (at most MSG_HEAD_MAX) and a NUL to out, which needs MSG_HEAD_MAX + 1;
 * returns the length.  The one place these lines are put together: every
 * path that stores a message (conn_cmd_body, lmtp_delivery_write, the
 * scripted set-up's APPEND) sends this, then m->data. */
#define MSG_HEAD_MAX (MSG_MARK_LINE_LEN + MSG_ID_LINE_LEN)
size_t msg_head(char *out, const struct msg *m, uint64_t run_id, uint32_t seq);

static inline size_t
msg_head_len(const struct msg *m)
{
	return MSG_MARK_LINE_LEN + (m->needs_id ? MSG_ID_LINE_LEN : 0);
}

/* The size of a message as sent and stored: its own bytes and its head.
 * --msg-size, random_msg_size= and an mbox's messages are the sizes of
 * the bytes without the head (documented in the man page). */
static inline size_t
msg_wire_len(const struct msg *m)
{
	return msg_head_len(m) + m->len;
}

#endif
