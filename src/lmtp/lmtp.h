/* lmtp.h: a non-blocking LMTP client (RFC 2033) on a libevent loop, for
 * delivering generated mail to the users a run plays (profile mode), and
 * the same client speaking SMTP submission (RFC 6409/5321) to an MTA, for
 * the mail those users send (env.proto = LMTP_PROTO_SUBMIT, below).
 *
 * One `struct lmtp_client` per event loop (a worker's, or a tool's).  It
 * owns up to max_sessions LMTP sessions (0 = no limit) and a FIFO of
 * deliveries waiting for one.  A session says LHLO once, then runs one
 * transaction after another: MAIL FROM, one RCPT TO per recipient, DATA,
 * the message dot-stuffed, and reads one reply per accepted recipient
 * after the final dot (LMTP's difference from SMTP).  With PIPELINING
 * offered in the LHLO reply, a transaction's commands go out in one
 * write; a reused session sends RSET first.
 *
 * Every recipient of every delivery gets exactly one on_result call: the
 * server's reply to its RCPT (when refused), to the DATA command, or after
 * the dot; or a local failure (connect, timeout, disconnect, protocol
 * violation, shutdown) with code 0.  Counts, codes and latencies go to the
 * lmtp_stats given (single writer: the loop's thread).
 *
 * Submission differs in what the protocols differ in: EHLO instead of
 * LHLO, STARTTLS and EHLO again when env.tls is set, then AUTH PLAIN (or LOGIN when PLAIN is not offered) as the
 * delivery's sender when it gives a user, MAIL FROM with SIZE= and
 * BODY=8BITMIME when the server offers them, and one reply after the dot
 * for every accepted recipient.  A submission session sends one message,
 * as a mail client does, and QUITs: it is never reused (each delivery may
 * authenticate as another user).
 *
 * Against a hostile server: a reply line longer than max_line, a reply of
 * more than max_reply_lines lines, a reply to no command, or no progress
 * for timeout_s ends the session (counted, its recipients failed). */
#ifndef IMAPSTRESS_LMTP_H
#define IMAPSTRESS_LMTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "stats/stats.h"

struct event_base;
struct bufferevent;
struct msg_pool;
struct tls_ctx;

/* Why a recipient has no server reply. */
enum lmtp_fail {
	LMTP_F_NONE,		/* the server replied: see code */
	LMTP_F_CONNECT,		/* connect failed (or the open hook did) */
	LMTP_F_TIMEOUT,		/* no reply within timeout_s */
	LMTP_F_DISCONNECT,	/* the server closed or reset the session */
	LMTP_F_PROTOCOL,	/* unparsable reply, over a limit, out of turn */
	LMTP_F_SHUTDOWN,	/* lmtp_client_free with the delivery pending */
	LMTP_F_COUNT
};
/* lmtp_fail_name[] ("none", "connect", ...) is in actions.h, beside the
 * counters it names. */

/* Which reply decided a recipient. */
enum lmtp_phase {
	LMTP_P_SESSION,		/* greeting or LHLO refused, or local */
	LMTP_P_MAIL,
	LMTP_P_RCPT,
	LMTP_P_DATA,		/* the DATA command itself */
	LMTP_P_DOT,		/* the reply after the final dot */
	LMTP_P_AUTH		/* submission's AUTH refused */
};

enum lmtp_proto {
	LMTP_PROTO_LMTP,	/* RFC 2033 (the default) */
	LMTP_PROTO_SUBMIT	/* SMTP submission, RFC 6409 */
};

enum lmtp_auth {
	LMTP_AUTH_ANY,		/* PLAIN when offered, else LOGIN */
	LMTP_AUTH_PLAIN,
	LMTP_AUTH_LOGIN
};

/* Who a submission is from: the envelope sender and the AUTH identity
 * (auth_user NULL: no AUTH). */
struct lmtp_sender {
	const char *mail_from;	/* NULL: env.mail_from */
	const char *auth_user;
	const char *auth_pass;
};

struct lmtp_result {
	void *arg;		/* lmtp_deliver's arg */
	unsigned rcpt_idx;	/* 0..n-1 in lmtp_deliver's rcpts */
	const char *rcpt;
	int code;		/* 250, 452, 550...; 0 with fail != NONE */
	enum lmtp_fail fail;
	enum lmtp_phase phase;
	const char *text;	/* reply's first line, printable; "" if none */
	uint64_t t_queued_us;	/* clock_us() at lmtp_deliver */
	uint64_t t_data_end_us;	/* final dot written; 0 if never */
	uint64_t t_reply_us;	/* clock_us() now */
};

typedef void (*lmtp_result_fn)(void *cb_arg, const struct lmtp_result *r);

/* struct lmtp_stats (what the client measured; one writer, the loop,
 * readable by any thread through ctr_get()/hist_*) is defined in
 * src/stats/actions.h, so that a worker's stats shard carries one. */
_Static_assert(LMTP_F_COUNT == LMTP_FAIL_SLOTS, "lmtp_stats.fails fits enum lmtp_fail");

struct lmtp_stats *lmtp_stats_new(void);
void lmtp_stats_free(struct lmtp_stats *s);	/* NULL is a no-op */

struct lmtp_env {
	struct event_base *base;
	enum lmtp_proto proto;
	enum lmtp_auth auth_mech;	/* submission with a sender's user */
	/* Submission: STARTTLS after EHLO, required (a server that does not
	 * offer it fails the delivery), with this context's verification;
	 * NULL: no TLS. */
	struct tls_ctx *tls;
	/* Where to connect (TCP), unless open is set. */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	/* Tests: returns a connected bufferevent on base (e.g. one end of
	 * bufferevent_pair_new), or NULL for a failed connect. */
	struct bufferevent *(*open)(void *open_arg, struct event_base *base);
	void *open_arg;
	unsigned max_sessions;		/* 0 = unlimited */
	const char *lhlo_name;		/* LHLO/EHLO; NULL: "imapstress.invalid" */
	const char *mail_from;		/* NULL: "imapstress@imapstress.invalid" */
	double timeout_s;		/* 0: LMTP_TIMEOUT_DEFAULT_S */
	size_t max_line;		/* 0: 4096 bytes */
	unsigned max_reply_lines;	/* 0: 100 */
	const struct msg_pool *pool;	/* message bodies */
	uint64_t run_id;		/* for the marker and Message-ID lines */
	struct lmtp_stats *stats;
	lmtp_result_fn on_result;
	void *cb_arg;
};

/* No progress for this long ends a session (its deliveries fail). */
#define LMTP_TIMEOUT_DEFAULT_S 30

struct lmtp_client;

/* The env is copied (the strings and pool are not: they must outlive the
 * client). */
struct lmtp_client *lmtp_client_new(const struct lmtp_env *env);

/* Queue message msg_idx of the pool for rcpts[0..n-1] (1 <= n <= 1000;
 * each an address without <>, at most 256 printable bytes, no blanks).
 * The strings are copied.  -1 for bad arguments (nothing queued, no
 * callback), 0 otherwise; results come through on_result, possibly before
 * this returns (a failed synchronous open). */
int lmtp_deliver(struct lmtp_client *c, const char *const *rcpts, unsigned n,
		 unsigned msg_idx, void *arg);

/* lmtp_deliver from a sender (copied): submission's AUTH and MAIL FROM.
 * from NULL is lmtp_deliver. */
int lmtp_submit(struct lmtp_client *c, const struct lmtp_sender *from,
		const char *const *rcpts, unsigned n, unsigned msg_idx,
		void *arg);

/* Deliveries queued or in a transaction. */
unsigned lmtp_client_busy(const struct lmtp_client *c);
unsigned lmtp_client_sessions(const struct lmtp_client *c);

/* Closes every session; each pending recipient gets on_result with
 * LMTP_F_SHUTDOWN first (the callback must not call lmtp_deliver then).
 * NULL is a no-op.  Not from inside on_result. */
void lmtp_client_free(struct lmtp_client *c);

/* Internal pieces, exposed for their unit tests. */
struct evbuffer;
/* Append data[0..n) dot-stuffed: a '.' starting a line is doubled.
 * *at_bol says whether the previous byte ended a line (true at the start
 * of a message) and is updated. */
void lmtp_dot_stuff(struct evbuffer *out, const char *data, size_t n,
		    bool *at_bol);

#endif
