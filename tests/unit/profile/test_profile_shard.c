/* test_profile_shard.c: a profile run split over shards (profile_shard.c).
 * For every shard count up to the number of users, the shards' slices of
 * the plan are contiguous, disjoint, differ in size by at most one and
 * together are every user; fewer users than shards is refused by name;
 * --profile-check's listing of shard 0/2 and 1/2 is, line for line, that
 * of 0/1 (the same names with the same client kinds, because every shard
 * expands the same plan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "profile/profile.h"

static const char text[] =
	"lmtp_port = 24\n"
	"total_user_count = 11\n"
	"user a {\n  count = 40%\n  username_format = aa%n\n}\n"
	"user b {\n  count = 60%\n  username_format = bb%n\n}\n"
	"client x {\n  count = 50%\n}\n"
	"client y {\n  count = 50%\n}\n";

static struct profile *
plan(unsigned users, uint64_t seed)
{
	char err[512];
	struct profile *p = profile_parse("s.profile", text, strlen(text), err,
					  sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	p->total_users = users;
	ck_assert_int_eq(profile_expand(p, seed, err, sizeof(err)), 0);
	return p;
}

START_TEST(test_slices_cover_once)
{
	static const unsigned totals[] = { 1, 2, 7, 11, 100, 1001 };
	char err[256];

	for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
		struct profile *p = plan(totals[t], 1);
		for (unsigned n = 1; n <= p->n_u && n <= 40; n++) {
			unsigned next = 0, small = p->n_u, big = 0;
			for (unsigned i = 0; i < n; i++) {
				unsigned lo, hi;
				ck_assert_int_eq(profile_shard(p, i, n, &lo, &hi,
							       err, sizeof(err)), 0);
				/* contiguous and in order: disjoint, no gap */
				ck_assert_uint_eq(lo, next);
				ck_assert_uint_gt(hi, lo);
				next = hi;
				if (hi - lo < small)
					small = hi - lo;
				if (hi - lo > big)
					big = hi - lo;
			}
			ck_assert_uint_eq(next, p->n_u);
			ck_assert_uint_le(big - small, 1);
		}
		profile_free(p);
	}
}
END_TEST

START_TEST(test_too_many_shards)
{
	char err[256];
	unsigned lo = 99, hi = 99;
	struct profile *p = plan(7, 1);

	ck_assert_int_eq(profile_shard(p, 0, 8, &lo, &hi, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "profile s.profile: 7 users, fewer than the 8 "
			 "shards");
	/* 0 (no shard) and 1 are the whole plan */
	ck_assert_int_eq(profile_shard(p, 0, 0, &lo, &hi, err, sizeof(err)), 0);
	ck_assert_uint_eq(lo, 0);
	ck_assert_uint_eq(hi, 7);
	profile_free(p);
}
END_TEST

/* The user lines of profile_print_shard for shard i of n. */
static char *
listing(const struct profile *p, unsigned i, unsigned n)
{
	char err[256], *buf = NULL;
	size_t len = 0;
	unsigned lo, hi;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(profile_shard(p, i, n, &lo, &hi, err, sizeof(err)), 0);
	profile_print_shard(p, i, n, lo, hi, f);
	fclose(f);
	/* the first line is the header: keep the users */
	char *nl = strchr(buf, '\n');
	ck_assert_ptr_nonnull(nl);
	char *users = strdup(nl + 1);
	free(buf);
	return users;
}

START_TEST(test_listing_union)
{
	/* With a seed too: shards keep the run's seed (shard_locate), so
	 * the client kinds are the same plan's. */
	for (uint64_t seed = 0; seed < 3; seed++) {
		struct profile *p = plan(11, seed);
		char *all = listing(p, 0, 1);
		char *s0 = listing(p, 0, 2), *s1 = listing(p, 1, 2);
		size_t n0 = strlen(s0);
		ck_assert_uint_eq(n0 + strlen(s1), strlen(all));
		ck_assert(strncmp(all, s0, n0) == 0);
		ck_assert_str_eq(all + n0, s1);
		ck_assert_ptr_nonnull(strstr(s0, "  aa1 (user a, client "));
		ck_assert_ptr_nonnull(strstr(s1, "  bb6 (user b, client "));
		ck_assert_ptr_null(strstr(s1, "aa1 "));
		free(all);
		free(s0);
		free(s1);
		profile_free(p);
	}
	struct profile *p = plan(11, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	profile_print_shard(p, 1, 2, 5, 11, f);
	fclose(f);
	ck_assert(strncmp(buf, "shard 1/2: users 6-11 of 11 (6 users):\n", 39) == 0);
	free(buf);
	profile_free(p);
}
END_TEST

static Suite *
profile_shard_suite(void)
{
	Suite *s = suite_create("profile_shard");
	TCase *tc = tcase_create("slices");
	tcase_add_test(tc, test_slices_cover_once);
	tcase_add_test(tc, test_too_many_shards);
	tcase_add_test(tc, test_listing_union);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(profile_shard_suite)
