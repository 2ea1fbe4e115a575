/* lmtp_int.h: private between src/lmtp/ files: the wire helpers
 * (lmtp_wire.c), a delivery and its results (lmtp_delivery.c) and the
 * client (lmtp_client.c). */
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

#endif
