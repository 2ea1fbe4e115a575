/* test_pop3.c: the POP3 response parser (src/pop3/pop3_parse.c) fed whole,
 * split at every byte and one byte at a time: status lines, multi-line
 * bodies with dot-unstuffing, -ERR to a command with a body, bare LF, the
 * line and response bounds, sticky errors, the UIDL/LIST/STAT scanners;
 * and the client (pop3_client.c) against an in-process POP3 server over
 * bufferevent_pair_new: a whole visit with and without PIPELINING, a
 * keeping user's second visit, -ERR at PASS, a server that never ends a
 * line, and one that goes silent; AUTH PLAIN's line and its bound; the
 * close of a session's socket told after its result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "pop3/pop3.h"
#include "pop3/pop3_int.h"
#include "pop3/pop3_parse.h"
#include "stats/hist.h"
#include "stats/stats.h"

/* ---- the parser ---- */

struct rec {
	char out[4096];		/* "S+:text|L:text|E|" ... */
	int body;		/* what STATUS returns for +OK */
};

static int
rec_ev(void *arg, const struct pop3_ev *ev)
{
	struct rec *r = arg;
	size_t n = strlen(r->out);

	switch (ev->kind) {
	case POP3_EV_STATUS:
		snprintf(r->out + n, sizeof(r->out) - n, "S%c:%.*s|",
			 ev->ok ? '+' : '-', (int)ev->len, ev->text);
		return r->body;
	case POP3_EV_LINE:
		snprintf(r->out + n, sizeof(r->out) - n, "L:%.*s|",
			 (int)ev->len, ev->text);
		return 0;
	case POP3_EV_END:
		snprintf(r->out + n, sizeof(r->out) - n, "E|");
		return 0;
	}
	return -1;
}

struct pcase {
	const char *in;
	int body;
	const char *want;
	enum pop3_perr err;
};

static const struct pcase pcases[] = {
	{ "+OK Dovecot ready.\r\n", 0, "S+:Dovecot ready.|", POP3_PE_NONE },
	{ "+OK\r\n", 0, "S+:|", POP3_PE_NONE },
	{ "-ERR [AUTH] no\r\n", 0, "S-:[AUTH] no|", POP3_PE_NONE },
	{ "-ERR\r\n", 1, "S-:|", POP3_PE_NONE },
	{ "+ok lower\n", 0, "S+:lower|", POP3_PE_NONE },
	/* A body, dot-unstuffed; "." alone ends it; ".." is "." */
	{ "+OK 2 messages\r\n1 a\r\n..dot\r\n..\r\n\r\n.\r\n", 1,
	  "S+:2 messages|L:1 a|L:.dot|L:.|L:|E|", POP3_PE_NONE },
	/* -ERR never has a body: the next line is a status line. */
	{ "-ERR no such message\r\n+OK x\r\n.\r\n", 1, "S-:no such message|S+:x|E|",
	  POP3_PE_NONE },
	/* two responses, the second after the first body's end */
	{ "+OK\r\nx\r\n.\r\n+OK y\r\n.\r\n", 1, "S+:|L:x|E|S+:y|E|", POP3_PE_NONE },
	{ "+OKAY\r\n", 0, "", POP3_PE_STATUS },
	{ "* OK imap\r\n", 0, "", POP3_PE_STATUS },
	{ "+ \r\n", 0, "", POP3_PE_STATUS },
};

static void
check_case(const struct pcase *c, size_t split, bool bytewise)
{
	struct pop3_parser p;
	struct rec r = { .body = c->body };
	size_t n = strlen(c->in);
	enum pop3_perr e = POP3_PE_NONE;

	pop3_parser_init(&p, 64, 1000);
	if (bytewise) {
		for (size_t i = 0; i < n && e == POP3_PE_NONE; i++)
			e = pop3_parser_feed(&p, c->in + i, 1, rec_ev, &r, NULL);
	} else {
		e = pop3_parser_feed(&p, c->in, split, rec_ev, &r, NULL);
		if (e == POP3_PE_NONE)
			e = pop3_parser_feed(&p, c->in + split, n - split,
					     rec_ev, &r, NULL);
	}
	ck_assert_msg(e == c->err, "'%s' split %zu: error %d, want %d", c->in,
		      split, e, c->err);
	if (c->err == POP3_PE_NONE) {
		ck_assert_str_eq(r.out, c->want);
		ck_assert(pop3_parser_idle(&p));
	}
	pop3_parser_free(&p);
}

START_TEST(test_parse_split_everywhere)
{
	const struct pcase *c = &pcases[_i];

	for (size_t s = 0; s <= strlen(c->in); s++)
		check_case(c, s, false);
	check_case(c, 0, true);
}
END_TEST

START_TEST(test_line_bound)
{
	struct pop3_parser p;
	struct rec r = { .body = 1 };
	char line[80];

	/* max_line 16: a 16-byte body line passes, 17 does not, with or
	 * without its CR, fed whole or in pieces. */
	pop3_parser_init(&p, 16, 0);
	ck_assert_int_eq(pop3_parser_feed(&p, "+OK\r\n", 5, rec_ev, &r, NULL),
			 POP3_PE_NONE);
	snprintf(line, sizeof(line), "%s\r\n", "0123456789abcdef");
	ck_assert_int_eq(pop3_parser_feed(&p, line, strlen(line), rec_ev, &r,
					  NULL), POP3_PE_NONE);
	snprintf(line, sizeof(line), "%s\n", "0123456789abcdefg");
	ck_assert_int_eq(pop3_parser_feed(&p, line, 10, rec_ev, &r, NULL),
			 POP3_PE_NONE);
	ck_assert_int_eq(pop3_parser_feed(&p, line + 10, strlen(line) - 10,
					  rec_ev, &r, NULL), POP3_PE_LINE);
	/* sticky, and nothing more is taken */
	size_t used = 99;
	ck_assert_int_eq(pop3_parser_feed(&p, ".\r\n", 3, rec_ev, &r, &used),
			 POP3_PE_LINE);
	ck_assert_uint_eq(used, 0);
	ck_assert_str_eq(pop3_perr_text(POP3_PE_LINE), "line over the length limit");
	pop3_parser_free(&p);

	/* A line that never ends is cut at the bound, not buffered. */
	pop3_parser_init(&p, 16, 0);
	memset(line, 'x', sizeof(line));
	ck_assert_int_eq(pop3_parser_feed(&p, line, sizeof(line), rec_ev, &r,
					  NULL), POP3_PE_LINE);
	pop3_parser_free(&p);
}
END_TEST

START_TEST(test_response_bound)
{
	struct pop3_parser p;
	struct rec r = { .body = 1 };
	enum pop3_perr e = POP3_PE_NONE;

	/* max_resp 40: a body of short lines runs into it... */
	pop3_parser_init(&p, 64, 40);
	e = pop3_parser_feed(&p, "+OK\r\n", 5, rec_ev, &r, NULL);
	for (int i = 0; i < 20 && e == POP3_PE_NONE; i++)
		e = pop3_parser_feed(&p, "abc\r\n", 5, rec_ev, &r, NULL);
	ck_assert_int_eq(e, POP3_PE_SIZE);
	pop3_parser_free(&p);
	/* ... and the count starts again with each response. */
	pop3_parser_init(&p, 64, 40);
	r.out[0] = '\0';
	for (int i = 0; i < 20 && e != POP3_PE_NONE + 100; i++) {
		e = pop3_parser_feed(&p, "+OK\r\nabc\r\n.\r\n", 13, rec_ev, &r,
				     NULL);
		ck_assert_int_eq(e, POP3_PE_NONE);
	}
	pop3_parser_free(&p);
}
END_TEST

/* Where the input is cut never changes which bound stops it: the byte
 * that first passes one decides (the fuzz harness found a cut that did). */
START_TEST(test_bounds_independent_of_cuts)
{
	static const struct {
		const char *in; uint64_t resp; enum pop3_perr e;
	} c[] = {
		/* max_line 4: the line's 6th byte ('f', the response's
		 * 11th) passes it before the CR passes 13 */
		{ "+OK\r\nabcdefgh\r\n", 13, POP3_PE_LINE },
		/* ... and with a bound of 10 the 'f' passes both: size */
		{ "+OK\r\nabcdefgh\r\n", 10, POP3_PE_SIZE },
		{ "+OK\r\nab\r\ncdefgh\r\n", 11, POP3_PE_SIZE },
	};
	for (unsigned k = 0; k < 3; k++) {
		size_t n = strlen(c[k].in);
		for (size_t cut = 0; cut <= n; cut++) {
			struct pop3_parser p;
			struct rec r = { .body = 1 };
			pop3_parser_init(&p, 4, c[k].resp);
			enum pop3_perr e = pop3_parser_feed(&p, c[k].in, cut,
							    rec_ev, &r, NULL);
			if (e == POP3_PE_NONE)
				e = pop3_parser_feed(&p, c[k].in + cut, n - cut,
						     rec_ev, &r, NULL);
			ck_assert_msg(e == c[k].e, "case %u cut %zu: %d", k, cut, e);
			pop3_parser_free(&p);
		}
	}
}
END_TEST

static int
stop_ev(void *arg, const struct pop3_ev *ev)
{
	return -1;
}

START_TEST(test_callback_stops)
{
	struct pop3_parser p;

	pop3_parser_init(&p, 0, 0);
	ck_assert_int_eq(pop3_parser_feed(&p, "+OK\r\n+OK\r\n", 10, stop_ev,
					  NULL, NULL), POP3_PE_STOP);
	pop3_parser_reset(&p);
	ck_assert(pop3_parser_idle(&p));
	pop3_parser_free(&p);
}
END_TEST

START_TEST(test_scanners)
{
	uint32_t n;
	uint64_t sz;
	const char *w;
	size_t wl;

	ck_assert_int_eq(pop3_scan_line("3 000001a2b", 11, &n, &w, &wl), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(wl, 9);
	ck_assert_int_eq(strncmp(w, "000001a2b", wl), 0);
	ck_assert_int_eq(pop3_scan_line("0 x", 3, &n, &w, &wl), -1);
	ck_assert_int_eq(pop3_scan_line("x 1", 3, &n, &w, &wl), -1);
	ck_assert_int_eq(pop3_scan_line("1 ", 2, &n, &w, &wl), -1);
	ck_assert_int_eq(pop3_scan_line("99999999999 u", 13, &n, &w, &wl), -1);
	ck_assert_int_eq(pop3_scan_stat("0 0", 3, &n, &sz), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(pop3_scan_stat("12 34567 extra", 14, &n, &sz), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_uint_eq(sz, 34567);
	ck_assert_int_eq(pop3_scan_stat("12", 2, &n, &sz), -1);
	ck_assert_int_eq(pop3_scan_stat("a b", 3, &n, &sz), -1);
	ck_assert_int_eq(pop3_scan_stat("1 2x", 4, &n, &sz), -1);
	ck_assert(pop3_uidl_hash("a", 1) != pop3_uidl_hash("b", 1));
}
END_TEST

/* ---- the client against an in-process server ---- */

enum p3fault { PF_NONE, PF_PASS_ERR, PF_ENDLESS, PF_SILENT };

struct srv {
	struct event_base *base;
	struct bufferevent *bev;
	bool pipelining;
	enum p3fault fault;
	unsigned n_msgs;		/* in the mailbox */
	bool deleted[16];
	unsigned dele_pending, batch, max_batch;
	unsigned retr;
};

static void
srv_say(struct srv *s, const char *t)
{
	bufferevent_write(s->bev, t, strlen(t));
}

static void
srv_cmd(struct srv *s, const char *l)
{
	char b[256];

	if (strncmp(l, "CAPA", 4) == 0) {
		srv_say(s, "+OK\r\nUSER\r\nUIDL\r\n");
		if (s->pipelining)
			srv_say(s, "PIPELINING\r\n");
		srv_say(s, ".\r\n");
	} else if (strncmp(l, "USER", 4) == 0) {
		srv_say(s, "+OK\r\n");
	} else if (strncmp(l, "PASS", 4) == 0) {
		srv_say(s, s->fault == PF_PASS_ERR ? "-ERR [AUTH] bad\r\n"
			: "+OK Logged in.\r\n");
	} else if (strncmp(l, "STAT", 4) == 0) {
		snprintf(b, sizeof(b), "+OK %u %u\r\n", s->n_msgs, s->n_msgs * 10);
		srv_say(s, b);
	} else if (strncmp(l, "UIDL", 4) == 0) {
		srv_say(s, "+OK\r\n");
		for (unsigned i = 1; i <= s->n_msgs; i++) {
			snprintf(b, sizeof(b), "%u uid-%u\r\n", i, i);
			srv_say(s, b);
		}
		srv_say(s, ".\r\n");
	} else if (strncmp(l, "RETR ", 5) == 0) {
		if (s->fault == PF_ENDLESS) {
			srv_say(s, "+OK\r\n");
			memset(b, 'x', sizeof(b));
			for (int i = 0; i < 100; i++)
				bufferevent_write(s->bev, b, sizeof(b));
			return;
		}
		if (s->fault == PF_SILENT)
			return;
		s->retr++;
		srv_say(s, "+OK\r\nSubject: x\r\n\r\n..starts with a dot\r\n.\r\n");
	} else if (strncmp(l, "DELE ", 5) == 0) {
		unsigned k = (unsigned)atoi(l + 5);
		if (k >= 1 && k <= s->n_msgs && k < 16)
			s->deleted[k] = true;
		s->dele_pending++;
		srv_say(s, "+OK\r\n");
	} else if (strncmp(l, "QUIT", 4) == 0) {
		srv_say(s, "+OK bye\r\n");
		/* The UPDATE state: the deletions are made now. */
		unsigned kept = 0;
		for (unsigned i = 1; i <= s->n_msgs; i++)
			kept += !s->deleted[i];
		s->n_msgs = kept;
		memset(s->deleted, 0, sizeof(s->deleted));
	} else {
		srv_say(s, "-ERR unknown\r\n");
	}
}

static void
srv_read(struct bufferevent *bev, void *arg)
{
	struct srv *s = arg;
	char *l;
	size_t n;
	unsigned batch = 0;

	while ((l = evbuffer_readln(bufferevent_get_input(bev), &n,
				    EVBUFFER_EOL_CRLF)) != NULL) {
		batch++;
		srv_cmd(s, l);
		free(l);
	}
	if (batch > s->max_batch)
		s->max_batch = batch;
}

static struct bufferevent *
srv_open(void *arg, struct event_base *base)
{
	struct srv *s = arg;
	struct bufferevent *pair[2];

	bufferevent_pair_new(base, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS,
			     pair);
	if (s->bev != NULL)
		bufferevent_free(s->bev);
	s->bev = pair[1];
	bufferevent_setcb(s->bev, srv_read, NULL, NULL, s);
	bufferevent_enable(s->bev, EV_READ | EV_WRITE);
	srv_say(s, "+OK test ready\r\n");
	return pair[0];
}

struct got {
	struct pop3_result r;
	uint64_t seen[16];
	char text[POP3_TEXT];
	unsigned n, logins, closed;
	struct event_base *base;
};

/* The session's socket is closed: after its result, once (what profile
 * mode's clients= slot waits for). */
static void
got_closed(void *arg, void *sess_arg)
{
	struct got *g = arg;
	ck_assert_ptr_eq(sess_arg, g);
	ck_assert_uint_eq(g->closed + 1, g->n);
	g->closed++;
}

static void
got_login(void *arg, void *sess_arg)
{
	struct got *g = arg;
	ck_assert_ptr_eq(sess_arg, g);	/* pop3_session_start's arg */
	ck_assert_uint_eq(g->logins, g->n);	/* before its result */
	g->logins++;
}

static void
got_result(void *arg, const struct pop3_result *r)
{
	struct got *g = arg;

	g->r = *r;
	g->n++;
	if (r->n_seen > 0)
		memcpy(g->seen, r->seen, (r->n_seen < 16 ? r->n_seen : 16) *
		       sizeof(uint64_t));
	snprintf(g->text, sizeof(g->text), "%s", r->text);
	event_base_loopexit(g->base, NULL);
}

static struct pop3_client *
client_new(struct srv *s, struct got *g, struct pop3_stats *st, double timeout)
{
	struct pop3_env env = { 0 };

	env.base = s->base;
	env.open = srv_open;
	env.open_arg = s;
	env.timeout_s = timeout;
	env.max_line = 512;
	env.stats = st;
	env.on_result = got_result;
	env.on_login = got_login;
	env.on_closed = got_closed;
	env.cb_arg = g;
	g->base = s->base;
	return pop3_client_new(&env);
}

static void
stats_init(struct pop3_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int c = 0; c < P3_CMD_COUNT; c++)
		st->lat[c] = hist_new();
}

static void
stats_fini(struct pop3_stats *st)
{
	for (int c = 0; c < P3_CMD_COUNT; c++)
		hist_free(st->lat[c]);
}

START_TEST(test_visit_retr_dele_quit)
{
	struct srv s = { .base = event_base_new(), .pipelining = _i, .n_msgs = 5 };
	struct got g = { 0 };
	struct pop3_stats st;
	stats_init(&st);
	struct pop3_client *c = client_new(&s, &g, &st, 5);
	struct pop3_login who = { .user = "u1", .pass = "p" };

	ck_assert_int_eq(pop3_session_start(c, &who, &g), 0);
	event_base_dispatch(s.base);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.logins, 1);
	ck_assert_uint_eq(g.closed, 1);
	ck_assert(g.r.quit_ok);
	ck_assert(g.r.logged_in);
	ck_assert_uint_eq(g.r.stat_n, 5);
	ck_assert_uint_eq(g.r.listed, 5);
	ck_assert_uint_eq(g.r.retrieved, 5);
	ck_assert_uint_eq(g.r.deleted, 5);
	ck_assert_uint_eq(s.n_msgs, 0);		/* the server expunged them */
	ck_assert_uint_eq(ctr_get(&st.ok[P3_RETR]), 5);
	ck_assert_uint_eq(ctr_get(&st.ok[P3_DELE]), 5);
	ck_assert_uint_eq(ctr_get(&st.ok[P3_QUIT]), 1);
	ck_assert_uint_eq(ctr_get(&st.deleted), 5);
	ck_assert_uint_eq(ctr_get(&st.retrieved), 5);
	/* "Subject: x", "", ".starts with a dot": unstuffed, CRLF each */
	ck_assert_uint_eq(ctr_get(&st.retr_bytes), 5 * (12 + 2 + 20));
	ck_assert_uint_eq(hist_count(st.lat[P3_RETR]), 5);
	/* With PIPELINING the window fills; without, one at a time. */
	if (_i)
		ck_assert_uint_ge(s.max_batch, 2);
	else
		ck_assert_uint_eq(s.max_batch, 1);
	pop3_client_free(c);
	bufferevent_free(s.bev);
	stats_fini(&st);
	event_base_free(s.base);
}
END_TEST

START_TEST(test_keeping_user_skips_what_it_has)
{
	struct srv s = { .base = event_base_new(), .pipelining = true, .n_msgs = 3 };
	struct got g = { 0 };
	struct pop3_stats st;
	stats_init(&st);
	struct pop3_client *c = client_new(&s, &g, &st, 5);
	struct pop3_login who = { .user = "u1", .pass = "p", .keep = true };

	pop3_session_start(c, &who, &g);
	event_base_dispatch(s.base);
	ck_assert_uint_eq(g.r.retrieved, 3);
	ck_assert_uint_eq(g.r.deleted, 0);
	ck_assert_uint_eq(g.r.n_seen, 3);
	/* Two more arrive; the next visit RETRs only those. */
	s.n_msgs = 5;
	uint64_t known[16];
	memcpy(known, g.seen, sizeof(known));
	who.known = known;
	who.n_known = 3;
	pop3_session_start(c, &who, &g);
	event_base_dispatch(s.base);
	ck_assert_uint_eq(g.r.retrieved, 2);
	ck_assert_uint_eq(g.r.n_seen, 5);
	ck_assert_uint_eq(s.retr, 5);
	ck_assert_uint_eq(s.n_msgs, 5);
	pop3_client_free(c);
	bufferevent_free(s.bev);
	stats_fini(&st);
	event_base_free(s.base);
}
END_TEST

START_TEST(test_pass_refused)
{
	struct srv s = { .base = event_base_new(), .n_msgs = 2, .fault = PF_PASS_ERR };
	struct got g = { 0 };
	struct pop3_stats st;
	stats_init(&st);
	struct pop3_client *c = client_new(&s, &g, &st, 5);
	struct pop3_login who = { .user = "u1", .pass = "p" };

	pop3_session_start(c, &who, &g);
	event_base_dispatch(s.base);
	ck_assert(!g.r.logged_in);
	ck_assert(g.r.quit_ok);		/* it QUIT politely */
	ck_assert(!g.r.failed);
	ck_assert_uint_eq(g.r.n_err, 1);
	ck_assert_uint_eq(ctr_get(&st.err[P3_PASS]), 1);
	ck_assert_uint_eq(ctr_get(&st.ok[P3_STAT]), 0);
	ck_assert_uint_eq(s.retr, 0);
	pop3_client_free(c);
	bufferevent_free(s.bev);
	stats_fini(&st);
	event_base_free(s.base);
}
END_TEST

START_TEST(test_hostile_endless_and_silent)
{
	struct srv s = { .base = event_base_new(), .n_msgs = 2,
			 .fault = _i == 0 ? PF_ENDLESS : PF_SILENT };
	struct got g = { 0 };
	struct pop3_stats st;
	stats_init(&st);
	struct pop3_client *c = client_new(&s, &g, &st, 0.2);
	struct pop3_login who = { .user = "u1", .pass = "p" };

	pop3_session_start(c, &who, &g);
	event_base_dispatch(s.base);
	ck_assert(g.r.failed);
	ck_assert(!g.r.quit_ok);
	if (_i == 0) {
		ck_assert_int_eq(g.r.fail, P3F_PROTOCOL);
		ck_assert_str_eq(g.text, "line over the length limit");
		ck_assert_uint_eq(ctr_get(&st.fails[P3F_PROTOCOL]), 1);
	} else {
		ck_assert_int_eq(g.r.fail, P3F_TIMEOUT);
		ck_assert_uint_eq(ctr_get(&st.fails[P3F_TIMEOUT]), 1);
	}
	/* the RETR in flight is counted as cut off */
	ck_assert_uint_eq(ctr_get(&st.failed[P3_RETR]), 1);
	ck_assert_uint_eq(g.r.retrieved, 0);
	pop3_client_free(c);
	bufferevent_free(s.bev);
	stats_fini(&st);
	event_base_free(s.base);
}
END_TEST

/* STLS asked for and not offered: the session ends before USER, so no
 * password goes out in clear. */
START_TEST(test_stls_not_offered)
{
	struct srv s = { .base = event_base_new(), .n_msgs = 2 };
	struct got g = { 0 };
	struct pop3_stats st;
	stats_init(&st);
	struct pop3_env env = { 0 };
	env.base = s.base;
	env.open = srv_open;
	env.open_arg = &s;
	env.timeout_s = 5;
	env.tls_mode = POP3_TLS_STLS;
	env.stats = &st;
	env.on_result = got_result;
	env.cb_arg = &g;
	g.base = s.base;
	struct pop3_client *c = pop3_client_new(&env);
	struct pop3_login who = { .user = "u1", .pass = "p" };

	pop3_session_start(c, &who, &g);
	event_base_dispatch(s.base);
	ck_assert(g.r.failed);
	ck_assert_int_eq(g.r.fail, P3F_TLS);
	ck_assert_str_eq(g.text, "STLS is not offered (CAPA)");
	ck_assert_uint_eq(ctr_get(&st.ok[P3_USER]) + ctr_get(&st.err[P3_USER]) +
			  ctr_get(&st.failed[P3_USER]), 0);
	ck_assert_uint_eq(ctr_get(&st.fails[P3F_TLS]), 1);
	pop3_client_free(c);
	bufferevent_free(s.bev);
	stats_fini(&st);
	event_base_free(s.base);
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct srv s = { .base = event_base_new() };
	struct got g = { 0 };
	struct pop3_client *c = client_new(&s, &g, NULL, 5);
	struct pop3_login who = { .user = "u\r\nDELE 1", .pass = "p" };

	ck_assert_int_eq(pop3_session_start(c, &who, &g), -1);
	who.user = "";
	ck_assert_int_eq(pop3_session_start(c, &who, &g), -1);
	ck_assert_uint_eq(pop3_client_busy(c), 0);
	pop3_client_free(c);
	event_base_free(s.base);
}
END_TEST

/* AUTH PLAIN's line (RFC 5034, RFC 4616): base64 of NUL user NUL pass,
 * and none when it would pass RFC 5034's 255 octets: such a user is
 * refused at start. */
START_TEST(test_auth_plain_line)
{
	char line[P3_AUTH_LINE_MAX + 1], user[200];

	ck_assert_uint_eq(p3_auth_line("u", "p", line), 21);
	ck_assert_str_eq(line, "AUTH PLAIN AHUAcA==\r\n");
	/* 178 + 2 octets: 240 of base64, 253 with the verb and CRLF. */
	memset(user, 'a', 177);
	user[177] = '\0';
	ck_assert_uint_eq(p3_auth_line(user, "p", line), 253);
	user[177] = 'a';
	user[178] = '\0';
	ck_assert_uint_eq(p3_auth_line(user, "p", line), 0);

	struct got g = { 0 };
	struct pop3_env env;
	memset(&env, 0, sizeof(env));
	env.base = event_base_new();
	env.auth = POP3_AUTH_PLAIN;
	struct pop3_client *c = pop3_client_new(&env);
	struct pop3_login who = { .user = user, .pass = "p" };
	ck_assert_int_eq(pop3_session_start(c, &who, &g), -1);
	ck_assert_uint_eq(pop3_client_busy(c), 0);
	pop3_client_free(c);
	event_base_free(env.base);
}
END_TEST

#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

static Suite *
pop3_suite(void)
{
	Suite *s = suite_create("pop3");
	TCase *tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse_split_everywhere, 0, N(pcases));
	tcase_add_test(tc, test_line_bound);
	tcase_add_test(tc, test_response_bound);
	tcase_add_test(tc, test_bounds_independent_of_cuts);
	tcase_add_test(tc, test_callback_stops);
	tcase_add_test(tc, test_scanners);
	suite_add_tcase(s, tc);
	tc = tcase_create("client");
	tcase_add_loop_test(tc, test_visit_retr_dele_quit, 0, 2);
	tcase_add_test(tc, test_keeping_user_skips_what_it_has);
	tcase_add_test(tc, test_pass_refused);
	tcase_add_loop_test(tc, test_hostile_endless_and_silent, 0, 2);
	tcase_add_test(tc, test_stls_not_offered);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_auth_plain_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pop3_suite)
