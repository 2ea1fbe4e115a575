/* test_score.c: the LoadSim score worked out by hand from known samples
 * (LSLOG's four per task, the weighted p95), the warm-up taken out by
 * subtracting snapshots, --score-weights and --sla 'score<T' parsing, and
 * the SLA judged on the score. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "config/derived.h"
#include "stats/hist.h"
#include "report/report.h"
#include "stats/score.h"
#include "stats/stats.h"

/* FETCH: 100, 200, ..., 2000 us (20 samples); SELECT: 10, 20, ..., 100 us
 * (10).  Below 2048 us every value has its own bucket, so the
 * percentiles are exact: p95 is the ceil(0.95 n)-th smallest. */
static void
fill_known(struct stats_snap *s)
{
	for (uint64_t i = 1; i <= 20; i++)
		hist_record(s->lat[OP_FETCH], 100 * i);
	for (uint64_t i = 1; i <= 10; i++)
		hist_record(s->lat[OP_SELECT], 10 * i);
}

static int
parse(struct config *cfg, const char *a1, const char *a2, const char *a3,
      const char *a4, char *err, size_t errlen)
{
	char *av[] = { (char *)"imapstress", (char *)a1, (char *)a2,
		       (char *)a3, (char *)a4, NULL };
	int ac = 1;
	while (ac < 5 && av[ac] != NULL)
		ac++;
	config_defaults(cfg);
	return config_parse(cfg, ac, av, err, errlen);
}

START_TEST(test_task_four)
{
	struct stats_snap s;
	struct score_task t;

	stats_snap_init(&s);
	fill_known(&s);
	score_task_fill(&t, s.lat[OP_FETCH]);
	ck_assert_uint_eq(t.count, 20);
	ck_assert_uint_eq(t.p50_us, 1000);	/* 10th of 20 */
	ck_assert_uint_eq(t.p95_us, 1900);	/* 19th of 20 */
	ck_assert(fabs(t.mean_us - 1050.0) < 1e-9);
	/* population sd of 100..2000 step 100: 100 * sqrt((20^2-1)/12) */
	ck_assert(fabs(t.stddev_us - 100.0 * sqrt(399.0 / 12.0)) < 1e-6);
	score_task_fill(&t, s.lat[OP_SELECT]);
	ck_assert_uint_eq(t.p95_us, 100);	/* 10th of 10 */
	ck_assert_uint_eq(t.p50_us, 50);
	stats_snap_free(&s);
}
END_TEST

START_TEST(test_weighted_by_hand)
{
	struct stats_snap s;
	struct score sc;
	double w[OP_COUNT] = { 0 };

	stats_snap_init(&s);
	fill_known(&s);
	w[OP_FETCH] = 0.5;
	w[OP_SELECT] = 0.2;
	w[OP_APPEND] = 0.3;	/* never ran: left out, not a zero */
	score_compute(&sc, &s, w);
	ck_assert(sc.valid);
	ck_assert_uint_eq(sc.n, 2);
	ck_assert(fabs(sc.weight_sum - 0.7) < 1e-12);
	/* (0.5 * 1900 + 0.2 * 100) / 0.7 */
	ck_assert(fabs(sc.score_us - 970.0 / 0.7) < 1e-9);

	/* Unweighted: every command that ran weighs 1. */
	score_compute(&sc, &s, NULL);
	ck_assert(fabs(sc.score_us - (1900.0 + 100.0) / 2.0) < 1e-9);

	/* A weight only on a command that never ran: no score. */
	memset(w, 0, sizeof(w));
	w[OP_APPEND] = 1;
	score_compute(&sc, &s, w);
	ck_assert(!sc.valid);
	ck_assert(sc.score_us == 0);
	stats_snap_free(&s);
}
END_TEST

/* --warmup: the totals are cum minus the snapshot at second S, so slow
 * warm-up samples must not reach the score. */
START_TEST(test_warmup_subtracted)
{
	struct stats_snap warm, cum, tot;
	struct score sc;

	stats_snap_init(&warm);
	stats_snap_init(&cum);
	stats_snap_init(&tot);
	for (int i = 0; i < 50; i++)
		hist_record(warm.lat[OP_FETCH], 900000);	/* 0.9 s */
	stats_snap_copy(&cum, &warm);
	fill_known(&cum);
	stats_snap_diff(&tot, &cum, &warm);
	score_compute(&sc, &tot, NULL);
	ck_assert(fabs(sc.score_us - 1000.0) < 1e-9);
	score_compute(&sc, &cum, NULL);
	ck_assert(sc.score_us > 100000);	/* with them it is slow */
	stats_snap_free(&warm);
	stats_snap_free(&cum);
	stats_snap_free(&tot);
}
END_TEST

START_TEST(test_parse_and_sla)
{
	struct config cfg;
	struct stats_snap s;
	char err[256];
	bool ok[2];
	uint64_t actual[2];

	ck_assert_int_eq(parse(&cfg, "--score-weights", "FETCH=0.5,Sele=0.2",
			       "--sla", "score<1386us", err, sizeof(err)), 0);
	ck_assert(cfg.score_weights_set);
	ck_assert(cfg.score_weights[OP_FETCH] == 0.5);
	ck_assert(cfg.score_weights[OP_SELECT] == 0.2);
	ck_assert(cfg.score_weights[OP_APPEND] == 0);
	ck_assert_uint_eq(cfg.n_slas, 1);
	ck_assert_int_eq(cfg.slas[0].op, SLA_OP_SCORE);
	ck_assert_uint_eq(cfg.slas[0].max_us, 1386);
	stats_snap_init(&s);
	fill_known(&s);
	/* score 1385.7 us: truncated to 1385 < 1386 holds */
	struct derived dv;
	derived_init(&dv, &cfg, false);
	ck_assert(sla_eval(&cfg, &dv, &s, ok, actual));
	ck_assert_uint_eq(actual[0], 1385);
	cfg.slas[0].max_us = 1385;
	ck_assert(!sla_eval(&cfg, &dv, &s, ok, actual));
	stats_snap_free(&s);
	config_free(&cfg);

	ck_assert_int_eq(parse(&cfg, "--score-weights", "FETCH=x", NULL, NULL,
			       err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "FETCH"));
	config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "--score-weights", "BOGUS=1", NULL, NULL,
			       err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "BOGUS"));
	config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "--score-weights", "FETCH=0", NULL, NULL,
			       err, sizeof(err)), -1);
	config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "--sla", "score<fast", NULL, NULL,
			       err, sizeof(err)), -1);
	config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "--server-pid", "12,34", "--server-pid",
			       "56", err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.n_server_pids, 3);
	ck_assert_int_eq(cfg.server_pids[2], 56);
	config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "--server-pid", "12,x", NULL, NULL,
			       err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--server-pid"));
	config_free(&cfg);
}
END_TEST

/* Profile mode: the tasks are actions.  browse 100..2000 us (p95 1900),
 * clean 10..100 us (p95 100); with the LoadSim defaults (browse 8, clean
 * 1, deliver 0): (8 * 1900 + 1 * 100) / 9 = 1700 us. */
START_TEST(test_actions_score)
{
	struct stats_snap s;
	struct score sc;
	double w[ACT_COUNT];

	stats_snap_init(&s);
	for (uint64_t i = 1; i <= 20; i++)
		hist_record(s.act.lat[ACT_BROWSE], 100 * i);
	for (uint64_t i = 1; i <= 10; i++)
		hist_record(s.act.lat[ACT_CLEAN], 10 * i);
	hist_record(s.act.lat[ACT_DELIVER], 1000000);	/* weight 0 */
	score_action_defaults(w);
	ck_assert(w[ACT_BROWSE] + w[ACT_READ] > w[ACT_SEND] + w[ACT_CLEAN] +
		  w[ACT_CALENDAR] + w[ACT_APPOINTMENT] + w[ACT_FREEBUSY] +
		  w[ACT_MEETING] + w[ACT_LOGOFF]);	/* read over half */
	ck_assert(w[ACT_READ] > w[ACT_SEND] + w[ACT_CLEAN] + w[ACT_CALENDAR] +
		  w[ACT_APPOINTMENT] + w[ACT_FREEBUSY] + w[ACT_MEETING] +
		  w[ACT_LOGOFF]);	/* also alone (cached: no browse) */
	score_compute_actions(&sc, &s.act, w);
	ck_assert(sc.by_action && sc.valid);
	ck_assert_uint_eq(sc.n, 3);
	ck_assert_str_eq(sc.task[0].name, "deliver");
	ck_assert_str_eq(sc.task[1].name, "browse");
	ck_assert_uint_eq(sc.task[1].p95_us, 1900);
	ck_assert(fabs(sc.score_us - 1700.0) < 1e-9);
	ck_assert(fabs(sc.weight_sum - 9.0) < 1e-9);
	stats_snap_free(&s);
}
END_TEST

static Suite *
score_suite(void)
{
	Suite *s = suite_create("score");
	TCase *tc = tcase_create("score");
	tcase_add_test(tc, test_task_four);
	tcase_add_test(tc, test_actions_score);
	tcase_add_test(tc, test_weighted_by_hand);
	tcase_add_test(tc, test_warmup_subtracted);
	tcase_add_test(tc, test_parse_and_sla);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(score_suite)
