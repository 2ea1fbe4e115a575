/* Stats: per-command counting rules and the snapshot arithmetic the main
 * thread does once a second (sum shards, diff ticks, totals). */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "stats/stats.h"

START_TEST(test_names)
{
	static const char *const want[ERR_COUNT] = {
		"no", "bad", "bye", "disconnect", "timeout",
		"protocol", "tls", "connect", "login", "state",
	};
	for (int k = 0; k < ERR_COUNT; k++)
		ck_assert_str_eq(err_kind_name[k], want[k]);
}
END_TEST

START_TEST(test_new_zeroed)
{
	struct stats *s = stats_new();
	for (int i = 0; i < OP_COUNT; i++) {
		ck_assert_uint_eq(ctr_get(&s->ok[i]), 0);
		ck_assert_uint_eq(ctr_get(&s->failed[i]), 0);
		ck_assert_ptr_nonnull(s->lat[i]);
		ck_assert_uint_eq(hist_count(s->lat[i]), 0);
	}
	ck_assert_ptr_nonnull(s->tls_lat);
	ck_assert_ptr_nonnull(s->connect_lat);
	ck_assert_ptr_ne(s->tls_lat, s->connect_lat);
	ck_assert_uint_eq(ctr_get(&s->conns_open), 0);
	stats_free(s);
	stats_free(NULL);
}
END_TEST

START_TEST(test_cmd_rules)
{
	struct stats *s = stats_new();
	stats_cmd(s, OP_FETCH, STATS_OK, 100);
	stats_cmd(s, OP_FETCH, STATS_OK, 300);
	stats_cmd(s, OP_FETCH, STATS_NO, 200);
	stats_cmd(s, OP_FETCH, STATS_BAD, 50);
	stats_cmd(s, OP_FETCH, STATS_FAILED, 999999);
	stats_cmd(s, OP_APPEND, STATS_FAILED, 7);

	ck_assert_uint_eq(ctr_get(&s->ok[OP_FETCH]), 2);
	ck_assert_uint_eq(ctr_get(&s->no[OP_FETCH]), 1);
	ck_assert_uint_eq(ctr_get(&s->bad[OP_FETCH]), 1);
	ck_assert_uint_eq(ctr_get(&s->failed[OP_FETCH]), 1);
	ck_assert_uint_eq(ctr_get(&s->failed[OP_APPEND]), 1);
	ck_assert_uint_eq(ctr_get(&s->ok[OP_APPEND]), 0);
	ck_assert_uint_eq(ctr_get(&s->errors[ERR_NO]), 1);
	ck_assert_uint_eq(ctr_get(&s->errors[ERR_BAD]), 1);
	for (int k = ERR_BAD + 1; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&s->errors[k]), 0);

	/* Latency for OK, NO and BAD; nothing for a command with no reply. */
	ck_assert_uint_eq(hist_count(s->lat[OP_FETCH]), 4);
	ck_assert_uint_eq(hist_sum(s->lat[OP_FETCH]), 650);
	ck_assert_uint_eq(hist_min(s->lat[OP_FETCH]), 50);
	ck_assert_uint_eq(hist_max(s->lat[OP_FETCH]), 300);
	ck_assert_uint_eq(hist_count(s->lat[OP_APPEND]), 0);

	stats_err(s, ERR_TIMEOUT);
	stats_err(s, ERR_TIMEOUT);
	stats_err(s, ERR_DISCONNECT);
	ck_assert_uint_eq(ctr_get(&s->errors[ERR_TIMEOUT]), 2);
	ck_assert_uint_eq(ctr_get(&s->errors[ERR_DISCONNECT]), 1);

	/* Caller bugs are ignored (with a warning), not written out of bounds. */
	stats_cmd(s, OP_COUNT, STATS_OK, 1);
	stats_cmd(s, OP_NOOP, (enum stats_reply)17, 1);
	stats_err(s, ERR_COUNT);
	ck_assert_uint_eq(ctr_get(&s->ok[OP_NOOP]), 0);
	ck_assert_uint_eq(hist_count(s->lat[OP_NOOP]), 0);
	stats_free(s);
}
END_TEST

static void
fill_shard(struct stats *s, uint64_t k)
{
	for (uint64_t i = 0; i < k; i++) {
		stats_cmd(s, OP_SELECT, STATS_OK, 1000 * k + i);
		stats_cmd(s, OP_LOGIN, STATS_NO, 10 * k);
	}
	stats_err(s, ERR_LOGIN);
	stats_err(s, ERR_TLS);
	ctr_add(&s->bytes_sent, 100 * k);
	ctr_add(&s->bytes_received, 200 * k);
	ctr_add(&s->imap_sent, 3 * k);
	ctr_add(&s->imap_received, 4 * k);
	ctr_add(&s->append_msgs, k);
	ctr_add(&s->append_bytes, 5 * k);
	ctr_add(&s->connects, 6 * k);
	ctr_add(&s->logins, 7 * k);
	ctr_add(&s->tls_handshakes, 8 * k);
	ctr_add(&s->rate_missed, 9 * k);
	ctr_set(&s->loop_lag_max_us, 1000 / k);
	ctr_set(&s->conns_open, 10 * k);
	ctr_set(&s->conns_total, 11 * k);
	ctr_set(&s->stalled3, k);
	hist_record(s->tls_lat, 5000 * k);
	hist_record(s->connect_lat, 700 * k);
}

START_TEST(test_add_live)
{
	struct stats *a = stats_new(), *b = stats_new();
	fill_shard(a, 1);
	fill_shard(b, 3);
	struct stats_snap d;
	stats_snap_init(&d);
	stats_snap_add_live(&d, a);
	stats_snap_add_live(&d, b);

	ck_assert_uint_eq(d.ok[OP_SELECT], 4);
	ck_assert_uint_eq(d.no[OP_LOGIN], 4);
	ck_assert_uint_eq(d.errors[ERR_NO], 4);
	ck_assert_uint_eq(d.errors[ERR_LOGIN], 2);
	ck_assert_uint_eq(d.errors[ERR_TLS], 2);
	ck_assert_uint_eq(d.bytes_sent, 400);
	ck_assert_uint_eq(d.bytes_received, 800);
	ck_assert_uint_eq(d.imap_sent, 12);
	ck_assert_uint_eq(d.imap_received, 16);
	ck_assert_uint_eq(d.append_msgs, 4);
	ck_assert_uint_eq(d.append_bytes, 20);
	ck_assert_uint_eq(d.connects, 24);
	ck_assert_uint_eq(d.logins, 28);
	ck_assert_uint_eq(d.tls_handshakes, 32);
	ck_assert_uint_eq(d.rate_missed, 36);
	/* Gauges: summed over shards, except the worst lag. */
	ck_assert_uint_eq(d.conns_open, 40);
	ck_assert_uint_eq(d.conns_total, 44);
	ck_assert_uint_eq(d.stalled3, 4);
	ck_assert_uint_eq(d.loop_lag_max_us, 1000);

	ck_assert_uint_eq(hist_count(d.lat[OP_SELECT]), 4);
	ck_assert_uint_eq(hist_min(d.lat[OP_SELECT]), 1000);
	ck_assert_uint_eq(hist_max(d.lat[OP_SELECT]), 3002);
	ck_assert_uint_eq(hist_sum(d.lat[OP_SELECT]), 1000 + 3000 + 3001 + 3002);
	ck_assert_uint_eq(hist_count(d.lat[OP_LOGIN]), 4);
	ck_assert_uint_eq(hist_count(d.tls_lat), 2);
	ck_assert_uint_eq(hist_max(d.tls_lat), 15000);
	ck_assert_uint_eq(hist_min(d.connect_lat), 700);
	ck_assert_uint_eq(hist_max(d.connect_lat), 2100);

	ck_assert_uint_eq(stats_snap_total_ok(&d), 4);
	/* NO x4, TLS x2; the two LOGIN refusals are already among the NOs. */
	ck_assert_uint_eq(stats_snap_total_errors(&d), 6);

	/* Clear keeps the histograms usable but empty. */
	stats_snap_clear(&d);
	ck_assert_uint_eq(d.ok[OP_SELECT], 0);
	ck_assert_uint_eq(d.conns_open, 0);
	ck_assert_uint_eq(d.loop_lag_max_us, 0);
	ck_assert_uint_eq(hist_count(d.lat[OP_SELECT]), 0);
	ck_assert_uint_eq(hist_count(d.tls_lat), 0);
	stats_snap_add_live(&d, b);
	ck_assert_uint_eq(d.ok[OP_SELECT], 3);
	ck_assert_uint_eq(hist_count(d.lat[OP_SELECT]), 3);
	ck_assert_uint_eq(d.loop_lag_max_us, 333);

	stats_snap_free(&d);
	stats_snap_free(NULL);
	stats_free(a);
	stats_free(b);
}
END_TEST

/* A state error counts for "state" and for its sub-kind, and the
 * sub-kinds go wherever the other counters go: a sum of shards, the
 * difference of two snapshots (a tick), a copy. */
START_TEST(test_state_kinds)
{
	struct stats *a = stats_new(), *b = stats_new();
	struct stats_snap s1, s2, d;

	stats_snap_init(&s1);
	stats_snap_init(&s2);
	stats_snap_init(&d);
	stats_state_err(a, MBOX_ERR_KEYWORD);
	stats_state_err(a, MBOX_ERR_STATIC_CHANGED);
	stats_state_err(b, MBOX_ERR_KEYWORD);
	stats_state_err(b, MBOX_ERR_COUNT);	/* no such kind: ignored */
	ck_assert_uint_eq(ctr_get(&a->errors[ERR_MBOXSTATE]), 2);
	ck_assert_uint_eq(ctr_get(&b->errors[ERR_MBOXSTATE]), 1);
	stats_snap_add_live(&s1, a);
	stats_snap_add_live(&s1, b);
	ck_assert_uint_eq(s1.errors[ERR_MBOXSTATE], 3);
	ck_assert_uint_eq(s1.state[MBOX_ERR_KEYWORD], 2);
	ck_assert_uint_eq(s1.state[MBOX_ERR_STATIC_CHANGED], 1);
	ck_assert_uint_eq(s1.state[MBOX_ERR_SEQ_TOO_HIGH], 0);

	stats_state_err(b, MBOX_ERR_UNANNOUNCED);
	stats_snap_add_live(&s2, a);
	stats_snap_add_live(&s2, b);
	stats_snap_diff(&d, &s2, &s1);
	ck_assert_uint_eq(d.errors[ERR_MBOXSTATE], 1);
	ck_assert_uint_eq(d.state[MBOX_ERR_UNANNOUNCED], 1);
	ck_assert_uint_eq(d.state[MBOX_ERR_KEYWORD], 0);
	stats_snap_add(&d, &s1);
	ck_assert_uint_eq(d.state[MBOX_ERR_KEYWORD], 2);
	ck_assert_uint_eq(d.state[MBOX_ERR_UNANNOUNCED], 1);
	stats_snap_copy(&s1, &d);
	ck_assert_uint_eq(s1.state[MBOX_ERR_UNANNOUNCED], 1);
	ck_assert_uint_eq(s1.state[MBOX_ERR_STATIC_CHANGED], 1);

	stats_snap_free(&s1);
	stats_snap_free(&s2);
	stats_snap_free(&d);
	stats_free(a);
	stats_free(b);
}
END_TEST

START_TEST(test_add_snaps)
{
	struct stats *a = stats_new(), *b = stats_new();
	fill_shard(a, 2);
	fill_shard(b, 5);
	struct stats_snap sa, sb, d;
	stats_snap_init(&sa);
	stats_snap_init(&sb);
	stats_snap_init(&d);
	stats_snap_add_live(&sa, a);
	stats_snap_add_live(&sb, b);
	stats_snap_add(&d, &sa);
	stats_snap_add(&d, &sb);
	ck_assert_uint_eq(d.ok[OP_SELECT], 7);
	ck_assert_uint_eq(d.errors[ERR_NO], 7);
	ck_assert_uint_eq(d.bytes_sent, 700);
	ck_assert_uint_eq(d.conns_open, 70);
	ck_assert_uint_eq(d.stalled3, 7);
	ck_assert_uint_eq(d.loop_lag_max_us, 500);
	ck_assert_uint_eq(hist_count(d.lat[OP_SELECT]), 7);
	ck_assert_uint_eq(hist_min(d.lat[OP_SELECT]), 2000);
	ck_assert_uint_eq(hist_max(d.lat[OP_SELECT]), 5004);
	ck_assert_uint_eq(hist_count(d.connect_lat), 2);

	/* Copy is a deep copy: later changes to the source do not leak. */
	struct stats_snap c;
	stats_snap_init(&c);
	stats_snap_copy(&c, &d);
	ck_assert_int_eq(memcmp(c.ok, d.ok, sizeof(c.ok)), 0);
	ck_assert_int_eq(memcmp(c.errors, d.errors, sizeof(c.errors)), 0);
	ck_assert_uint_eq(c.conns_total, d.conns_total);
	ck_assert_uint_eq(c.loop_lag_max_us, 500);
	ck_assert_uint_eq(hist_count(c.lat[OP_SELECT]), 7);
	ck_assert_uint_eq(hist_sum(c.lat[OP_SELECT]), hist_sum(d.lat[OP_SELECT]));
	ck_assert_ptr_ne(c.lat[OP_SELECT], d.lat[OP_SELECT]);
	stats_snap_add(&d, &sa);
	ck_assert_uint_eq(c.ok[OP_SELECT], 7);
	ck_assert_uint_eq(hist_count(c.lat[OP_SELECT]), 7);

	stats_snap_free(&c);
	stats_snap_free(&sa);
	stats_snap_free(&sb);
	stats_snap_free(&d);
	stats_free(a);
	stats_free(b);
}
END_TEST

START_TEST(test_diff_ticks)
{
	struct stats *s = stats_new();
	struct stats_snap t0, t1, d;
	stats_snap_init(&t0);
	stats_snap_init(&t1);
	stats_snap_init(&d);

	stats_cmd(s, OP_FETCH, STATS_OK, 400);
	stats_cmd(s, OP_FETCH, STATS_BAD, 40);
	stats_err(s, ERR_BYE);
	ctr_add(&s->bytes_sent, 1000);
	ctr_set(&s->conns_open, 50);
	ctr_set(&s->loop_lag_max_us, 900);
	stats_snap_add_live(&t0, s);

	for (int i = 0; i < 10; i++)
		stats_cmd(s, OP_FETCH, STATS_OK, 100 + (uint64_t)i);
	stats_cmd(s, OP_FETCH, STATS_FAILED, 0);
	stats_err(s, ERR_DISCONNECT);
	ctr_add(&s->bytes_sent, 234);
	ctr_set(&s->conns_open, 42);
	ctr_set(&s->loop_lag_max_us, 15);
	ctr_set(&s->stalled3, 2);
	stats_snap_add_live(&t1, s);

	stats_snap_diff(&d, &t1, &t0);
	ck_assert_uint_eq(d.ok[OP_FETCH], 10);
	ck_assert_uint_eq(d.bad[OP_FETCH], 0);
	ck_assert_uint_eq(d.failed[OP_FETCH], 1);
	ck_assert_uint_eq(d.errors[ERR_BAD], 0);
	ck_assert_uint_eq(d.errors[ERR_BYE], 0);
	ck_assert_uint_eq(d.errors[ERR_DISCONNECT], 1);
	ck_assert_uint_eq(d.bytes_sent, 234);
	/* Gauges are this tick's values, not differences. */
	ck_assert_uint_eq(d.conns_open, 42);
	ck_assert_uint_eq(d.loop_lag_max_us, 15);
	ck_assert_uint_eq(d.stalled3, 2);
	ck_assert_uint_eq(stats_snap_total_ok(&d), 10);
	ck_assert_uint_eq(stats_snap_total_errors(&d), 1);

	/* The window's latency holds only the ten new replies. */
	struct hist *h = d.lat[OP_FETCH];
	ck_assert_uint_eq(hist_count(h), 10);
	ck_assert_uint_eq(hist_sum(h), 1045);
	ck_assert_uint_eq(hist_min(h), 100);
	ck_assert_uint_eq(hist_max(h), 109);
	ck_assert_uint_eq(hist_percentile(h, 50), 104);

	/* Snapshots in the wrong order saturate at zero instead of wrapping. */
	stats_snap_diff(&d, &t0, &t1);
	ck_assert_uint_eq(d.ok[OP_FETCH], 0);
	ck_assert_uint_eq(d.bytes_sent, 0);
	ck_assert_uint_eq(hist_count(d.lat[OP_FETCH]), 0);

	/* In place, the way a running total becomes a window. */
	stats_snap_diff(&t1, &t1, &t0);
	ck_assert_uint_eq(t1.ok[OP_FETCH], 10);
	ck_assert_uint_eq(hist_count(t1.lat[OP_FETCH]), 10);

	stats_snap_free(&t0);
	stats_snap_free(&t1);
	stats_snap_free(&d);
	stats_free(s);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_new_zeroed);
	tcase_add_test(tc, test_cmd_rules);
	tcase_add_test(tc, test_add_live);
	tcase_add_test(tc, test_add_snaps);
	tcase_add_test(tc, test_state_kinds);
	tcase_add_test(tc, test_diff_ticks);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(stats_suite)
