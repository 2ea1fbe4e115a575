/* test_learn_walk.c: the walk read back (src/learn/learn_walk.c).  The
 * sessions are made by imapstress's own planner (plan_update, seeded),
 * sent as the stress driver sends them (no SELECT on a selected session),
 * so the learned P must be the mix's, up to sampling: 40000 rounds, a
 * standard error under 0.25 points, and the bound 1 point (4 errors). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "learn/learn_int.h"
#include "plan/ops.h"
#include "plan/workload.h"
#include "util/rng.h"

struct mixcase {
	const char *what;
	int p[OP_COUNT], r[OP_COUNT];
};

/* Sessions of the planner, fed to learn_walk: a round of the walk ends in
 * each draw of LOGOUT, so `sessions` sessions make sessions / P(LOGOUT)
 * rounds. */
static void
simulate(struct lmix *m, const struct config *cfg, unsigned sessions,
	 uint64_t seed)
{
	struct rng rng;
	struct plan p;
	struct plan_pending none = { 0 };
	rng_seed(&rng, seed, 1);
	for (unsigned n = 0; n < sessions; n++) {
		struct lsession s;
		memset(&s, 0, sizeof(s));
		s.user = -1;
		plan_init(&p);
		enum lstate cur = LSTATE_NONAUTH;
		for (unsigned guard = 0; guard < 100000; guard++) {
			none.new_lstate = cur;
			enum op op = plan_update(&p, cfg, &rng, cur, &none);
			(void)plan_take(&p);
			if (op == OP_LOGIN) {
				cur = LSTATE_AUTH;
			} else if (op == OP_SELECT) {
				if (cur == LSTATE_SELECTED)
					continue;	/* the driver skips it */
				cur = LSTATE_SELECTED;
			}
			struct lcmd *c = lsession_add(&s);
			c->op = (int)op;
			c->status = 'O';
			c->n_msgs = 1;
			c->box = c->items = -1;
			if (op == OP_LOGOUT)
				break;
		}
		learn_walk(m, &s);
		lsession_free(&s);
	}
}

static const struct mixcase cases[] = {
	{ "one round per session",
	  { [OP_LIST] = 30, [OP_STATUS] = 60, [OP_SELECT] = 100,
	    [OP_UIDFETCH] = 25, [OP_FETCH] = 80, [OP_FETCH2] = 50,
	    [OP_APPEND] = 70, [OP_NOOP] = 20, [OP_LOGOUT] = 100 },
	  { [OP_FETCH2] = 20, [OP_APPEND] = 10 } },
	{ "two rounds per session",
	  { [OP_LIST] = 30, [OP_STATUS] = 60, [OP_SELECT] = 100,
	    [OP_UIDFETCH] = 25, [OP_FETCH] = 80, [OP_FETCH2] = 50,
	    [OP_APPEND] = 70, [OP_NOOP] = 20, [OP_LOGOUT] = 50 },
	  { [OP_FETCH2] = 20 } },
	{ "ten rounds per session, sparse",
	  { [OP_STATUS] = 40, [OP_SELECT] = 100, [OP_FETCH] = 60,
	    [OP_FETCH2] = 30, [OP_SEARCH] = 25, [OP_COPY] = 20,
	    [OP_APPEND] = 50, [OP_CHECK] = 30, [OP_LOGOUT] = 10 },
	  { [OP_FETCH2] = 10, [OP_APPEND] = 20 } },
	{ "rare states, rounds often empty",
	  { [OP_SELECT] = 100, [OP_NOOP] = 5, [OP_EXPUNGE] = 3,
	    [OP_LIST] = 10, [OP_LOGOUT] = 20 },
	  { 0 } },
};

START_TEST(learns_the_planners_mix)
{
	const struct mixcase *mc = &cases[_i];
	static struct config cfg;
	static struct lmix m;
	config_defaults(&cfg);
	for (int op = OP_COMPRESS; op <= OP_LOGOUT; op++) {
		cfg.states[op].prob = mc->p[op];
		cfg.states[op].again = mc->r[op];
	}
	memset(&m, 0, sizeof(m));
	simulate(&m, &cfg, 400 * (unsigned)mc->p[OP_LOGOUT], 7 + (uint64_t)_i);
	learn_solve(&m);
	for (int op = OP_LIST; op <= OP_LOGOUT; op++) {
		double got = 100 * m.p[op];
		ck_assert_msg(fabs(got - mc->p[op]) <= 1.0,
			      "%s: %s learned P=%.2f, the mix has %d", mc->what,
			      op_table[op].name, got, mc->p[op]);
		if (mc->p[op] > 0 && op != OP_SELECT && op != OP_LOGOUT)
			ck_assert_msg(fabs(100 * m.r[op] - mc->r[op]) <= 1.0,
				      "%s: %s learned R=%.2f, the mix has %d",
				      mc->what, op_table[op].name,
				      100 * m.r[op], mc->r[op]);
	}
	config_free(&cfg);
}
END_TEST

static Suite *
learn_walk_suite(void)
{
	Suite *s = suite_create("learn_walk");
	TCase *tc = tcase_create("walk");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, learns_the_planners_mix, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(learn_walk_suite)
