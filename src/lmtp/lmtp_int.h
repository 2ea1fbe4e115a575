/* lmtp_int.h: private between src/lmtp/ files: the wire helpers
 * (lmtp_wire.c), a delivery and its results (lmtp_delivery.c), the
 * client and its sessions (lmtp_client.c), a transaction's steps
 * (lmtp_txn.c) and submission's (lmtp_submit.c). */
#ifndef IMAPSTRESS_LMTP_INT_H
#define IMAPSTRESS_LMTP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lmtp/lmtp.h"
#include "net/bevio.h"
#include <stdint.h>
#include <sys/queue.h>

#define LMTP_MAX_RCPTS 1000

/* One lmtp_deliver() call: its recipients and which of them have had
 * their result (lmtp_delivery.c; queued and sent by lmtp_client.c). */
struct delivery {
	TAILQ_ENTRY(delivery) q;
	void *arg;
	unsigned n;
	char **rcpt;
	bool *done;
	unsigned msg_idx;
	char *mail_from, *auth_user, *auth_pass;	/* NULL: none */
	uint32_t seq;		/* Message-ID number */
	uint64_t t_queued, t_data_end;
};

/* A delivery for rcpts[0..n-1] from `from` (both copied; from may be
 * NULL), queued now. */
struct delivery *lmtp_delivery_new(const struct lmtp_sender *from,
				   const char *const *rcpts, unsigned n,
				   unsigned msg_idx, void *arg);
void lmtp_delivery_free(struct delivery *d);
/* The message after DATA's 354: its Message-ID line if it wants one, the
 * body dot-stuffed, the final dot; counted in env->stats, and the time it
 * was queued is t_data_end (until the output drains). */
struct evbuffer;
void lmtp_delivery_write(const struct lmtp_env *env, struct delivery *d,
			 struct evbuffer *out);
/* The message's size before dot-stuffing (MAIL FROM's SIZE=). */
size_t lmtp_delivery_size(const struct lmtp_env *env, struct delivery *d);
/* Recipient i's one result: counted in env->stats and passed to
 * env->on_result; a second result for the same recipient is ignored. */
void lmtp_delivery_result(const struct lmtp_env *env, struct delivery *d,
			  unsigned i, int code, enum lmtp_fail fail,
			  enum lmtp_phase phase, const char *text);
/* The same for every recipient still without one. */
void lmtp_delivery_fail_all(const struct lmtp_env *env, struct delivery *d,
			    int code, enum lmtp_fail fail,
			    enum lmtp_phase phase, const char *text);


/* One reply line, without its CRLF: "250-text", "250 text" or "250".
 * Fills the code (200..599), whether it is the reply's last line, and the
 * text after the separator.  -1 when it is not a reply line. */
int lmtp_reply_line(const char *line, size_t len, int *code, bool *last,
		    const char **text, size_t *text_len);

/* What an EHLO (or LHLO) reply offers. */
struct lmtp_ext {
	bool pipelining, eightbit, starttls, auth_plain, auth_login;
	bool size;
	uint64_t size_max;	/* SIZE's limit; 0: none given */
};
/* One line of an EHLO reply after the code (the first is the greeting
 * domain, which matches no keyword): records the keyword it offers. */
void lmtp_ehlo_line(struct lmtp_ext *e, const char *text, size_t len);

/* RFC 3463's enhanced status code at the start of a reply's text
 * ("5.7.1 ..."): class (2, 4 or 5), subject and detail (each 0..999).
 * -1 when the text does not start with one. */
int lmtp_enhanced(const char *text, int *klass, int *subject, int *detail);

/* Copies text into out (n bytes) escaped (escape.h): server text never
 * reaches a terminal or a log raw. */
void lmtp_printable(char *out, size_t n, const char *text, size_t len);

/* An address lmtp_deliver accepts. */
bool lmtp_addr_ok(const char *a);

/* The client and its sessions (lmtp_client.c), shared with the
 * transaction's steps (lmtp_txn.c) and submission's (lmtp_submit.c). */
#define LMTP_TEXT 160	/* reply text kept for on_result */

/* lmtp_reply.c: the next line of in, its CRLF (or LF) removed, into line
 * (max + 1 octets, NUL-terminated) and its length into *len: 1; 0 while
 * no whole line is there; -1 when the line is longer than max. */
struct evbuffer;
int lmtp_read_line(struct evbuffer *in, char *line, size_t max, size_t *len);

/* A reply being read line by line: its code (of the first line), lines so
 * far, and the first line's text, printable. */
struct lmtp_reply {
	int code;
	unsigned lines;
	char text[LMTP_TEXT];
};
enum lmtp_rl {
	LMTP_RL_MORE,		/* a line of the reply: more follow */
	LMTP_RL_DONE,		/* its last line: r->code and r->text hold */
	LMTP_RL_NOT_REPLY,	/* not a reply line */
	LMTP_RL_MIXED,		/* a code other than the first line's */
	LMTP_RL_TOO_MANY	/* more than max_lines lines */
};
/* One line (without its CRLF) into r; on EHLO's (or LHLO's) reply ehlo
 * gets the keywords offered, else it is NULL.  After LMTP_RL_DONE r is
 * ready for the next reply. */
enum lmtp_rl lmtp_reply_add(struct lmtp_reply *r, const char *line, size_t len,
			    unsigned max_lines, struct lmtp_ext *ehlo);
/* What a session killed for rl says ("" for MORE and DONE). */
const char *lmtp_rl_why(enum lmtp_rl rl);

enum lmtp_step_kind { ST_RSET, ST_MAIL, ST_RCPT, ST_DATA };

struct lmtp_step {
	enum lmtp_step_kind kind;
	unsigned rcpt;
};

/* SS_LHLO is EHLO's too; SS_AUTH waits for 235 (or LOGIN's 334s);
 * SS_TLS for STARTTLS's 220. */
enum lmtp_sess_state { SS_GREETING, SS_LHLO, SS_TLS, SS_AUTH, SS_IDLE,
		       SS_TXN, SS_DOT, SS_QUIT, SS_DEAD };

struct lmtp_session {
	TAILQ_ENTRY(lmtp_session) link;	/* c->sessions, then c->dead */
	struct lmtp_client *c;
	struct bufferevent *bev;
	enum lmtp_sess_state st;
	bool connected, pipelining, used, await_drain, mail_failed;
	bool direct;			/* bevio_direct(bev) */
	bool tls;			/* STARTTLS done: bev is the filter */
	struct lmtp_ext ext;		/* what LHLO/EHLO offered */
	unsigned auth_step;		/* AUTH LOGIN: 1 user, 2 password */
	struct delivery *cur;
	struct lmtp_step *steps;
	unsigned n_steps, next_send, next_reply;
	unsigned *accepted;		/* rcpt indices, in RCPT order */
	unsigned n_accepted, n_dot;
	struct lmtp_reply reply;	/* the reply being read */
	char *line;			/* max_line + 1 */
};

struct lmtp_client {
	struct lmtp_env env;
	TAILQ_HEAD(, delivery) queue;
	unsigned n_queued;
	TAILQ_HEAD(, lmtp_session) sessions;
	unsigned n_sessions;
	TAILQ_HEAD(, lmtp_session) dead;
	struct event *reap;
	unsigned busy;
	uint32_t seq;
	bool freeing, kicking;
};

/* What the client does after a step of lmtp_txn.c or lmtp_submit.c:
 * each says so, so that those files never call back into the client. */
enum lmtp_next {
	LMTP_N_WAIT,		/* a command went out: wait for its reply */
	LMTP_N_TXN,		/* start the transaction */
	LMTP_N_END,		/* the delivery has its results: end it */
	LMTP_N_KILL,		/* end the session (*why says why) */
	LMTP_N_UPGRADE		/* STARTTLS's 220: put TLS over the socket */
};

/* lmtp_submit.c: what submission adds to a session. */
/* lmtp_txn.c: the transaction of delivery d on session s (its steps
 * queued on s->bev: the client flushes them). */
void lmtp_txn_start(struct lmtp_session *s, struct delivery *d);
/* A complete reply in SS_TXN or SS_DOT. */
enum lmtp_next lmtp_txn_reply(struct lmtp_session *s, int code,
			      const char *text, const char **why);

/* MAIL FROM's SIZE= and BODY=8BITMIME where EHLO offered them. */
void lmtp_sub_mail_params(const struct lmtp_session *s, struct evbuffer *out);
/* EHLO said 250: STARTTLS (env.tls set, not yet done), AUTH as the
 * delivery's user, or the transaction. */
enum lmtp_next lmtp_sub_ehlo_done(struct lmtp_session *s, const char **why);
/* A reply in SS_TLS or SS_AUTH. */
enum lmtp_next lmtp_sub_reply(struct lmtp_session *s, int code,
			      const char *text, const char **why);
/* After LMTP_N_UPGRADE: the TLS filter over s->bev (which it owns from
 * now), or NULL; EHLO again is queued on it. */
struct bufferevent *lmtp_sub_upgrade(struct lmtp_session *s);

#endif
