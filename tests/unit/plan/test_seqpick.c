/* test_seqpick.c: seqpick.c's random sets of sequence numbers: size,
 * range, order and distinctness for every method over sizes on both
 * sides of each threshold, and uniformity by chi-square over many draws.
 * Every rng has a fixed seed, so the statistics are the same on every run
 * (they cannot flake); the bounds are loose enough (about six standard
 * deviations) that any seed would pass. */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "plan/seqpick.h"

typedef unsigned (*seqpick_fn)(struct rng *, uint32_t, unsigned, uint32_t *);

static const struct {
	const char *name;
	seqpick_fn fn;
} methods[] = {
	{ "seqpick_draw", seqpick_draw },
	{ "seqpick_floyd", seqpick_floyd },
	{ "seqpick_redraw", seqpick_redraw },
};
#define N_METHODS	(sizeof(methods) / sizeof(methods[0]))

#define MAX_COUNT	300u
#define CANARY		0xdeadbeefu

/* Draw once and check what must hold of any result.  Plain tests, with
 * ck_abort_msg only on failure: a passing ck_assert costs a message to
 * the parent process in fork mode, and this runs millions of times. */
static unsigned
draw_checked(unsigned m, struct rng *r, uint32_t exists, unsigned count,
	     uint32_t *out)
{
	for (unsigned i = 0; i <= MAX_COUNT; i++)
		out[i] = CANARY;
	unsigned n = methods[m].fn(r, exists, count, out);
	unsigned want = count < exists ? count : exists;

	if (n != want)
		ck_abort_msg("%s(exists %u, count %u) gave %u numbers, not %u",
			     methods[m].name, exists, count, n, want);
	for (unsigned i = 0; i < n; i++) {
		if (out[i] < 1 || out[i] > exists)
			ck_abort_msg("%s(exists %u, count %u): out[%u] = %u "
				     "out of range", methods[m].name, exists,
				     count, i, out[i]);
		if (i > 0 && out[i - 1] >= out[i])
			ck_abort_msg("%s(exists %u, count %u): out[%u] = %u "
				     "after %u", methods[m].name, exists,
				     count, i, out[i], out[i - 1]);
	}
	if (out[count] != CANARY)
		ck_abort_msg("%s wrote past count", methods[m].name);
	return n;
}

START_TEST(test_all_when_count_covers_mailbox)
{
	uint32_t out[MAX_COUNT + 1];
	static const uint32_t exists[] = { 1, 2, 5, 99, 100 };

	for (unsigned e = 0; e < sizeof(exists) / sizeof(exists[0]); e++) {
		for (unsigned count = exists[e]; count <= exists[e] + 2;
		     count++) {
			struct rng r;
			rng_seed(&r, 7, 1);
			uint64_t before = r.s;
			unsigned n = draw_checked((unsigned)_i, &r, exists[e],
						  count, out);
			for (unsigned i = 0; i < n; i++)
				ck_assert_uint_eq(out[i], i + 1);
			/* no draw: the connection's stream is untouched */
			ck_assert_msg(r.s == before, "%s drew for count %u >= "
				      "exists %u", methods[_i].name, count,
				      exists[e]);
		}
	}
}
END_TEST

START_TEST(test_empty)
{
	uint32_t out[MAX_COUNT + 1];
	struct rng r;

	rng_seed(&r, 7, 2);
	ck_assert_uint_eq(draw_checked((unsigned)_i, &r, 0, 100, out), 0);
	ck_assert_uint_eq(draw_checked((unsigned)_i, &r, 0, 0, out), 0);
	ck_assert_uint_eq(draw_checked((unsigned)_i, &r, 500, 0, out), 0);
	ck_assert_uint_eq(draw_checked((unsigned)_i, &r, 50000, 0, out), 0);
}
END_TEST

/* Sizes around each threshold: 64 bits a word, the bitmap's end, and the
 * exists / 64 <= count switch for count 100 (6463 / 6464). */
START_TEST(test_shape)
{
	static const uint32_t exists[] = {
		2, 3, 7, 63, 64, 65, 101, 127, 128, 129, 400, 1730, 6463, 6464,
		SEQPICK_BITMAP_BITS - 1, SEQPICK_BITMAP_BITS,
		SEQPICK_BITMAP_BITS + 1, 20000, 1000000, UINT32_MAX
	};
	static const unsigned counts[] = { 1, 2, 3, 10, 50, 99, 100, 101,
					   MAX_COUNT };
	uint32_t out[MAX_COUNT + 1];
	struct rng r;

	rng_seed(&r, 11, 3);
	for (unsigned e = 0; e < sizeof(exists) / sizeof(exists[0]); e++)
		for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]);
		     k++)
			for (unsigned rep = 0; rep < 20; rep++)
				draw_checked((unsigned)_i, &r, exists[e],
					     counts[k], out);
}
END_TEST

/* Every 3-subset of 1..6 (20 of them) and every 2-subset of 1..7 (21)
 * equally likely: chi-square with 19 or 20 degrees of freedom, whose
 * 99.99th percentile is about 50.  These sizes also make the redraw
 * method collide and redraw constantly. */
static void
check_subsets(unsigned m, uint32_t exists, unsigned count)
{
	enum { DRAWS = 60000 };
	unsigned hits[1u << 7] = { 0 }, subsets = 0;
	uint32_t out[MAX_COUNT + 1];
	struct rng r;

	rng_seed(&r, 12345, 4);
	for (unsigned d = 0; d < DRAWS; d++) {
		draw_checked(m, &r, exists, count, out);
		unsigned mask = 0;
		for (unsigned i = 0; i < count; i++)
			mask |= 1u << (out[i] - 1);
		hits[mask]++;
	}
	for (unsigned mask = 0; mask < (1u << exists); mask++)
		if ((unsigned)__builtin_popcount(mask) == count)
			subsets++;
	double expect = (double)DRAWS / subsets, chi2 = 0;
	for (unsigned mask = 0; mask < (1u << exists); mask++) {
		if ((unsigned)__builtin_popcount(mask) != count)
			continue;
		double dev = hits[mask] - expect;
		chi2 += dev * dev / expect;
	}
	ck_assert_msg(chi2 < 55.0, "%s(exists %u, count %u): chi-square %.1f "
		      "over %u subsets", methods[m].name, exists, count, chi2,
		      subsets);
}

START_TEST(test_subsets_uniform)
{
	check_subsets((unsigned)_i, 6, 3);
	check_subsets((unsigned)_i, 7, 2);
	check_subsets((unsigned)_i, 7, 5);
}
END_TEST

/* Each number equally often at the sizes a FETCH run meets: a mailbox of
 * 1730 (the bitmap) and of 10000 (the redraws), 100 numbers a draw. */
static void
check_members(unsigned m, uint32_t exists, unsigned draws)
{
	static unsigned hits[10001];
	uint32_t out[MAX_COUNT + 1];
	struct rng r;

	memset(hits, 0, sizeof(hits));
	rng_seed(&r, 99, 5);
	for (unsigned d = 0; d < draws; d++) {
		unsigned n = draw_checked(m, &r, exists, 100, out);
		for (unsigned i = 0; i < n; i++)
			hits[out[i]]++;
	}
	double expect = (double)draws * 100 / exists, chi2 = 0;
	for (uint32_t s = 1; s <= exists; s++) {
		double dev = hits[s] - expect;
		chi2 += dev * dev / expect;
	}
	/* mean exists - 1, standard deviation sqrt(2 (exists - 1)) */
	double df = exists - 1.0, bound = df + 6 * __builtin_sqrt(2 * df);
	ck_assert_msg(chi2 < bound, "%s(exists %u, count 100): chi-square "
		      "%.0f, bound %.0f", methods[m].name, exists, chi2,
		      bound);
	ck_assert_msg(chi2 > df - 6 * __builtin_sqrt(2 * df),
		      "%s(exists %u): chi-square %.0f too good to be random",
		      methods[m].name, exists, chi2);
}

START_TEST(test_members_uniform)
{
	check_members((unsigned)_i, 1730, 5000);
	check_members((unsigned)_i, 10000, 5000);
}
END_TEST

static Suite *
seqpick_suite(void)
{
	Suite *s = suite_create("seqpick");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_all_when_count_covers_mailbox, 0,
			    N_METHODS);
	tcase_add_loop_test(tc, test_empty, 0, N_METHODS);
	tcase_add_loop_test(tc, test_shape, 0, N_METHODS);
	tcase_add_loop_test(tc, test_subsets_uniform, 0, N_METHODS);
	tcase_add_loop_test(tc, test_members_uniform, 0, N_METHODS);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(seqpick_suite)
