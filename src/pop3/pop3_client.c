/* pop3_client.c: POP3 sessions and their queue (see pop3.h).
 *
 * Each command sent is remembered in a FIFO (the greeting is its first
 * entry); each response the parser reports answers the oldest.  After a
 * response, advance() decides what goes next from the command answered,
 * so the session is a short table of "this reply, then that command".
 * A session that ends is unlinked at once and freed from an event of its
 * own, never inside its own callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/bevio.h"
#include "net/tls.h"
#include "pop3/pop3.h"
#include "pop3/pop3_parse.h"
#include "stats/stats.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/xmalloc.h"

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
};

struct pop3_client {
	struct pop3_env env;
	TAILQ_HEAD(, p3job) queue;
	TAILQ_HEAD(, p3sess) sessions, dead;
	unsigned n_queued, n_sessions;
	struct event *reap;
	bool freeing, stopping, kicking;
};

static void kick(struct pop3_client *c);
static struct bufferevent *tls_layer(struct p3sess *s, struct bufferevent *bev);
static int tls_start(struct p3sess *s);

uint64_t
pop3_uidl_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void
job_free(struct p3job *j)
{
	if (j == NULL)
		return;
	free(j->user);
	free(j->pass);
	free(j->known);
	free(j);
}

static void
sess_free(struct p3sess *s)
{
	if (s->bev != NULL)
		bufferevent_free(s->bev);
	pop3_parser_free(&s->ps);
	job_free(s->job);
	free(s->uidl);
	free(s->dele_due);
	free(s);
}

static void
reap_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pop3_client *c = arg;
	struct p3sess *s;

	while ((s = TAILQ_FIRST(&c->dead)) != NULL) {
		TAILQ_REMOVE(&c->dead, s, link);
		sess_free(s);
	}
}

static struct pop3_stats *
st(const struct p3sess *s)
{
	return s->c->env.stats;
}

/* The session is over: what was in flight failed, the deletions are
 * committed only by QUIT's +OK, one result goes out. */
static void
sess_end(struct p3sess *s, bool failed, enum pop3_fail why, const char *text,
	 size_t len)
{
	struct pop3_client *c = s->c;
	struct pop3_stats *ps = st(s);

	if (s->dead)
		return;
	s->dead = true;
	if (s->bev != NULL) {
		bufferevent_disable(s->bev, EV_READ | EV_WRITE);
		bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
	}
	TAILQ_REMOVE(&c->sessions, s, link);
	TAILQ_INSERT_TAIL(&c->dead, s, link);
	c->n_sessions--;
	event_active(c->reap, EV_TIMEOUT, 0);
	escape_text(s->text, sizeof(s->text), text, len);
	s->r.failed = failed;
	s->r.fail = why;
	s->r.text = s->text;
	s->r.t_end_us = clock_us();
	if (!s->r.quit_ok) {
		s->r.delete_lost = s->r.deleted;
		s->r.deleted = 0;
	}
	/* What a keeping session retrieved, for the next one. */
	s->r.seen = s->uidl;
	s->r.n_seen = s->have_uidl && s->job->keep ? s->skip + s->r.retrieved : 0;
	if (s->r.n_seen > s->n_msgs)
		s->r.n_seen = s->n_msgs;
	if (ps != NULL) {
		for (unsigned i = 0; i < s->q_n; i++)
			ctr_add(&ps->failed[s->q[(s->q_head + i) % WINDOW_MAX].cmd], 1);
		if (failed)
			ctr_add(&ps->fails[why], 1);
		ctr_add(&ps->deleted, s->r.deleted);
		ctr_add(&ps->delete_lost, s->r.delete_lost);
		ctr_set(&ps->sessions_open, c->n_sessions);
	}
	s->q_n = 0;
	if (c->env.on_result != NULL)
		c->env.on_result(c->env.cb_arg, &s->r);
	kick(c);
}

static void
sess_fail(struct p3sess *s, enum pop3_fail why, const char *text)
{
	sess_end(s, true, why, text, strlen(text));
}

static void
send_cmd(struct p3sess *s, enum pop3_cmd cmd, uint32_t msg)
{
	struct evbuffer *out = bufferevent_get_output(s->bev);
	struct p3cmd *q = &s->q[(s->q_head + s->q_n++) % WINDOW_MAX];

	q->cmd = cmd;
	q->msg = msg;
	q->t_sent = clock_us();
	switch (cmd) {
	case P3_CAPA: evbuffer_add(out, "CAPA\r\n", 6); break;
	case P3_STLS: evbuffer_add(out, "STLS\r\n", 6); break;
	case P3_USER: evbuffer_add_printf(out, "USER %s\r\n", s->job->user); break;
	case P3_PASS: evbuffer_add_printf(out, "PASS %s\r\n", s->job->pass); break;
	case P3_STAT: evbuffer_add(out, "STAT\r\n", 6); break;
	case P3_UIDL: evbuffer_add(out, "UIDL\r\n", 6); break;
	case P3_LIST: evbuffer_add(out, "LIST\r\n", 6); break;
	case P3_RETR: evbuffer_add_printf(out, "RETR %u\r\n", msg); break;
	case P3_DELE: evbuffer_add_printf(out, "DELE %u\r\n", msg); break;
	case P3_QUIT:
		evbuffer_add(out, "QUIT\r\n", 6);
		s->quit_sent = true;
		break;
	default: break;
	}
}

/* Logged in with the message list known: RETR what is new and DELE what
 * was retrieved, as many at once as the window allows; QUIT when all is
 * answered (or the client stops). */
static void
pump(struct p3sess *s)
{
	while (!s->quit_sent && s->q_n < s->window) {
		if (s->n_dele_due > 0) {
			send_cmd(s, P3_DELE, s->dele_due[--s->n_dele_due]);
			continue;
		}
		if (!s->c->stopping && s->next_retr <= s->n_msgs) {
			send_cmd(s, P3_RETR, s->next_retr++);
			continue;
		}
		if (s->q_n == 0)
			send_cmd(s, P3_QUIT, 0);
		break;
	}
}

/* The list is in (UIDL, or STAT without UIDL): skip what a keeping user
 * retrieved before (the common prefix, imaptest's rule), then pump. */
static void
list_done(struct p3sess *s)
{
	const struct p3job *j = s->job;

	s->skip = 0;
	if (s->have_uidl && j->keep)
		while (s->skip < s->n_msgs && s->skip < j->n_known &&
		       s->uidl[s->skip] == j->known[s->skip])
			s->skip++;
	s->next_retr = s->skip + 1;
	s->dele_due = xcalloc(s->window, sizeof(*s->dele_due));
	pump(s);
}

/* The response to q is complete (its status, or its body's end): what
 * it means and what is sent next.  -1 when the session ended. */
static int
advance(struct p3sess *s, const struct p3cmd *q, bool ok, const char *text,
	size_t len)
{
	struct pop3_stats *ps = st(s);
	uint64_t now = clock_us();

	if (ps != NULL) {
		ctr_add(ok ? &ps->ok[q->cmd] : &ps->err[q->cmd], 1);
		hist_record(ps->lat[q->cmd], now - q->t_sent);
	}
	if (!ok)
		s->r.n_err++;
	switch (q->cmd) {
	case P3_GREETING:
		if (!ok) {
			sess_end(s, false, P3F_PROTOCOL, text, len);
			return -1;
		}
		send_cmd(s, P3_CAPA, 0);
		break;
	case P3_CAPA:
		if (s->c->env.tls_mode == POP3_TLS_STLS && !s->tls_on) {
			if (!s->stls_offered) {
				sess_fail(s, P3F_TLS, "STLS is not offered (CAPA)");
				return -1;
			}
			send_cmd(s, P3_STLS, 0);
			break;
		}
		/* -ERR: an RFC 1939 server without CAPA; no pipelining. */
		s->window = s->pipelining ? s->c->env.window : 1;
		send_cmd(s, P3_USER, 0);
		break;
	case P3_STLS:
		if (!ok) {
			sess_fail(s, P3F_TLS, "STLS refused");
			return -1;
		}
		/* The parser stops here: the bytes after this line are
		 * TLS, for the layer read_cb puts on (tls_start). */
		s->tls_due = true;
		return -1;
	case P3_USER:
		send_cmd(s, ok ? P3_PASS : P3_QUIT, 0);
		break;
	case P3_PASS:
		if (ok) {
			s->r.logged_in = true;
			if (ps != NULL)
				ctr_add(&ps->logins, 1);
			if (s->c->env.on_login != NULL)
				s->c->env.on_login(s->c->env.cb_arg, s->r.arg);
		}
		send_cmd(s, ok ? P3_STAT : P3_QUIT, 0);
		break;
	case P3_STAT:
		if (ok && pop3_scan_stat(text, len, &s->r.stat_n,
					 &(uint64_t){ 0 }) < 0) {
			sess_fail(s, P3F_PROTOCOL, "STAT's +OK without a count");
			return -1;
		}
		send_cmd(s, ok ? P3_UIDL : P3_QUIT, 0);
		break;
	case P3_UIDL:
		if (!ok) {
			/* No UIDL (it is optional): LIST numbers the
			 * messages, and nothing tells old mail from new. */
			s->n_msgs = 0;
			send_cmd(s, P3_LIST, 0);
			break;
		}
		s->have_uidl = true;
		s->r.listed = s->n_msgs;
		list_done(s);
		return 0;
	case P3_LIST:
		if (!ok)
			s->n_msgs = s->r.stat_n;	/* STAT's, then */
		s->r.listed = s->n_msgs;
		list_done(s);
		return 0;
	case P3_RETR:
		if (ok) {
			s->r.retrieved++;
			if (ps != NULL) {
				ctr_add(&ps->retrieved, 1);
				ctr_add(&ps->retr_bytes, s->body_bytes);
			}
			if (!s->job->keep)
				s->dele_due[s->n_dele_due++] = q->msg;
		}
		break;
	case P3_DELE:
		if (ok)
			s->r.deleted++;
		break;
	case P3_QUIT:
		s->r.quit_ok = ok;
		sess_end(s, false, P3F_PROTOCOL, text, ok ? 0 : len);
		return -1;
	default:
		break;
	}
	if (s->r.logged_in && s->next_retr > 0)
		pump(s);
	return 0;
}

/* After STLS's +OK (nothing else in flight: STLS is sent alone) and its
 * line drained (a TLS filter reads what its underlying input holds at
 * once), the TLS layer goes on, the parser starts afresh, and CAPA is
 * asked again. */
static int
tls_start(struct p3sess *s)
{
	struct bufferevent *tls = tls_layer(s, s->bev);

	if (tls == NULL)
		return -1;
	pop3_parser_reset(&s->ps);
	s->pipelining = s->stls_offered = false;
	send_cmd(s, P3_CAPA, 0);
	return 0;
}

static bool
wants_body(enum pop3_cmd c)
{
	return c == P3_CAPA || c == P3_UIDL || c == P3_LIST || c == P3_RETR;
}

/* A CAPA line: the capabilities this client uses. */
static bool
capa_is(const char *t, size_t n, const char *kw)
{
	size_t k = strlen(kw);
	return n >= k && strncasecmp(t, kw, k) == 0 && (n == k || t[k] == ' ');
}

static void
capa_line(struct p3sess *s, const char *t, size_t n)
{
	if (capa_is(t, n, "PIPELINING"))
		s->pipelining = true;
	else if (capa_is(t, n, "STLS"))
		s->stls_offered = true;
}

/* A UIDL line ("N uid") or a LIST line ("N size"), N from 1 up in
 * order: the list kept is by N (a LIST keeps no hash). */
static int
list_line(struct p3sess *s, const char *t, size_t n, bool uidl)
{
	uint32_t k;
	const char *w;
	size_t wl;

	if (pop3_scan_line(t, n, &k, &w, &wl) < 0 || k != s->n_msgs + 1) {
		sess_fail(s, P3F_PROTOCOL, uidl ? "UIDL line not \"N uid\" in order"
			  : "LIST line not \"N size\" in order");
		return -1;
	}
	if (s->n_msgs >= POP3_MAX_MSGS) {
		sess_fail(s, P3F_PROTOCOL, "UIDL lists more messages than "
			  "the client takes");
		return -1;
	}
	if (s->n_msgs == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->uidl = xrealloc(s->uidl, s->cap * sizeof(*s->uidl));
	}
	s->uidl[s->n_msgs++] = uidl ? pop3_uidl_hash(w, wl) : 0;
	return 0;
}

static int
on_event(void *arg, const struct pop3_ev *ev)
{
	struct p3sess *s = arg;

	if (s->q_n == 0) {
		sess_fail(s, P3F_PROTOCOL, "a response to no command");
		return -1;
	}
	struct p3cmd q = s->q[s->q_head];
	switch (ev->kind) {
	case POP3_EV_STATUS:
		if (ev->ok && wants_body(q.cmd)) {
			s->body_bytes = 0;
			return 1;
		}
		break;
	case POP3_EV_LINE:
		if (q.cmd == P3_CAPA)
			capa_line(s, ev->text, ev->len);
		else if (q.cmd == P3_UIDL || q.cmd == P3_LIST)
			return list_line(s, ev->text, ev->len, q.cmd == P3_UIDL);
		else if (q.cmd == P3_RETR)
			s->body_bytes += ev->len + 2;
		return 0;
	case POP3_EV_END:
		break;
	}
	s->q_head = (s->q_head + 1) % WINDOW_MAX;
	s->q_n--;
	bool ok = ev->kind == POP3_EV_END || ev->ok;
	return advance(s, &q, ok, ev->kind == POP3_EV_END ? "" : ev->text,
		       ev->kind == POP3_EV_END ? 0 : ev->len);
}

static void
flush_now(struct p3sess *s)
{
	if (s->direct && s->connected && !s->dead)
		(void)bevio_write_now(s->bev);
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct p3sess *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_iovec v[8];

	while (!s->dead && evbuffer_get_length(in) > 0) {
		int n = evbuffer_peek(in, -1, NULL, v, 8);
		size_t took = 0;
		enum pop3_perr e = POP3_PE_NONE;
		for (int i = 0; i < n && i < 8 && e == POP3_PE_NONE && !s->dead; i++) {
			size_t used;
			e = pop3_parser_feed(&s->ps, v[i].iov_base, v[i].iov_len,
					     on_event, s, &used);
			took += used;
		}
		if (s->dead)
			return;		/* (the event freed nothing yet) */
		if (s->tls_due) {
			s->tls_due = false;
			evbuffer_drain(in, took);
			if (tls_start(s) == 0)
				flush_now(s);
			return;		/* the TLS layer reads from now */
		}
		if (e != POP3_PE_NONE) {
			sess_fail(s, P3F_PROTOCOL, pop3_perr_text(e));
			return;
		}
		evbuffer_drain(in, took);
	}
	flush_now(s);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct p3sess *s = arg;

	if (what & BEV_EVENT_CONNECTED) {
		s->connected = true;
		flush_now(s);
		return;
	}
	char why[POP3_TEXT];
	bool verify;
	/* A TLS layer may report the close with the last reply (QUIT's
	 * +OK) still unread: read it first. */
	if (!(what & BEV_EVENT_TIMEOUT) &&
	    evbuffer_get_length(bufferevent_get_input(bev)) > 0) {
		read_cb(bev, s);
		if (s->dead)
			return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		sess_fail(s, P3F_TIMEOUT, "no response in time");
	else if (s->tls_on && tls_bev_error(bev, why, sizeof(why), &verify))
		sess_fail(s, P3F_TLS, why);
	else if (!s->connected)
		sess_fail(s, P3F_CONNECT, "connect failed");
	else
		sess_fail(s, P3F_DISCONNECT, "the server closed the session");
}

/* A TLS filter over bev (its owner from now on) as the session's
 * bufferevent; NULL (the session failed) when it cannot be made. */
static struct bufferevent *
tls_layer(struct p3sess *s, struct bufferevent *bev)
{
	struct pop3_client *c = s->c;
	struct bufferevent *tls = NULL;

	bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
	if (c->env.tls != NULL)
		tls = tls_bev_upgrade(c->env.tls, c->env.base, bev, NULL);
	if (tls == NULL) {
		s->bev = bev;
		sess_fail(s, P3F_TLS, "cannot set up TLS");
		return NULL;
	}
	s->bev = tls;
	s->tls_on = true;
	s->direct = false;	/* its bytes go through the TLS layer */
	bufferevent_setcb(tls, read_cb, NULL, event_cb, s);
	bevio_set_timeout(tls, c->env.timeout_s, true);
	bufferevent_enable(tls, EV_READ | EV_WRITE);
	return tls;
}

static void
sess_open(struct pop3_client *c, struct p3job *j)
{
	struct bufferevent *bev;
	bool connected = false;

	bev = bevio_open(c->env.open, c->env.open_arg, c->env.base,
			 &c->env.addr, c->env.addrlen, &connected);
	struct p3sess *s = xcalloc(1, sizeof(*s));
	s->c = c;
	s->job = j;
	s->r.arg = j->arg;
	s->r.t_start_us = clock_us();
	s->window = 1;
	pop3_parser_init(&s->ps, c->env.max_line, c->env.max_resp);
	/* The greeting answers the opening, as a reply answers a command. */
	s->q[0] = (struct p3cmd){ P3_GREETING, 0, s->r.t_start_us };
	s->q_n = 1;
	TAILQ_INSERT_TAIL(&c->sessions, s, link);
	c->n_sessions++;
	if (c->env.stats != NULL) {
		ctr_add(&c->env.stats->sessions, 1);
		ctr_set(&c->env.stats->sessions_open, c->n_sessions);
	}
	if (bev == NULL) {
		s->q_n = 0;	/* no greeting was ever due */
		sess_fail(s, P3F_CONNECT, "connect failed");
		return;
	}
	s->bev = bev;
	s->connected = connected;
	s->direct = bevio_direct(bev);
	if (c->env.tls_mode == POP3_TLS_IMPLICIT) {
		(void)tls_layer(s, bev);	/* POP3S: TLS from the start */
		return;
	}
	bufferevent_setcb(bev, read_cb, NULL, event_cb, s);
	bevio_set_timeout(bev, c->env.timeout_s, true);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void
kick(struct pop3_client *c)
{
	if (c->freeing || c->kicking)
		return;
	c->kicking = true;
	while (!TAILQ_EMPTY(&c->queue) && !c->stopping &&
	       (c->env.max_sessions == 0 || c->n_sessions < c->env.max_sessions)) {
		struct p3job *j = TAILQ_FIRST(&c->queue);
		TAILQ_REMOVE(&c->queue, j, q);
		c->n_queued--;
		sess_open(c, j);
	}
	c->kicking = false;
}

struct pop3_client *
pop3_client_new(const struct pop3_env *env)
{
	struct pop3_client *c = xcalloc(1, sizeof(*c));

	c->env = *env;
	if (c->env.timeout_s <= 0)
		c->env.timeout_s = POP3_TIMEOUT_DEFAULT_S;
	if (c->env.window == 0)
		c->env.window = POP3_WINDOW_DEFAULT;
	if (c->env.window > WINDOW_MAX)
		c->env.window = WINDOW_MAX;
	TAILQ_INIT(&c->queue);
	TAILQ_INIT(&c->sessions);
	TAILQ_INIT(&c->dead);
	c->reap = event_new(env->base, -1, 0, reap_cb, c);
	return c;
}

/* A name or password that fits one command line: no CR, LF or NUL. */
static bool
arg_ok(const char *a)
{
	return a != NULL && a[0] != '\0' && strlen(a) <= 255 &&
	    strpbrk(a, "\r\n") == NULL;
}

int
pop3_session_start(struct pop3_client *c, const struct pop3_login *who,
		   void *arg)
{
	if (c->freeing || c->stopping || !arg_ok(who->user) ||
	    !arg_ok(who->pass) || who->n_known > POP3_MAX_MSGS)
		return -1;
	struct p3job *j = xcalloc(1, sizeof(*j));
	j->user = xstrdup(who->user);
	j->pass = xstrdup(who->pass);
	j->keep = who->keep;
	j->arg = arg;
	if (who->n_known > 0) {
		j->known = xmalloc(who->n_known * sizeof(*j->known));
		memcpy(j->known, who->known, who->n_known * sizeof(*j->known));
		j->n_known = who->n_known;
	}
	TAILQ_INSERT_TAIL(&c->queue, j, q);
	c->n_queued++;
	kick(c);
	return 0;
}

void
pop3_client_stop(struct pop3_client *c)
{
	struct p3job *j;
	struct p3sess *s, *next;

	c->stopping = true;
	while ((j = TAILQ_FIRST(&c->queue)) != NULL) {
		TAILQ_REMOVE(&c->queue, j, q);
		c->n_queued--;
		job_free(j);
	}
	/* Logged-in sessions with nothing in flight QUIT now; the others
	 * do when their last answer comes (pump). */
	for (s = TAILQ_FIRST(&c->sessions); s != NULL; s = next) {
		next = TAILQ_NEXT(s, link);
		if (s->r.logged_in && s->next_retr > 0 && s->q_n == 0) {
			pump(s);
			flush_now(s);
		}
	}
}

unsigned
pop3_client_busy(const struct pop3_client *c)
{
	return c->n_queued + c->n_sessions;
}

void
pop3_client_free(struct pop3_client *c)
{
	struct p3sess *s;

	if (c == NULL)
		return;
	pop3_client_stop(c);
	while ((s = TAILQ_FIRST(&c->sessions)) != NULL)
		sess_fail(s, P3F_SHUTDOWN, "shutdown");
	c->freeing = true;
	reap_cb(-1, 0, c);
	event_free(c->reap);
	free(c);
}
