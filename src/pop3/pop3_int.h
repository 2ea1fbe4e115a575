/* pop3_int.h: the POP3 client's own structures and the calls between its
 * files (not for use outside src/pop3/).  The files form layers, each
 * calling only those below it:
 *   pop3_client.c  the queue, opening sessions, the public calls (pop3.h)
 *   pop3_io.c      the socket: reading, events, the TLS layer (POP3S, STLS)
 *   pop3_state.c   the session's state machine: what each reply means
 *                  and what is sent next; CAPA, UIDL and LIST lines
 *   pop3_sess.c    sending commands, ending a session
 * A session that ends wakes the client's reap event, which frees it and
 * opens what the queue holds (never inside the session's own callback). */
#ifndef IMAPSTRESS_POP3_INT_H
#define IMAPSTRESS_POP3_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "pop3/pop3.h"
#include "pop3/pop3_parse.h"

struct bufferevent;

#define WINDOW_MAX 64

struct p3job {
	TAILQ_ENTRY(p3job) q;
	char *user, *pass;
	bool keep;
	uint64_t *known;
	unsigned n_known;
	void *arg;
};

struct p3cmd {
	enum pop3_cmd cmd;
	uint32_t msg;		/* RETR, DELE */
	uint64_t t_sent;
};

struct p3sess {
	TAILQ_ENTRY(p3sess) link;	/* c->sessions, then c->dead */
	struct pop3_client *c;
	struct bufferevent *bev;
	struct pop3_parser ps;
	struct p3job *job;
	bool connected, direct, dead, pipelining, quit_sent, in_body;
	bool stls_offered, tls_on;	/* CAPA said STLS; a TLS layer is on */
	bool tls_due;			/* STLS +OK: the layer goes on once
					 * its line has left the input */
	struct p3cmd q[WINDOW_MAX];
	unsigned q_head, q_n, window;
	uint64_t *uidl;			/* hashes, by message number - 1 */
	uint32_t n_msgs, cap, skip, next_retr, n_dele_due;
	uint32_t *dele_due;		/* retrieved, DELE not sent yet */
	bool have_uidl;
	uint64_t body_bytes;
	struct pop3_result r;
	char text[POP3_TEXT];
	char login_err_text[POP3_TEXT];	/* r.login_err_text */
};

struct pop3_client {
	struct pop3_env env;
	TAILQ_HEAD(, p3job) queue;
	TAILQ_HEAD(, p3sess) sessions, dead;
	unsigned n_queued, n_sessions;
	struct event *reap;
	bool freeing, stopping, kicking;
};

/* pop3_sess.c */
struct pop3_stats *p3_stats(const struct p3sess *s);
/* The session is over: one result, and it goes to the reap list. */
void p3_end(struct p3sess *s, bool failed, enum pop3_fail why,
	    const char *text, size_t len);
void p3_fail(struct p3sess *s, enum pop3_fail why, const char *text);
void p3_send(struct p3sess *s, enum pop3_cmd cmd, uint32_t msg);
/* "AUTH PLAIN <base64 of NUL user NUL pass>" and its CRLF into line
 * (P3_AUTH_LINE_MAX + 1 bytes, NUL-terminated): its length, or 0 when it
 * would exceed RFC 5034's 255 octets. */
#define P3_AUTH_LINE_MAX 255
size_t p3_auth_line(const char *user, const char *pass, char *line);
void p3_pump(struct p3sess *s);
void p3_flush(struct p3sess *s);

/* pop3_state.c: the parser's callback (arg: the session). */
int p3_on_event(void *arg, const struct pop3_ev *ev);

/* pop3_io.c */
void p3_read_cb(struct bufferevent *bev, void *arg);
void p3_event_cb(struct bufferevent *bev, short what, void *arg);
struct bufferevent *p3_tls_layer(struct p3sess *s, struct bufferevent *bev);

#endif
