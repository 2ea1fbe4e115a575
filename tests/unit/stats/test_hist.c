/* Histogram: accuracy against known distributions, edge values, and that
 * merge/diff/copy are exact over buckets, also while a writer runs. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "stats/hist.h"
#include "hist_check.h"

static const double check_ps[] = { 0, 1, 10, 50, 90, 95, 99, 99.9, 100 };
#define N_PS (sizeof(check_ps) / sizeof(check_ps[0]))

/* v <= got <= v * (1 + 1/1000): the reported value is the top of v's
 * bucket, and buckets are at most 1/1024 wide. */
static void
assert_close_above(uint64_t got, uint64_t want, const char *what)
{
	ck_assert_msg(got >= want && (got - want) * 1000 <= want,
		      "%s: got %llu, want %llu within +0.1%%", what,
		      (unsigned long long)got, (unsigned long long)want);
}

START_TEST(test_empty)
{
	struct hist *h = hist_new();
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(hist_min(h), 0);
	ck_assert_uint_eq(hist_max(h), 0);
	ck_assert_uint_eq(hist_sum(h), 0);
	ck_assert(hist_mean(h) == 0.0);
	for (size_t i = 0; i < N_PS; i++)
		ck_assert_uint_eq(hist_percentile(h, check_ps[i]), 0);
	hist_record_n(h, 42, 0);
	ck_assert_uint_eq(hist_count(h), 0);
	hist_free(h);
	hist_free(NULL);
}
END_TEST

START_TEST(test_uniform)
{
	struct hist *h = hist_new();
	for (uint64_t v = 1; v <= 100000; v++)
		hist_record(h, v);
	ck_assert_uint_eq(hist_count(h), 100000);
	ck_assert_uint_eq(hist_sum(h), 100000ull * 100001 / 2);
	ck_assert_uint_eq(hist_min(h), 1);
	ck_assert_uint_eq(hist_max(h), 100000);
	ck_assert_double_eq_tol(hist_mean(h), 50000.5, 1e-9);
	ck_assert_uint_eq(hist_percentile(h, 0), 1);
	ck_assert_uint_eq(hist_percentile(h, 100), 100000);
	/* Values below 2048 are exact. */
	ck_assert_uint_eq(hist_percentile(h, 1), 1000);
	ck_assert_uint_eq(hist_percentile(h, 0.001), 1);
	assert_close_above(hist_percentile(h, 10), 10000, "p10");
	assert_close_above(hist_percentile(h, 50), 50000, "p50");
	assert_close_above(hist_percentile(h, 90), 90000, "p90");
	assert_close_above(hist_percentile(h, 95), 95000, "p95");
	assert_close_above(hist_percentile(h, 99), 99000, "p99");
	assert_close_above(hist_percentile(h, 99.9), 99900, "p99.9");
	/* Out-of-range p clamps to the ends. */
	ck_assert_uint_eq(hist_percentile(h, -5), 1);
	ck_assert_uint_eq(hist_percentile(h, 250), 100000);
	hist_free(h);
}
END_TEST

START_TEST(test_constant)
{
	struct hist *h = hist_new();
	hist_record_n(h, 12345, 1000);
	ck_assert_uint_eq(hist_count(h), 1000);
	ck_assert_uint_eq(hist_sum(h), 12345000);
	for (size_t i = 0; i < N_PS; i++)
		ck_assert_uint_eq(hist_percentile(h, check_ps[i]), 12345);
	hist_free(h);
}
END_TEST

START_TEST(test_bimodal)
{
	struct hist *h = hist_new();
	for (int i = 0; i < 9000; i++)
		hist_record(h, 5000);
	for (int i = 0; i < 1000; i++)
		hist_record(h, 200000);
	assert_close_above(hist_percentile(h, 50), 5000, "p50");
	assert_close_above(hist_percentile(h, 90), 5000, "p90");
	assert_close_above(hist_percentile(h, 90.01), 200000, "p90.01");
	assert_close_above(hist_percentile(h, 95), 200000, "p95");
	assert_close_above(hist_percentile(h, 99), 200000, "p99");
	ck_assert_uint_eq(hist_percentile(h, 100), 200000);
	ck_assert_uint_eq(hist_percentile(h, 0), 5000);
	ck_assert_double_eq_tol(hist_mean(h), 24500.0, 1e-9);
	hist_free(h);
}
END_TEST

/* Reads v back as the 50th percentile of {v, HIST_MAX_US}, so the cap at
 * max does not hide the bucket's width. */
static void
check_readback(struct hist *h, uint64_t v)
{
	hist_reset(h);
	hist_record(h, v);
	hist_record(h, HIST_MAX_US);
	uint64_t got = hist_percentile(h, 50);
	ck_assert_msg(got >= v && (got - v) * 1000 <= v,
		      "value %llu read back as %llu", (unsigned long long)v,
		      (unsigned long long)got);
	if (v < 2048)
		ck_assert_uint_eq(got, v);
	ck_assert_uint_eq(hist_min(h), v);
	ck_assert_uint_eq(hist_count(h), 2);
}

START_TEST(test_readback)
{
	struct hist *h = hist_new();
	for (uint64_t v = 0; v <= 8192; v++)
		check_readback(h, v);
	for (unsigned b = 11; b < 32; b++) {
		uint64_t p = 1ull << b;
		check_readback(h, p - 1);
		check_readback(h, p);
		check_readback(h, p + 1);
	}
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 200000; i++) {
		uint64_t v = rng_latency(&seed, 31);
		if (v > HIST_MAX_US)
			v = HIST_MAX_US;
		check_readback(h, v);
	}
	hist_free(h);
}
END_TEST

START_TEST(test_edges)
{
	struct hist *h = hist_new();
	hist_record(h, 0);
	ck_assert_uint_eq(hist_count(h), 1);
	ck_assert_uint_eq(hist_min(h), 0);
	ck_assert_uint_eq(hist_max(h), 0);
	ck_assert_uint_eq(hist_percentile(h, 50), 0);
	ck_assert_uint_eq(hist_percentile(h, 100), 0);

	hist_record(h, 1);
	ck_assert_uint_eq(hist_percentile(h, 50), 0);
	ck_assert_uint_eq(hist_percentile(h, 51), 1);
	ck_assert_uint_eq(hist_max(h), 1);

	hist_record(h, HIST_MAX_US);
	ck_assert_uint_eq(hist_max(h), HIST_MAX_US);
	ck_assert_uint_eq(hist_percentile(h, 100), HIST_MAX_US);
	ck_assert_uint_eq(hist_percentile(h, 99), HIST_MAX_US);
	ck_assert_uint_eq(hist_sum(h), 1 + HIST_MAX_US);

	/* Beyond the range clamps to the top, in every figure. */
	hist_reset(h);
	hist_record(h, HIST_MAX_US + 1);
	hist_record(h, UINT64_MAX);
	ck_assert_uint_eq(hist_count(h), 2);
	ck_assert_uint_eq(hist_min(h), HIST_MAX_US);
	ck_assert_uint_eq(hist_max(h), HIST_MAX_US);
	ck_assert_uint_eq(hist_sum(h), 2 * HIST_MAX_US);
	ck_assert_uint_eq(hist_percentile(h, 50), HIST_MAX_US);

	/* Top-of-range bucket next to a small value: still within 0.1%. */
	hist_reset(h);
	hist_record(h, HIST_MAX_US - 1000);
	hist_record(h, HIST_MAX_US);
	assert_close_above(hist_percentile(h, 50), HIST_MAX_US - 1000, "near top");
	hist_free(h);
}
END_TEST

/* Many percentiles in one walk give what each asks for on its own, checked
 * against the sorted samples themselves: a long list, and p <= 0, NaN and
 * p >= 100 standing anywhere in it. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void
check_pcts(const struct hist *h, const uint64_t *sorted, unsigned n,
	   const double *p, unsigned np)
{
	uint64_t got[32];

	ck_assert_uint_le(np, 32);
	hist_percentiles(h, p, np, got);
	for (unsigned i = 0; i < np; i++) {
		uint64_t want;
		if (!(p[i] > 0.0))
			want = sorted[0];
		else if (p[i] >= 100.0)
			want = sorted[n - 1];
		else {
			double x = p[i] * n / 100.0;
			unsigned rank = (unsigned)ceil(x - 1e-9);
			want = sorted[(rank ? rank : 1) - 1];
		}
		ck_assert_msg(got[i] >= want && (got[i] - want) * 1000 <= want &&
			      (want >= 2048 || got[i] == want) &&
			      got[i] <= sorted[n - 1],
			      "p%g: got %llu, want %llu", p[i],
			      (unsigned long long)got[i], (unsigned long long)want);
		ck_assert_uint_eq(got[i], hist_percentile(h, p[i]));
	}
}

START_TEST(test_percentiles_one_walk)
{
	enum { N = 10000 };
	static uint64_t v[N];
	struct hist *h = hist_new();
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned r = (unsigned)(x >> 33);
		/* A third exact (below 2048), the rest spread over 4 decades. */
		v[i] = r % 3 == 0 ? r % 2048 : (uint64_t)(2048 * pow(10, (r % 4000) / 1000.0));
		hist_record(h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	check_pcts(h, v, N, check_ps, N_PS);
	static const double many[] = { 0.01, 0.1, 1, 5, 10, 25, 33.3, 50, 66.7,
				       75, 90, 95, 99, 99.9, 99.99, 99.999 };
	check_pcts(h, v, N, many, sizeof(many) / sizeof(many[0]));
	const double odd[] = { -5, 10, NAN, 50, 250, 99, 0, 100, 99.9 };
	check_pcts(h, v, N, odd, sizeof(odd) / sizeof(odd[0]));
	/* A report row's five, in the order of the table and the JSON. */
	static const double row[HIST_ROW_PCTS] = { 50, 90, 95, 99, 99.9 };
	uint64_t rowv[HIST_ROW_PCTS];
	hist_row_percentiles(h, rowv);
	for (unsigned i = 0; i < HIST_ROW_PCTS; i++)
		ck_assert_uint_eq(rowv[i], hist_percentile(h, row[i]));
	/* Empty: all 0, the out-of-range ones too. */
	uint64_t got[N_PS];
	hist_reset(h);
	hist_percentiles(h, check_ps, N_PS, got);
	for (size_t i = 0; i < N_PS; i++)
		ck_assert_uint_eq(got[i], 0);
	hist_free(h);
}
END_TEST

START_TEST(test_merge_exact)
{
	struct hist *all = hist_new(), *part[4], *merged = hist_new();
	for (int i = 0; i < 4; i++)
		part[i] = hist_new();
	uint64_t seed = 12345;
	for (int i = 0; i < 400000; i++) {
		uint64_t v = rng_latency(&seed, 27);
		hist_record(all, v);
		hist_record(part[rng_next(&seed) % 4], v);
	}
	for (int i = 0; i < 4; i++)
		hist_merge(merged, part[i]);
	ck_assert_uint_eq(hist_count(merged), hist_count(all));
	ck_assert_uint_eq(hist_count(merged), 400000);
	ck_assert_uint_eq(hist_sum(merged), hist_sum(all));
	ck_assert_uint_eq(hist_min(merged), hist_min(all));
	ck_assert_uint_eq(hist_max(merged), hist_max(all));
	for (size_t i = 0; i < N_PS; i++)
		ck_assert_uint_eq(hist_percentile(merged, check_ps[i]),
				  hist_percentile(all, check_ps[i]));
	ck_assert(same_buckets(merged, all));

	/* Merging an empty histogram changes nothing, min included. */
	struct hist *empty = hist_new();
	hist_merge(merged, empty);
	ck_assert_uint_eq(hist_min(merged), hist_min(all));
	ck_assert_uint_eq(hist_count(merged), 400000);
	hist_merge(empty, merged);
	ck_assert(same_buckets(empty, all));
	ck_assert_uint_eq(hist_min(empty), hist_min(all));

	hist_free(empty);
	for (int i = 0; i < 4; i++)
		hist_free(part[i]);
	hist_free(all);
	hist_free(merged);
}
END_TEST

START_TEST(test_copy_reset)
{
	struct hist *a = hist_new(), *b = hist_new();
	uint64_t seed = 7;
	for (int i = 0; i < 10000; i++)
		hist_record(a, rng_latency(&seed, 30));
	/* b starts with other data, which the copy must wipe. */
	for (int i = 0; i < 500; i++)
		hist_record(b, 3 + (uint64_t)i * 1000000);
	hist_copy(b, a);
	ck_assert(same_buckets(a, b));
	ck_assert_uint_eq(hist_count(b), hist_count(a));
	ck_assert_uint_eq(hist_sum(b), hist_sum(a));
	ck_assert_uint_eq(hist_min(b), hist_min(a));
	ck_assert_uint_eq(hist_max(b), hist_max(a));
	hist_copy(b, b);
	ck_assert(same_buckets(a, b));

	hist_reset(a);
	ck_assert_uint_eq(hist_count(a), 0);
	ck_assert_uint_eq(hist_max(a), 0);
	ck_assert_uint_eq(hist_percentile(a, 50), 0);
	hist_record(a, 77);
	ck_assert_uint_eq(hist_percentile(a, 100), 77);
	ck_assert_uint_eq(hist_percentile(a, 1), 77);
	hist_free(a);
	hist_free(b);
}
END_TEST

START_TEST(test_diff_window)
{
	struct hist *live = hist_new(), *s1 = hist_new(), *s2 = hist_new();
	struct hist *win = hist_new(), *ref = hist_new();
	uint64_t seed = 99;
	for (int i = 0; i < 50000; i++)
		hist_record(live, rng_latency(&seed, 28));
	hist_copy(s1, live);
	for (int i = 0; i < 30000; i++) {
		uint64_t v = 5000 + rng_next(&seed) % 20000000;
		hist_record(live, v);
		hist_record(ref, v);
	}
	hist_merge(s2, live);
	hist_diff(win, s2, s1);

	ck_assert(same_buckets(win, ref));
	ck_assert_uint_eq(hist_count(win), 30000);
	ck_assert_uint_eq(hist_sum(win), hist_sum(ref));
	/* Window extremes come from buckets: within one bucket of the truth. */
	uint64_t mn = hist_min(win), rmn = hist_min(ref);
	ck_assert(mn <= rmn && (rmn - mn) * 1000 <= rmn);
	assert_close_above(hist_max(win), hist_max(ref), "window max");
	for (size_t i = 1; i < N_PS; i++)	/* p0 is the min, above */
		assert_close_above(hist_percentile(win, check_ps[i]),
				   hist_percentile(ref, check_ps[i]), "window pct");

	/* A first window (empty b) keeps a's exact extremes. */
	struct hist *zero = hist_new();
	hist_diff(win, s1, zero);
	ck_assert(same_buckets(win, s1));
	ck_assert_uint_eq(hist_min(win), hist_min(s1));
	ck_assert_uint_eq(hist_max(win), hist_max(s1));
	ck_assert_uint_eq(hist_sum(win), hist_sum(s1));

	/* No new samples: an empty window. */
	hist_diff(win, s2, s2);
	ck_assert_uint_eq(hist_count(win), 0);
	ck_assert_uint_eq(hist_min(win), 0);
	ck_assert_uint_eq(hist_max(win), 0);
	ck_assert_uint_eq(hist_percentile(win, 50), 0);

	/* In place: dst may be a or b. */
	hist_diff(s2, s2, s1);
	ck_assert(same_buckets(s2, ref));
	hist_merge(s2, s1);
	hist_diff(s1, s2, s1);
	ck_assert(same_buckets(s1, ref));

	hist_free(zero);
	hist_free(live);
	hist_free(s1);
	hist_free(s2);
	hist_free(win);
	hist_free(ref);
}
END_TEST

#define CONC_N 1000000

struct conc {
	struct hist *h;
	atomic_bool done;
	uint64_t sum;
};

static void *
conc_writer(void *arg)
{
	struct conc *c = arg;
	uint64_t seed = 4242, sum = 0;
	for (int i = 0; i < CONC_N; i++) {
		uint64_t v = rng_latency(&seed, 26);
		hist_record(c->h, v);
		sum += v;
	}
	c->sum = sum;
	atomic_store_explicit(&c->done, true, memory_order_release);
	return NULL;
}

START_TEST(test_concurrent)
{
	struct conc c = { .h = hist_new(), .sum = 0 };
	atomic_init(&c.done, false);
	struct hist *prev = hist_new(), *cur = hist_new(), *t = hist_new();
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, conc_writer, &c), 0);
	uint64_t last = 0, last_sum = 0, reads = 0;
	bool finished;
	do {
		finished = atomic_load_explicit(&c.done, memory_order_acquire);
		hist_reset(cur);
		hist_merge(cur, c.h);
		uint64_t n = hist_count(cur);
		ck_assert_uint_le(n, CONC_N);
		ck_assert_msg(n >= last, "count went from %llu to %llu",
			      (unsigned long long)last, (unsigned long long)n);
		ck_assert_uint_ge(hist_sum(cur), last_sum);
		/* No single bucket went down either. */
		hist_diff(t, prev, cur);
		ck_assert_uint_eq(hist_count(t), 0);
		last = n;
		last_sum = hist_sum(cur);
		struct hist *swap = prev;
		prev = cur;
		cur = swap;
		reads++;
	} while (!finished);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	hist_reset(cur);
	hist_merge(cur, c.h);
	ck_assert_uint_eq(hist_count(cur), CONC_N);
	ck_assert_uint_eq(hist_count(c.h), CONC_N);
	ck_assert_uint_eq(hist_sum(cur), c.sum);
	ck_assert_uint_ge(reads, 1);
	hist_free(c.h);
	hist_free(prev);
	hist_free(cur);
	hist_free(t);
}
END_TEST

static Suite *
hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_uniform);
	tcase_add_test(tc, test_constant);
	tcase_add_test(tc, test_bimodal);
	tcase_add_test(tc, test_readback);
	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_percentiles_one_walk);
	tcase_add_test(tc, test_merge_exact);
	tcase_add_test(tc, test_copy_reset);
	tcase_add_test(tc, test_diff_window);
	tcase_add_test(tc, test_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hist_suite)
