/* test_hist_cells.c: the histogram's storage as its writers and the
 * per-second path use it: cells allocated on first write, a publish that
 * copies only what changed (hist_refresh, hist_watch), and merge, diff and
 * copy over sparse and full histograms giving what one histogram that
 * recorded everything gives.  test_hist.c has the values and percentiles. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "stats/hist.h"
#include "hist_check.h"

static const double check_ps[] = { 0, 1, 10, 50, 90, 95, 99, 99.9, 100 };
#define N_PS (sizeof(check_ps) / sizeof(check_ps[0]))

/* hist_watch: every change sets the bit, nothing else does, and the
 * watch can be stopped. */
START_TEST(test_watch)
{
	struct hist *h = hist_new();
	uint64_t word = 0;

	hist_watch(h, &word, 1ull << 5);
	ck_assert_uint_eq(word, 1ull << 5);	/* set at once */
	word = 0;
	(void)hist_count(h);
	(void)hist_percentile(h, 99);
	ck_assert_uint_eq(word, 0);		/* reads change nothing */
	hist_record(h, 12345);
	ck_assert_uint_eq(word, 1ull << 5);
	word = 0;
	hist_record_n(h, 7, 0);			/* no sample */
	ck_assert_uint_eq(word, 0);
	hist_reset(h);
	ck_assert_uint_eq(word, 1ull << 5);
	hist_watch(h, NULL, 0);
	word = 0;
	hist_record(h, 1);
	ck_assert_uint_eq(word, 0);
	ck_assert_uint_eq(hist_count(h), 1);
	hist_free(h);
}
END_TEST

/* Bucket by bucket: merge, diff and copy visit only the buckets marked
 * non-zero (nz), and reuse after a reset or an in-place diff must not
 * leave a stale mark that hides or invents a count. */
START_TEST(test_sparse_ops)
{
	struct hist *all = hist_new(), *head = hist_new(), *tail = hist_new();
	struct hist *d = hist_new(), *e = hist_new();
	uint64_t x = 99;

	for (unsigned round = 0; round < 4; round++) {
		hist_reset(all);
		hist_reset(head);
		hist_reset(tail);
		for (unsigned i = 0; i < 3000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* spread over decades, and some repeats in one bucket */
			uint64_t us = i % 7 == 0 ? 1500 : 1 + (x >> 33) % (200000u << round);
			hist_record(all, us);
			hist_record(i < 1000 + 500 * round ? head : tail, us);
		}
		hist_diff(d, all, head);		/* d = tail */
		ck_hist_buckets_same(d, tail);
		hist_copy(e, d);
		hist_merge(e, head);			/* e = all */
		ck_hist_buckets_same(e, all);
		hist_diff(e, e, tail);			/* in place: e = head */
		ck_hist_buckets_same(e, head);
		hist_diff(d, head, d);			/* d = head - tail, floored */
		ck_assert_uint_le(hist_count(d), hist_count(head));
		hist_reset(e);
		hist_merge(e, tail);
		ck_hist_buckets_same(e, tail);
	}
	hist_free(all);
	hist_free(head);
	hist_free(tail);
	hist_free(d);
	hist_free(e);
}
END_TEST

/* Two copies refreshed in turn (the publish double buffer) equal a full
 * copy every time, bucket for bucket, through batches of samples spread
 * over the range and a reset of the source. */
START_TEST(test_refresh_turns)
{
	struct hist *src = hist_new(), *full = hist_new();
	struct hist *copy[2] = { hist_new(), hist_new() };
	uint64_t seed = 7;

	for (unsigned round = 0; round < 40; round++) {
		/* Batches of different widths: some rounds touch blocks
		 * the other copy has not seen yet, some touch none. */
		unsigned n = round % 5 == 4 ? 0 : 1 + round * 13;
		for (unsigned k = 0; k < n; k++)
			hist_record(src, rng_latency(&seed, 4 + round % 28));
		if (round == 25)
			hist_reset(src);
		hist_refresh(copy[round & 1], src);
		hist_copy(full, src);
		ck_hist_same(copy[round & 1], full);
	}
	hist_free(src);
	hist_free(full);
	hist_free(copy[0]);
	hist_free(copy[1]);
}
END_TEST

/* Counters are allocated in cells of 8 buckets when a count in them is
 * first written (and a block's cell pointers with its first cell): an
 * empty histogram holds no buckets, one value one cell, and a reset keeps
 * what it has (the next second reuses it). */
START_TEST(test_lazy_blocks)
{
	struct hist *h = hist_new();
	size_t empty = hist_bytes(h);
	ck_assert_uint_lt(empty, 1024);
	ck_assert_uint_eq(hist_percentile(h, 50), 0);
	unsigned idx = 0;
	uint64_t c;
	ck_assert(!hist_next_bucket(h, &idx, &c));

	size_t cell = 8 * sizeof(uint64_t);
	hist_record(h, 96);
	size_t one = hist_bytes(h);
	ck_assert_uint_gt(one, empty + cell);
	hist_record(h, 101);			/* same cell (96..103) */
	ck_assert_uint_eq(hist_bytes(h), one);
	hist_record(h, 104);			/* same block (64..127) */
	ck_assert_uint_eq(hist_bytes(h), one + cell);
	hist_record(h, 200);			/* the next block but one */
	size_t block = hist_bytes(h) - one - cell;
	ck_assert_uint_gt(block, cell);
	hist_record(h, HIST_MAX_US);	/* the last block (and its group) */
	size_t all = hist_bytes(h);	/* what h holds from here on */
	ck_assert_uint_gt(all, one + cell + 2 * block);
	ck_assert_uint_eq(hist_percentile(h, 50), 104);	/* 3rd of 5 */
	ck_assert_uint_eq(hist_percentile(h, 100), HIST_MAX_US);

	hist_reset(h);
	ck_assert_uint_eq(hist_bytes(h), all);
	ck_assert_uint_eq(hist_count(h), 0);
	idx = 0;
	ck_assert(!hist_next_bucket(h, &idx, &c));

	/* A copy, merge or diff of what is empty allocates nothing. */
	struct hist *e = hist_new(), *d = hist_new();
	hist_copy(d, e);
	hist_merge(d, e);
	hist_diff(d, h, e);
	ck_assert_uint_eq(hist_bytes(d), empty);

	/* A copy allocates the blocks with data; a window the blocks that
	 * changed, not all of a's. */
	struct hist *cum = hist_new(), *prev = hist_new(), *win = hist_new();
	uint64_t seed = 5;
	for (int i = 0; i < 20000; i++)
		hist_record(cum, rng_latency(&seed, 26));
	hist_copy(prev, cum);
	ck_assert_uint_eq(hist_bytes(prev), hist_bytes(cum));
	ck_assert_uint_gt(hist_bytes(prev), one + 20 * cell);
	hist_copy(h, cum);	/* h's emptied cells get zeros or counts */
	ck_assert(same_buckets(h, cum));
	ck_assert_uint_ge(hist_bytes(h), hist_bytes(cum));
	hist_record(cum, 1500);
	hist_diff(win, cum, prev);
	ck_assert_uint_eq(hist_count(win), 1);
	ck_assert_uint_eq(hist_bytes(win), one);
	ck_assert_uint_eq(hist_percentile(win, 50), 1500);
	struct hist *all_h[] = { cum, prev, win, e, d, h };
	for (size_t i = 0; i < sizeof(all_h) / sizeof(all_h[0]); i++)
		hist_free(all_h[i]);
}
END_TEST

/* A sparse histogram (a few blocks) merged with a full one (every bucket
 * holds a count) and the other way round: the same buckets, percentiles
 * and export as one histogram that recorded everything. */
START_TEST(test_merge_lazy_full)
{
	struct hist *full = hist_new(), *lazy = hist_new(), *all = hist_new();
	for (uint64_t v = 0; v <= HIST_MAX_US; ) {
		hist_record(full, v);
		hist_record(all, v);
		/* one value per bucket, each a bucket's first: above 2048
		 * a bucket is 1/1024 of v's octave wide */
		v += v < 2048 ? 1 : 1ull << (63 - __builtin_clzll(v) - 10);
	}
	ck_assert_uint_eq(hist_count(full), HIST_N_BUCKETS);
	uint64_t seed = 77;
	for (int i = 0; i < 5000; i++) {
		uint64_t v = 300 + rng_next(&seed) % 200;
		hist_record(lazy, v);
		hist_record(all, v);
	}
	ck_assert_uint_lt(hist_bytes(lazy), hist_bytes(full) / 10);

	struct hist *m1 = hist_new(), *m2 = hist_new();
	hist_merge(m1, lazy);
	hist_merge(m1, full);
	hist_merge(m2, full);
	hist_merge(m2, lazy);
	static uint64_t ea[HIST_N_BUCKETS], e1[HIST_N_BUCKETS], e2[HIST_N_BUCKETS];
	unsigned na = hist_export(all, ea, HIST_N_BUCKETS);
	ck_assert_uint_eq(na, HIST_N_BUCKETS);
	ck_assert_uint_eq(hist_export(m1, e1, HIST_N_BUCKETS), na);
	ck_assert_uint_eq(hist_export(m2, e2, HIST_N_BUCKETS), na);
	for (unsigned i = 0; i < na; i++) {
		ck_assert_uint_eq(e1[i], ea[i]);
		ck_assert_uint_eq(e2[i], ea[i]);
	}
	for (size_t i = 0; i < N_PS; i++) {
		ck_assert_uint_eq(hist_percentile(m1, check_ps[i]),
				  hist_percentile(all, check_ps[i]));
		ck_assert_uint_eq(hist_percentile(m2, check_ps[i]),
				  hist_percentile(all, check_ps[i]));
	}
	ck_assert_uint_eq(hist_sum(m1), hist_sum(all));
	ck_assert_uint_eq(hist_min(m2), 0);
	ck_assert_uint_eq(hist_max(m2), hist_max(all));
	ck_assert_uint_gt(hist_max(m2), HIST_MAX_US - HIST_MAX_US / 1000);
	ck_assert(hist_stddev(m1) == hist_stddev(all));
	struct hist *all_h[] = { m1, m2, full, lazy, all };
	for (size_t i = 0; i < sizeof(all_h) / sizeof(all_h[0]); i++)
		hist_free(all_h[i]);
}
END_TEST

/* Export of h, bucket by bucket, equal to want[]. */
static void
assert_buckets(const struct hist *h, const uint64_t *want, const char *what)
{
	static uint64_t got[HIST_N_BUCKETS];
	unsigned n = hist_export(h, got, HIST_N_BUCKETS);
	uint64_t total = 0;
	for (unsigned i = 0; i < HIST_N_BUCKETS; i++) {
		uint64_t g = i < n ? got[i] : 0;
		ck_assert_msg(g == want[i], "%s: bucket %u holds %llu, want %llu",
			      what, i, (unsigned long long)g,
			      (unsigned long long)want[i]);
		total += want[i];
	}
	ck_assert_uint_eq(hist_count(h), total);
}

/* The main thread's per-second path (run.c: cum = reset + merge of every
 * worker's copy, win = cum - prev, prev and cum swapped) against plain
 * arrays, bucket by bucket, over ticks whose samples land in a few cells
 * of a block at a time: merge and diff walk cells, and a cell that one
 * side lacks must count as zeros.  Then a difference written over its
 * own subtrahend whose cells the minuend lacks. */
START_TEST(test_cells_per_second)
{
	static uint64_t r0[HIST_N_BUCKETS], r1[HIST_N_BUCKETS];
	static uint64_t pr[HIST_N_BUCKETS], want[HIST_N_BUCKETS];
	struct hist *w0 = hist_new(), *w1 = hist_new();
	struct hist *cum = hist_new(), *prev = hist_new(), *win = hist_new();
	uint64_t seed = 4242;

	for (unsigned tick = 0; tick < 40; tick++) {
		/* a band of one octave, a different one most ticks */
		unsigned oct = 1 + (unsigned)(rng_next(&seed) % 20);
		unsigned n = tick % 5 == 4 ? 0 : 1 + (unsigned)(rng_next(&seed) % 300);
		for (unsigned i = 0; i < n; i++) {
			uint64_t v = (1ull << oct) + rng_next(&seed) % (1ull << oct);
			unsigned j;
			if (v > HIST_MAX_US)
				v = HIST_MAX_US;
			hist_record(i % 3 ? w0 : w1, v);
			struct hist *one = hist_new();
			hist_record(one, v);
			j = 0;
			uint64_t c;
			ck_assert(hist_next_bucket(one, &j, &c));
			hist_free(one);
			(i % 3 ? r0 : r1)[j]++;
		}
		hist_reset(cum);
		hist_merge(cum, w0);
		hist_merge(cum, w1);
		for (unsigned j = 0; j < HIST_N_BUCKETS; j++)
			want[j] = r0[j] + r1[j];
		assert_buckets(cum, want, "cum");
		hist_diff(win, cum, prev);
		for (unsigned j = 0; j < HIST_N_BUCKETS; j++)
			want[j] = r0[j] + r1[j] - pr[j];
		assert_buckets(win, want, "win");
		struct hist *t = cum;
		cum = prev;
		prev = t;
		for (unsigned j = 0; j < HIST_N_BUCKETS; j++)
			pr[j] = r0[j] + r1[j];
	}

	/* x in the first cell of a block, y in the second: y - x in place
	 * leaves y; x - y into y's storage leaves x and zeros y's cell */
	struct hist *x = hist_new(), *y = hist_new();
	static uint64_t wx[HIST_N_BUCKETS], wy[HIST_N_BUCKETS];
	memset(wx, 0, sizeof(wx));
	memset(wy, 0, sizeof(wy));
	for (unsigned k = 0; k < 8; k++) {
		hist_record_n(x, 64 + k, k + 1);
		wx[64 + k] = k + 1;
		hist_record_n(y, 72 + k, 2);
		wy[72 + k] = 2;
	}
	hist_diff(y, y, x);
	assert_buckets(y, wy, "y - x");
	hist_diff(y, x, y);
	assert_buckets(y, wx, "x - y");
	ck_assert_uint_eq(hist_min(y), 64);
	ck_assert_uint_eq(hist_max(y), 71);
	hist_merge(y, x);
	for (unsigned j = 0; j < HIST_N_BUCKETS; j++)
		wx[j] *= 2;
	assert_buckets(y, wx, "x + x");

	struct hist *all[] = { w0, w1, cum, prev, win, x, y };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		hist_free(all[i]);
}
END_TEST

static Suite *
hist_cells_suite(void)
{
	Suite *s = suite_create("hist_cells");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_watch);
	tcase_add_test(tc, test_sparse_ops);
	tcase_add_test(tc, test_refresh_turns);
	tcase_add_test(tc, test_lazy_blocks);
	tcase_add_test(tc, test_merge_lazy_full);
	tcase_add_test(tc, test_cells_per_second);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hist_cells_suite)
