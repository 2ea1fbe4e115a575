/* lmtp_client.c: LMTP and submission sessions and the delivery queue
 * (see lmtp.h).
 *
 * A transaction is a list of steps (RSET when the session was used
 * before, MAIL, RCPT per recipient, DATA).  Steps are written in order,
 * all at once with PIPELINING or one per reply without, and each reply is
 * matched to the oldest step not yet answered; after the DATA command's
 * 354 the body goes out and one reply per accepted recipient follows.
 * A session that dies is unlinked at once and freed from an event of its
 * own, never inside its own callback.  Submission adds AUTH between EHLO
 * and the transaction and a QUIT after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "util/b64.h"
#include "util/clock.h"
#include "stats/hist.h"
#include "lmtp/lmtp_int.h"
#include "msg/msg.h"
#include "util/xmalloc.h"

#define LMTP_TEXT 160	/* reply text kept for on_result */

enum step_kind { ST_RSET, ST_MAIL, ST_RCPT, ST_DATA };

struct step {
	enum step_kind kind;
	unsigned rcpt;
};

/* SS_LHLO is EHLO's too; SS_AUTH waits for 235 (or LOGIN's 334s). */
enum sess_state { SS_GREETING, SS_LHLO, SS_AUTH, SS_IDLE, SS_TXN, SS_DOT,
		  SS_QUIT, SS_DEAD };

struct session {
	TAILQ_ENTRY(session) link;	/* c->sessions, then c->dead */
	struct lmtp_client *c;
	struct bufferevent *bev;
	enum sess_state st;
	bool connected, pipelining, used, await_drain, mail_failed;
	bool direct;			/* bevio_direct(bev) */
	struct lmtp_ext ext;		/* what LHLO/EHLO offered */
	unsigned auth_step;		/* AUTH LOGIN: 1 user, 2 password */
	struct delivery *cur;
	struct step *steps;
	unsigned n_steps, next_send, next_reply;
	unsigned *accepted;		/* rcpt indices, in RCPT order */
	unsigned n_accepted, n_dot;
	int reply_code;			/* of the reply being read */
	unsigned reply_lines;
	char reply_text[LMTP_TEXT];
	char *line;			/* max_line + 1 */
};

struct lmtp_client {
	struct lmtp_env env;
	TAILQ_HEAD(, delivery) queue;
	unsigned n_queued;
	TAILQ_HEAD(, session) sessions;
	unsigned n_sessions;
	TAILQ_HEAD(, session) dead;
	struct event *reap;
	unsigned busy;
	uint32_t seq;
	bool freeing, kicking;
};

static void kick(struct lmtp_client *c);

/* A delivery is done: its memory goes, and the client is one less busy. */
static void
delivery_finish(struct lmtp_client *c, struct delivery *d)
{
	lmtp_delivery_free(d);
	c->busy--;
}

static void
session_free(struct session *s)
{
	if (s->bev != NULL)
		bufferevent_free(s->bev);
	free(s->steps);
	free(s->accepted);
	free(s->line);
	free(s);
}

static void
reap_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lmtp_client *c = arg;
	struct session *s;

	while ((s = TAILQ_FIRST(&c->dead)) != NULL) {
		TAILQ_REMOVE(&c->dead, s, link);
		session_free(s);
	}
}

/* End the session: its delivery's recipients without a result fail with
 * `why`, and queued work may start new sessions. */
static void
session_kill(struct session *s, enum lmtp_fail why, const char *text)
{
	struct lmtp_client *c = s->c;

	if (s->st == SS_DEAD)
		return;
	s->st = SS_DEAD;
	bufferevent_disable(s->bev, EV_READ | EV_WRITE);
	bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
	TAILQ_REMOVE(&c->sessions, s, link);
	TAILQ_INSERT_TAIL(&c->dead, s, link);
	c->n_sessions--;
	if (c->env.stats != NULL)
		ctr_set(&c->env.stats->sessions_open, c->n_sessions);
	event_active(c->reap, EV_TIMEOUT, 0);
	if (s->cur != NULL) {
		struct delivery *d = s->cur;
		s->cur = NULL;
		lmtp_delivery_fail_all(&c->env, d, 0, why,
				       LMTP_P_SESSION, text);
		delivery_finish(c, d);
	}
	kick(c);
}

static void
txn_end(struct session *s)
{
	struct lmtp_client *c = s->c;
	struct delivery *d = s->cur;

	s->cur = NULL;
	if (c->env.proto == LMTP_PROTO_SUBMIT) {
		/* One message per session, as a mail client sends; the
		 * server's 221 or its close ends it (SS_QUIT). */
		evbuffer_add(bufferevent_get_output(s->bev), "QUIT\r\n", 6);
		s->st = SS_QUIT;
	} else {
		s->st = SS_IDLE;
		bevio_set_timeout(s->bev, s->c->env.timeout_s, false);
	}
	if (d != NULL)
		delivery_finish(c, d);
	kick(c);
}

/* The output buffer just emptied: the final dot is on its way. */
static void
out_drained(struct session *s)
{
	if (s->await_drain && s->st == SS_DOT && s->cur != NULL) {
		s->cur->t_data_end = clock_us();
		s->await_drain = false;
	}
}

/* What was queued goes to the socket now, not a loop turn later; the
 * write event is on only while the kernel has not taken all of it. */
static void
flush_now(struct session *s)
{
	if (!s->direct || !s->connected || s->st == SS_DEAD)
		return;	/* (a pair or a filter keeps its write event on) */
	if (bevio_write_now(s->bev))
		out_drained(s);
}

static void
send_body(struct session *s)
{
	lmtp_delivery_write(&s->c->env, s->cur, bufferevent_get_output(s->bev));
	s->await_drain = true;
	s->st = SS_DOT;
	s->n_dot = 0;
}

/* MAIL FROM, with SIZE= and BODY=8BITMIME where EHLO offered them
 * (submission). */
static void
send_mail(struct session *s)
{
	const struct lmtp_env *env = &s->c->env;
	struct evbuffer *out = bufferevent_get_output(s->bev);
	const char *from = s->cur->mail_from ? s->cur->mail_from : env->mail_from;

	evbuffer_add_printf(out, "MAIL FROM:<%s>", from);
	/* Submission only: LMTP's MAIL FROM stays as it always was. */
	if (s->ext.size && env->proto == LMTP_PROTO_SUBMIT)
		evbuffer_add_printf(out, " SIZE=%zu",
				    lmtp_delivery_size(env, s->cur));
	if (s->ext.eightbit && env->proto == LMTP_PROTO_SUBMIT)
		evbuffer_add(out, " BODY=8BITMIME", 14);
	evbuffer_add(out, "\r\n", 2);
}

static void
send_steps(struct session *s)
{
	struct delivery *d = s->cur;

	while (s->st == SS_TXN && s->next_send < s->n_steps &&
	       (s->pipelining || s->next_send == s->next_reply)) {
		const struct step *st = &s->steps[s->next_send];
		if (st->kind == ST_DATA && !s->pipelining && s->n_accepted == 0) {
			/* Every recipient refused: their results are in,
			 * and DATA would only earn a 503. */
			txn_end(s);
			return;
		}
		switch (st->kind) {
		case ST_RSET:
			evbuffer_add(bufferevent_get_output(s->bev), "RSET\r\n", 6);
			break;
		case ST_MAIL:
			send_mail(s);
			break;
		case ST_RCPT:
			evbuffer_add_printf(bufferevent_get_output(s->bev), "RCPT TO:<%s>\r\n",
					    d->rcpt[st->rcpt]);
			break;
		case ST_DATA:
			evbuffer_add(bufferevent_get_output(s->bev), "DATA\r\n", 6);
			break;
		}
		s->next_send++;
	}
}

static void
txn_start(struct session *s, struct delivery *d)
{
	unsigned n = 0;

	s->cur = d;
	s->steps = xrealloc(s->steps, (d->n + 3) * sizeof(*s->steps));
	s->accepted = xrealloc(s->accepted, d->n * sizeof(*s->accepted));
	if (s->used)
		s->steps[n++] = (struct step){ ST_RSET, 0 };
	s->steps[n++] = (struct step){ ST_MAIL, 0 };
	for (unsigned i = 0; i < d->n; i++)
		s->steps[n++] = (struct step){ ST_RCPT, i };
	s->steps[n++] = (struct step){ ST_DATA, 0 };
	s->n_steps = n;
	s->next_send = s->next_reply = 0;
	s->n_accepted = 0;
	s->mail_failed = false;
	s->used = true;
	s->st = SS_TXN;
	if (s->c->env.stats != NULL)
		ctr_add(&s->c->env.stats->transactions, 1);
	bevio_set_timeout(s->bev, s->c->env.timeout_s, true);
	send_steps(s);
	flush_now(s);
}

/* A complete reply while in a transaction. */
static void
step_reply(struct session *s, int code, const char *text)
{
	struct lmtp_client *c = s->c;
	struct delivery *d = s->cur;
	bool ok = code / 100 == 2;

	if (s->next_reply >= s->next_send) {
		session_kill(s, LMTP_F_PROTOCOL, "reply to no command");
		return;
	}
	const struct step *st = &s->steps[s->next_reply++];
	switch (st->kind) {
	case ST_RSET:
		if (!ok) {
			session_kill(s, LMTP_F_PROTOCOL, "RSET refused");
			return;
		}
		break;
	case ST_MAIL:
		if (!ok) {
			s->mail_failed = true;
			lmtp_delivery_fail_all(&c->env, d, code, LMTP_F_NONE,
					       LMTP_P_MAIL, text);
			if (!s->pipelining) {
				txn_end(s);
				return;
			}
		}
		break;
	case ST_RCPT:
		if (s->mail_failed)
			break;
		if (ok)
			s->accepted[s->n_accepted++] = st->rcpt;
		else
			lmtp_delivery_result(&c->env, d, st->rcpt, code,
					     LMTP_F_NONE, LMTP_P_RCPT, text);
		break;
	case ST_DATA:
		if (s->mail_failed || s->n_accepted == 0) {
			/* RFC 2033 4.2: without a successful RCPT the
			 * server must refuse DATA (503). */
			if (code == 354)
				session_kill(s, LMTP_F_PROTOCOL, "354 to DATA "
					     "without an accepted recipient");
			else
				txn_end(s);
			return;
		}
		if (code == 354) {
			send_body(s);
			return;
		}
		lmtp_delivery_fail_all(&c->env, d, code, LMTP_F_NONE,
				       LMTP_P_DATA, text);
		txn_end(s);
		return;
	}
	send_steps(s);
}

static void
dot_reply(struct session *s, int code, const char *text)
{
	if (s->c->env.proto == LMTP_PROTO_SUBMIT) {
		/* SMTP: one reply for every accepted recipient. */
		while (s->n_dot < s->n_accepted)
			lmtp_delivery_result(&s->c->env, s->cur,
					     s->accepted[s->n_dot++], code,
					     LMTP_F_NONE, LMTP_P_DOT, text);
		txn_end(s);
		return;
	}
	unsigned i = s->accepted[s->n_dot++];

	lmtp_delivery_result(&s->c->env, s->cur, i, code, LMTP_F_NONE,
			     LMTP_P_DOT, text);
	if (s->n_dot == s->n_accepted)
		txn_end(s);
}

/* Queue one AUTH line: "AUTH PLAIN <b64>", or LOGIN's user or password. */
static void
send_auth(struct session *s)
{
	const struct delivery *d = s->cur;
	struct evbuffer *out = bufferevent_get_output(s->bev);
	size_t ul = strlen(d->auth_user), pl = strlen(d->auth_pass);
	char *raw = xmalloc(ul + pl + 2);
	char *b = xmalloc(B64_ENCODED_SIZE(ul + pl + 2));

	if (s->auth_step == 0) {
		/* RFC 4616: authzid (empty) NUL authcid NUL passwd */
		raw[0] = '\0';
		memcpy(raw + 1, d->auth_user, ul);
		raw[1 + ul] = '\0';
		memcpy(raw + 2 + ul, d->auth_pass, pl);
		b64_encode(raw, ul + pl + 2, b);
		evbuffer_add_printf(out, "AUTH PLAIN %s\r\n", b);
	} else {
		const char *v = s->auth_step == 1 ? d->auth_user : d->auth_pass;
		b64_encode(v, strlen(v), b);
		evbuffer_add_printf(out, "%s\r\n", b);
	}
	free(raw);
	free(b);
}

/* After EHLO: AUTH as the delivery's user when it has one, with
 * env.auth_mech (any: PLAIN when offered, else LOGIN); then the
 * transaction. */
static void
auth_start(struct session *s)
{
	struct lmtp_client *c = s->c;

	if (c->env.proto != LMTP_PROTO_SUBMIT || s->cur->auth_user == NULL) {
		txn_start(s, s->cur);
		return;
	}
	enum lmtp_auth m = c->env.auth_mech;
	if (s->ext.auth_plain && m != LMTP_AUTH_LOGIN) {
		s->auth_step = 0;
		send_auth(s);
	} else if (s->ext.auth_login && m != LMTP_AUTH_PLAIN) {
		s->auth_step = 1;
		evbuffer_add(bufferevent_get_output(s->bev), "AUTH LOGIN\r\n", 12);
	} else {
		lmtp_delivery_fail_all(&c->env, s->cur, 0, LMTP_F_PROTOCOL,
				       LMTP_P_AUTH, "the AUTH mechanism is not offered");
		session_kill(s, LMTP_F_PROTOCOL, "the AUTH mechanism is not offered");
		return;
	}
	s->st = SS_AUTH;
}

static void
auth_reply(struct session *s, int code, const char *text)
{
	struct lmtp_client *c = s->c;

	if (code == 235) {
		txn_start(s, s->cur);
		return;
	}
	if (code == 334 && s->auth_step == 1) {
		send_auth(s);
		s->auth_step = 2;
		return;
	}
	if (code == 334 && s->auth_step == 2) {
		send_auth(s);
		s->auth_step = 3;
		return;
	}
	/* Refused (535, 454...): the recipients fail with its code; a 334
	 * out of turn is the server's fault. */
	if (code == 334) {
		session_kill(s, LMTP_F_PROTOCOL, "334 out of turn");
		return;
	}
	lmtp_delivery_fail_all(&c->env, s->cur, code, LMTP_F_NONE, LMTP_P_AUTH,
			       text);
	txn_end(s);
}

static void
reply_done(struct session *s, int code, const char *text)
{
	struct lmtp_client *c = s->c;

	switch (s->st) {
	case SS_GREETING:
		if (code != 220) {
			lmtp_delivery_fail_all(&c->env, s->cur, code, LMTP_F_NONE,
					       LMTP_P_SESSION, text);
			session_kill(s, LMTP_F_PROTOCOL, text);
			return;
		}
		evbuffer_add_printf(bufferevent_get_output(s->bev), "%s %s\r\n",
				    c->env.proto == LMTP_PROTO_SUBMIT ? "EHLO" : "LHLO",
				    c->env.lhlo_name);
		s->st = SS_LHLO;
		return;
	case SS_LHLO:
		if (code != 250) {
			lmtp_delivery_fail_all(&c->env, s->cur, code, LMTP_F_NONE,
					       LMTP_P_SESSION, text);
			session_kill(s, LMTP_F_PROTOCOL, text);
			return;
		}
		s->pipelining = s->ext.pipelining;
		auth_start(s);
		return;
	case SS_AUTH:
		auth_reply(s, code, text);
		return;
	case SS_TXN:
		step_reply(s, code, text);
		return;
	case SS_DOT:
		dot_reply(s, code, text);
		return;
	case SS_QUIT:
		session_kill(s, LMTP_F_NONE, "");
		return;
	case SS_IDLE:
		/* 421 before a close is allowed; anything else is out of
		 * turn.  Either way the session is done. */
		session_kill(s, LMTP_F_PROTOCOL, "reply to no command");
		return;
	case SS_DEAD:
		return;
	}
}

static void
handle_line(struct session *s, const char *line, size_t len)
{
	const char *text;
	size_t tlen;
	int code;
	bool last;

	if (lmtp_reply_line(line, len, &code, &last, &text, &tlen) < 0) {
		session_kill(s, LMTP_F_PROTOCOL, "not an LMTP reply line");
		return;
	}
	if (s->reply_lines == 0) {
		s->reply_code = code;
		lmtp_printable(s->reply_text, sizeof(s->reply_text), text, tlen);
	} else if (code != s->reply_code) {
		session_kill(s, LMTP_F_PROTOCOL, "reply lines with different codes");
		return;
	}
	if (++s->reply_lines > s->c->env.max_reply_lines) {
		session_kill(s, LMTP_F_PROTOCOL, "reply has too many lines");
		return;
	}
	if (s->st == SS_LHLO && s->reply_lines > 1)
		lmtp_ehlo_line(&s->ext, text, tlen);
	if (!last)
		return;
	s->reply_lines = 0;
	reply_done(s, code, s->reply_text);
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct session *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t max = s->c->env.max_line;

	while (s->st != SS_DEAD) {
		size_t eol_len = 0;
		struct evbuffer_ptr p = evbuffer_search_eol(in, NULL, &eol_len,
							    EVBUFFER_EOL_CRLF);
		if (p.pos < 0) {
			if (evbuffer_get_length(in) > max)
				session_kill(s, LMTP_F_PROTOCOL,
					     "reply line over the length limit");
			break;
		}
		if ((size_t)p.pos > max) {
			session_kill(s, LMTP_F_PROTOCOL,
				     "reply line over the length limit");
			return;
		}
		evbuffer_remove(in, s->line, (size_t)p.pos);
		s->line[p.pos] = '\0';
		evbuffer_drain(in, eol_len);
		handle_line(s, s->line, (size_t)p.pos);
	}
	flush_now(s);	/* what the replies queued */
}

static void
write_cb(struct bufferevent *bev, void *arg)
{
	out_drained(arg);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct session *s = arg;

	if (what & BEV_EVENT_CONNECTED) {
		s->connected = true;
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		session_kill(s, LMTP_F_TIMEOUT, "no reply in time");
	else if (!s->connected)
		session_kill(s, LMTP_F_CONNECT, "connect failed");
	else
		session_kill(s, LMTP_F_DISCONNECT, "the server closed the session");
}

static void
session_open(struct lmtp_client *c, struct delivery *d)
{
	struct bufferevent *bev;
	bool connected = false;

	bev = bevio_open(c->env.open, c->env.open_arg, c->env.base,
			 &c->env.addr, c->env.addrlen, &connected);
	if (bev == NULL) {
		lmtp_delivery_fail_all(&c->env, d, 0, LMTP_F_CONNECT,
				       LMTP_P_SESSION, "connect failed");
		delivery_finish(c, d);
		return;
	}
	struct session *s = xcalloc(1, sizeof(*s));
	s->c = c;
	s->bev = bev;
	s->connected = connected;
	s->direct = bevio_direct(bev);
	s->st = SS_GREETING;
	s->cur = d;
	s->line = xmalloc(c->env.max_line + 1);
	TAILQ_INSERT_TAIL(&c->sessions, s, link);
	c->n_sessions++;
	if (c->env.stats != NULL) {
		ctr_add(&c->env.stats->sessions, 1);
		ctr_set(&c->env.stats->sessions_open, c->n_sessions);
	}
	bufferevent_setcb(bev, read_cb, write_cb, event_cb, s);
	bevio_set_timeout(s->bev, s->c->env.timeout_s, true);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

/* Give queued deliveries to idle sessions, or to new ones while the limit
 * allows.  Re-entered from a callback (a synchronous failure that calls
 * on_result, which delivers again), the outer loop does the work. */
static void
kick(struct lmtp_client *c)
{
	if (c->freeing || c->kicking)
		return;
	c->kicking = true;
	while (!TAILQ_EMPTY(&c->queue)) {
		struct session *s, *idle = NULL;
		TAILQ_FOREACH(s, &c->sessions, link)
			if (s->st == SS_IDLE) {
				idle = s;
				break;
			}
		if (idle == NULL && c->env.max_sessions != 0 &&
		    c->n_sessions >= c->env.max_sessions)
			break;
		struct delivery *d = TAILQ_FIRST(&c->queue);
		TAILQ_REMOVE(&c->queue, d, q);
		c->n_queued--;
		if (idle != NULL)
			txn_start(idle, d);
		else
			session_open(c, d);
	}
	c->kicking = false;
}

struct lmtp_client *
lmtp_client_new(const struct lmtp_env *env)
{
	struct lmtp_client *c = xcalloc(1, sizeof(*c));

	c->env = *env;
	if (c->env.lhlo_name == NULL)
		c->env.lhlo_name = "imapstress.invalid";
	if (c->env.mail_from == NULL)
		c->env.mail_from = "imapstress@imapstress.invalid";
	if (c->env.timeout_s <= 0)
		c->env.timeout_s = LMTP_TIMEOUT_DEFAULT_S;
	if (c->env.max_line == 0)
		c->env.max_line = 4096;
	if (c->env.max_reply_lines == 0)
		c->env.max_reply_lines = 100;
	TAILQ_INIT(&c->queue);
	TAILQ_INIT(&c->sessions);
	TAILQ_INIT(&c->dead);
	c->reap = event_new(env->base, -1, 0, reap_cb, c);
	return c;
}

int
lmtp_deliver(struct lmtp_client *c, const char *const *rcpts, unsigned n,
	     unsigned msg_idx, void *arg)
{
	return lmtp_submit(c, NULL, rcpts, n, msg_idx, arg);
}

int
lmtp_submit(struct lmtp_client *c, const struct lmtp_sender *from,
	    const char *const *rcpts, unsigned n, unsigned msg_idx, void *arg)
{
	if (c->freeing || n == 0 || n > LMTP_MAX_RCPTS ||
	    c->env.pool == NULL || msg_pool_count(c->env.pool) == 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (rcpts[i] == NULL || !lmtp_addr_ok(rcpts[i]))
			return -1;
	if (from != NULL && ((from->mail_from != NULL && !lmtp_addr_ok(from->mail_from)) ||
			     (from->auth_user != NULL &&
			      (from->auth_user[0] == '\0' || from->auth_pass == NULL))))
		return -1;
	struct delivery *d = lmtp_delivery_new(from, rcpts, n, msg_idx, arg);
	d->seq = c->seq++;
	TAILQ_INSERT_TAIL(&c->queue, d, q);
	c->n_queued++;
	c->busy++;
	if (c->env.stats != NULL) {
		ctr_add(&c->env.stats->deliveries, 1);
		ctr_add(&c->env.stats->rcpts, n);
		if (c->n_queued > ctr_get(&c->env.stats->queued_max))
			ctr_set(&c->env.stats->queued_max, c->n_queued);
	}
	kick(c);
	return 0;
}

unsigned
lmtp_client_busy(const struct lmtp_client *c)
{
	return c->busy;
}

unsigned
lmtp_client_sessions(const struct lmtp_client *c)
{
	return c->n_sessions;
}

void
lmtp_client_free(struct lmtp_client *c)
{
	struct session *s;
	struct delivery *d;

	if (c == NULL)
		return;
	c->freeing = true;
	while ((s = TAILQ_FIRST(&c->sessions)) != NULL) {
		TAILQ_REMOVE(&c->sessions, s, link);
		if (s->cur != NULL) {
			lmtp_delivery_fail_all(&c->env, s->cur, 0, LMTP_F_SHUTDOWN,
					       LMTP_P_SESSION, "shutdown");
			delivery_finish(c, s->cur);
		}
		session_free(s);
	}
	while ((d = TAILQ_FIRST(&c->queue)) != NULL) {
		TAILQ_REMOVE(&c->queue, d, q);
		lmtp_delivery_fail_all(&c->env, d, 0, LMTP_F_SHUTDOWN,
				       LMTP_P_SESSION, "shutdown");
		delivery_finish(c, d);
	}
	reap_cb(-1, 0, c);
	event_free(c->reap);
	if (c->env.stats != NULL)
		ctr_set(&c->env.stats->sessions_open, 0);
	free(c);
}
