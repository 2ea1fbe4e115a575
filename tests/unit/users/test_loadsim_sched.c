/* test_loadsim_sched.c: LoadSim's day (src/users/loadsim_sched.c): the
 * mean gap between actions scales with the time compression, the drawn
 * gaps have that mean, and recipient counts stay in [min, max] with the
 * asked-for mean. */
#include <math.h>
#include <stdint.h>

#include "check_main.h"
#include "users/loadsim_sched.h"

#define HOUR_US 3600000000ULL

START_TEST(test_gap_scaling)
{
	/* 12 per 8-hour day in real time: every 40 minutes. */
	ck_assert_double_eq_tol(ls_mean_gap_us(12, 8 * HOUR_US, 1.0),
				40.0 * 60e6, 1e-3);
	/* The day compressed to 10 minutes (48x): every 50 s. */
	ck_assert_double_eq_tol(ls_mean_gap_us(12, 8 * HOUR_US, 48.0),
				50e6, 1e-3);
	/* Twice as often, half the gap. */
	ck_assert_double_eq_tol(ls_mean_gap_us(24, 8 * HOUR_US, 48.0),
				25e6, 1e-3);
	/* Never. */
	ck_assert(ls_mean_gap_us(0, 8 * HOUR_US, 48.0) == 0);
	ck_assert(ls_mean_gap_us(-1, 8 * HOUR_US, 48.0) == 0);
	ck_assert(ls_mean_gap_us(5, 0, 48.0) == 0);
}
END_TEST

START_TEST(test_gap_mean)
{
	struct rng r;
	const unsigned n = 200000;
	const double mean = 50e6;
	double sum = 0, sq = 0;

	double low = mean;

	rng_seed(&r, 42, 1);
	for (unsigned i = 0; i < n; i++) {
		double g = (double)ls_next_gap_us(&r, mean);
		if (g < low)
			low = g;
		sum += g;
		sq += g * g;
	}
	/* One assertion after the loop, not one per draw: under CK_FORK
	 * each ck_assert writes its location to the parent through a pipe,
	 * and 200000 of them (1 million in test_draw_count) took minutes
	 * under ASan on a loaded machine. */
	ck_assert(low >= 1);
	/* Exponential: the sd of the sample mean is mean / sqrt(n) (0.22%
	 * here); 1% is more than 4 sigma.  Its sd equals its mean. */
	double m = sum / n, sd = sqrt(sq / n - m * m);
	ck_assert_double_eq_tol(m, mean, mean * 0.01);
	ck_assert_double_eq_tol(sd, mean, mean * 0.03);
}
END_TEST

static double
draw_mean(unsigned min, double avg, unsigned max, unsigned n)
{
	struct rng r;
	double sum = 0;
	unsigned lo = UINT32_MAX, hi = 0;

	rng_seed(&r, 7, 3);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = ls_draw_count(&r, min, avg, max);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
		sum += k;
	}
	/* The range once, not per draw (see test_gap_mean). */
	ck_assert_uint_ge(lo, min);
	ck_assert_uint_le(hi, max);
	return sum / n;
}

START_TEST(test_draw_count)
{
	/* The seed's distribution lists: 2..20, average 10; sd <= 9, so
	 * over 100000 draws the mean's sd is < 0.03: 0.15 is 5 sigma. */
	ck_assert_double_eq_tol(draw_mean(2, 10, 20, 100000), 10, 0.15);
	/* Recipients 52 / 12 = 4.33 per mail, 1..20. */
	ck_assert_double_eq_tol(draw_mean(1, 52.0 / 12, 20, 100000),
				52.0 / 12, 0.15);
	/* A skewed one near the bottom, and the edges. */
	ck_assert_double_eq_tol(draw_mean(1, 1.2, 10, 100000), 1.2, 0.05);
	ck_assert_double_eq_tol(draw_mean(3, 3, 3, 100), 3, 1e-9);
	ck_assert_double_eq_tol(draw_mean(1, 0, 4, 100000), 1, 1e-9);
	ck_assert_double_eq_tol(draw_mean(1, 9, 4, 100000), 4, 1e-9);
}
END_TEST

static Suite *
loadsim_sched_suite(void)
{
	Suite *s = suite_create("loadsim_sched");
	TCase *tc = tcase_create("schedule");
	tcase_add_test(tc, test_gap_scaling);
	tcase_add_test(tc, test_gap_mean);
	tcase_add_test(tc, test_draw_count);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(loadsim_sched_suite)
