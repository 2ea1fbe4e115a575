/* test_sla.c: --sla judged in one place (sla_eval, used by run.c, and the
 * report's fallback for merge, report_sla_ok/report_sla_failures): the
 * value over the bound's command or over ALL, the mean truncated, "<"
 * taken literally, and a bound with no samples failing. */
#include <stdbool.h>
#include <stdint.h>

#include "check_main.h"
#include "config/config.h"
#include "config/derived.h"
#include "stats/hist.h"
#include "report/report.h"
#include "stats/stats.h"

static struct config cfg;
static struct stats_snap tot;

static void
setup(void)
{
	char err[256];
	char *av[] = {
		(char *)"imapstress", (char *)"--sla", (char *)"NOOP.p50<200us",
		(char *)"--sla", (char *)"NOOP.mean<150us",
		(char *)"--sla", (char *)"ALL.max<100us",
		(char *)"--sla", (char *)"APPEND.p95<1s", NULL
	};
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 9, av, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.n_slas, 4);
	stats_snap_init(&tot);
	/* NOOP: 100, 100, 199 us (mean 133); FETCH: one at 5 ms. */
	hist_record(tot.lat[OP_NOOP], 100);
	hist_record(tot.lat[OP_NOOP], 100);
	hist_record(tot.lat[OP_NOOP], 199);
	hist_record(tot.lat[OP_FETCH], 5000);
}

static void
teardown(void)
{
	stats_snap_free(&tot);
	config_free(&cfg);
}

START_TEST(test_sla_eval)
{
	bool ok[4];
	uint64_t actual[4];

	struct derived dv;
	derived_init(&dv, &cfg, false);
	ck_assert(!sla_eval(&cfg, &dv, &tot, ok, actual));
	ck_assert(ok[0]);			/* NOOP p50 100 < 200 */
	ck_assert_uint_eq(actual[0], 100);
	ck_assert(ok[1]);			/* NOOP mean 133 < 150 */
	ck_assert_uint_eq(actual[1], 133);	/* 133.0, truncated */
	ck_assert(!ok[2]);			/* ALL max: the FETCH's 5 ms */
	ck_assert_uint_ge(actual[2], 4995);
	ck_assert(!ok[3]);			/* no APPEND ran: fails */
}
END_TEST

/* merge's path: no verdict from a run, the same judgement. */
START_TEST(test_sla_report_fallback)
{
	char err[256];
	struct report *r = report_new(&cfg, NULL, NULL, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(report_sla_failures(r, &tot), 2);
	report_free(r);
}
END_TEST

static Suite *
sla_suite(void)
{
	Suite *s = suite_create("sla");
	TCase *tc = tcase_create("eval");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sla_eval);
	tcase_add_test(tc, test_sla_report_fallback);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(sla_suite)
