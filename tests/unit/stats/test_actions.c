/* Profile-mode figures: action names, the counting rules, the snapshot
 * arithmetic through struct stats (sum shards, diff ticks, copy), the
 * LMTP part, and the push tracker's matching of deliveries to EXISTS and
 * FETCH. */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "stats/push_track.h"
#include "stats/stats.h"

START_TEST(test_action_names)
{
	static const char *const want[ACT_COUNT] = {
		"deliver", "notice", "read", "reply", "delete", "move", "send",
		"login", "logout", "browse", "clean", "calendar", "freebusy",
		"meeting", "logoff", "appointment", "submit",
	};
	for (int i = 0; i < ACT_COUNT; i++) {
		ck_assert_str_eq(action_name[i], want[i]);
		ck_assert_int_eq(action_from_name(want[i]), i);
	}
	ck_assert_int_eq(action_from_name("Deliver"), -1);
	ck_assert_int_eq(action_from_name(""), -1);
	ck_assert_str_eq(push_kind_name[PUSH_EXISTS], "exists");
	ck_assert_str_eq(push_kind_name[PUSH_FETCH], "fetch");
	ck_assert_str_eq(push_kind_name[PUSH_NOTIFY_EXISTS], "notify_exists");
	ck_assert_str_eq(push_kind_name[PUSH_NOTIFY_FETCH], "notify_fetch");
	ck_assert_int_eq(push_kind_of(PUSH_M_NOTIFY, PUSH_FETCH),
			 PUSH_NOTIFY_FETCH);
	ck_assert_int_eq(push_kind_of(PUSH_M_IDLE, PUSH_EXISTS), PUSH_EXISTS);
}
END_TEST

START_TEST(test_counting)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	ck_assert_uint_eq(ctr_get(&a->profile), 0);
	act_profile_on(a);
	act_ok(a, ACT_READ, 1500);
	act_ok(a, ACT_READ, 2500);
	act_failed(a, ACT_READ);
	act_failed(a, ACT_COUNT);		/* ignored with a warning */
	act_ok(a, (enum action)-1, 5);		/* ignored */
	act_push(a, PUSH_EXISTS, 20000);
	act_push(a, PUSH_COUNT, 1);		/* ignored */
	act_push_missed(a, 2);
	act_users_add(a, 1);
	act_users_add(a, 1);
	act_users_add(a, -1);
	ck_assert_uint_eq(ctr_get(&a->profile), 1);
	ck_assert_uint_eq(ctr_get(&a->ok[ACT_READ]), 2);
	ck_assert_uint_eq(ctr_get(&a->failed[ACT_READ]), 1);
	ck_assert_uint_eq(hist_count(a->lat[ACT_READ]), 2);	/* ok only */
	ck_assert_uint_eq(hist_max(a->lat[ACT_READ]), 2500);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 1);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 0);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 2);
	ck_assert_uint_eq(ctr_get(&a->users_in), 1);
	/* Stress mode never touches them. */
	ck_assert_uint_eq(stats_snap_total_ok(&(struct stats_snap){ 0 }), 0);
	stats_free(s);
}
END_TEST

/* A shard as the LMTP client fills it, by hand. */
static void
fake_lmtp(struct lmtp_stats *l, unsigned ok, unsigned temp, uint64_t us)
{
	ctr_add(&l->deliveries, ok + temp);
	ctr_add(&l->rcpts, ok + temp);
	ctr_add(&l->rcpt_ok, ok);
	ctr_add(&l->rcpt_tempfail, temp);
	ctr_add(&l->codes[250], ok);
	ctr_add(&l->codes[452], temp);
	ctr_add(&l->fails[1], 1);
	ctr_set(&l->sessions_open, 2);
	if (ctr_get(&l->queued_max) < ok)
		ctr_set(&l->queued_max, ok);
	for (unsigned i = 0; i < ok; i++)
		hist_record(l->lat_total, us);
}

START_TEST(test_snapshots)
{
	struct stats *w1 = stats_new(), *w2 = stats_new();
	struct stats_snap t0, t1, win, tot;
	stats_snap_init(&t0);
	stats_snap_init(&t1);
	stats_snap_init(&win);
	stats_snap_init(&tot);

	/* Second 1: shard 1 only. */
	act_profile_on(&w1->act);
	act_ok(&w1->act, ACT_DELIVER, 1000);
	act_users_add(&w1->act, 3);
	fake_lmtp(&w1->act.lmtp, 4, 1, 900);
	stats_snap_add_live(&t0, w1);
	stats_snap_add_live(&t0, w2);
	ck_assert_uint_eq(t0.act.profile, 1);
	ck_assert_uint_eq(t0.act.ok[ACT_DELIVER], 1);
	ck_assert_uint_eq(t0.act.lmtp.rcpt_ok, 4);
	ck_assert_uint_eq(t0.act.lmtp.codes[452], 1);
	ck_assert_uint_eq(act_lmtp_codes(&t0.act, 2), 4);
	ck_assert_uint_eq(act_lmtp_codes(&t0.act, 4), 1);
	ck_assert_uint_eq(act_lmtp_codes(&t0.act, 5), 0);
	ck_assert_uint_eq(act_lmtp_codes(&t0.act, 7), 0);

	/* Second 2: both shards. */
	act_profile_on(&w2->act);
	act_ok(&w2->act, ACT_DELIVER, 3000);
	act_push(&w2->act, PUSH_FETCH, 40000);
	act_push_missed(&w2->act, 1);
	act_users_add(&w2->act, 2);
	fake_lmtp(&w2->act.lmtp, 6, 0, 1100);
	stats_snap_add_live(&t1, w1);
	stats_snap_add_live(&t1, w2);
	ck_assert_uint_eq(t1.act.profile, 2);
	ck_assert_uint_eq(t1.act.users_in, 5);
	ck_assert_uint_eq(t1.act.lmtp.rcpt_ok, 10);
	ck_assert_uint_eq(t1.act.lmtp.sessions_open, 4);
	ck_assert_uint_eq(t1.act.lmtp.queued_max, 6);	/* a max, not a sum */
	ck_assert_uint_eq(t1.act.lmtp.fails[1], 2);
	ck_assert_uint_eq(hist_count(t1.act.lmtp.lat_total), 10);

	stats_snap_diff(&win, &t1, &t0);
	ck_assert_uint_eq(win.act.ok[ACT_DELIVER], 1);
	ck_assert_uint_eq(hist_count(win.act.lat[ACT_DELIVER]), 1);
	ck_assert_uint_eq(hist_min(win.act.lat[ACT_DELIVER]), 3000);
	ck_assert_uint_eq(win.act.lmtp.rcpt_ok, 6);
	ck_assert_uint_eq(win.act.lmtp.codes[250], 6);
	ck_assert_uint_eq(win.act.lmtp.codes[452], 0);
	ck_assert_uint_eq(win.act.push_missed, 1);
	ck_assert_uint_eq(hist_count(win.act.push[PUSH_FETCH]), 1);
	ck_assert_uint_eq(win.act.users_in, 5);		/* gauge: from a */
	ck_assert_uint_eq(win.act.lmtp.sessions_open, 4);
	ck_assert_uint_eq(win.act.profile, 2);
	/* Wrong order saturates at zero. */
	stats_snap_diff(&win, &t0, &t1);
	ck_assert_uint_eq(win.act.lmtp.rcpt_ok, 0);

	/* Windows add back up to the total. */
	stats_snap_diff(&win, &t1, &t0);
	stats_snap_add(&tot, &t0);
	stats_snap_add(&tot, &win);
	ck_assert_uint_eq(tot.act.ok[ACT_DELIVER], t1.act.ok[ACT_DELIVER]);
	ck_assert_uint_eq(tot.act.lmtp.codes[250], 10);
	ck_assert_uint_eq(hist_count(tot.act.lat[ACT_DELIVER]), 2);
	ck_assert_uint_eq(hist_max(tot.act.lat[ACT_DELIVER]), 3000);

	/* Copy is deep, clear keeps the histograms usable. */
	stats_snap_copy(&t0, &t1);
	ck_assert_uint_eq(t0.act.lmtp.rcpt_ok, 10);
	ck_assert_ptr_ne(t0.act.lat[ACT_DELIVER], t1.act.lat[ACT_DELIVER]);
	ck_assert_uint_eq(hist_count(t0.act.lat[ACT_DELIVER]), 2);
	stats_snap_clear(&t0);
	ck_assert_uint_eq(t0.act.lmtp.rcpt_ok, 0);
	ck_assert_uint_eq(t0.act.profile, 0);
	ck_assert_uint_eq(hist_count(t0.act.lat[ACT_DELIVER]), 0);
	ck_assert_uint_eq(hist_count(t0.act.lmtp.lat_total), 0);
	act_ok(&w1->act, ACT_SEND, 7);
	stats_snap_add_live(&t0, w1);
	ck_assert_uint_eq(hist_count(t0.act.lat[ACT_SEND]), 1);

	stats_snap_free(&t0);
	stats_snap_free(&t1);
	stats_snap_free(&win);
	stats_snap_free(&tot);
	stats_free(w1);
	stats_free(w2);
}
END_TEST

/* 250->EXISTS split by source: each sample also under the source of the
 * delivery it was matched to. */
START_TEST(test_push_by_source)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *p = push_track_new();

	ck_assert_str_eq(push_kind_name[PUSH_EXISTS_LMTP], "exists_lmtp");
	ck_assert_str_eq(push_kind_name[PUSH_EXISTS_SUBMIT], "exists_submit");
	push_track_delivered_via(p, a, 1000, true);
	push_track_delivered(p, a, 2000);		/* LMTP's */
	push_track_delivered_via(p, a, 3000, true);
	push_track_exists(p, a, 3, 11000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 3);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS_SUBMIT]), 2);
	ck_assert_uint_eq(hist_min(a->push[PUSH_EXISTS_SUBMIT]), 8000);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS_SUBMIT]), 10000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS_LMTP]), 1);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS_LMTP]), 9000);
	push_track_free(p);
	stats_free(s);
}
END_TEST

START_TEST(test_push_match)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *p = push_track_new();

	push_track_delivered(p, a, 1000);
	push_track_delivered(p, a, 2000);
	push_track_delivered(p, a, 3000);
	ck_assert_uint_eq(push_track_waiting(p), 3);
	/* EXISTS for two: the two oldest, 20 ms after their 250s... */
	push_track_exists(p, a, 2, 22000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 2);
	ck_assert_uint_eq(hist_min(a->push[PUSH_EXISTS]), 20000);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 21000);
	/* ... fetched: FETCH samples, and they leave the line. */
	push_track_fetched(p, a, 2, 25000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 2);
	ck_assert_uint_eq(hist_max(a->push[PUSH_FETCH]), 24000);
	ck_assert_uint_eq(push_track_waiting(p), 1);
	/* A fetch of more than was announced takes only the announced. */
	push_track_fetched(p, a, 5, 26000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 2);
	ck_assert_uint_eq(push_track_waiting(p), 1);
	/* EXISTS for more than waits: the user's own mail, ignored. */
	push_track_exists(p, a, 4, 33000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 3);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 30000);
	push_track_fetched(p, a, 1, 34000);
	ck_assert_uint_eq(push_track_waiting(p), 0);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 0);
	push_track_free(p);
	push_track_free(NULL);
	stats_free(s);
}
END_TEST

START_TEST(test_push_missed)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *p = push_track_new();
	const uint64_t to = 30000000;

	push_track_delivered(p, a, 1000000);
	push_track_delivered(p, a, 2000000);
	push_track_delivered(p, a, 40000000);
	push_track_expire(p, a, 31000000, to);	/* the first: exactly 30 s */
	ck_assert_uint_eq(ctr_get(&a->push_missed), 0);
	push_track_expire(p, a, 32500000, to);	/* the first two are late */
	ck_assert_uint_eq(ctr_get(&a->push_missed), 2);
	push_track_expire(p, a, 32600000, to);	/* counted once each */
	ck_assert_uint_eq(ctr_get(&a->push_missed), 2);
	/* A late EXISTS takes the missed ones without a sample, then the
	 * third gets its own latency, not theirs. */
	push_track_exists(p, a, 3, 40005000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 1);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 5000);
	push_track_fetched(p, a, 3, 40006000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 1);
	ck_assert_uint_eq(hist_max(a->push[PUSH_FETCH]), 6000);
	ck_assert_uint_eq(push_track_waiting(p), 0);

	/* Announced and never fetched: dropped after the timeout, no count. */
	push_track_delivered(p, a, 50000000);
	push_track_exists(p, a, 1, 50001000);
	push_track_expire(p, a, 90000000, to);
	ck_assert_uint_eq(push_track_waiting(p), 0);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 2);

	/* Reset forgets without counting. */
	push_track_delivered(p, a, 1);
	push_track_reset(p);
	push_track_expire(p, a, 90000000, to);
	ck_assert_uint_eq(push_track_waiting(p), 0);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 2);
	push_track_free(p);
	stats_free(s);
}
END_TEST

/* The ring grows past its first size and wraps, and a user whose IDLE
 * never answers is capped, the dropped ones counted as missed. */
START_TEST(test_push_ring)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *p = push_track_new();

	for (unsigned i = 0; i < 5; i++)
		push_track_delivered(p, a, 100 + i);
	push_track_exists(p, a, 5, 1000);
	push_track_fetched(p, a, 5, 1000);	/* empty: the ring goes */
	for (unsigned i = 0; i < 20; i++)	/* grows again from none */
		push_track_delivered(p, a, 2000 + i);
	push_track_exists(p, a, 20, 3000);
	/* Each matched its own delivery: 1000 - 104 .. 3000 - 2000. */
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 25);
	ck_assert_uint_eq(hist_min(a->push[PUSH_EXISTS]), 896);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 1000);
	ck_assert_uint_eq(hist_count_le(a->push[PUSH_EXISTS], 980), 5);
	push_track_fetched(p, a, 20, 3000);
	ck_assert_uint_eq(push_track_waiting(p), 0);

	for (unsigned i = 0; i < PUSH_TRACK_MAX + 3; i++)
		push_track_delivered(p, a, 5000 + i);
	ck_assert_uint_eq(push_track_waiting(p), PUSH_TRACK_MAX);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 3);
	push_track_exists(p, a, 1, 10000);	/* the oldest kept: the 4th */
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 10000 - 5003);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 26);
	push_track_free(p);
	stats_free(s);
}
END_TEST

/* The line's ring is memory only while deliveries wait (issue 35): it
 * goes once a FETCH, an expiry or a reset empties the line, comes back
 * with the next 250, and a ring that wrapped and then grew keeps the
 * order. */
START_TEST(test_push_release)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *p = push_track_new();
	const size_t none = push_track_bytes(p);
	const uint64_t to = 30000000;

	push_track_delivered(p, a, 1000);
	ck_assert_uint_gt(push_track_bytes(p), none);
	push_track_exists(p, a, 1, 2000);
	ck_assert_uint_gt(push_track_bytes(p), none);	/* not fetched yet */
	push_track_fetched(p, a, 1, 3000);
	ck_assert_uint_eq(push_track_bytes(p), none);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 1);

	/* Wrap, then grow: 3 in, 2 out, 5 more in (the head was at 2). */
	for (unsigned i = 0; i < 3; i++)
		push_track_delivered(p, a, 10000 + i);
	push_track_exists(p, a, 2, 20000);
	push_track_fetched(p, a, 2, 20000);
	size_t small = push_track_bytes(p);
	for (unsigned i = 0; i < 5; i++)
		push_track_delivered(p, a, 10100 + i);
	ck_assert_uint_gt(push_track_bytes(p), small);
	ck_assert_uint_eq(push_track_waiting(p), 6);
	/* The oldest first: 10002, then 10100 .. 10104. */
	push_track_exists(p, a, 1, 30000);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 30000 - 10002);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 4);
	push_track_exists(p, a, 5, 40000);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 40000 - 10100);
	ck_assert_uint_eq(hist_count_le(a->push[PUSH_EXISTS], 40000 - 10105), 4);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 9);
	push_track_fetched(p, a, 6, 40000);
	ck_assert_uint_eq(push_track_waiting(p), 0);
	ck_assert_uint_eq(push_track_bytes(p), none);

	/* Announced, never fetched: the expiry empties the line. */
	push_track_delivered(p, a, 1000000);
	push_track_exists(p, a, 1, 1001000);
	push_track_expire(p, a, 1001000 + to + 1, to);
	ck_assert_uint_eq(push_track_waiting(p), 0);
	ck_assert_uint_eq(push_track_bytes(p), none);
	/* Unannounced and missed: it stays in line, and so does the ring. */
	push_track_delivered(p, a, 2000000);
	push_track_expire(p, a, 2000000 + to + 1, to);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 1);
	ck_assert_uint_gt(push_track_bytes(p), none);
	/* The session went: a reset empties it. */
	push_track_reset(p);
	ck_assert_uint_eq(push_track_bytes(p), none);
	ck_assert_uint_eq(push_track_counts(p)->dropped, 1);
	push_track_delivered(p, a, 3000000);
	ck_assert_uint_eq(push_track_waiting(p), 1);
	push_track_free(p);
	stats_free(s);
}
END_TEST

/* A NOTIFY user's samples and misses go under NOTIFY's names, an IDLE
 * user's under IDLE's; the counters add up and diff through snapshots. */
START_TEST(test_push_mech)
{
	struct stats *s = stats_new();
	struct act_stats *a = &s->act;
	struct push_track *idle = push_track_new(), *nt = push_track_new();
	const uint64_t to = 30000000;

	ck_assert_int_eq(push_track_mech(nt), PUSH_M_IDLE);
	push_track_set_mech(nt, PUSH_M_NOTIFY);
	ck_assert_int_eq(push_track_mech(nt), PUSH_M_NOTIFY);
	push_track_set_mech(idle, PUSH_MECHS);		/* out of range: IDLE */
	ck_assert_int_eq(push_track_mech(idle), PUSH_M_IDLE);

	push_track_delivered(idle, a, 1000);
	push_track_delivered(nt, a, 1000);
	push_track_delivered(nt, a, 2000);
	push_track_exists(idle, a, 1, 4000);
	push_track_exists(nt, a, 1, 9000);
	push_track_fetched(nt, a, 1, 12000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_EXISTS]), 1);
	ck_assert_uint_eq(hist_max(a->push[PUSH_EXISTS]), 3000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_NOTIFY_EXISTS]), 1);
	ck_assert_uint_eq(hist_max(a->push[PUSH_NOTIFY_EXISTS]), 8000);
	ck_assert_uint_eq(hist_count(a->push[PUSH_FETCH]), 0);
	ck_assert_uint_eq(hist_max(a->push[PUSH_NOTIFY_FETCH]), 11000);
	push_track_expire(nt, a, 40000000, to);		/* the second: missed */
	ck_assert_uint_eq(ctr_get(&a->push_missed_notify), 1);
	ck_assert_uint_eq(ctr_get(&a->push_missed), 0);
	/* Its accounting: delivered = announced + dropped + unannounced. */
	const struct push_track_counts *n = push_track_counts(nt);
	ck_assert_uint_eq(n->delivered, 2);
	ck_assert_uint_eq(n->announced, 1);
	ck_assert_uint_eq(n->missed, 1);
	ck_assert_uint_eq(push_track_unannounced(nt), 1);
	push_track_delivered(nt, a, 41000000);
	push_track_reset(nt);		/* the session went: two dropped */
	ck_assert_uint_eq(n->dropped, 2);
	ck_assert_uint_eq(push_track_unannounced(nt), 0);
	ck_assert_uint_eq(n->delivered, n->announced + n->dropped);
	act_notify_refused(a);
	act_notify_overflow(a);
	act_notify_overflow(a);

	struct stats_snap one, two, d;
	stats_snap_init(&one);
	stats_snap_init(&two);
	stats_snap_init(&d);
	stats_snap_add_live(&one, s);
	ck_assert_uint_eq(one.act.push_missed_notify, 1);
	ck_assert_uint_eq(one.act.notify_refused, 1);
	ck_assert_uint_eq(one.act.notify_overflow, 2);
	act_notify_overflow(a);
	stats_snap_add_live(&two, s);
	act_snap_diff(&d.act, &two.act, &one.act);
	ck_assert_uint_eq(d.act.notify_overflow, 1);
	ck_assert_uint_eq(d.act.notify_refused, 0);
	act_snap_add(&d.act, &two.act);
	ck_assert_uint_eq(d.act.notify_overflow, 4);
	ck_assert_uint_eq(hist_count(d.act.push[PUSH_NOTIFY_EXISTS]), 1);
	stats_snap_free(&one);
	stats_snap_free(&two);
	stats_snap_free(&d);
	push_track_free(idle);
	push_track_free(nt);
	stats_free(s);
}
END_TEST

static Suite *
actions_suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_action_names);
	tcase_add_test(tc, test_counting);
	tcase_add_test(tc, test_snapshots);
	tcase_add_test(tc, test_push_match);
	tcase_add_test(tc, test_push_by_source);
	tcase_add_test(tc, test_push_missed);
	tcase_add_test(tc, test_push_ring);
	tcase_add_test(tc, test_push_release);
	tcase_add_test(tc, test_push_mech);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(actions_suite)
