/* msg_private.h: the pool layout and generator toolkit shared by msg.c
 * (mbox, accessors), msg_gen.c, msg_random.c and msg_text.c.  Other
 * modules use msg.h only. */
#ifndef IMAPSTRESS_MSG_PRIVATE_H
#define IMAPSTRESS_MSG_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg/msg.h"
#include "msg/msg_sizes.h"
#include "util/rng.h"

struct msg_pool {
	char *arena;		/* every message's bytes; msgs point here */
	struct msg *msgs;
	unsigned count;
	uint64_t bytes;
	/* --msg-sizes: bucket b's messages are msgs[first[b]] and the
	 * per[b] - 1 after it, all of size sizes.size[b] as sent; sizes.n
	 * is 0 for every other pool (msg_pool_pick draws uniformly). */
	struct msg_sizes sizes;
	unsigned first[MSG_SIZES_MAX], per[MSG_SIZES_MAX];
};

/* Generated pools: as many messages as fit in max_total, within
 * MSG_POOL_MIN_COUNT (msg.h) and this.  An mbox pool holds every message
 * of the file. */
#define MSG_POOL_MAX_COUNT	1000

/* The generators' random stream: rng.h's splitmix64, seeded so that a
 * pool's bytes depend only on its seed and its kind (domain). */
static inline struct rng
msg_rng_new(uint32_t seed, uint64_t domain)
{
	struct rng r;
	rng_seed(&r, ((uint64_t)seed << 32) ^ domain, 0);
	return r;
}

/* A percent draw that always consumes one number (the byte streams of
 * existing seeds depend on it; rng_pct skips the draw at 0 and 100). */
static inline bool
msg_chance(struct rng *r, unsigned percent)
{
	return rng_below(r, 100) < percent;
}

/* A growable arena; messages are recorded as offsets because it moves. */
struct gbuf {
	char *p;
	size_t len, cap;
};

void gbuf_reserve(struct gbuf *b, size_t more);
void gbuf_add(struct gbuf *b, const char *s, size_t n);
void gbuf_printf(struct gbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes one line's content at p and returns its length: exactly width
 * when exact, else at most width (text stops at a word boundary). */
typedef size_t line_fn(char *p, size_t width, bool exact, struct rng *r);

/* Exactly n bytes of CRLF-terminated lines, widths min_w..max_w, a blank
 * line with blank_pct percent (see msg_text.c). */
void gen_lines(struct gbuf *b, struct rng *r, size_t n, size_t min_w,
	       size_t max_w, unsigned blank_pct, line_fn *line);

#endif
