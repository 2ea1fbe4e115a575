/* test_peak_rss.c: VmHWM read from a status text, and the live figure. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_main.h"
#include "util/peak_rss.h"

START_TEST(test_parse)
{
	ck_assert_uint_eq(peak_rss_parse_status(
	    "Name:\timapstress\nVmPeak:\t  300000 kB\nVmHWM:\t    9216 kB\n"
	    "VmRSS:\t    8000 kB\n"), 9216);
	/* the first line, and no newline at the end */
	ck_assert_uint_eq(peak_rss_parse_status("VmHWM:\t12 kB"), 12);
	/* none, or not a figure in kB: 0, so the caller falls back */
	ck_assert_uint_eq(peak_rss_parse_status(""), 0);
	ck_assert_uint_eq(peak_rss_parse_status("VmRSS:\t8000 kB\n"), 0);
	ck_assert_uint_eq(peak_rss_parse_status("VmHWM:\tlots kB\n"), 0);
	ck_assert_uint_eq(peak_rss_parse_status("VmHWM:\t77 pages\n"), 0);
	ck_assert_uint_eq(peak_rss_parse_status("XVmHWM:\t5 kB\n"), 0);
}
END_TEST

/* With 32 MB touched, the peak is at least that (in KiB, with 1 MB of
 * slack: the kernel's RSS counters are per-CPU and a little behind), and
 * it comes from VmHWM on Linux.  32 MB, not more: under ASan and a loaded
 * machine the test must stay well inside Check's timeout. */
START_TEST(test_live)
{
	bool hwm = false;
	ck_assert_uint_gt(peak_rss_kb(&hwm), 0);
	ck_assert(hwm);
	size_t n = 32u << 20;
	volatile char *p = malloc(n);	/* volatile: the stores stay */
	ck_assert_ptr_nonnull((void *)p);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	ck_assert_uint_ge(peak_rss_kb(NULL), 31 * 1024);
	free((void *)p);
}
END_TEST

static Suite *
peak_rss_suite(void)
{
	Suite *s = suite_create("peak_rss");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_live);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(peak_rss_suite)
