/* test_conn.c: one connection driven on its own, through conn.h only,
 * over a bufferevent pair against a peer played by the test (no socket,
 * no worker): greeting, LOGIN, a pipelined burst, a reply with a literal
 * split at every byte, a LOGOUT answered with BYE, and a reset in the
 * middle of a literal.  A recording driver checks that each hook is
 * called, in order, with the right reason. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "config.h"
#include "conn.h"
#include "shared.h"
#include "stats.h"

#define MAX_EVENTS 4096
#define MAX_TAGS 64

/* The hooks, as the driver saw them. */
enum ev_kind { H_LOGGED_IN, H_REPLIED, H_CLOSED };

struct ev {
	enum ev_kind kind;
	enum conn_end end;
	enum err_kind err;
};

struct t {
	struct event_base *base;
	struct config cfg;
	struct shared_live live;
	struct shared sh;
	struct stats *stats;
	char *rbuf;
	uint32_t msg_seq;
	struct conn_env env;
	struct conn *c;
	struct bufferevent *peer;	/* the server's end of the pair */
	bool ready_before_login;	/* ready called while not logged in */
	unsigned n_ready;
	struct ev ev[MAX_EVENTS];
	unsigned n_ev;
	/* Commands the client sent that the peer has not answered. */
	char tags[MAX_TAGS][32];
	char cmds[MAX_TAGS][32];
	unsigned n_tags;
};

static struct t T;

static void
record(enum ev_kind kind, enum conn_end end, enum err_kind err)
{
	ck_assert_uint_lt(T.n_ev, MAX_EVENTS);
	T.ev[T.n_ev++] = (struct ev){ kind, end, err };
}

static void
hook_logged_in(void *arg, struct conn *c)
{
	ck_assert_ptr_eq(arg, &T);
	ck_assert_ptr_eq(c, T.c);
	record(H_LOGGED_IN, 0, 0);
}

static void
hook_replied(void *arg, struct conn *c)
{
	record(H_REPLIED, 0, 0);
}

static bool
hook_ready(void *arg, struct conn *c)
{
	bool logged_in = false;
	for (unsigned i = 0; i < T.n_ev; i++)
		if (T.ev[i].kind == H_LOGGED_IN)
			logged_in = true;
	if (!logged_in)
		T.ready_before_login = true;
	T.n_ready++;
	return true;
}

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	record(H_CLOSED, end, err);
	conn_finish(c);		/* this driver runs one session at a time */
}

static const struct conn_hooks hooks = {
	.logged_in = hook_logged_in,
	.replied = hook_replied,
	.ready = hook_ready,
	.closed = hook_closed,
};

static void
setup(void)
{
	char err[256];
	char *av[] = {
		(char *)"imapstress", (char *)"-", (char *)"select=100",
		(char *)"noop=100", (char *)"logout=0", (char *)"user=tester",
		(char *)"pass=secret", (char *)"clients=1", (char *)"seed=1",
		(char *)"--pipeline", (char *)"4", NULL
	};

	memset(&T, 0, sizeof(T));
	config_defaults(&T.cfg);
	ck_assert_int_eq(config_parse(&T.cfg, 11, av, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&T.cfg, err, sizeof(err)), 0);
	T.base = event_base_new();
	ck_assert_ptr_nonnull(T.base);
	T.sh.cfg = &T.cfg;
	T.sh.n_workers = 1;
	T.sh.run_id = 1;
	T.sh.live = &T.live;
	T.stats = stats_new();
	T.rbuf = malloc(CONN_MAX_READ);
	T.env = (struct conn_env){
		.cfg = &T.cfg, .sh = &T.sh, .base = T.base, .stats = T.stats,
		.rbuf = T.rbuf, .stores = NULL, .msg_seq = &T.msg_seq,
		.worker_id = 0, .hooks = &hooks, .hook_arg = &T,
	};
	T.c = conn_new(&T.env, 0);
	conn_set_user(T.c, "tester", "secret");
}

static void
teardown(void)
{
	conn_free(T.c);
	if (T.peer != NULL)
		bufferevent_free(T.peer);
	stats_free(T.stats);
	free(T.rbuf);
	event_base_free(T.base);
	config_free(&T.cfg);
}

/* Run what is ready until nothing is: deferred callbacks, the pair's
 * transfers.  No timer is waited for. */
static void
pump(void)
{
	for (int i = 0; i < 20; i++)
		event_base_loop(T.base, EVLOOP_NONBLOCK);
}

/* The client's lines so far, into T.tags/T.cmds; returns how many. */
static unsigned
take_lines(void)
{
	struct evbuffer *in = bufferevent_get_input(T.peer);
	unsigned n = 0;
	char *line;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		ck_assert_uint_lt(T.n_tags, MAX_TAGS);
		char *sp = strchr(line, ' ');
		ck_assert_msg(sp != NULL, "untagged client line: %s", line);
		*sp = '\0';
		snprintf(T.tags[T.n_tags], sizeof(T.tags[0]), "%s", line);
		char *cmd = sp + 1, *end = strchr(cmd, ' ');
		if (end != NULL)
			*end = '\0';
		snprintf(T.cmds[T.n_tags], sizeof(T.cmds[0]), "%s", cmd);
		T.n_tags++;
		n++;
		free(line);
	}
	return n;
}

/* Answer the oldest unanswered command: `untagged` then its tagged OK,
 * written as two pieces split at `split` (0: one piece). */
static void
answer(const char *cmd, const char *untagged, const char *ok, size_t split)
{
	char buf[1024];

	ck_assert_uint_gt(T.n_tags, 0);
	ck_assert_str_eq(T.cmds[0], cmd);
	int n = snprintf(buf, sizeof(buf), "%s%s OK %s\r\n", untagged,
			 T.tags[0], ok);
	ck_assert_int_lt(n, (int)sizeof(buf));
	memmove(T.tags, T.tags + 1, (T.n_tags - 1) * sizeof(T.tags[0]));
	memmove(T.cmds, T.cmds + 1, (T.n_tags - 1) * sizeof(T.cmds[0]));
	T.n_tags--;
	if (split > 0) {
		bufferevent_write(T.peer, buf, split);
		pump();
		/* Not complete yet: no reply may have been taken. */
		ck_assert_uint_eq(conn_in_flight(T.c), T.n_tags + 1);
		bufferevent_write(T.peer, buf + split, (size_t)n - split);
	} else {
		bufferevent_write(T.peer, buf, (size_t)n);
	}
	pump();
}

static unsigned
count(enum ev_kind kind)
{
	unsigned n = 0;
	for (unsigned i = 0; i < T.n_ev; i++)
		n += T.ev[i].kind == kind;
	return n;
}

/* A session up to a selected mailbox: pair, greeting, LOGIN, SELECT. */
static void
session_to_select(void)
{
	struct bufferevent *pair[2];

	ck_assert_int_eq(bufferevent_pair_new(T.base, BEV_OPT_DEFER_CALLBACKS,
					      pair), 0);
	T.peer = pair[1];
	bufferevent_enable(T.peer, EV_READ | EV_WRITE);
	conn_attach(T.c, pair[0]);
	pump();
	ck_assert_uint_eq(take_lines(), 0);	/* nothing before the greeting */

	bufferevent_write(T.peer, "* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n",
			  41);
	pump();
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "LOGIN");
	ck_assert_uint_eq(count(H_LOGGED_IN), 0);

	unsigned before = T.n_ev;
	answer("LOGIN", "", "[CAPABILITY IMAP4rev1 LITERAL+] in", 0);
	ck_assert_uint_gt(T.n_ev, before);
	ck_assert_int_eq(T.ev[before].kind, H_LOGGED_IN);
	ck_assert(!T.ready_before_login);
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "SELECT");
	answer("SELECT", "* FLAGS (\\Seen)\r\n* 0 EXISTS\r\n* 0 RECENT\r\n"
	       "* OK [UIDVALIDITY 7] ok\r\n", "[READ-WRITE] selected", 0);
}

START_TEST(test_conn_session)
{
	session_to_select();

	/* The pipelined burst: four NOOPs (--pipeline 4) before any reply. */
	ck_assert_uint_eq(take_lines(), 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_str_eq(T.cmds[i], "NOOP");
	ck_assert_uint_gt(T.n_ready, 0);

	/* All four answered in one write: four replied hooks, and the
	 * connection fills its pipeline again. */
	unsigned replied = count(H_REPLIED);
	char burst[512];
	size_t o = 0;
	for (unsigned i = 0; i < 4; i++)
		o += (size_t)snprintf(burst + o, sizeof(burst) - o,
				      "%s OK done\r\n", T.tags[i]);
	T.n_tags = 0;
	bufferevent_write(T.peer, burst, o);
	pump();
	ck_assert_uint_eq(count(H_REPLIED), replied + 4);
	ck_assert_uint_eq(take_lines(), 4);

	/* An untagged reply with a literal, split at every byte: nothing
	 * counts until the tagged line is complete, then exactly one. */
	static const char lit[] = "* STATUS {3}\r\nfoo (MESSAGES 1)\r\n";
	unsigned splits = 0;
	for (size_t k = 1;; k++) {
		/* The whole answer is lit, "<tag> OK done\r\n". */
		size_t n = strlen(lit) + strlen(T.tags[0]) + strlen(" OK done\r\n");
		if (k >= n)
			break;
		replied = count(H_REPLIED);
		answer("NOOP", lit, "done", k);
		ck_assert_uint_eq(count(H_REPLIED), replied + 1);
		ck_assert_uint_eq(take_lines(), 1);	/* the next NOOP */
		splits++;
	}
	ck_assert_uint_gt(splits, 40);
	ck_assert_uint_eq(T.n_tags, 4);

	/* Drain: what is in flight finishes, then LOGOUT; BYE + OK end the
	 * session as a logout, and the closed hook is the last call. */
	conn_drain(T.c);
	pump();
	ck_assert_uint_eq(take_lines(), 0);	/* nothing new while draining */
	while (T.n_tags > 0)
		answer("NOOP", "", "done", 0);
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "LOGOUT");
	answer("LOGOUT", "* BYE logging out\r\n", "bye", 0);
	ck_assert_uint_gt(T.n_ev, 0);
	ck_assert_int_eq(T.ev[T.n_ev - 1].kind, H_CLOSED);
	ck_assert_int_eq(T.ev[T.n_ev - 1].end, CONN_END_LOGOUT);
	ck_assert_uint_eq(count(H_CLOSED), 1);
	ck_assert(conn_finished(T.c));

	/* The order: one login first, then only replies, then the close. */
	ck_assert_int_eq(T.ev[0].kind, H_LOGGED_IN);
	for (unsigned i = 1; i + 1 < T.n_ev; i++)
		ck_assert_int_eq(T.ev[i].kind, H_REPLIED);

	/* What the shard says matches what the peer answered. */
	unsigned noops = 4 + splits + 4;	/* burst, splits, drain */
	ck_assert_uint_eq(ctr_get(&T.stats->ok[OP_NOOP]), noops);
	ck_assert_uint_eq(ctr_get(&T.stats->ok[OP_LOGIN]), 1);
	ck_assert_uint_eq(ctr_get(&T.stats->ok[OP_SELECT]), 1);
	ck_assert_uint_eq(ctr_get(&T.stats->ok[OP_LOGOUT]), 1);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.stats->errors[k]), 0);
}
END_TEST

START_TEST(test_conn_reset_mid_literal)
{
	session_to_select();
	ck_assert_uint_eq(take_lines(), 4);

	/* Half a literal, then the connection is reset. */
	static const char half[] = "* STATUS {10}\r\nabc";
	bufferevent_write(T.peer, half, sizeof(half) - 1);
	pump();
	unsigned before = T.n_ev;
	errno = ECONNRESET;
	/* The connection's end reports the reset, as a socket would. */
	bufferevent_trigger_event(bufferevent_pair_get_partner(T.peer),
				  BEV_EVENT_READING | BEV_EVENT_ERROR, 0);
	pump();

	ck_assert_uint_eq(T.n_ev, before + 1);
	ck_assert_int_eq(T.ev[before].kind, H_CLOSED);
	ck_assert_int_eq(T.ev[before].end, CONN_END_FAILED);
	ck_assert_int_eq(T.ev[before].err, ERR_DISCONNECT);
	ck_assert(conn_finished(T.c));
	/* The four NOOPs in flight died with it; one disconnect error. */
	ck_assert_uint_eq(ctr_get(&T.stats->failed[OP_NOOP]), 4);
	ck_assert_uint_eq(ctr_get(&T.stats->ok[OP_NOOP]), 0);
	ck_assert_uint_eq(ctr_get(&T.stats->errors[ERR_DISCONNECT]), 1);
	ck_assert_uint_eq(conn_in_flight(T.c), 0);
}
END_TEST

static Suite *
conn_suite(void)
{
	Suite *s = suite_create("conn");
	TCase *tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conn_session);
	tcase_add_test(tc, test_conn_reset_mid_literal);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(conn_suite)
