/* stats_pub: a reader sees only whole copies of a worker's counters, the
 * generation says whether it has read the latest, and the last publish
 * is exact; the histograms' handshake gives the reader sums and windows
 * equal to summing whole copies and subtracting, with each side reading
 * only what changed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "check_main.h"
#include "hist_check.h"
#include "stats/stats_pub.h"

START_TEST(test_publish_read)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_snap d;

	stats_snap_init(&d);
	/* Before the first publish: nothing to read, all zero. */
	ck_assert(stats_pub_add_to(p, &d));
	ck_assert_uint_eq(stats_snap_total_ok(&d), 0);
	ck_assert(stats_pub_read_all(p));

	stats_cmd(live, OP_FETCH, STATS_OK, 120);
	stats_cmd(live, OP_FETCH, STATS_OK, 5000);
	stats_err(live, ERR_BYE);
	ctr_set(&live->conns_open, 7);
	stats_pub_publish(p, live);
	ck_assert(!stats_pub_read_all(p));
	/* The reader sees the copy, not the live shard. */
	stats_cmd(live, OP_FETCH, STATS_OK, 9);
	ck_assert(stats_pub_add_to(p, &d));
	ck_assert(stats_pub_read_all(p));
	ck_assert_uint_eq(d.ok[OP_FETCH], 2);
	ck_assert_uint_eq(d.errors[ERR_BYE], 1);
	ck_assert_uint_eq(d.conns_open, 7);
	/* counters only: the histograms go by the handshake, but each
	 * command's latency sum is a counter (the ms/cmd line reads it) */
	ck_assert_uint_eq(hist_count(d.lat[OP_FETCH]), 0);
	ck_assert_uint_eq(d.lat_sum_us[OP_FETCH], 5120);

	/* Two more generations: the reader gets the latest, exactly. */
	stats_pub_publish(p, live);
	stats_cmd(live, OP_NOOP, STATS_NO, 3);
	stats_pub_publish(p, live);
	stats_snap_clear(&d);
	ck_assert(stats_pub_add_to(p, &d));
	ck_assert_uint_eq(d.ok[OP_FETCH], 3);
	ck_assert_uint_eq(d.no[OP_NOOP], 1);

	stats_snap_free(&d);
	stats_free(live);
	stats_pub_free(p);
}
END_TEST

/* A read that a worker overtook (it published twice, rewriting the copy
 * being read) is refused; one publish in between leaves it whole. */
/* Each command's latency sum rides with the counters (the ms/cmd line and
 * output= read no histogram): the published copy carries the live
 * histogram's sum, clamped as it clamps, benign NOs included, and a
 * window of two copies holds only what came between. */
START_TEST(test_lat_sums)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_snap a, b, w;

	stats_snap_init(&a);
	stats_snap_init(&b);
	stats_snap_init(&w);
	stats_cmd(live, OP_FETCH, STATS_OK, 100);
	stats_cmd(live, OP_FETCH, STATS_OK, 300);
	stats_cmd(live, OP_FETCH, STATS_NO, 200);
	stats_cmd(live, OP_FETCH, STATS_BAD, 50);
	stats_cmd(live, OP_FETCH, STATS_FAILED, 999999);	/* no reply */
	stats_cmd(live, OP_STORE, STATS_OK, HIST_MAX_US + 5);
	stats_cmd_benign(live, OP_STORE, BENIGN_TRYCREATE, 20);
	stats_state_err(live, MBOX_ERR_KEYWORD);	/* sub-kinds ride too */
	stats_pub_publish(p, live);
	ck_assert(stats_pub_add_to(p, &a));
	ck_assert_uint_eq(a.state[MBOX_ERR_KEYWORD], 1);
	ck_assert_uint_eq(a.errors[ERR_MBOXSTATE], 1);
	ck_assert_uint_eq(a.lat_sum_us[OP_FETCH], 650);
	ck_assert_uint_eq(stats_snap_lat_count(&a, OP_FETCH), 4);
	ck_assert_uint_eq(a.lat_sum_us[OP_STORE], HIST_MAX_US + 20);
	ck_assert_uint_eq(a.lat_sum_us[OP_STORE], hist_sum(live->lat[OP_STORE]));
	ck_assert_uint_eq(stats_snap_lat_count(&a, OP_STORE), 2);
	ck_assert_uint_eq(a.lat_sum_us[OP_APPEND], 0);

	for (int i = 0; i < 10; i++)
		stats_cmd(live, OP_FETCH, STATS_OK, 100 + (uint64_t)i);
	stats_pub_publish(p, live);
	ck_assert(stats_pub_add_to(p, &b));
	stats_snap_diff_figures(&w, &b, &a);
	ck_assert_uint_eq(w.lat_sum_us[OP_FETCH], 1045);
	ck_assert_uint_eq(stats_snap_lat_count(&w, OP_FETCH), 10);
	ck_assert_uint_eq(w.lat_sum_us[OP_STORE], 0);

	stats_snap_free(&a);
	stats_snap_free(&b);
	stats_snap_free(&w);
	stats_free(live);
	stats_pub_free(p);
}
END_TEST

START_TEST(test_overtaken_read)
{
	struct stats_pub *p = stats_pub_new();
	struct stats *live = stats_new();
	struct stats_pub_read r;

	stats_cmd(live, OP_FETCH, STATS_OK, 10);
	stats_pub_publish(p, live);
	const struct stats *s = stats_pub_read_begin(p, &r);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(ctr_get(&s->ok[OP_FETCH]), 1);
	stats_pub_publish(p, live);	/* the other buffer */
	ck_assert(stats_pub_read_end(p, &r));

	s = stats_pub_read_begin(p, &r);
	stats_pub_publish(p, live);
	stats_cmd(live, OP_FETCH, STATS_OK, 10);
	stats_pub_publish(p, live);	/* rewrote s */
	ck_assert_uint_eq(ctr_get(&s->ok[OP_FETCH]), 2);
	ck_assert(!stats_pub_read_end(p, &r));
	ck_assert(!stats_pub_read_all(p));

	stats_free(live);
	stats_pub_free(p);
}
END_TEST

/* A writer publishing as fast as it can, keeping ok[FETCH] == ok[NOOP]
 * in every shard it publishes: a torn read would break the equality, so
 * every read the reader accepts must keep it. */
#define PUBS 20000

struct race {
	struct stats_pub *p;
	_Atomic bool done;
};

static void *
race_writer(void *arg)
{
	struct race *r = arg;
	struct stats *live = stats_new();

	for (unsigned i = 0; i < PUBS; i++) {
		stats_cmd(live, OP_FETCH, STATS_OK, 1 + i % 5000);
		stats_cmd(live, OP_NOOP, STATS_OK, 1);
		stats_pub_publish(r->p, live);
	}
	atomic_store(&r->done, true);
	stats_free(live);
	return NULL;
}

START_TEST(test_no_torn_copy)
{
	struct race r = { .p = stats_pub_new() };
	struct stats_snap d;
	pthread_t t;
	uint64_t last = 0;
	unsigned accepted = 0;

	stats_snap_init(&d);
	ck_assert_int_eq(pthread_create(&t, NULL, race_writer, &r), 0);
	for (;;) {
		bool done = atomic_load(&r.done);
		stats_snap_clear(&d);
		if (stats_pub_add_to(r.p, &d)) {
			accepted++;
			ck_assert_uint_eq(d.ok[OP_FETCH], d.ok[OP_NOOP]);
			/* generations only move forward */
			ck_assert_uint_ge(d.ok[OP_FETCH], last);
			last = d.ok[OP_FETCH];
		}
		if (done && last == PUBS)
			break;
	}
	pthread_join(t, NULL);
	ck_assert_uint_gt(accepted, 0);
	stats_snap_free(&d);
	stats_pub_free(r.p);
}
END_TEST

static Suite *
stats_pub_suite(void)
{
	Suite *s = suite_create("stats_pub");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_publish_read);
	tcase_add_test(tc, test_lat_sums);
	tcase_add_test(tc, test_overtaken_read);
	tcase_add_test(tc, test_no_torn_copy);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(stats_pub_suite)
