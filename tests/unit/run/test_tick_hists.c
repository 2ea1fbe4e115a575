/* run_tick_hists_wanted (src/run/setup.c): every output that reads a
 * second's histograms makes the workers copy them each second; a -q run
 * with none of them does not. */
#include "check_main.h"
#include "config/config.h"
#include "run/setup.h"

START_TEST(test_readers)
{
	struct config c;
	char path[] = "x";

	config_defaults(&c);
	/* The terminal's lines read only sums and counts (the counters),
	 * unless they show a percentile of the second. */
	ck_assert(c.format == OUT_TEXT);
	ck_assert(!run_tick_hists_wanted(&c));
	c.tick_percentile = 99;
	ck_assert(run_tick_hists_wanted(&c));
	c.tick_percentile = 0;
	c.profile_path = path;		/* push and action percentiles */
	ck_assert(run_tick_hists_wanted(&c));
	c.format = OUT_QUIET;
	ck_assert(!run_tick_hists_wanted(&c));
	c.profile_path = NULL;
	c.output_path = path;		/* imaptest's TSV: sums and counts */
	ck_assert(!run_tick_hists_wanted(&c));
	c.output_path = NULL;
	char **fields[] = { &c.json_path, &c.csv_path,
			    &c.result_path, &c.hdr_log_path, &c.metrics_listen };
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		*fields[i] = path;
		ck_assert_msg(run_tick_hists_wanted(&c), "output %u", i);
		*fields[i] = NULL;
	}
	c.warmup_secs = 2;		/* one whole copy, not every second */
	ck_assert(!run_tick_hists_wanted(&c));
	config_free(&c);
}
END_TEST

static Suite *
tick_hists_suite(void)
{
	Suite *s = suite_create("tick_hists");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_readers);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(tick_hists_suite)
