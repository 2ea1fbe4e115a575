/* exit_policy (src/run/exit_policy.c): the exit status table, row by row,
 * and the stop checks every run loop turn makes: which reason wins, and
 * which stops wait for the commands in flight (for how long: finite work,
 * init's, is stopped only by a signal and drains without --grace). */
#include <pthread.h>
#include <signal.h>

#include "check_main.h"
#include "config/config.h"
#include "report/report.h"
#include "run/exit_policy.h"

START_TEST(test_status_table)
{
	struct run_outcome o = { 0 };

	ck_assert_int_eq(exit_policy_status(&o), EXIT_OK);
	/* Each failure on its own is 1. */
	struct run_outcome one[] = {
		{ .quit = true }, { .some_unusable = true },
		{ .hard_errors = 1 }, { .sla_failed = 1 }, { .unfinished = 1 },
		{ .failed = 1 }, { .output_failed = true },
	};
	for (unsigned i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		ck_assert_msg(exit_policy_status(&one[i]) == EXIT_FAILED,
			      "row %u", i);
	/* Nobody got in is 3, whatever else failed. */
	o = (struct run_outcome){ .unusable = true };
	ck_assert_int_eq(exit_policy_status(&o), EXIT_UNUSABLE);
	o = (struct run_outcome){ .unusable = true, .quit = true,
				  .hard_errors = 5, .output_failed = true };
	ck_assert_int_eq(exit_policy_status(&o), EXIT_UNUSABLE);
	/* A late failure makes 0 into 1 and leaves a worse status. */
	ck_assert_int_eq(exit_policy_fail(EXIT_OK), EXIT_FAILED);
	ck_assert_int_eq(exit_policy_fail(EXIT_FAILED), EXIT_FAILED);
	ck_assert_int_eq(exit_policy_fail(EXIT_UNUSABLE), EXIT_UNUSABLE);
	/* The numbers users and scripts rely on. */
	ck_assert_int_eq(EXIT_OK, 0);
	ck_assert_int_eq(EXIT_FAILED, 1);
	ck_assert_int_eq(EXIT_USAGE, 2);
	ck_assert_int_eq(EXIT_UNUSABLE, 3);
}
END_TEST

/* A run in which someone is in and nothing went wrong. */
static struct stop_view
healthy(uint64_t elapsed_us)
{
	return (struct stop_view){ .elapsed_us = elapsed_us, .logins = 3,
				   .oks = 10, .conns_open = 3 };
}

START_TEST(test_stop_duration)
{
	struct config c;
	config_defaults(&c);
	struct stop_view v = healthy(2999999);

	c.secs = 3;
	struct stop_verdict s = exit_policy_stop(&c, &v);
	ck_assert(!s.stop);
	v.elapsed_us = 3000000;
	s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && !s.quit && !s.unusable && !s.at_once);
	ck_assert_int_eq(s.why, STOP_DURATION);
	/* secs=0: until a signal. */
	c.secs = 0;
	v.elapsed_us = 3600000000ULL;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	config_free(&c);
}
END_TEST

START_TEST(test_stop_quit)
{
	struct config c;
	config_defaults(&c);
	struct stop_view v = healthy(1000000);

	/* Errors stop nothing unless asked. */
	v.errors = 4;
	v.disconnects = 2;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	c.error_quit = true;
	struct stop_verdict s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && s.quit && s.at_once);
	ck_assert_int_eq(s.why, STOP_ERROR_QUIT);
	/* Both: disconnect_quit's reason, and then the grace applies. */
	c.disconnect_quit = true;
	s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && s.quit && !s.at_once);
	ck_assert_int_eq(s.why, STOP_DISCONNECT_QUIT);
	c.error_quit = false;
	v.errors = 0;
	v.disconnects = 0;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	config_free(&c);
}
END_TEST

START_TEST(test_stop_unusable)
{
	struct config c;
	config_defaults(&c);
	struct stop_view v = { .elapsed_us = 60000000, .conns_open = 0 };

	/* No session begun yet (a profile's first login after its ramp-up
	 * or a long set-up): nothing said of the server, however long. */
	ck_assert(!exit_policy_stop(&c, &v).stop);
	ck_assert(exit_policy_needs_poll(&c, &v));
	/* Nobody in yet: wait 5 s from the first session begun. */
	v.since_connect_us = EXIT_POLICY_UNUSABLE_AFTER_US - 1;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	v.since_connect_us = EXIT_POLICY_UNUSABLE_AFTER_US;
	struct stop_verdict s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && s.unusable && s.at_once && !s.quit);
	ck_assert_int_eq(s.why, STOP_UNUSABLE);
	/* Connected and not refused: still trying. */
	v.conns_open = 2;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	v.refused_logins = 1;
	ck_assert(exit_policy_stop(&c, &v).unusable);
	/* A refused certificate or LOGINDISABLED: at once. */
	v = (struct stop_view){ .elapsed_us = 1, .conns_open = 1,
				.tls_refused = true };
	ck_assert(exit_policy_stop(&c, &v).unusable);
	v.tls_refused = false;
	v.login_disabled = true;
	ck_assert(exit_policy_stop(&c, &v).unusable);
	/* One OK is enough to be usable. */
	v.oks = 1;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	/* Unusable wins the reason over error_quit. */
	c.error_quit = true;
	v = (struct stop_view){ .elapsed_us = 6000000, .since_connect_us = 6000000,
				.errors = 1 };
	s = exit_policy_stop(&c, &v);
	ck_assert(s.unusable && s.quit);
	ck_assert_int_eq(s.why, STOP_UNUSABLE);
	config_free(&c);
}
END_TEST

/* A signal drains a running run; one more while it drains halts it. */
START_TEST(test_signal)
{
	ck_assert_int_eq(exit_policy_signal(false, UINT64_MAX), STOP_SIG_DRAIN);
	ck_assert_int_eq(exit_policy_signal(true, UINT64_MAX), STOP_SIG_HALT);
	/* Draining since secs= ran out: no signal began it, so one halts. */
	ck_assert_int_eq(exit_policy_signal(true, UINT64_MAX), STOP_SIG_HALT);
	/* timeout(1)'s second TERM, microseconds after its first: the same
	 * stop; a person's second Ctrl-C, later: at once. */
	ck_assert_int_eq(exit_policy_signal(true, 40), STOP_SIG_SAME);
	ck_assert_int_eq(exit_policy_signal(true, EXIT_POLICY_SAME_STOP_US - 1),
			 STOP_SIG_SAME);
	ck_assert_int_eq(exit_policy_signal(true, EXIT_POLICY_SAME_STOP_US),
			 STOP_SIG_HALT);
	ck_assert_int_eq(exit_policy_signal(false, 40), STOP_SIG_DRAIN);
}
END_TEST

/* The second TERM of timeout(1) comes 5 ms after the first, but a loaded
 * loop took it 250 ms later, after a tick that waited for the workers:
 * one pending as the wait began is dated to when the loop last stopped
 * waiting, the earliest it can have come (t_timeout_signal's two-term
 * case failed beside two busy loops: "Received a second signal"). */
START_TEST(test_signal_arrival)
{
	sigset_t one;

	/* Came during the wait: now. */
	ck_assert_uint_eq(exit_policy_arrival(false, 1000, 251000), 251000);
	/* Pending as the wait began: when the loop last stopped waiting. */
	uint64_t t = exit_policy_arrival(true, 1000, 251000);
	ck_assert_uint_eq(t, 1000);
	ck_assert_int_eq(exit_policy_signal(true, t - 1000), STOP_SIG_SAME);
	ck_assert_int_eq(exit_policy_signal(true, 251000 - 1000), STOP_SIG_HALT);
	ck_assert_uint_eq(exit_policy_arrival(true, 5000, 5000), 5000);
	/* A TERM blocked and raised (to this thread: another may not block
	 * it) is pending until taken. */
	sigemptyset(&one);
	sigaddset(&one, SIGTERM);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &one, NULL), 0);
	ck_assert(!exit_policy_stop_pending());
	ck_assert_int_eq(raise(SIGTERM), 0);
	ck_assert(exit_policy_stop_pending());
	int sig = 0;
	ck_assert_int_eq(sigwait(&one, &sig), 0);
	ck_assert_int_eq(sig, SIGTERM);
	ck_assert(!exit_policy_stop_pending());
	ck_assert_int_eq(pthread_sigmask(SIG_UNBLOCK, &one, NULL), 0);
}
END_TEST

START_TEST(test_poll_and_end)
{
	struct config c;
	config_defaults(&c);
	struct stop_view v = healthy(0);

	ck_assert(!exit_policy_needs_poll(&c, &v));
	c.disconnect_quit = true;
	ck_assert(exit_policy_needs_poll(&c, &v));
	c.disconnect_quit = false;
	v.logins = v.oks = 0;
	ck_assert(exit_policy_needs_poll(&c, &v));
	/* Connects but nobody in: unusable, however short the run. */
	ck_assert(exit_policy_unusable_at_end(0, 0, 1));
	ck_assert(!exit_policy_unusable_at_end(0, 0, 0));
	ck_assert(!exit_policy_unusable_at_end(1, 0, 1));
	ck_assert(!exit_policy_unusable_at_end(0, 1, 1));
	config_free(&c);
}
END_TEST

/* Finite work (init): none of the stop checks but the foreign-mail
 * guard's; the loop polls for the work's end; a drain has no --grace. */
START_TEST(test_stop_finite)
{
	struct config c;
	config_defaults(&c);
	struct stop_view v = { .elapsed_us = 3600000000ULL, .errors = 5,
			       .disconnects = 5, .conns_open = 0,
			       .refused_logins = 9, .tls_refused = true,
			       .finite = true };

	c.secs = 3;
	c.error_quit = true;
	c.disconnect_quit = true;
	ck_assert(!exit_policy_stop(&c, &v).stop);
	ck_assert(exit_policy_needs_poll(&c, &v));
	c.error_quit = c.disconnect_quit = false;
	v.logins = v.oks = 1;
	ck_assert(exit_policy_needs_poll(&c, &v));
	ck_assert_uint_eq(exit_policy_drain_deadline(&c, true, 1000), UINT64_MAX);
	c.grace_secs = 2;
	ck_assert_uint_eq(exit_policy_drain_deadline(&c, false, 1000), 2001000);
	/* The same view, not finite: stopped at once as unusable. */
	v.finite = false;
	v.logins = v.oks = 0;
	struct stop_verdict s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && s.unusable);
	/* One stop finite work has: the foreign-mail guard's refusal (init
	 * --trim), at once, and the run exits 2 for it. */
	v.finite = true;
	v.foreign_refused = true;
	s = exit_policy_stop(&c, &v);
	ck_assert(s.stop && s.at_once && !s.unusable);
	ck_assert_int_eq(s.why, STOP_FOREIGN);
	struct run_outcome o = { .failed = 1, .foreign = true };
	ck_assert_int_eq(exit_policy_status(&o), 2);
	config_free(&c);
}
END_TEST

static Suite *
exit_policy_suite(void)
{
	Suite *s = suite_create("exit_policy");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_status_table);
	tcase_add_test(tc, test_signal_arrival);
	tcase_add_test(tc, test_stop_duration);
	tcase_add_test(tc, test_stop_quit);
	tcase_add_test(tc, test_stop_unusable);
	tcase_add_test(tc, test_signal);
	tcase_add_test(tc, test_poll_and_end);
	tcase_add_test(tc, test_stop_finite);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(exit_policy_suite)
