/* pop3_state.c: the session's state machine (pop3_int.h).  Each response
 * the parser reports answers the oldest command in the FIFO (the greeting
 * is its first entry); advance() decides from the command answered what
 * goes next, so the session is a short table of "this reply, then that
 * command".  CAPA, UIDL and LIST lines are read here too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "pop3/pop3_int.h"
#include "stats/stats.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/xmalloc.h"

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
	p3_pump(s);
}

/* A -ERR to USER, PASS or AUTH: kept for the result (the caller names
 * it), the session QUITs. */
static void
login_refused(struct p3sess *s, enum pop3_cmd cmd, const char *text,
	      size_t len)
{
	s->r.login_err = cmd;
	escape_text(s->login_err_text, sizeof(s->login_err_text), text, len);
}

/* The response to q is complete (its status, or its body's end): what
 * it means and what is sent next.  -1 when the session ended. */
static int
advance(struct p3sess *s, const struct p3cmd *q, bool ok, const char *text,
	size_t len)
{
	struct pop3_stats *ps = p3_stats(s);
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
			p3_end(s, false, P3F_PROTOCOL, text, len);
			return -1;
		}
		p3_send(s, P3_CAPA, 0);
		break;
	case P3_CAPA:
		if (s->c->env.tls_mode == POP3_TLS_STLS && !s->tls_on) {
			if (!s->stls_offered) {
				p3_fail(s, P3F_TLS, "STLS is not offered (CAPA)");
				return -1;
			}
			p3_send(s, P3_STLS, 0);
			break;
		}
		/* -ERR: an RFC 1939 server without CAPA; no pipelining. */
		s->window = s->pipelining ? s->c->env.window : 1;
		/* AUTH PLAIN is sent whether or not CAPA's SASL names it:
		 * a server that lacks it says -ERR, counted for AUTH. */
		p3_send(s, s->c->env.auth == POP3_AUTH_PLAIN ? P3_AUTH : P3_USER, 0);
		break;
	case P3_STLS:
		if (!ok) {
			p3_fail(s, P3F_TLS, "STLS refused");
			return -1;
		}
		/* The parser stops here: the bytes after this line are
		 * TLS, for the layer p3_read_cb puts on (tls_start). */
		s->tls_due = true;
		return -1;
	case P3_USER:
		if (!ok)
			login_refused(s, q->cmd, text, len);
		p3_send(s, ok ? P3_PASS : P3_QUIT, 0);
		break;
	case P3_PASS:
	case P3_AUTH:
		if (!ok)
			login_refused(s, q->cmd, text, len);
		else {
			s->r.logged_in = true;
			if (ps != NULL)
				ctr_add(&ps->logins, 1);
			if (s->c->env.on_login != NULL)
				s->c->env.on_login(s->c->env.cb_arg, s->r.arg);
		}
		p3_send(s, ok ? P3_STAT : P3_QUIT, 0);
		break;
	case P3_STAT:
		if (ok && pop3_scan_stat(text, len, &s->r.stat_n,
					 &(uint64_t){ 0 }) < 0) {
			p3_fail(s, P3F_PROTOCOL, "STAT's +OK without a count");
			return -1;
		}
		p3_send(s, ok ? P3_UIDL : P3_QUIT, 0);
		break;
	case P3_UIDL:
		if (!ok) {
			/* No UIDL (it is optional): LIST numbers the
			 * messages, and nothing tells old mail from new. */
			s->n_msgs = 0;
			p3_send(s, P3_LIST, 0);
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
		p3_end(s, false, P3F_PROTOCOL, text, ok ? 0 : len);
		return -1;
	default:
		break;
	}
	if (s->r.logged_in && s->next_retr > 0)
		p3_pump(s);
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

/* A UIDL line ("N uid") or a LIST line ("N size"), N from 1 up in
 * order: the list kept is by N (a LIST keeps no hash). */
static int
list_line(struct p3sess *s, const char *t, size_t n, bool uidl)
{
	uint32_t k;
	const char *w;
	size_t wl;

	if (pop3_scan_line(t, n, &k, &w, &wl) < 0 || k != s->n_msgs + 1) {
		p3_fail(s, P3F_PROTOCOL, uidl ? "UIDL line not \"N uid\" in order"
			  : "LIST line not \"N size\" in order");
		return -1;
	}
	if (s->n_msgs >= POP3_MAX_MSGS) {
		p3_fail(s, P3F_PROTOCOL, "UIDL lists more messages than "
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

int
p3_on_event(void *arg, const struct pop3_ev *ev)
{
	struct p3sess *s = arg;

	if (s->q_n == 0) {
		p3_fail(s, P3F_PROTOCOL, "a response to no command");
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
