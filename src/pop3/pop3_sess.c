/* pop3_sess.c: a POP3 session's lowest layer (pop3_int.h): sending a
 * command (remembered in the FIFO its reply answers), the RETR/DELE pump,
 * and ending the session with its one result. */
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
#include "util/b64.h"
#include "util/escape.h"

struct pop3_stats *
p3_stats(const struct p3sess *s)
{
	return s->c->env.stats;
}

/* The session is over: what was in flight failed, the deletions are
 * committed only by QUIT's +OK, one result goes out. */
void
p3_end(struct p3sess *s, bool failed, enum pop3_fail why, const char *text,
	 size_t len)
{
	struct pop3_client *c = s->c;
	struct pop3_stats *ps = p3_stats(s);

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
}

size_t
p3_auth_line(const char *user, const char *pass, char *line)
{
	/* RFC 4616: authzid (empty) NUL authcid NUL passwd. */
	size_t ul = strlen(user), pl = strlen(pass);
	size_t raw = ul + pl + 2;
	static const char verb[] = "AUTH PLAIN ";

	if (sizeof(verb) - 1 + B64_ENCODED_SIZE(raw) - 1 + 2 > P3_AUTH_LINE_MAX)
		return 0;
	char msg[P3_AUTH_LINE_MAX];
	msg[0] = '\0';
	memcpy(msg + 1, user, ul);
	msg[1 + ul] = '\0';
	memcpy(msg + 2 + ul, pass, pl);
	memcpy(line, verb, sizeof(verb) - 1);
	size_t n = sizeof(verb) - 1;
	n += b64_encode(msg, raw, line + n);
	memcpy(line + n, "\r\n", 3);
	return n + 2;
}

void
p3_fail(struct p3sess *s, enum pop3_fail why, const char *text)
{
	p3_end(s, true, why, text, strlen(text));
}

void
p3_send(struct p3sess *s, enum pop3_cmd cmd, uint32_t msg)
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
	case P3_AUTH: {
		char line[P3_AUTH_LINE_MAX + 1];
		size_t n = p3_auth_line(s->job->user, s->job->pass, line);
		evbuffer_add(out, line, n);	/* (checked at start) */
		break;
	}
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
void
p3_pump(struct p3sess *s)
{
	while (!s->quit_sent && s->q_n < s->window) {
		if (s->n_dele_due > 0) {
			p3_send(s, P3_DELE, s->dele_due[--s->n_dele_due]);
			continue;
		}
		if (!s->c->stopping && s->next_retr <= s->n_msgs) {
			p3_send(s, P3_RETR, s->next_retr++);
			continue;
		}
		if (s->q_n == 0)
			p3_send(s, P3_QUIT, 0);
		break;
	}
}

void
p3_flush(struct p3sess *s)
{
	if (s->direct && s->connected && !s->dead)
		(void)bevio_write_now(s->bev);
}
