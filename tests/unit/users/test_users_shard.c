/* test_users_shard.c: profile and LoadSim users under --shard I/N
 * (users_new): each shard's user table is its slice of the plan (the
 * users of profile_shard, in order, with their plan numbers, names and
 * LoadSim schedules), the slices' connections add up to the unsharded
 * run's, and too many shards is refused.  Before, every shard built the
 * whole table: two shards played every user on the same mailboxes.
 * Also the slots of a profile with IMAP and POP3 users: one budget for
 * both kinds (a POP3 visit holds one slot), as imaptest's clients. */
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "profile/profile.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_slots.h"

static struct profile *
plan(const char *path, unsigned users)
{
	char err[1024];
	struct profile *p = profile_load(path, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	p->total_users = users;
	ck_assert_int_eq(profile_expand(p, 7, err, sizeof(err)), 0);
	return p;
}

static void
check_shards(const char *path, unsigned users, unsigned n)
{
	struct profile *p = plan(path, users);
	struct config cfg;
	char err[512];
	unsigned next = 0, conns = 0;

	config_defaults(&cfg);
	struct users *whole = users_new(&cfg, p, err, sizeof(err));
	ck_assert_msg(whole != NULL, "%s", err);
	for (unsigned i = 0; i < n; i++) {
		cfg.shard_index = i;
		cfg.shard_count = n;
		struct users *r = users_new(&cfg, p, err, sizeof(err));
		ck_assert_msg(r != NULL, "%s", err);
		unsigned lo, hi;
		ck_assert_int_eq(profile_shard(p, i, n, &lo, &hi, err,
					       sizeof(err)), 0);
		ck_assert_uint_eq(users_first(r), lo);
		ck_assert_uint_eq(users_count(r), hi - lo);
		ck_assert_uint_eq(lo, next);
		for (unsigned k = 0; k < r->n_u; k++) {
			/* Users are made when first needed: made here. */
			struct user us, ws;
			const struct user *u = &us, *w = &ws;
			memset(&us, 0, sizeof(us));
			memset(&ws, 0, sizeof(ws));
			uslot_user_init(r, k, &us);
			uslot_user_init(whole, lo + k, &ws);
			ck_assert_uint_eq(u->idx, lo + k);
			ck_assert_ptr_eq(u->pu, &p->u[lo + k]);
			ck_assert_uint_eq(u->n_uc, w->n_uc);
			/* the same LoadSim user as in the unsharded run */
			ck_assert_int_eq(u->ls_on, w->ls_on);
			ck_assert_uint_eq(u->pu->block, w->pu->block);
			ck_assert_int_eq(u->ls_cached, w->ls_cached);
			ck_assert(memcmp(&u->rng, &w->rng, sizeof(u->rng)) == 0);
		}
		next = hi;
		conns += users_conn_count(r);
		users_free(r);
	}
	ck_assert_uint_eq(next, users);
	ck_assert_uint_eq(conns, users_conn_count(whole));
	users_free(whole);
	config_free(&cfg);
	profile_free(p);
}

START_TEST(test_profile_users_sliced)
{
	for (unsigned n = 1; n <= 5; n++)
		check_shards("profiles/mirror.profile", 10, n);
	check_shards("profiles/mirror.profile", 1001, 7);
}
END_TEST

START_TEST(test_loadsim_users_sliced)
{
	struct profile *p = plan("profiles/loadsim-online.conf", 3);
	ck_assert(p->loadsim.any);
	profile_free(p);
	for (unsigned n = 1; n <= 3; n++)
		check_shards("profiles/loadsim-online.conf", 3, n);
	check_shards("profiles/loadsim-cached.conf", 50, 4);
}
END_TEST

START_TEST(test_too_many_shards)
{
	struct profile *p = plan("profiles/mirror.profile", 3);
	struct config cfg;
	char err[512];

	config_defaults(&cfg);
	cfg.shard_index = 3;
	cfg.shard_count = 4;
	ck_assert_ptr_null(users_new(&cfg, p, err, sizeof(err)));
	ck_assert_str_eq(err, "profile profiles/mirror.profile: 3 users, "
			 "fewer than the 4 shards");
	config_free(&cfg);
	profile_free(p);
}
END_TEST

/* tests/profiles/mixed-clients.conf: 4 IMAP users of one connection and
 * 4 POP3 users.  Without clients= a slot for each (before: 4, the POP3
 * users visiting outside the slots); with clients=3, 3 in all (before:
 * 3 IMAP slots and 3 POP3 sessions of their own). */
START_TEST(test_pop3_slots)
{
	struct profile *p = plan("tests/profiles/mixed-clients.conf", 8);
	struct config cfg;
	char err[512];

	config_defaults(&cfg);
	struct users *r = users_new(&cfg, p, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	unsigned pop3 = 0;
	for (unsigned k = 0; k < users_count(r); k++)
		pop3 += ubase_is_pop3(r, k);
	ck_assert_uint_eq(pop3, 4);
	ck_assert_uint_eq(users_conn_count(r), 8);
	users_free(r);
	cfg.clients = 3;
	cfg.clients_given = true;
	r = users_new(&cfg, p, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(users_conn_count(r), 3);
	users_free(r);
	config_free(&cfg);
	profile_free(p);
}
END_TEST

static Suite *
users_shard_suite(void)
{
	Suite *s = suite_create("users_shard");
	TCase *tc = tcase_create("slice");
	tcase_add_test(tc, test_profile_users_sliced);
	tcase_add_test(tc, test_loadsim_users_sliced);
	tcase_add_test(tc, test_too_many_shards);
	suite_add_tcase(s, tc);
	tc = tcase_create("slots");
	tcase_add_test(tc, test_pop3_slots);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(users_shard_suite)
