/* test_plan_walk.c: the plan's in-order walk jumps over states at 0%
 * (plan_walk_build's table) instead of stepping through each one.  The
 * step-by-step walk it replaced is kept here as the reference: for several
 * workloads and seeds both plans must make the same RNG draws and plan the
 * same commands, step for step, for SIM_STEPS commands. */
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
#define REF_MAX_DRAWS 10000	/* workload.c's PLAN_MAX_DRAWS */

/* --- the reference: plan_update as it was, stepping state by state ---- */

static bool
ref_is_login(enum op op)
{
	return op == OP_LOGIN || op == OP_AUTHENTICATE;
}

static enum op
ref_next_state(const struct config *cfg, struct rng *r, enum op state)
{
	for (int draws = 0; draws < REF_MAX_DRAWS; draws++) {
		if (!cfg->random_states)
			state = (enum op)(state + 1);
		else
			state = (enum op)(OP_LIST +
			    rng_below(r, OP_LOGOUT - OP_LIST + 1));
		if (state > OP_LOGOUT)
			state = (enum op)(OP_LOGIN + 1);
		if (rng_pct(r, cfg->states[state].prob))
			return state;
		if (state == OP_LOGOUT)
			state = OP_LOGIN;
	}
	return OP_LOGOUT;
}

static enum op
ref_plan_update(struct plan *p, const struct config *cfg, struct rng *r,
		enum lstate cur, const struct plan_pending *pend)
{
	enum op state = p->n > 0 ? (enum op)p->q[p->n - 1] : p->last;

	if (p->n > 0 && (op_table[state].flags & OPF_STATECHANGE))
		return (enum op)p->q[0];
	if (pend->statechange)
		return p->n > 0 ? (enum op)p->q[0] : state;
	if (state == OP_LOGOUT && p->n > 0)
		return (enum op)p->q[0];
	for (int draws = 0; p->n < PLAN_LEN && draws < REF_MAX_DRAWS; draws++) {
		if (cur == LSTATE_NONAUTH) {
			state = rng_pct(r, cfg->states[OP_AUTHENTICATE].prob) ?
			    OP_AUTHENTICATE : OP_LOGIN;
		} else if (state == OP_LOGOUT ||
			   !rng_pct(r, cfg->states[state].again)) {
			state = ref_next_state(cfg, r, state == OP_LOGOUT ?
			    OP_LOGIN : state);
		}
		if ((int)op_table[state].need > (int)cur ||
		    (cur != LSTATE_NONAUTH && ref_is_login(state)))
			continue;
		p->q[p->n++] = (uint8_t)state;
		if (op_table[state].flags & OPF_STATECHANGE)
			break;
	}
	if (p->n == 0)
		p->q[p->n++] = cur == LSTATE_NONAUTH ? OP_LOGIN : OP_LOGOUT;
	return (enum op)p->q[0];
}

/* --- workloads --------------------------------------------------------- */

static void
parsed(struct config *cfg, const char *const *words, unsigned n)
{
	char *argv[16] = { "imapstress" };
	char err[256];

	ck_assert_uint_lt(n, N(argv));
	for (unsigned i = 0; i < n; i++)
		argv[i + 1] = (char *)words[i];
	config_defaults(cfg);
	ck_assert_msg(config_parse(cfg, (int)n + 1, argv, err, sizeof(err)) == 0,
		      "config_parse: %s", err);
}

#define PARSED(cfg, ...) do {						\
	static const char *const w_[] = { __VA_ARGS__ };		\
	parsed(cfg, w_, N(w_));						\
} while (0)

enum workload {
	WL_DEFAULT,		/* imaptest's default mix */
	WL_SELECT_NOOP,		/* - select=100 noop=100 */
	WL_BENCH_NOOP,		/* bench-client's: - noop=100 select=0 logout=0 */
	WL_GAPS,		/* a few states, runs of 0% between them */
	WL_RARE,		/* one state at 1%: the walk hits its draw limit */
	WL_AUTH,		/* AUTHENTICATE at 50%: walks start from it */
	WL_RANDOM,		/* the default mix with `random` */
	WL_COUNT
};

static void
workload(struct config *cfg, enum workload wl)
{
	switch (wl) {
	case WL_DEFAULT:
		config_defaults(cfg);
		break;
	case WL_SELECT_NOOP:
		PARSED(cfg, "-", "select=100", "noop=100");
		break;
	case WL_BENCH_NOOP:
		PARSED(cfg, "-", "noop=100", "select=0", "logout=0");
		break;
	case WL_GAPS:
		PARSED(cfg, "-", "list=50", "fetch=70,20", "store=30,10",
		       "append=100,5", "check=10", "logout=40");
		break;
	case WL_RARE:
		PARSED(cfg, "-", "status=1", "select=0", "logout=0");
		break;
	case WL_AUTH:
		PARSED(cfg, "-", "select=100", "noop=60", "expunge=5", "logout=50");
		cfg->states[OP_AUTHENTICATE].prob = 50;
		break;
	case WL_RANDOM:
		config_defaults(cfg);
		cfg->random_states = true;
		break;
	default:
		ck_abort_msg("workload %d", (int)wl);
	}
}

/* --- the comparison ---------------------------------------------------- */

/* Plain checks in the loop: every ck_assert costs a message to the
 * runner.  A session ends at LOGOUT: the next one starts from an empty
 * plan, as conn_reset_session starts it. */
static void
same_walk(const struct config *cfg, uint64_t seed)
{
	struct plan ref, got;
	struct rng rr, rg;
	enum lstate cur = LSTATE_NONAUTH;
	unsigned step;
	const char *broken = NULL;

	plan_init(&ref);
	plan_init(&got);
	rng_seed(&rr, seed, 7);
	rng_seed(&rg, seed, 7);
	for (step = 0; step < SIM_STEPS && broken == NULL; step++) {
		struct plan_pending none = pending_of(cur, NULL, 0);
		enum op hr = ref_plan_update(&ref, cfg, &rr, cur, &none);
		enum op hg = plan_update(&got, cfg, &rg, cur, &none);
		if (hr != hg)
			broken = "a different head";
		else if (ref.n != got.n || memcmp(ref.q, got.q, ref.n) != 0)
			broken = "a different plan";
		else if (rr.s != rg.s)
			broken = "different RNG draws";
		if (broken != NULL)
			break;
		(void)plan_take(&ref);
		(void)plan_take(&got);
		if (op_table[hg].flags & OPF_STATECHANGE)
			cur = plan_target_lstate(hg);
		if (hg == OP_LOGOUT) {
			plan_init(&ref);	/* the old plan_init */
			plan_restart(&got);
		}
	}
	ck_assert_msg(broken == NULL, "seed %llu step %u: %s",
		      (unsigned long long)seed, step, broken);
}

START_TEST(test_same_walk)
{
	static const uint64_t seeds[] = { 1, 2, 42, 0xdeadbeefULL };
	struct config cfg;

	workload(&cfg, (enum workload)_i);
	for (unsigned i = 0; i < N(seeds); i++)
		same_walk(&cfg, seeds[i]);
	config_free(&cfg);
}
END_TEST

/* The table itself, for bench-client's NOOP line: from every state but
 * AUTHENTICATE (LOGIN follows it, at 100%) the next state with a chance is
 * NOOP, and from NOOP that passes the whole cycle, LOGIN + 1 .. LOGOUT. */
START_TEST(test_walk_table)
{
	struct config cfg;
	struct plan_walk w;

	workload(&cfg, WL_BENCH_NOOP);
	plan_walk_build(&w, &cfg);
	for (int s = OP_LOGIN; s < OP_COUNT; s++)
		ck_assert_int_eq(w.next[s], OP_NOOP);
	ck_assert_int_eq(w.steps[OP_NOOP], OP_LOGOUT - OP_LOGIN);
	ck_assert_int_eq(w.steps[OP_LOGIN], OP_NOOP - OP_LOGIN);
	ck_assert_int_eq(w.next[OP_AUTHENTICATE], OP_LOGIN);
	ck_assert_int_eq(w.steps[OP_AUTHENTICATE], 1);

	/* Nothing above 0% in the cycle: no next state. */
	for (int s = OP_LOGIN + 1; s <= OP_LOGOUT; s++)
		cfg.states[s].prob = 0;
	plan_walk_build(&w, &cfg);
	ck_assert_int_eq(w.next[OP_NOOP], PLAN_WALK_NONE);
	ck_assert_int_eq(w.next[OP_AUTHENTICATE], OP_LOGIN);
	config_free(&cfg);
}
END_TEST

static Suite *
plan_walk_suite(void)
{
	Suite *s = suite_create("plan_walk");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_same_walk, 0, WL_COUNT);
	tcase_add_test(tc, test_walk_table);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(plan_walk_suite)
