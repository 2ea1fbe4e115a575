/* pop3_client.c: POP3 sessions and their queue (see pop3.h; its files'
 * layers in pop3_int.h).  A session that ends is unlinked at once and
 * freed from the reap event, never inside its own callback; the same
 * event opens what the queue holds in the freed places. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/bevio.h"
#include "pop3/pop3_int.h"
#include "stats/stats.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static void kick(struct pop3_client *c);

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
		void *who = s->r.arg;
		sess_free(s);
		/* Its socket is closed now: a connection budget counted by
		 * the caller (profile mode's clients=) may go on. */
		if (c->env.on_closed != NULL && !c->freeing)
			c->env.on_closed(c->env.cb_arg, who);
	}
	kick(c);	/* the places they held */
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
	s->r.login_err = P3_CMD_COUNT;
	s->r.login_err_text = s->login_err_text;
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
		p3_fail(s, P3F_CONNECT, "connect failed");
		return;
	}
	s->bev = bev;
	s->connected = connected;
	s->direct = bevio_direct(bev);
	if (c->env.tls_mode == POP3_TLS_IMPLICIT) {
		(void)p3_tls_layer(s, bev);	/* POP3S: TLS from the start */
		return;
	}
	bufferevent_setcb(bev, p3_read_cb, NULL, p3_event_cb, s);
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
	char line[P3_AUTH_LINE_MAX + 1];

	if (c->freeing || c->stopping || !arg_ok(who->user) ||
	    !arg_ok(who->pass) || who->n_known > POP3_MAX_MSGS ||
	    (c->env.auth == POP3_AUTH_PLAIN &&
	     p3_auth_line(who->user, who->pass, line) == 0))
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
			p3_pump(s);
			p3_flush(s);
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
		p3_fail(s, P3F_SHUTDOWN, "shutdown");
	c->freeing = true;
	reap_cb(-1, 0, c);
	event_free(c->reap);
	free(c);
}
