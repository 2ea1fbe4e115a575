/* lmtp_client.c: LMTP and submission sessions and the delivery queue
 * (see lmtp.h).
 *
 * A session says LHLO (or EHLO), then runs transactions (lmtp_txn.c).
 * A session that dies is unlinked at once and freed from an event of its
 * own, never inside its own callback.  Submission adds STARTTLS and AUTH
 * between EHLO and the transaction (lmtp_submit.c's steps) and a QUIT
 * after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/tls.h"
#include "util/clock.h"
#include "stats/hist.h"
#include "lmtp/lmtp_int.h"
#include "msg/msg.h"
#include "util/xmalloc.h"

static void kick(struct lmtp_client *c);

/* A delivery is done: its memory goes, and the client is one less busy. */
static void
delivery_finish(struct lmtp_client *c, struct delivery *d)
{
	lmtp_delivery_free(d);
	c->busy--;
}

static void
session_free(struct lmtp_session *s)
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
	struct lmtp_session *s;

	while ((s = TAILQ_FIRST(&c->dead)) != NULL) {
		TAILQ_REMOVE(&c->dead, s, link);
		session_free(s);
	}
}

/* End the session: its delivery's recipients without a result fail with
 * `why`, and queued work may start new sessions. */
static void
session_kill(struct lmtp_session *s, enum lmtp_fail why, const char *text)
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
txn_end(struct lmtp_session *s)
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
out_drained(struct lmtp_session *s)
{
	if (s->await_drain && s->st == SS_DOT && s->cur != NULL) {
		s->cur->t_data_end = clock_us();
		s->await_drain = false;
	}
}

/* What was queued goes to the socket now, not a loop turn later; the
 * write event is on only while the kernel has not taken all of it. */
static void
flush_now(struct lmtp_session *s)
{
	if (!s->direct || !s->connected || s->st == SS_DEAD)
		return;	/* (a pair or a filter keeps its write event on) */
	if (bevio_write_now(s->bev))
		out_drained(s);
}

static void
txn_start(struct lmtp_session *s, struct delivery *d)
{
	if (s->c->env.stats != NULL)
		ctr_add(&s->c->env.stats->transactions, 1);
	bevio_set_timeout(s->bev, s->c->env.timeout_s, true);
	lmtp_txn_start(s, d);
	flush_now(s);
}

static void read_cb(struct bufferevent *bev, void *arg);
static void write_cb(struct bufferevent *bev, void *arg);
static void event_cb(struct bufferevent *bev, short what, void *arg);

/* STARTTLS's 220: the TLS filter takes over the socket.  What the server
 * sent after the 220 is dropped unread (RFC 3207 5: it could be a reply
 * injected before the handshake). */
static void
session_upgrade(struct lmtp_session *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);

	evbuffer_drain(in, evbuffer_get_length(in));
	bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
	struct bufferevent *tls = lmtp_sub_upgrade(s);
	if (tls == NULL) {
		lmtp_delivery_fail_all(&s->c->env, s->cur, 0, LMTP_F_PROTOCOL,
				       LMTP_P_SESSION, "STARTTLS: cannot set up TLS");
		session_kill(s, LMTP_F_PROTOCOL, "STARTTLS: cannot set up TLS");
		return;
	}
	s->bev = tls;
	s->direct = false;	/* bytes go through the filter */
	bufferevent_setcb(tls, read_cb, write_cb, event_cb, s);
	bevio_set_timeout(tls, s->c->env.timeout_s, true);
	bufferevent_enable(tls, EV_READ | EV_WRITE);
}

/* What a submission step (lmtp_submit.c) said to do next. */
static void
session_next(struct lmtp_session *s, enum lmtp_next next, const char *why)
{
	switch (next) {
	case LMTP_N_WAIT:
		return;
	case LMTP_N_TXN:
		txn_start(s, s->cur);
		return;
	case LMTP_N_END:
		txn_end(s);
		return;
	case LMTP_N_KILL:
		session_kill(s, LMTP_F_PROTOCOL, why);
		return;
	case LMTP_N_UPGRADE:
		session_upgrade(s);
		return;
	}
}

static void
reply_done(struct lmtp_session *s, int code, const char *text)
{
	struct lmtp_client *c = s->c;
	const char *why = "";

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
		session_next(s, lmtp_sub_ehlo_done(s, &why), why);
		return;
	case SS_TLS:
	case SS_AUTH:
		session_next(s, lmtp_sub_reply(s, code, text, &why), why);
		return;
	case SS_TXN:
	case SS_DOT:
		session_next(s, lmtp_txn_reply(s, code, text, &why), why);
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
read_cb(struct bufferevent *bev, void *arg)
{
	struct lmtp_session *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len;
	int got;

	while (s->st != SS_DEAD &&
	       (got = lmtp_read_line(in, s->line, s->c->env.max_line, &len)) != 0) {
		if (got < 0) {
			session_kill(s, LMTP_F_PROTOCOL,
				     "reply line over the length limit");
			return;
		}
		enum lmtp_rl rl = lmtp_reply_add(&s->reply, s->line, len,
						 s->c->env.max_reply_lines,
						 s->st == SS_LHLO ? &s->ext : NULL);
		if (rl == LMTP_RL_DONE)
			reply_done(s, s->reply.code, s->reply.text);
		else if (rl != LMTP_RL_MORE)
			session_kill(s, LMTP_F_PROTOCOL, lmtp_rl_why(rl));
		if (s->bev != bev)
			return;	/* STARTTLS: the filter reads from here on */
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
	struct lmtp_session *s = arg;

	if (what & BEV_EVENT_CONNECTED) {
		s->connected = true;
		return;
	}
	char why[LMTP_TEXT + 8], tls[LMTP_TEXT];
	bool verify;

	if (what & BEV_EVENT_TIMEOUT)
		session_kill(s, LMTP_F_TIMEOUT, "no reply in time");
	else if (s->tls && (what & BEV_EVENT_ERROR) &&
		 tls_bev_error(bev, tls, sizeof(tls), &verify)) {
		/* A refused handshake or certificate, named. */
		snprintf(why, sizeof(why), "TLS: %s", tls);
		session_kill(s, LMTP_F_PROTOCOL, why);
	} else if (!s->connected)
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
	struct lmtp_session *s = xcalloc(1, sizeof(*s));
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
		struct lmtp_session *s, *idle = NULL;
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
	struct lmtp_session *s;
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
