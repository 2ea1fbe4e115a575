/* test_stress_plan.c: the stress plan (src/drivers/stress/stress_plan.h)
 * driving one connection of the engine over a bufferevent pair against a
 * peer played by the test (no socket, no worker): greeting, LOGIN (the
 * engine's), then the plan choosing and pipelining its commands through
 * the engine's one command call and hearing the replies back (a burst, a
 * reply with a literal split at every byte, a failed SELECT answered with
 * CREATE, DISCONNECT during a DELAY), a LOGOUT answered with BYE, and a
 * reset in the middle of a literal.  The test's hooks record what the
 * engine tells its driver, in order, and hand on to the plan as the
 * stress driver's hooks do (stress.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "conn/conn.h"
#include "conn/conn_fixture.h"
#include "drivers/stress/stress_plan.h"
#include "msg/msg.h"
#include "stats/stats.h"

#define MAX_EVENTS 4096
#define MAX_TAGS 64

/* The hooks, as the driver saw them. */
enum ev_kind { H_LOGGED_IN, H_READY, H_CLOSED };

struct ev {
	enum ev_kind kind;
	enum conn_end end;
	enum err_kind err;
};

struct t {
	struct conn_fx fx;
	struct stress_plans plans;	/* the plan of the one connection */
	struct msg_pool *pool;		/* APPEND's messages, or NULL */
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

/* Tagged replies counted in the shard, every command and outcome. */
static unsigned
replies(void)
{
	uint64_t n = 0;
	for (unsigned op = 0; op < OP_COUNT; op++)
		n += ctr_get(&T.fx.stats->ok[op]) + ctr_get(&T.fx.stats->no[op]) +
		    ctr_get(&T.fx.stats->bad[op]);
	return (unsigned)n;
}

static void
hook_logged_in(void *arg, struct conn *c)
{
	ck_assert_ptr_eq(arg, &T);
	ck_assert_ptr_eq(c, T.fx.c);
	record(H_LOGGED_IN, 0, 0);
	stress_plan_logged_in(&T.plans, c);
}

static void
hook_ready(void *arg, struct conn *c)
{
	bool logged_in = false;
	for (unsigned i = 0; i < T.n_ev; i++)
		if (T.ev[i].kind == H_LOGGED_IN)
			logged_in = true;
	if (!logged_in)
		T.ready_before_login = true;
	T.n_ready++;
	record(H_READY, 0, 0);
	stress_plan_send(&T.plans, c);
}

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	record(H_CLOSED, end, err);
	stress_plan_closed(&T.plans, c);
	conn_finish(c);		/* this driver runs one session at a time */
}

static const struct conn_hooks hooks = {
	.logged_in = hook_logged_in,
	.ready = hook_ready,
	.closed = hook_closed,
};

/* A connection for the workload `state` ("noop=100", ...) after
 * "select=100", with `pipeline` commands in flight at most. */
static void
plans_init(void)
{
	stress_plan_init(&T.plans, &T.fx.cfg, &T.fx.sh, T.fx.stats, 0, 1);
}

static void
setup_workload(const char *state, const char *pipeline)
{
	memset(&T, 0, sizeof(T));
	conn_fx_setup_state(&T.fx, state,
	    ((const char *const[]){ "--pipeline", pipeline, NULL }), &hooks, &T, 0);
	plans_init();
}

static void
setup(void)
{
	setup_workload("noop=100", "4");
}

/* FETCH2 that always repeats: with imaptest's 30% the walk goes back to
 * SELECT, which (already selected, so skipped) still waits, as in
 * imaptest, for the pipeline to drain. */
static void
setup_fetch2(void)
{
	setup_workload("fet2=100,100", "10");
}

static void
teardown(void)
{
	conn_fx_teardown(&T.fx);
	stress_plan_free(&T.plans);
	msg_pool_free(T.pool);
}

static void
pump(void)
{
	conn_fx_pump(&T.fx);
}

/* The client's lines so far, into T.tags/T.cmds; returns how many. */
static unsigned
take_lines(void)
{
	return conn_fx_take(T.fx.peer, T.tags, T.cmds, &T.n_tags, MAX_TAGS);
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
		bufferevent_write(T.fx.peer, buf, split);
		pump();
		/* Not complete yet: no reply may have been taken. */
		ck_assert_uint_eq(conn_in_flight(T.fx.c), T.n_tags + 1);
		bufferevent_write(T.fx.peer, buf + split, (size_t)n - split);
	} else {
		bufferevent_write(T.fx.peer, buf, (size_t)n);
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

/* A session up to a selected mailbox of `exists` messages: pair,
 * greeting and LOGIN (both saying capabilities `caps`), SELECT. */
static void
session_to_select_caps(const char *caps, unsigned exists)
{
	char line[160];

	conn_fx_attach(&T.fx);
	pump();
	ck_assert_uint_eq(take_lines(), 0);	/* nothing before the greeting */

	snprintf(line, sizeof(line), "* OK [CAPABILITY %s] hi\r\n", caps);
	bufferevent_write(T.fx.peer, line, strlen(line));
	pump();
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "LOGIN");
	ck_assert_uint_eq(count(H_LOGGED_IN), 0);

	unsigned before = T.n_ev;
	snprintf(line, sizeof(line), "[CAPABILITY %s] in", caps);
	answer("LOGIN", "", line, 0);
	ck_assert_uint_gt(T.n_ev, before);
	ck_assert_int_eq(T.ev[before].kind, H_LOGGED_IN);
	ck_assert(!T.ready_before_login);
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "SELECT");
	char untagged[160];
	snprintf(untagged, sizeof(untagged), "* FLAGS (\\Seen)\r\n* %u EXISTS\r\n"
		 "* 0 RECENT\r\n* OK [UIDVALIDITY 7] ok\r\n", exists);
	answer("SELECT", untagged, "[READ-WRITE] selected", 0);
}

static void
session_to_select_n(unsigned exists)
{
	session_to_select_caps("IMAP4rev1 LITERAL+", exists);
}

static void
session_to_select(void)
{
	session_to_select_n(0);
}

START_TEST(test_conn_session)
{
	session_to_select();

	/* The pipelined burst: four NOOPs (--pipeline 4) before any reply. */
	ck_assert_uint_eq(take_lines(), 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_str_eq(T.cmds[i], "NOOP");
	ck_assert_uint_gt(T.n_ready, 0);

	/* All four answered in one write: four replies counted, the driver
	 * told the connection is free (once per read, not per reply), and
	 * the connection fills its pipeline again. */
	unsigned replied = replies(), ready = count(H_READY);
	char burst[512];
	size_t o = 0;
	for (unsigned i = 0; i < 4; i++)
		o += (size_t)snprintf(burst + o, sizeof(burst) - o,
				      "%s OK done\r\n", T.tags[i]);
	T.n_tags = 0;
	bufferevent_write(T.fx.peer, burst, o);
	pump();
	ck_assert_uint_eq(replies(), replied + 4);
	ck_assert_uint_gt(count(H_READY), ready);
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
		replied = replies();
		answer("NOOP", lit, "done", k);
		ck_assert_uint_eq(replies(), replied + 1);
		ck_assert_uint_eq(take_lines(), 1);	/* the next NOOP */
		splits++;
	}
	ck_assert_uint_gt(splits, 40);
	ck_assert_uint_eq(T.n_tags, 4);

	/* Drain: what is in flight finishes, then LOGOUT; BYE + OK end the
	 * session as a logout, and the closed hook is the last call. */
	conn_drain(T.fx.c);
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
	ck_assert(conn_finished(T.fx.c));

	/* The order: one login first, then only "free", then the close. */
	ck_assert_int_eq(T.ev[0].kind, H_LOGGED_IN);
	for (unsigned i = 1; i + 1 < T.n_ev; i++)
		ck_assert_int_eq(T.ev[i].kind, H_READY);

	/* What the shard says matches what the peer answered. */
	unsigned noops = 4 + splits + 4;	/* burst, splits, drain */
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_NOOP]), noops);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_LOGIN]), 1);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_SELECT]), 1);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_LOGOUT]), 1);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
}
END_TEST

START_TEST(test_conn_reset_mid_literal)
{
	session_to_select();
	ck_assert_uint_eq(take_lines(), 4);

	/* Half a literal, then the connection is reset. */
	static const char half[] = "* STATUS {10}\r\nabc";
	bufferevent_write(T.fx.peer, half, sizeof(half) - 1);
	pump();
	unsigned before = T.n_ev;
	errno = ECONNRESET;
	/* The connection's end reports the reset, as a socket would. */
	bufferevent_trigger_event(bufferevent_pair_get_partner(T.fx.peer),
				  BEV_EVENT_READING | BEV_EVENT_ERROR, 0);
	pump();

	ck_assert_uint_eq(T.n_ev, before + 1);
	ck_assert_int_eq(T.ev[before].kind, H_CLOSED);
	ck_assert_int_eq(T.ev[before].end, CONN_END_FAILED);
	ck_assert_int_eq(T.ev[before].err, ERR_DISCONNECT);
	ck_assert(conn_finished(T.fx.c));
	/* The four NOOPs in flight died with it; one disconnect error. */
	ck_assert_uint_eq(ctr_get(&T.fx.stats->failed[OP_NOOP]), 4);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_NOOP]), 0);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[ERR_DISCONNECT]), 1);
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 0);
}
END_TEST

/* The reply to the oldest unanswered command, a FETCH of one `size`-octet
 * body, appended to `out`; that command is then answered. */
static void
fetch_reply(struct evbuffer *out, size_t size)
{
	ck_assert_uint_gt(T.n_tags, 0);
	ck_assert_str_eq(T.cmds[0], "FETCH");
	evbuffer_add_printf(out, "* 1 FETCH (UID 1 BODY[] {%zu}\r\n", size);
	for (size_t i = 0; i < size; i++)
		evbuffer_add(out, i % 74 == 72 ? "\r" : i % 74 == 73 ? "\n" : "y", 1);
	evbuffer_add_printf(out, ")\r\n%s OK done\r\n", T.tags[0]);
	memmove(T.tags, T.tags + 1, (T.n_tags - 1) * sizeof(T.tags[0]));
	memmove(T.cmds, T.cmds + 1, (T.n_tags - 1) * sizeof(T.cmds[0]));
	T.n_tags--;
}

/* What the peer queued in `b`, octets [from, to), written to the client. */
static void
peer_write_range(struct evbuffer *b, size_t from, size_t to)
{
	const unsigned char *p = evbuffer_pullup(b, -1);
	bufferevent_write(T.fx.peer, p + from, to - from);
	pump();
}

START_TEST(test_conn_fetch2_pipeline_full)
{
	session_to_select_n(5);

	/* All ten slots fill at once, in one write. */
	ck_assert_uint_eq(take_lines(), 10);
	for (unsigned i = 0; i < 10; i++)
		ck_assert_str_eq(T.cmds[i], "FETCH");
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 10);

	/* Ten 4 KB replies in one write: each counted, and the ten slots
	 * they free are filled again. */
	struct evbuffer *b = evbuffer_new();
	unsigned replied = replies();
	for (unsigned i = 0; i < 10; i++)
		fetch_reply(b, 4096);
	peer_write_range(b, 0, evbuffer_get_length(b));
	ck_assert_uint_eq(replies(), replied + 10);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_FETCH2]), 10);
	ck_assert_uint_eq(take_lines(), 10);
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 10);

	/* One reply cut inside its body, at the CRLF before its tagged line
	 * and inside the tag: nothing counts or goes out until the tagged
	 * line is whole, then one reply and one new FETCH. */
	uint64_t octets = ctr_get(&T.fx.stats->imap_received);
	for (unsigned k = 0; k < 3; k++) {
		evbuffer_drain(b, evbuffer_get_length(b));
		size_t tag_len = strlen(T.tags[0]);
		fetch_reply(b, 4096);
		size_t len = evbuffer_get_length(b);
		size_t line_at = len - tag_len - strlen(" OK done\r\n");
		size_t cut = k == 0 ? 2000 : k == 1 ? line_at - 1 : line_at + 1;
		replied = replies();
		peer_write_range(b, 0, cut);
		ck_assert_uint_eq(replies(), replied);
		ck_assert_uint_eq(take_lines(), 0);
		peer_write_range(b, cut, len);
		ck_assert_uint_eq(replies(), replied + 1);
		ck_assert_uint_eq(take_lines(), 1);
		ck_assert_uint_eq(conn_in_flight(T.fx.c), 10);
		octets += len;
	}
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_FETCH2]), 13);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->imap_received), octets);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_SELECT]), 1);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
	evbuffer_free(b);
}
END_TEST

/* What an idle connection may hold in its own pieces (conn_footprint):
 * 15,000 idle connections must fit in 6.5 KB each, and the parser and
 * libevent's bufferevent, events and buffers take ~2.6 KB of that. */
#define IDLE_CONN_BUDGET 1024

/* An idle session (its IDLE in flight) holds only the inline in-flight
 * slots: no deep pipeline's, no continuation, no COMPRESS state. */
START_TEST(test_conn_idle_footprint)
{
	size_t fresh = conn_footprint(T.fx.c);

	ck_assert_uint_le(fresh, IDLE_CONN_BUDGET);
	session_to_select_caps("IMAP4rev1 LITERAL+ IDLE", 0);
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "IDLE");
	bufferevent_write(T.fx.peer, "+ idling\r\n", 10);
	pump();
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 1);
	ck_assert_uint_eq(conn_footprint(T.fx.c), fresh);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
}
END_TEST

/* The deepest pipeline (--pipeline 62) still works: 62 NOOPs out at
 * once, answered newest first, each matched and counted, and refilled;
 * the slots come from the heap for that session only. */
START_TEST(test_conn_deep_pipeline)
{
	size_t fresh = conn_footprint(T.fx.c);
	char burst[62 * 32];
	size_t o = 0;

	session_to_select();
	ck_assert_uint_eq(take_lines(), 62);
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 62);
	/* 64 heap slots of at least 32 octets (tag, op, clock, driver). */
	ck_assert_uint_ge(conn_footprint(T.fx.c), fresh + 64 * 32);

	unsigned replied = replies();
	for (unsigned i = 62; i-- > 0;)
		o += (size_t)snprintf(burst + o, sizeof(burst) - o,
				      "%s OK done\r\n", T.tags[i]);
	ck_assert_uint_lt(o, sizeof(burst));
	T.n_tags = 0;
	bufferevent_write(T.fx.peer, burst, o);
	pump();
	ck_assert_uint_eq(replies(), replied + 62);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_NOOP]), 62);
	ck_assert_uint_eq(take_lines(), 62);
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 62);

	conn_drain(T.fx.c);
	pump();
	while (T.n_tags > 0)
		answer("NOOP", "", "done", 0);
	ck_assert_uint_eq(take_lines(), 1);
	answer("LOGOUT", "* BYE logging out\r\n", "bye", 0);
	ck_assert_int_eq(T.ev[T.n_ev - 1].kind, H_CLOSED);
	ck_assert_int_eq(T.ev[T.n_ev - 1].end, CONN_END_LOGOUT);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_NOOP]), 124);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);

	/* The next session starts with the inline slots again. */
	bufferevent_free(T.fx.peer);
	conn_fx_attach(&T.fx);
	ck_assert_uint_eq(conn_footprint(T.fx.c), fresh);
}
END_TEST

/* imaptest's DISCONNECT chance, taken while a DELAY pause is on (its
 * timer replaced by the disconnect's): the next session must not inherit
 * the pause.  It did, and never sent a byte: no ID, no LOGIN, and a run
 * that could not drain. */
START_TEST(test_conn_disconnect_during_delay)
{
	static const char *const extra[] = { "delay=100", "disconnect=100",
					     NULL };
	char buf[256];

	teardown();
	memset(&T, 0, sizeof(T));
	conn_fx_setup(&T.fx, extra, &hooks, &T, 0);
	plans_init();
	conn_fx_attach(&T.fx);
	const char greet[] = "* OK [CAPABILITY IMAP4rev1 LITERAL+ ID] hi\r\n";
	bufferevent_write(T.fx.peer, greet, sizeof(greet) - 1);
	pump();
	ck_assert_uint_eq(take_lines(), 2);
	ck_assert_str_eq(T.cmds[0], "ID");
	ck_assert_str_eq(T.cmds[1], "LOGIN");
	/* LOGIN first, with ID still out: no DISCONNECT yet (it needs
	 * nothing in flight); the plan's SELECT goes, then a DELAY. */
	int n = snprintf(buf, sizeof(buf), "%s OK [CAPABILITY IMAP4rev1 "
			 "LITERAL+ ID] in\r\n%s OK id\r\n", T.tags[1],
			 T.tags[0]);
	T.n_tags = 0;
	bufferevent_write(T.fx.peer, buf, (size_t)n);
	pump();
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "SELECT");
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_DELAY]), 1);
	/* Its OK leaves nothing in flight: DISCONNECT, during the pause. */
	answer("SELECT", "* 0 EXISTS\r\n", "selected", 0);
	ck_assert_uint_eq(count(H_CLOSED), 1);
	ck_assert_int_eq(T.ev[T.n_ev - 1].end, CONN_END_PLANNED);

	/* The next session speaks at once. */
	bufferevent_free(T.fx.peer);
	conn_fx_attach(&T.fx);
	bufferevent_write(T.fx.peer, greet, sizeof(greet) - 1);
	pump();
	ck_assert_uint_eq(take_lines(), 2);
	ck_assert_str_eq(T.cmds[1], "LOGIN");
}
END_TEST

/* A synchronizing literal (no LITERAL+; a login name with 8-bit octets
 * goes as a literal) makes the continuation buffer when first needed:
 * the LOGIN stops at "{7}", the rest goes after "+". */
START_TEST(test_conn_sync_literal)
{
	struct evbuffer *in;
	char tag[32], *line;
	size_t len, fresh;

	conn_set_user(T.fx.c, "t\xc3\xa9ster", "secret");
	fresh = conn_footprint(T.fx.c);
	conn_fx_attach(&T.fx);
	pump();
	bufferevent_write(T.fx.peer, "* OK [CAPABILITY IMAP4rev1] hi\r\n", 32);
	pump();
	in = bufferevent_get_input(T.fx.peer);
	line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF);
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(sscanf(line, "%31s", tag), 1);
	ck_assert_str_eq(line + strlen(tag), " LOGIN {7}");
	free(line);
	ck_assert_uint_eq(evbuffer_get_length(in), 0);	/* waits for "+" */
	ck_assert_uint_gt(conn_footprint(T.fx.c), fresh);

	bufferevent_write(T.fx.peer, "+ go\r\n", 6);
	pump();
	line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF);
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, "t\xc3\xa9ster \"secret\"");
	free(line);
	evbuffer_add_printf(bufferevent_get_output(T.fx.peer), "%s OK in\r\n", tag);
	pump();
	ck_assert_uint_eq(count(H_LOGGED_IN), 1);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_LOGIN]), 1);
}
END_TEST

/* The plan hears its replies back through the engine's done callback:
 * a SELECT refused with NO is counted as a NO by the engine, and the plan
 * answers it as imaptest does, with a CREATE of box= (a set-up command,
 * not a row of the table) before its next commands. */
START_TEST(test_stress_plan_select_no_creates)
{
	conn_fx_attach(&T.fx);
	pump();
	bufferevent_write(T.fx.peer, "* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n",
			  41);
	pump();
	ck_assert_uint_eq(take_lines(), 1);
	answer("LOGIN", "", "[CAPABILITY IMAP4rev1 LITERAL+] in", 0);
	ck_assert_uint_eq(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "SELECT");

	char buf[160];
	int n = snprintf(buf, sizeof(buf), "%s NO no such mailbox\r\n",
			 T.tags[0]);
	T.n_tags = 0;
	bufferevent_write(T.fx.peer, buf, (size_t)n);
	pump();
	ck_assert_uint_eq(ctr_get(&T.fx.stats->no[OP_SELECT]), 1);
	ck_assert_uint_ge(take_lines(), 1);
	ck_assert_str_eq(T.cmds[0], "CREATE");
	/* Then the walk goes on, not selected: NOOPs, and SELECT again once
	 * the walk comes round to it. */
	ck_assert_uint_ge(T.n_tags, 2);
	for (unsigned i = 1; i < T.n_tags; i++)
		ck_assert_msg(strcmp(T.cmds[i], "NOOP") == 0 ||
			      strcmp(T.cmds[i], "SELECT") == 0, "%s", T.cmds[i]);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_SELECT]), 0);
}
END_TEST

/* MULTIAPPEND as imaptest does it: the builder takes every APPEND at the
 * head of the plan into one command (pool bodies added through the
 * engine's conn_cmd_body); its OK, counted by the engine, adds every
 * message it carried. */
START_TEST(test_stress_plan_multiappend)
{
	struct evbuffer *in;
	char tag[32], *line;
	size_t len;

	session_to_select_caps("IMAP4rev1 LITERAL+ MULTIAPPEND", 0);
	in = bufferevent_get_input(T.fx.peer);
	line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF);
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(sscanf(line, "%31s", tag), 1);
	ck_assert_ptr_nonnull(strstr(line, " APPEND "));
	free(line);
	/* The rest of the command: one "{N+}" literal per further message. */
	unsigned msgs = 1;
	const char *p = (const char *)evbuffer_pullup(in, -1);
	size_t left = evbuffer_get_length(in);
	for (size_t i = 0; i + 4 < left; i++)
		if (p[i] == '+' && p[i + 1] == '}' && p[i + 2] == '\r')
			msgs++;
	/* Each body begins with the marker (the fixture's run id is 1),
	 * generated ones with their Message-ID next (issue 31). */
	static const char mark[] = "X-Imapstress: run=0000000000000001 (";
	static const char next[] = "+}\r\nX-Imapstress: run=0000000000000001 (";
	unsigned marks = strncmp(p, mark, sizeof(mark) - 1) == 0;
	for (const char *q = p; (q = memmem(q, left - (size_t)(q - p), next,
					    sizeof(next) - 1)) != NULL; q++)
		marks++;
	ck_assert_uint_eq(marks, msgs);
	ck_assert_ptr_nonnull(memmem(p, left, "\r\nMessage-ID: <0000000000000001.",
				     32));
	evbuffer_drain(in, left);
	ck_assert_uint_gt(msgs, 1);
	ck_assert_uint_eq(conn_in_flight(T.fx.c), 1);	/* --pipeline 1 */

	char buf[96];
	int n = snprintf(buf, sizeof(buf), "%s OK appended\r\n", tag);
	bufferevent_write(T.fx.peer, buf, (size_t)n);
	pump();
	ck_assert_uint_eq(ctr_get(&T.fx.stats->ok[OP_APPEND]), 1);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->append_msgs), msgs);
	for (unsigned k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
}
END_TEST

static void
setup_idle(void)
{
	setup_workload("idle=100", "10");
}

static void
setup_append(void)
{
	setup_workload("append=100,100", "1");
	T.pool = msg_pool_generate(1, 1024, 64 * 1024);
	T.fx.sh.pool = T.pool;
}

static void
setup_deep(void)
{
	setup_workload("noop=100", "62");
}

/* Every state has a builder in the table the batch calls through
 * (stress_op_send): a state added to enum op without one would be a
 * call through NULL. */
START_TEST(test_stress_builders_whole)
{
	for (unsigned op = 0; op < OP_COUNT; op++)
		ck_assert_msg(stress_builders[op] != NULL, "%s has no builder",
			      op_table[op].name);
	ck_assert(stress_builders[OP_APPEND] == stress_append);
}
END_TEST

/* A test case of one test on a fixture of its own. */
static void
add_case(Suite *s, const char *name, void (*fixture)(void), const TTest *test)
{
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, fixture, teardown);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

static Suite *
stress_plan_suite(void)
{
	Suite *s = suite_create("stress_plan");
	TCase *tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conn_session);
	tcase_add_test(tc, test_conn_reset_mid_literal);
	tcase_add_test(tc, test_conn_sync_literal);
	tcase_add_test(tc, test_conn_disconnect_during_delay);
	tcase_add_test(tc, test_stress_builders_whole);
	suite_add_tcase(s, tc);
	add_case(s, "fetch2", setup_fetch2, test_conn_fetch2_pipeline_full);
	add_case(s, "idle", setup_idle, test_conn_idle_footprint);
	add_case(s, "deep", setup_deep, test_conn_deep_pipeline);
	add_case(s, "select_no", setup, test_stress_plan_select_no_creates);
	add_case(s, "multiappend", setup_append, test_stress_plan_multiappend);
	return s;
}

TEST_SUITE(stress_plan_suite)
