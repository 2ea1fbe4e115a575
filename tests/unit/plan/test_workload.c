/* test_workload.c: imaptest's "plan" (which state a connection sends next)
 * against its documented semantics: the append-only seed line, a long
 * simulated session with the default mix, the guards against a plan with
 * nothing to do, refills around state changes.  The pipelining rules of
 * plan_may_send are test_plan_may_send.c's. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "plan/ops.h"
#include "util/rng.h"
#include "plan/workload.h"
#include "workload_fixture.h"

#define SIM_STEPS 100000

static bool
is_selected_only(enum op op)
{
	return op_table[op].need == OP_NEED_SELECTED;
}

/* --- the seed line: `- append=100 ... logout=0 select=0` -------------- */

static void
append_only_by_hand(struct config *cfg)
{
	config_defaults(cfg);
	for (int i = 0; i < OP_COUNT; i++)
		cfg->states[i].prob = cfg->states[i].again = 0;
	cfg->states[OP_LOGIN].prob = 100;
	cfg->states[OP_APPEND].prob = 100;
	cfg->states[OP_APPEND].again = 5;
}

static void
append_only_parsed(struct config *cfg)
{
	char *argv[] = { "imapstress", "-", "append=100", "seed=1", "secs=30",
			 "msgs=1000000", "logout=0", "select=0", "clients=100" };
	char err[256];

	config_defaults(cfg);
	ck_assert_msg(config_parse(cfg, (int)N(argv), argv, err, sizeof(err)) == 0,
		      "config_parse: %s", err);
}

/* The plan a fresh session makes with only LOGIN and APPEND enabled. */
static void
check_append_only_plan(const struct config *cfg)
{
	struct plan p;
	struct rng r;
	struct plan_pending none = pending_of(LSTATE_NONAUTH, NULL, 0);

	plan_init(&p);
	rng_seed(&r, 1, 0);
	ck_assert_int_eq(plan_update(&p, cfg, &r, LSTATE_NONAUTH, &none), OP_LOGIN);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_int_eq(p.q[0], OP_LOGIN);
	ck_assert(plan_may_send(OP_LOGIN, LSTATE_NONAUTH, &none));
	ck_assert_int_eq(plan_take(&p), OP_LOGIN);
	ck_assert_uint_eq(p.n, 0);

	none = pending_of(LSTATE_AUTH, NULL, 0);
	ck_assert_int_eq(plan_update(&p, cfg, &r, LSTATE_AUTH, &none), OP_APPEND);
	ck_assert_uint_eq(p.n, PLAN_LEN);
	for (unsigned i = 0; i < p.n; i++)
		ck_assert_msg(p.q[i] == OP_APPEND, "q[%u] = %s, want APPEND", i,
			      op_table[p.q[i]].name);
	for (unsigned left = PLAN_LEN; left > 0; left--) {
		ck_assert_int_eq(plan_take(&p), OP_APPEND);
		ck_assert_uint_eq(p.n, left - 1);
		ck_assert_int_eq(p.last, OP_APPEND);
	}
	/* And the refill is APPEND again: no LOGOUT, no SELECT. */
	ck_assert_int_eq(plan_update(&p, cfg, &r, LSTATE_AUTH, &none), OP_APPEND);
	ck_assert_uint_eq(p.n, PLAN_LEN);
	ck_assert(plan_has_work(cfg));
}

START_TEST(test_append_only_by_hand)
{
	struct config cfg;
	append_only_by_hand(&cfg);
	check_append_only_plan(&cfg);
	config_free(&cfg);
}
END_TEST

START_TEST(test_append_only_parsed)
{
	struct config cfg;
	append_only_parsed(&cfg);
	for (int i = OP_LOGIN + 1; i <= OP_LOGOUT; i++)
		if (i != OP_APPEND)
			ck_assert_msg(cfg.states[i].prob == 0, "%s = %d%%",
				      op_table[i].name, cfg.states[i].prob);
	ck_assert_int_eq(cfg.states[OP_LOGIN].prob, 100);
	ck_assert_int_eq(cfg.states[OP_APPEND].prob, 100);
	ck_assert_int_eq(cfg.states[OP_APPEND].again, 5);
	ck_assert_uint_eq(plan_msgs_threshold(&cfg), 1000000 - 125000);
	check_append_only_plan(&cfg);
	config_free(&cfg);
}
END_TEST

START_TEST(test_take_in_order)
{
	struct plan p;
	const uint8_t want[] = { OP_LIST, OP_STATUS, OP_STATUS, OP_SELECT };

	plan_init(&p);
	memcpy(p.q, want, sizeof(want));
	p.n = N(want);
	for (unsigned i = 0; i < N(want); i++) {
		ck_assert_int_eq(plan_take(&p), want[i]);
		ck_assert_uint_eq(p.n, N(want) - 1 - i);
		ck_assert_int_eq(p.last, want[i]);
	}
}
END_TEST

/* --- a long simulated session ------------------------------------------ */

struct sim {
	unsigned long count[OP_COUNT];
	unsigned long selected_only_outside;	/* must stay 0 */
	unsigned long login_while_logged_in;	/* must stay 0 */
	unsigned long follow[OP_COUNT];		/* times op had a successor */
	unsigned long repeat[OP_COUNT];		/* ... and it was itself */
	unsigned long select_while_selected;
	uint8_t trace[64];			/* first ops, for determinism */
};

/* Take the head of the plan SIM_STEPS times, pretending each command
 * completed at once: nothing is ever pending.  Plain checks in the loop:
 * every ck_assert costs a message to the runner. */
static void
simulate(const struct config *cfg, uint64_t seed, struct sim *s)
{
	struct plan p;
	struct rng r;
	enum lstate cur = LSTATE_NONAUTH;
	enum op prev = OP_COUNT;
	const char *broken = NULL;
	unsigned broken_step = 0;

	memset(s, 0, sizeof(*s));
	plan_init(&p);
	rng_seed(&r, seed, 3);
	for (unsigned step = 0; step < SIM_STEPS && broken == NULL; step++) {
		struct plan_pending none = pending_of(cur, NULL, 0);
		enum op h = plan_update(&p, cfg, &r, cur, &none);
		if (p.n < 1 || p.n > PLAN_LEN)
			broken = "plan length out of 1..PLAN_LEN";
		else if (h != p.q[0])
			broken = "plan_update did not return the head";
		else if (!plan_may_send(h, cur, &none))
			broken = "head not sendable with nothing pending";
		else if (plan_take(&p) != h)
			broken = "plan_take did not return the head";
		if (broken != NULL) {
			broken_step = step;
			break;
		}

		enum op op = h;
		s->count[op]++;
		if (step < N(s->trace))
			s->trace[step] = (uint8_t)op;
		if (is_selected_only(op) && cur != LSTATE_SELECTED)
			s->selected_only_outside++;
		if ((op == OP_LOGIN || op == OP_AUTHENTICATE) &&
		    cur != LSTATE_NONAUTH)
			s->login_while_logged_in++;
		if (op == OP_SELECT && cur == LSTATE_SELECTED)
			s->select_while_selected++;
		if (prev != OP_COUNT) {
			s->follow[prev]++;
			if (prev == op)
				s->repeat[prev]++;
		}
		prev = op;
		if (op_table[op].flags & OPF_STATECHANGE)
			cur = plan_target_lstate(op);
	}
	ck_assert_msg(broken == NULL, "step %u: %s", broken_step, broken);
}

static void
check_invariants(const struct config *cfg, const struct sim *s)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (cfg->states[i].prob == 0)
			ck_assert_msg(s->count[i] == 0, "%s has 0%% but ran %lu times",
				      op_table[i].name, s->count[i]);
	ck_assert_uint_eq(s->selected_only_outside, 0);
	ck_assert_uint_eq(s->login_while_logged_in, 0);
}

/* Each state's count per LOGIN (one session) within a band around what
 * the in-order walk gives: P, or P/(1-R) for a repeating state. */
static void
check_per_session(const struct sim *s, enum op op, double want, double band)
{
	double got = (double)s->count[op] / (double)s->count[OP_LOGIN];
	ck_assert_msg(got > want - band && got < want + band,
		      "%s: %.3f per session, want %.3f +- %.3f",
		      op_table[op].name, got, want, band);
}

static void
check_repeat_rate(const struct sim *s, enum op op, double lo, double hi)
{
	ck_assert_uint_gt(s->follow[op], 0);
	double got = (double)s->repeat[op] / (double)s->follow[op];
	ck_assert_msg(got > lo && got < hi, "%s repeats %.3f, want %.2f..%.2f",
		      op_table[op].name, got, lo, hi);
}

START_TEST(test_default_mix)
{
	struct config cfg;
	struct sim s;

	config_defaults(&cfg);
	simulate(&cfg, 1, &s);
	check_invariants(&cfg, &s);

	/* The in-order walk: LOGIN, LIST?, STATUS?, SELECT, then the
	 * SELECTED states and LOGOUT, once per session. */
	ck_assert_uint_gt(s.count[OP_LOGIN], 5000);
	ck_assert_uint_eq(s.select_while_selected, 0);
	check_per_session(&s, OP_LIST, 0.50, 0.05);
	check_per_session(&s, OP_STATUS, 0.50, 0.05);
	check_per_session(&s, OP_SELECT, 1.00, 0.01);
	check_per_session(&s, OP_FETCH, 1.00, 0.01);
	check_per_session(&s, OP_FETCH2, 1.0 / 0.70, 0.08);
	check_per_session(&s, OP_COPY, 0.33 / 0.95, 0.05);
	check_per_session(&s, OP_STORE, 0.50, 0.05);
	check_per_session(&s, OP_DELETE, 1.00, 0.01);
	check_per_session(&s, OP_EXPUNGE, 1.00, 0.01);
	check_per_session(&s, OP_APPEND, 1.0 / 0.95, 0.03);
	/* The run may stop mid-session: LOGOUT trails LOGIN by at most 1. */
	ck_assert_uint_le(s.count[OP_LOGOUT], s.count[OP_LOGIN]);
	ck_assert_uint_ge(s.count[OP_LOGOUT] + 1, s.count[OP_LOGIN]);

	check_repeat_rate(&s, OP_FETCH2, 0.25, 0.35);
	check_repeat_rate(&s, OP_APPEND, 0.02, 0.09);
	ck_assert_uint_eq(s.repeat[OP_FETCH], 0);	/* no repeat % */
	ck_assert_uint_eq(s.repeat[OP_LOGOUT], 0);
	config_free(&cfg);
}
END_TEST

/* MULTIAPPEND as stress_append builds it: the APPEND at the head, then
 * one more message for each APPEND plan_update puts at the head next.
 * With repeat chance R a command carries a geometric number of extra
 * messages, mean R/(1-R), so messages per command are 1/(1-R): 1.111 for
 * R=10, 1.25 for R=20 (a learned mix once read 12 and 24 back, and the
 * question was whether planning after a MULTIAPPEND draws the repeat
 * twice; it does not).  The extras of C commands sum to C*R/(1-R) with a
 * standard deviation of sqrt(C*R)/(1-R): within 5 of those. */
static void
check_multiappend(int again)
{
	struct config cfg;
	struct plan p;
	struct rng r;
	enum lstate cur = LSTATE_NONAUTH;
	uint64_t cmds = 0, msgs = 0;
	char *argv[] = { "imapstress", "-", "list=30,0", "status=60,0",
			 "select=100", "uidfetch=25,0", "fetch=80,0",
			 "fetch2=50,20", "append=70,10", "noop=20,0",
			 "logout=50,0" };
	char err[256];

	config_defaults(&cfg);
	ck_assert_msg(config_parse(&cfg, (int)N(argv), argv, err, sizeof(err)) == 0,
		      "config_parse: %s", err);
	cfg.states[OP_APPEND].again = again;
	plan_init(&p);
	rng_seed(&r, 37, 1);
	for (unsigned step = 0; step < SIM_STEPS; step++) {
		struct plan_pending none = pending_of(cur, NULL, 0);
		enum op op = plan_update(&p, &cfg, &r, cur, &none);
		(void)plan_take(&p);
		if (op == OP_APPEND) {
			uint64_t k = 1;
			while (k < PLAN_LEN &&
			       plan_update(&p, &cfg, &r, cur, &none) == OP_APPEND) {
				(void)plan_take(&p);
				k++;
			}
			cmds++;
			msgs += k;
		}
		if (op_table[op].flags & OPF_STATECHANGE)
			cur = plan_target_lstate(op);
	}
	double R = again / 100.0, extra = (double)(msgs - cmds);
	double mean = (double)cmds * R / (1 - R);
	double sd = sqrt((double)cmds * R) / (1 - R);
	ck_assert_uint_gt(cmds, 10000);
	ck_assert_msg(fabs(extra - mean) <= 5 * sd,
		      "R=%d: %llu messages in %llu APPENDs (%.3f each), want "
		      "%.3f: %.0f extra, %.0f +- %.0f", again,
		      (unsigned long long)msgs, (unsigned long long)cmds,
		      (double)msgs / (double)cmds, 1 / (1 - R), extra, mean,
		      5 * sd);
	config_free(&cfg);
}

START_TEST(test_multiappend_repeat)
{
	check_multiappend(10);
	check_multiappend(20);
}
END_TEST

START_TEST(test_random_mix)
{
	struct config cfg;
	struct sim s;

	config_defaults(&cfg);
	cfg.random_states = true;
	simulate(&cfg, 7, &s);
	check_invariants(&cfg, &s);
	/* Random order still reaches everything enabled. */
	for (int i = OP_LOGIN; i <= OP_LOGOUT; i++)
		if (cfg.states[i].prob > 0)
			ck_assert_msg(s.count[i] > 0, "%s never ran",
				      op_table[i].name);
	check_repeat_rate(&s, OP_FETCH2, 0.20, 0.45);
	config_free(&cfg);
}
END_TEST

/* A repeat % on LOGIN or AUTHENTICATE must not log in twice. */
START_TEST(test_login_repeat_ignored)
{
	struct config cfg;
	struct sim s;

	config_defaults(&cfg);
	cfg.states[OP_LOGIN].again = 50;
	cfg.states[OP_AUTHENTICATE].prob = 50;
	cfg.states[OP_AUTHENTICATE].again = 50;
	simulate(&cfg, 11, &s);
	check_invariants(&cfg, &s);
	ck_assert_uint_gt(s.count[OP_AUTHENTICATE], 1000);
	ck_assert_uint_gt(s.count[OP_LOGIN], 1000);
	config_free(&cfg);
}
END_TEST

START_TEST(test_deterministic)
{
	struct config cfg;
	static struct sim a, b, c;

	config_defaults(&cfg);
	simulate(&cfg, 42, &a);
	simulate(&cfg, 42, &b);
	simulate(&cfg, 43, &c);
	ck_assert_mem_eq(a.trace, b.trace, sizeof(a.trace));
	ck_assert_mem_eq(a.count, b.count, sizeof(a.count));
	ck_assert_mem_eq(a.repeat, b.repeat, sizeof(a.repeat));
	ck_assert(memcmp(a.count, c.count, sizeof(a.count)) != 0);
	config_free(&cfg);
}
END_TEST

/* --- plans with nothing (or nothing reachable) to do ------------------- */

START_TEST(test_nothing_after_login)
{
	struct config cfg;
	struct plan p;
	struct rng r;
	struct plan_pending none = pending_of(LSTATE_AUTH, NULL, 0);

	config_defaults(&cfg);
	for (int i = OP_LOGIN + 1; i < OP_COUNT; i++)
		cfg.states[i].prob = 0;
	ck_assert(!plan_has_work(&cfg));

	/* Should a caller plan anyway, it leaves instead of spinning. */
	plan_init(&p);		/* last = LOGIN: just logged in */
	rng_seed(&r, 1, 0);
	ck_assert_int_eq(plan_update(&p, &cfg, &r, LSTATE_AUTH, &none), OP_LOGOUT);
	ck_assert_uint_eq(p.n, 1);

	/* Any one state after LOGIN is work, LOGOUT included. */
	cfg.states[OP_LOGOUT].prob = 1;
	ck_assert(plan_has_work(&cfg));
	config_free(&cfg);
}
END_TEST

static void
selected_only(struct config *cfg)
{
	config_defaults(cfg);
	for (int i = 0; i < OP_COUNT; i++)
		cfg->states[i].prob = 0;
	cfg->states[OP_LOGIN].prob = 100;
	cfg->states[OP_FETCH].prob = 100;
	cfg->states[OP_FETCH2].prob = 100;
	cfg->states[OP_STORE].prob = 50;
	cfg->states[OP_EXPUNGE].prob = 100;
}

START_TEST(test_selected_only_no_spin)
{
	struct config cfg;
	struct plan p;
	struct rng r;
	struct plan_pending none = pending_of(LSTATE_AUTH, NULL, 0);

	selected_only(&cfg);
	cfg.random_states = _i == 1;
	plan_init(&p);
	rng_seed(&r, 1, 0);
	/* Reaching the next line at all is the test: imaptest hangs here. */
	ck_assert_int_eq(plan_update(&p, &cfg, &r, LSTATE_AUTH, &none), OP_LOGOUT);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_int_eq(plan_take(&p), OP_LOGOUT);
	config_free(&cfg);
}
END_TEST

/* Regression (fixed): plan_has_work() answers "is there any state a logged-in session
 * could run?" by looking for any probability > 0 after LOGIN, so a mix
 * whose only states need SELECTED while SELECT is 0 counts as work.  No
 * session can ever run them: each logs in, falls back to LOGOUT (even
 * with logout=0) and logs in again, a login storm instead of main's clear
 * "nothing to do".  Expected false, actual true.  Fix: count a SELECTED
 * state only when SELECT has probability > 0. */
START_TEST(test_selected_only_is_no_work)
{
	struct config cfg;

	selected_only(&cfg);
	ck_assert_msg(!plan_has_work(&cfg),
		      "SELECTED-only states with SELECT=0 reported as work");
	cfg.states[OP_SELECT].prob = 1;
	ck_assert(plan_has_work(&cfg));
	config_free(&cfg);
}
END_TEST

/* --- refilling around state changes ------------------------------------ */

START_TEST(test_no_plan_past_statechange)
{
	struct config cfg;
	struct plan p;
	struct rng r;
	struct plan_pending none = pending_of(LSTATE_AUTH, NULL, 0);

	config_defaults(&cfg);
	rng_seed(&r, 5, 0);
	plan_init(&p);
	p.last = OP_LOGIN;
	p.q[0] = OP_LIST;
	p.q[1] = OP_SELECT;
	p.n = 2;
	ck_assert_int_eq(plan_update(&p, &cfg, &r, LSTATE_AUTH, &none), OP_LIST);
	ck_assert_uint_eq(p.n, 2);

	/* A fill stops at its first state change. */
	plan_init(&p);
	plan_update(&p, &cfg, &r, LSTATE_AUTH, &none);
	for (unsigned i = 0; i + 1 < p.n; i++)
		ck_assert(!(op_table[p.q[i]].flags & OPF_STATECHANGE));
	ck_assert_int_eq(p.q[p.n - 1], OP_SELECT);
	config_free(&cfg);
}
END_TEST

/* While SELECT is in flight the plan stays empty; the state returned is
 * the one in flight, which plan_may_send refuses, so the caller waits. */
START_TEST(test_pending_statechange_waits)
{
	struct config cfg;
	struct plan p;
	struct rng r;
	const uint8_t fl[] = { OP_SELECT };
	struct plan_pending pend = pending_of(LSTATE_AUTH, fl, N(fl));

	config_defaults(&cfg);
	rng_seed(&r, 5, 0);
	plan_init(&p);
	p.last = OP_SELECT;
	enum op h = plan_update(&p, &cfg, &r, LSTATE_AUTH, &pend);
	ck_assert_uint_eq(p.n, 0);
	ck_assert(!plan_may_send(h, LSTATE_AUTH, &pend));
	config_free(&cfg);
}
END_TEST

START_TEST(test_target_and_threshold)
{
	struct config cfg;

	ck_assert_int_eq(plan_target_lstate(OP_LOGIN), LSTATE_AUTH);
	ck_assert_int_eq(plan_target_lstate(OP_AUTHENTICATE), LSTATE_AUTH);
	ck_assert_int_eq(plan_target_lstate(OP_SELECT), LSTATE_SELECTED);
	ck_assert_int_eq(plan_target_lstate(OP_LOGOUT), LSTATE_NONAUTH);

	config_defaults(&cfg);
	ck_assert_uint_eq(cfg.msgs, 30);
	ck_assert_uint_eq(plan_msgs_threshold(&cfg), 27);
	cfg.msgs = 8;
	ck_assert_uint_eq(plan_msgs_threshold(&cfg), 7);
	cfg.msgs = 7;
	ck_assert_uint_eq(plan_msgs_threshold(&cfg), 7);
	cfg.msgs = 0;
	ck_assert_uint_eq(plan_msgs_threshold(&cfg), 0);
	config_free(&cfg);
}
END_TEST

static Suite *
workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("plan");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_append_only_by_hand);
	tcase_add_test(tc, test_append_only_parsed);
	tcase_add_test(tc, test_take_in_order);
	tcase_add_test(tc, test_default_mix);
	tcase_add_test(tc, test_random_mix);
	tcase_add_test(tc, test_multiappend_repeat);
	tcase_add_test(tc, test_login_repeat_ignored);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_nothing_after_login);
	tcase_add_loop_test(tc, test_selected_only_no_spin, 0, 2);
	tcase_add_test(tc, test_selected_only_is_no_work);
	tcase_add_test(tc, test_no_plan_past_statechange);
	tcase_add_test(tc, test_pending_statechange_waits);
	tcase_add_test(tc, test_target_and_threshold);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(workload_suite)
