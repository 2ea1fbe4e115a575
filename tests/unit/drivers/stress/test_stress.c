/* test_stress.c: the stress driver (src/drivers/stress/) on a real worker
 * of the run (run/worker.c, not started as a thread) whose one connection
 * is attached to a bufferevent pair: the test plays the server.  What the
 * driver decides is seen on the wire and in the worker's shard: the plan
 * logs in and pipelines, a dropped session reconnects the same slot, a
 * drain finishes it and ends the worker, and --rate sends one command per
 * due time through the open loop. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "conn/conn_fixture.h"
#include "drivers/stress/stress.h"
#include "run/driver.h"
#include "run/worker.h"

#define MAX_LINES 64

static struct {
	struct conn_fx fx;		/* the config and shared pieces only */
	struct worker_group g;
	struct stress_run *run;
	struct worker *w;
	struct bufferevent *peer;
	char tags[MAX_LINES][32], cmds[MAX_LINES][32];
	unsigned n;
} T;

static void
setup_with(const char *const *extra)
{
	memset(&T, 0, sizeof(T));
	conn_fx_setup(&T.fx, extra, NULL, NULL, 0);
	T.g.latency_log_fd = -1;
	T.run = stress_run_new(&T.fx.cfg, 1);
	T.w = worker_new(0, &T.fx.sh, &T.g, stress_driver(T.run));
	ck_assert_uint_eq(worker_n_conns(T.w), 1);	/* clients=1 */

	/* The slot is started, on a pair instead of a socket. */
	struct bufferevent *pair[2];
	ck_assert_int_eq(bufferevent_pair_new(worker_base(T.w),
					      BEV_OPT_DEFER_CALLBACKS, pair), 0);
	T.peer = pair[1];
	bufferevent_enable(T.peer, EV_READ | EV_WRITE);
	T.w->n_started = 1;
	conn_attach(worker_conn(T.w, 0), pair[0]);
}

static void
setup(void)
{
	setup_with((const char *const[]){ "--pipeline", "4", NULL });
}

static void
setup_rate(void)
{
	setup_with((const char *const[]){ "--pipeline", "4", "--rate", "200",
					  NULL });
}

static void
teardown(void)
{
	if (T.peer != NULL)
		bufferevent_free(T.peer);
	worker_free(T.w);
	stress_run_free(T.run);
	conn_fx_teardown(&T.fx);
}

static void
pump(void)
{
	for (int i = 0; i < 20; i++)
		event_base_loop(worker_base(T.w), EVLOOP_NONBLOCK);
}

/* The client's new lines into T.tags/T.cmds; how many. */
static unsigned
take(void)
{
	return conn_fx_take(T.peer, T.tags, T.cmds, &T.n, MAX_LINES);
}

/* Answer the oldest command `cmd` with `untagged` and a tagged OK. */
static void
ok(const char *cmd, const char *untagged)
{
	char buf[512];

	ck_assert_uint_gt(T.n, 0);
	ck_assert_str_eq(T.cmds[0], cmd);
	int n = snprintf(buf, sizeof(buf), "%s%s OK done\r\n", untagged,
			 T.tags[0]);
	memmove(T.tags, T.tags + 1, (T.n - 1) * sizeof(T.tags[0]));
	memmove(T.cmds, T.cmds + 1, (T.n - 1) * sizeof(T.cmds[0]));
	T.n--;
	bufferevent_write(T.peer, buf, (size_t)n);
	pump();
}

static uint64_t
oks(enum op op)
{
	return ctr_get(&worker_stats(T.w)->ok[op]);
}

/* Greeting, LOGIN, SELECT: the engine's set-up, the plan's first steps. */
static void
log_in_and_select(void)
{
	const char greet[] = "* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n";

	bufferevent_write(T.peer, greet, sizeof(greet) - 1);
	pump();
	ck_assert_uint_eq(take(), 1);
	ok("LOGIN", "");
	ck_assert_uint_eq(oks(OP_LOGIN), 1);
	ck_assert_uint_ge(take(), 1);
	ok("CAPABILITY", "* CAPABILITY IMAP4rev1 LITERAL+\r\n");
	take();
	ok("SELECT", "* 3 EXISTS\r\n");
	ck_assert_uint_eq(oks(OP_SELECT), 1);
}

START_TEST(test_stress_session_reconnect_drain)
{
	struct conn *c = worker_conn(T.w, 0);

	log_in_and_select();
	/* The plan pipelines NOOPs up to --pipeline 4, through the driver's
	 * ready hook (no checkpoint, no open loop: it lets them go). */
	take();
	ck_assert_uint_eq(T.n, 4);
	ck_assert_uint_eq(conn_in_flight(c), 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_str_eq(T.cmds[i], "NOOP");
	ok("NOOP", "");
	ck_assert_uint_eq(oks(OP_NOOP), 1);
	ck_assert_uint_eq(take(), 1);		/* refilled */
	ck_assert_uint_eq(conn_in_flight(c), 4);

	/* The server drops the session: four NOOPs fail, the driver keeps
	 * the slot (a reconnect after a backoff), not finished. */
	bufferevent_trigger_event(bufferevent_pair_get_partner(T.peer),
				  BEV_EVENT_EOF, 0);
	pump();
	ck_assert_uint_eq(ctr_get(&worker_stats(T.w)->failed[OP_NOOP]), 4);
	ck_assert(!conn_finished(c));
	ck_assert(!atomic_load(&T.w->done));

	/* A drain while it waits to reconnect: the driver finishes the
	 * slot, and the worker, with no slot left, is done. */
	worker_request_stop(T.w, WORKER_DRAIN);
	pump();
	ck_assert(worker_draining(T.w));
	ck_assert(conn_finished(c));
	ck_assert_uint_eq(T.w->n_active, 0);
	ck_assert(atomic_load(&T.w->done));
}
END_TEST

START_TEST(test_stress_open_loop)
{
	struct conn *c = worker_conn(T.w, 0);
	unsigned sent = 0;

	/* Logged in, the ready hook holds the plan and hands the connection
	 * to the open loop: SELECT goes out when due, alone. */
	const char greet[] = "* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n";
	bufferevent_write(T.peer, greet, sizeof(greet) - 1);
	pump();
	ck_assert_uint_eq(take(), 1);
	ok("LOGIN", "");
	ck_assert_uint_eq(take(), 1);
	ok("CAPABILITY", "* CAPABILITY IMAP4rev1 LITERAL+\r\n");
	for (int i = 0; i < 200 && take() == 0; i++)
		event_base_loop(worker_base(T.w), EVLOOP_ONCE);
	ck_assert_uint_eq(T.n, 1);
	ck_assert_str_eq(T.cmds[0], "SELECT");
	ok("SELECT", "* 3 EXISTS\r\n");

	/* Then one NOOP per due time, never a pipeline of four: each is
	 * answered before the next goes. */
	while (sent < 5) {
		for (int i = 0; i < 200 && take() == 0; i++)
			event_base_loop(worker_base(T.w), EVLOOP_ONCE);
		ck_assert_uint_eq(T.n, 1);
		ck_assert_uint_eq(conn_in_flight(c), 1);
		ck_assert_str_eq(T.cmds[0], "NOOP");
		ok("NOOP", "");
		sent++;
	}
	ck_assert_uint_eq(oks(OP_NOOP), 5);
}
END_TEST

static Suite *
stress_driver_suite(void)
{
	Suite *s = suite_create("stress_driver");
	TCase *tc = tcase_create("closed loop");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_stress_session_reconnect_drain);
	suite_add_tcase(s, tc);
	tc = tcase_create("open loop");
	tcase_add_checked_fixture(tc, setup_rate, teardown);
	tcase_add_test(tc, test_stress_open_loop);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(stress_driver_suite)
