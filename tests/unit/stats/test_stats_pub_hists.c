/* stats_pub's histograms: the handshake (ask, answer, take), and that the
 * windows a reader builds from what each copy changed equal what summing
 * whole copies and subtracting the last sum gives (the per-second path
 * before the handshake), for two writers, for copies a reader takes late,
 * and that the sum of the copies last taken is the run's, exact at the
 * end. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "check_main.h"
#include "hist_check.h"
#include "stats/stats_pub.h"

static void
ck_snap_hists_same(const struct stats_snap *a, const struct stats_snap *b)
{
	for (int i = 0; i < OP_COUNT; i++)
		ck_hist_same(a->lat[i], b->lat[i]);
	ck_hist_same(a->tls_lat, b->tls_lat);
	ck_hist_same(a->connect_lat, b->connect_lat);
	for (int i = 0; i < ACT_COUNT; i++)
		ck_hist_same(a->act.lat[i], b->act.lat[i]);
	for (int k = 0; k < PUSH_COUNT; k++)
		ck_hist_same(a->act.push[k], b->act.push[k]);
	ck_hist_same(a->act.lmtp.lat_total, b->act.lmtp.lat_total);
}

/* Nothing is copied unasked, a copy waits until taken (asking again does
 * not make another), and the reader sees the copy, not the live shard. */
START_TEST(test_handshake)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_snap cum, win;

	stats_snap_init(&cum);
	stats_snap_init(&win);
	stats_cmd(live, OP_FETCH, STATS_OK, 120);
	ck_assert(!stats_pub_wanted(p));
	ck_assert(!stats_pub_publish_hists(p, live));
	ck_assert(!stats_pub_ready(p));
	stats_pub_take(p, &win);		/* nothing: a no-op */
	stats_pub_add_taken_all(p, &cum);
	ck_assert_uint_eq(hist_count(cum.lat[OP_FETCH]), 0);
	ck_assert_uint_eq(cum.ok[OP_FETCH], 0);

	stats_pub_ask(p, STATS_PUB_CHANGES);
	ck_assert(stats_pub_wanted(p));
	ck_assert(stats_pub_publish_hists(p, live));
	ck_assert(!stats_pub_wanted(p));
	ck_assert(stats_pub_ready(p));
	stats_cmd(live, OP_FETCH, STATS_OK, 5000);	/* after the copy */
	stats_pub_ask(p, STATS_PUB_CHANGES);	/* not taken yet: still the one copy */
	ck_assert(!stats_pub_publish_hists(p, live));
	stats_pub_take(p, &win);
	stats_pub_end_window(&win, &p, 1);
	ck_assert(!stats_pub_ready(p));
	stats_pub_add_taken_all(p, &cum);
	ck_assert_uint_eq(cum.ok[OP_FETCH], 1);
	ck_assert_uint_eq(hist_count(cum.lat[OP_FETCH]), 1);
	ck_assert_uint_eq(hist_max(cum.lat[OP_FETCH]), 120);
	ck_assert_uint_eq(hist_count(win.lat[OP_FETCH]), 1);

	stats_pub_ask(p, STATS_PUB_CHANGES);
	ck_assert(stats_pub_publish_hists(p, live));
	stats_snap_clear(&win);
	stats_pub_take(p, &win);
	stats_pub_end_window(&win, &p, 1);
	stats_snap_clear(&cum);
	stats_pub_add_taken_all(p, &cum);
	ck_assert_uint_eq(hist_count(cum.lat[OP_FETCH]), 2);
	ck_assert_uint_eq(hist_sum(cum.lat[OP_FETCH]), 5120);
	ck_assert_uint_eq(hist_count(win.lat[OP_FETCH]), 1);
	ck_assert_uint_eq(hist_sum(win.lat[OP_FETCH]), 5000);

	stats_snap_free(&cum);
	stats_snap_free(&win);
	stats_free(live);
	stats_pub_free(p);
}
END_TEST

/* A window's extremes are known only to a bucket, except where the run's
 * own min or max bound them: values in wide buckets (above 2048 us), the
 * window's lowest in the bucket of the run's min, its highest in the
 * bucket of the run's max. */
START_TEST(test_window_extremes)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_snap cum, win, a, b, old;

	stats_snap_init(&cum);
	stats_snap_init(&win);
	stats_snap_init(&a);
	stats_snap_init(&b);
	stats_snap_init(&old);
	const uint64_t first[] = { 10007, 900000 }, second[] = { 10006, 899990, 50000 };
	for (unsigned i = 0; i < 2; i++)
		stats_cmd(live, OP_FETCH, STATS_OK, first[i]);
	stats_pub_ask(p, STATS_PUB_CHANGES);
	ck_assert(stats_pub_publish_hists(p, live));
	stats_pub_take(p, &win);
	stats_pub_end_window(&win, &p, 1);
	stats_snap_add_live(&a, live);
	ck_assert_uint_eq(hist_min(win.lat[OP_FETCH]), 10007);	/* exact */
	ck_assert_uint_eq(hist_max(win.lat[OP_FETCH]), 900000);
	for (unsigned i = 0; i < 3; i++)
		stats_cmd(live, OP_FETCH, STATS_OK, second[i]);
	stats_pub_ask(p, STATS_PUB_CHANGES);
	ck_assert(stats_pub_publish_hists(p, live));
	stats_snap_clear(&win);
	stats_pub_take(p, &win);
	stats_pub_end_window(&win, &p, 1);
	stats_snap_add_live(&b, live);
	stats_snap_diff(&old, &b, &a);
	ck_hist_same(win.lat[OP_FETCH], old.lat[OP_FETCH]);
	/* 10006's bucket starts below it, 899990's ends above 900000 */
	ck_assert_uint_eq(hist_min(win.lat[OP_FETCH]), 10006);
	ck_assert_uint_le(hist_max(win.lat[OP_FETCH]), 900000);
	ck_assert_uint_ge(hist_max(win.lat[OP_FETCH]), 899990);

	stats_snap_free(&cum);
	stats_snap_free(&win);
	stats_snap_free(&a);
	stats_snap_free(&b);
	stats_snap_free(&old);
	stats_free(live);
	stats_pub_free(p);
}
END_TEST

static void
record_some(struct stats *live, uint64_t *x, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		uint64_t r = rng_next(x);
		uint64_t us = rng_latency(x, 23);	/* 1 us .. 8 s */
		switch (r % 6) {
		case 0: stats_cmd(live, OP_FETCH, STATS_OK, us); break;
		case 1: stats_cmd(live, OP_NOOP, STATS_NO, us); break;
		case 2: stats_cmd(live, OP_SELECT, STATS_OK, us); break;
		case 3: hist_record(live->connect_lat, us); break;
		case 4: act_ok(&live->act, ACT_DELIVER, us); break;
		default: break;		/* a quiet step */
		}
	}
}

/* Two writers; at each tick the reader asks both, each answers or (one
 * time in four) answers only at the next tick.  After every tick the
 * reader's window equals the sum of the copies it took minus that sum the
 * tick before, bucket by bucket, count, sum, min and max, as hist_merge
 * and hist_diff give; and the sum of the copies last taken is that sum.
 * At the end, with every copy taken, the sum equals the live shards. */
#define TICKS 200

START_TEST(test_windows_as_before)
{
	struct stats_pub *p[2] = { stats_pub_new(), stats_pub_new() };
	struct stats *live[2] = { stats_new(), stats_new() };
	struct stats_snap cum, win, taken[2], pending[2], want, want_prev, want_win;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned late = 0;

	stats_snap_init(&cum);
	stats_snap_init(&win);
	stats_snap_init(&want);
	stats_snap_init(&want_prev);
	stats_snap_init(&want_win);
	for (int i = 0; i < 2; i++) {
		stats_snap_init(&taken[i]);
		stats_snap_init(&pending[i]);
	}
	for (unsigned t = 0; t <= TICKS; t++) {
		bool last = t == TICKS;
		/* ticks of few samples and of many, spread over 23 octaves */
		for (int i = 0; i < 2; i++)
			record_some(live[i], &x, (unsigned)(rng_next(&x) % 3 == 0 ?
						  rng_next(&x) % 400 : rng_next(&x) % 8));
		stats_snap_clear(&win);
		for (int i = 0; i < 2; i++) {
			if (stats_pub_ready(p[i])) {	/* late from the tick before */
				stats_pub_take(p[i], &win);
				stats_snap_copy(&taken[i], &pending[i]);
			}
			stats_pub_ask(p[i], STATS_PUB_CHANGES);
			/* one answer in four comes after the reader stopped
			 * waiting, one in five is not taken at once either */
			bool answers = last || rng_next(&x) % 4 != 0;
			bool taken_now = last || (answers && rng_next(&x) % 5 != 0);
			if (answers && stats_pub_publish_hists(p[i], live[i])) {
				stats_snap_clear(&pending[i]);
				stats_snap_add_live(&pending[i], live[i]);
			}
			if (taken_now) {
				stats_pub_take(p[i], &win);
				stats_snap_copy(&taken[i], &pending[i]);
				continue;
			}
			late++;
			record_some(live[i], &x, 3);	/* before the late copy */
			if (!answers && stats_pub_publish_hists(p[i], live[i])) {
				stats_snap_clear(&pending[i]);
				stats_snap_add_live(&pending[i], live[i]);
			}
		}
		stats_pub_end_window(&win, p, 2);
		/* the old way: whole copies summed, then subtracted */
		stats_snap_clear(&want);
		stats_snap_add(&want, &taken[0]);
		stats_snap_add(&want, &taken[1]);
		stats_snap_diff(&want_win, &want, &want_prev);
		stats_snap_copy(&want_prev, &want);
		ck_snap_hists_same(&win, &want_win);
		stats_snap_clear(&cum);
		stats_pub_add_taken_all(p[0], &cum);
		stats_pub_add_taken_all(p[1], &cum);
		ck_snap_hists_same(&cum, &want);
		ck_assert_uint_eq(cum.ok[OP_FETCH], want.ok[OP_FETCH]);
		ck_assert_uint_eq(cum.no[OP_NOOP], want.no[OP_NOOP]);
		ck_assert_uint_eq(cum.act.ok[ACT_DELIVER], want.act.ok[ACT_DELIVER]);
	}
	ck_assert_uint_gt(late, TICKS / 8);
	/* the end: exact */
	stats_snap_clear(&want);
	stats_snap_add_live(&want, live[0]);
	stats_snap_add_live(&want, live[1]);
	ck_snap_hists_same(&cum, &want);
	ck_assert_uint_eq(cum.ok[OP_SELECT], want.ok[OP_SELECT]);
	ck_assert_uint_gt(hist_count(cum.lat[OP_SELECT]), 1000);

	for (int i = 0; i < 2; i++) {
		stats_snap_free(&taken[i]);
		stats_snap_free(&pending[i]);
		stats_free(live[i]);
		stats_pub_free(p[i]);
	}
	stats_snap_free(&cum);
	stats_snap_free(&win);
	stats_snap_free(&want);
	stats_snap_free(&want_prev);
	stats_snap_free(&want_win);
}
END_TEST

/* A writer thread recording and answering whenever asked, a reader asking
 * and taking as fast as it can: in every copy taken the counters and the
 * histograms are of the same moment (each window's FETCH count is what
 * ok[FETCH] grew by, which a copy read while rewritten would break), sums
 * only grow, and after the writer ends the reader's last copy (made by it,
 * as run.c does after the join) equals the live shard. */
#define RECORDS 50000

struct hrace {
	struct stats_pub *p;
	struct stats *live;
	_Atomic bool done;
	_Atomic unsigned takes;
};

static void *
hrace_writer(void *arg)
{
	struct hrace *r = arg;

	for (unsigned i = 0; i < RECORDS; i++) {
		stats_cmd(r->live, OP_FETCH, STATS_OK, 1 + (i * 7919u) % 3000000);
		if (i % 16 == 0)
			stats_pub_publish_hists(r->p, r->live);
		/* half-way, until the reader has taken one: answering */
		while (i == RECORDS / 2 && atomic_load(&r->takes) == 0) {
			stats_pub_publish_hists(r->p, r->live);
			sched_yield();
		}
	}
	atomic_store(&r->done, true);
	return NULL;
}

START_TEST(test_handshake_threads)
{
	struct hrace r = { .p = stats_pub_new(), .live = stats_new() };
	struct stats_snap cum, win, tally, want;
	pthread_t t;
	uint64_t last = 0;

	stats_snap_init(&cum);
	stats_snap_init(&win);
	stats_snap_init(&tally);
	stats_snap_init(&want);
	ck_assert_int_eq(pthread_create(&t, NULL, hrace_writer, &r), 0);
	while (!atomic_load(&r.done)) {
		stats_pub_ask(r.p, STATS_PUB_CHANGES);
		if (!stats_pub_ready(r.p)) {
			sched_yield();
			continue;
		}
		stats_snap_clear(&win);
		stats_pub_take(r.p, &win);
		stats_pub_end_window(&win, &r.p, 1);
		stats_snap_clear_figures(&tally);
		stats_pub_add_taken(r.p, &tally);
		ck_assert_uint_ge(tally.ok[OP_FETCH], last);
		ck_assert_uint_eq(hist_count(win.lat[OP_FETCH]),
				  tally.ok[OP_FETCH] - last);
		last = tally.ok[OP_FETCH];
		atomic_fetch_add(&r.takes, 1);
	}
	pthread_join(t, NULL);
	stats_snap_clear(&win);
	stats_pub_take(r.p, &win);	/* answered, not taken yet */
	stats_pub_ask(r.p, STATS_PUB_CHANGES);
	ck_assert(stats_pub_publish_hists(r.p, r.live));
	stats_pub_take(r.p, &win);
	stats_pub_add_taken_all(r.p, &cum);
	stats_snap_add_live(&want, r.live);
	ck_snap_hists_same(&cum, &want);
	ck_assert_uint_eq(hist_count(cum.lat[OP_FETCH]), RECORDS);
	ck_assert_uint_gt(atomic_load(&r.takes), 0);

	stats_snap_free(&cum);
	stats_snap_free(&win);
	stats_snap_free(&tally);
	stats_snap_free(&want);
	stats_free(r.live);
	stats_pub_free(r.p);
}
END_TEST

/* A run no output of which reads a second's histograms: copies with the
 * counters alone (NONE) carry none, taken without a window, and the
 * copies asked WHOLE (the warm-up's end, the end) hold every sample,
 * whichever of the two buffers they land in. */
START_TEST(test_whole_only)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_snap cum, ref;
	static const enum stats_pub_hists what[] = {
		STATS_PUB_NONE, STATS_PUB_NONE, STATS_PUB_WHOLE, STATS_PUB_NONE,
		STATS_PUB_WHOLE, STATS_PUB_WHOLE, STATS_PUB_NONE, STATS_PUB_NONE,
		STATS_PUB_NONE, STATS_PUB_WHOLE,
	};
	uint64_t ok = 0;

	stats_snap_init(&cum);
	stats_snap_init(&ref);
	ck_assert(!stats_pub_taken_hists(p));
	for (unsigned t = 0; t < sizeof(what) / sizeof(what[0]); t++) {
		for (unsigned k = 0; k < 50 + t * 7; k++, ok++)
			stats_cmd(live, (enum op)(k % 3 == 0 ? OP_FETCH : OP_SELECT),
				  STATS_OK, 100 + (k * 7919 + t * 104729) % 900000);
		stats_pub_ask(p, what[t]);
		ck_assert(stats_pub_publish_hists(p, live));
		stats_pub_take(p, NULL);
		ck_assert(!stats_pub_ready(p));
		ck_assert(stats_pub_taken_hists(p) == (what[t] == STATS_PUB_WHOLE));
		stats_snap_clear(&cum);
		stats_pub_add_taken_all(p, &cum);
		ck_assert_uint_eq(cum.ok[OP_FETCH] + cum.ok[OP_SELECT], ok);
		if (what[t] != STATS_PUB_WHOLE)
			continue;
		stats_snap_clear(&ref);
		stats_snap_add_live(&ref, live);
		ck_snap_hists_same(&cum, &ref);
		ck_assert_uint_eq(hist_count(cum.lat[OP_FETCH]) +
				  hist_count(cum.lat[OP_SELECT]), ok);
	}
	stats_snap_free(&cum);
	stats_snap_free(&ref);
	stats_free(live);
	stats_pub_free(p);
}
END_TEST

/* The end of a run without per-second histograms (run_collect.c): a last
 * copy of the counters only, its figures, and the joined shards' own
 * histograms add up to what a whole copy of each gave, two writers, every
 * histogram kind; the latency sums come from the copies (a live shard
 * keeps them only in its histograms, so adding the live shards whole
 * would leave them 0). */
START_TEST(test_joined_sum)
{
	struct stats_pub *p[2] = { stats_pub_new(), stats_pub_new() };
	struct stats *live[2] = { stats_new(), stats_new() };
	struct stats_snap whole, joined;
	uint64_t x = 0x2545f4914f6cdd1dull;

	stats_snap_init(&whole);
	stats_snap_init(&joined);
	for (int i = 0; i < 2; i++) {
		record_some(live[i], &x, 3000);
		hist_record(live[i]->tls_lat, 700 + (uint64_t)i);
		act_ok(&live[i]->act, ACT_READ, 40000 + (uint64_t)i);
	}
	for (int i = 0; i < 2; i++) {
		stats_pub_ask(p[i], STATS_PUB_WHOLE);
		ck_assert(stats_pub_publish_hists(p[i], live[i]));
		stats_pub_take(p[i], NULL);
		stats_pub_add_taken_all(p[i], &whole);
	}
	for (int i = 0; i < 2; i++) {
		stats_pub_ask(p[i], STATS_PUB_NONE);
		ck_assert(stats_pub_publish_hists(p[i], live[i]));
		stats_pub_take(p[i], NULL);
		ck_assert(!stats_pub_taken_hists(p[i]));
		stats_pub_add_taken(p[i], &joined);
		stats_snap_add_live_hists(&joined, live[i]);
	}
	ck_snap_hists_same(&joined, &whole);
	ck_assert_uint_gt(hist_count(joined.act.lat[ACT_READ]), 0);
	ck_assert_uint_eq(hist_count(joined.tls_lat), 2);
	for (int op = 0; op < OP_COUNT; op++) {
		ck_assert_uint_eq(joined.ok[op], whole.ok[op]);
		ck_assert_uint_eq(joined.no[op], whole.no[op]);
		ck_assert_uint_eq(joined.lat_sum_us[op], whole.lat_sum_us[op]);
		ck_assert_uint_eq(joined.lat_sum_us[op], hist_sum(joined.lat[op]));
	}
	ck_assert_uint_gt(joined.lat_sum_us[OP_FETCH], 0);
	ck_assert_uint_eq(joined.act.ok[ACT_DELIVER], whole.act.ok[ACT_DELIVER]);
	ck_assert_uint_gt(joined.act.ok[ACT_DELIVER], 0);
	stats_snap_free(&whole);
	stats_snap_free(&joined);
	for (int i = 0; i < 2; i++) {
		stats_free(live[i]);
		stats_pub_free(p[i]);
	}
}
END_TEST

static Suite *
stats_pub_hists_suite(void)
{
	Suite *s = suite_create("stats_pub_hists");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_handshake);
	tcase_add_test(tc, test_window_extremes);
	tcase_add_test(tc, test_windows_as_before);
	tcase_add_test(tc, test_handshake_threads);
	tcase_add_test(tc, test_whole_only);
	tcase_add_test(tc, test_joined_sum);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(stats_pub_hists_suite)
