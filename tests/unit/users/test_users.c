/* test_users.c: the profile driver's reading of reply texts: the words
 * of a response code (APPENDUID's UID is what deletes the draft later,
 * SELECT's UIDNEXT is where a user's new mail starts); LoadSim's missed
 * count at the end of the run; the schedules' heap; a user's queues of
 * new mail and drafts, grown as they fill. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "util/clock.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_heap.h"
#include "users/users_loadsim.h"

static uint32_t
word(const char *text, const char *code, unsigned w)
{
	return ubase_code_word(text, strlen(text), code, w);
}

START_TEST(test_code_word)
{
	ck_assert_uint_eq(word("[APPENDUID 1700000000 12] Append completed.",
			       "APPENDUID", 2), 12);
	ck_assert_uint_eq(word("[APPENDUID 1700000000 12] ok", "APPENDUID", 1),
			  1700000000u);
	ck_assert_uint_eq(word("[appenduid 7 9] ok", "APPENDUID", 2), 9);
	ck_assert_uint_eq(word("[UIDNEXT 42] Predicted next UID", "UIDNEXT", 1),
			  42);
	/* Not there, another code, a prefix of a code, too few words. */
	ck_assert_uint_eq(word("Append completed.", "APPENDUID", 2), 0);
	ck_assert_uint_eq(word("[UIDVALIDITY 5] ok", "UIDNEXT", 1), 0);
	ck_assert_uint_eq(word("[UIDNEXTX 5] ok", "UIDNEXT", 1), 0);
	ck_assert_uint_eq(word("[APPENDUID 7] ok", "APPENDUID", 2), 0);
	ck_assert_uint_eq(word("[APPENDUID", "APPENDUID", 1), 0);
	/* A number past 32 bits is no UID. */
	ck_assert_uint_eq(word("[UIDNEXT 99999999999] x", "UIDNEXT", 1), 0);
}
END_TEST

/* The schedule ends at the first stop: a worker stops its driver at the
 * drain and again at a halt, and what falls due between (no action
 * starts then) is the drain's, not missed by a client behind. */
START_TEST(test_stop_counts_once)
{
	struct user u;
	struct profile_user pu;
	struct users run;
	struct uworker uw;
	struct profile *prof = calloc(1, sizeof(*prof));
	uint64_t now = clock_us();

	ck_assert_ptr_nonnull(prof);
	memset(&u, 0, sizeof(u));
	memset(&pu, 0, sizeof(pu));
	memset(&run, 0, sizeof(run));
	memset(&uw, 0, sizeof(uw));
	/* The gaps are the user's block's: action 0 one a millisecond on
	 * average (a day of 1e9 us, 1e6 a day, real time), no other. */
	prof->loadsim.day_length_us = 1000000000;
	prof->loadsim.users[0].per_day[0] = 1e6;
	run.p = prof;
	uw.run = &run;
	u.uw = &uw;
	u.pu = &pu;
	ck_assert(uls_gap(&u, 0) == 1000);
	rng_seed(&u.rng, 1, 1);
	u.ls_on = u.ls_started = true;
	u.ls_t0 = now - 2000000;
	u.ls_due[0] = now - 1000000;	/* due for a second, never started */
	uls_stop(&u);
	uint64_t missed = u.cnt.ls.missed[0], sched = u.cnt.ls.schedule_us;
	ck_assert_uint_gt(missed, 500);
	ck_assert_uint_ge(sched, 2000000);
	for (unsigned a = 1; a < LS_N_ACTIONS; a++)
		ck_assert_uint_eq(u.cnt.ls.missed[a], 0);

	/* A drain later: a second's due times piled up again. */
	u.ls_due[0] = clock_us() - 1000000;
	uls_stop(&u);
	ck_assert_uint_eq(u.cnt.ls.missed[0], missed);
	ck_assert_uint_eq(u.cnt.ls.schedule_us, sched);
	free(prof);
}
END_TEST

/* The schedules' heap: entries come out in time order (ties by user),
 * only once due, and a worker's 4,000,000 deliveries fit 16 bytes each. */
START_TEST(test_heap_order)
{
	struct uheap h = { 0 };
	struct uheap_ent e;
	struct rng r;
	uint64_t last = 0;
	unsigned n = 0, bad = 0;

	rng_seed(&r, 5, 1);
	ck_assert_uint_eq(uheap_next(&h), UINT64_MAX);
	ck_assert(!uheap_pop(&h, UINT64_MAX, &e));
	for (unsigned i = 0; i < 10000; i++)
		uheap_push(&h, rng_below(&r, 1000), i, i % 3);
	/* Nothing is due before the earliest entry. */
	if (uheap_next(&h) > 0)
		ck_assert(!uheap_pop(&h, uheap_next(&h) - 1, &e));
	while (uheap_pop(&h, 499, &e)) {
		bad += e.t < last || e.t > 499 || e.kind != e.user % 3;
		last = e.t;
		n++;
	}
	ck_assert_uint_ge(uheap_next(&h), 500);
	while (uheap_pop(&h, UINT64_MAX, &e)) {
		bad += e.t < last;
		last = e.t;
		n++;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(n, 10000);
	ck_assert_uint_eq(sizeof(struct uheap_ent), 16);
	uheap_free(&h);
}
END_TEST

/* The mail queue is a ring grown as it fills: growing it while its head
 * has wrapped keeps the order, and it holds UMAIL_MAX at most.  Emptied,
 * the ring and the drafts' array are freed (issue 35: kept, they were
 * memory every user grew into as mail came). */
START_TEST(test_todo_ring)
{
	struct user *u = calloc(1, sizeof(*u));
	uint32_t next_in = 1, next_out = 1;

	ck_assert_ptr_null(u->todo);	/* no mail, no memory */
	for (int round = 0; round < 3; round++) {
		/* 3 in, 2 out: the head walks round the ring as it grows. */
		for (int i = 0; i < 3; i++)
			ck_assert(ubase_todo_push(u, &(struct umail){ .uid =
			    next_in++ }));
		for (int i = 0; i < 2; i++)
			ck_assert_uint_eq(ubase_todo_pop(u).uid, next_out++);
	}
	while (u->todo_n < UMAIL_MAX)
		ck_assert(ubase_todo_push(u, &(struct umail){ .uid = next_in++ }));
	ck_assert(!ubase_todo_push(u, &(struct umail){ .uid = next_in }));
	ck_assert_uint_eq(u->todo_cap, UMAIL_MAX);
	while (u->todo_n > 1)
		ck_assert_uint_eq(ubase_todo_pop(u).uid, next_out++);
	ck_assert_ptr_nonnull(u->todo);
	ck_assert_uint_eq(ubase_todo_pop(u).uid, next_out++);
	ck_assert_ptr_null(u->todo);
	ck_assert_uint_eq(u->todo_cap, 0);
	ck_assert_uint_eq(next_out, next_in);
	/* And grows again from nothing, in order. */
	for (int i = 0; i < 5; i++)
		ck_assert(ubase_todo_push(u, &(struct umail){ .uid = next_in++ }));
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(ubase_todo_pop(u).uid, next_out++);
	ck_assert_ptr_null(u->todo);
	for (unsigned i = 0; i < UREPLY_MAX; i++)
		ck_assert(ubase_reply_push(u, &(struct ureply){ .draft_uid = i }));
	ck_assert(!ubase_reply_push(u, &(struct ureply){ .draft_uid = 99 }));
	for (unsigned i = 0; i < UREPLY_MAX; i++)
		ck_assert_uint_eq(u->replies[i].draft_uid, i);
	/* Taken: the last moves into the gap; the last taken frees them. */
	ck_assert_uint_eq(ubase_reply_take(u, 0).draft_uid, 0);
	ck_assert_uint_eq(u->replies[0].draft_uid, UREPLY_MAX - 1);
	ck_assert_uint_eq(u->n_replies, UREPLY_MAX - 1);
	while (u->n_replies > 1)
		(void)ubase_reply_take(u, u->n_replies - 1);
	ck_assert_ptr_nonnull(u->replies);
	ck_assert_uint_eq(ubase_reply_take(u, 0).draft_uid, UREPLY_MAX - 1);
	ck_assert_ptr_null(u->replies);
	ck_assert_uint_eq(u->replies_cap, 0);
	ck_assert(ubase_reply_push(u, &(struct ureply){ .draft_uid = 7 }));
	ck_assert_uint_eq(u->replies[0].draft_uid, 7);
	ubase_user_free(u);
}
END_TEST

static Suite *
users_suite(void)
{
	Suite *s = suite_create("users");
	TCase *tc = tcase_create("reply_text");
	tcase_add_test(tc, test_code_word);
	suite_add_tcase(s, tc);
	tc = tcase_create("heap");
	tcase_add_test(tc, test_heap_order);
	tcase_add_test(tc, test_todo_ring);
	suite_add_tcase(s, tc);
	tc = tcase_create("loadsim_stop");
	tcase_add_test(tc, test_stop_counts_once);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(users_suite)
