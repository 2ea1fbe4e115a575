/* test_shard_modes.c: what each mode takes from the shard.  shard_setup
 * (stress, init) narrows users=, clients, rates and the seed; shard_locate
 * (a profile run, scripted tests) finds the same shard and changes
 * nothing else, so a profile's shards expand one plan with one seed and
 * slice its users themselves.  --profile-counts, like --result, may name
 * each shard's file ("%i") without making the shards two runs to merge. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "config/shard.h"

static const char *
no_env(const char *name)
{
	return NULL;
}

static void
parse(struct config *cfg, int argc, char **argv)
{
	char err[512];

	config_defaults(cfg);
	ck_assert_msg(config_parse(cfg, argc, argv, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(config_validate(cfg, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_locate_leaves_cfg)
{
	char *argv[] = { "imapstress", "--shard", "1/3", "seed=5", "clients=9",
			 "users=1-30", "--profile-counts", "c%i.json", NULL };
	struct config a, b;
	char err[512];

	parse(&a, 8, argv);
	ck_assert_int_eq(shard_locate(&a, no_env, err, sizeof(err)), 0);
	ck_assert_uint_eq(a.shard_index, 1);
	ck_assert_uint_eq(a.shard_count, 3);
	ck_assert_uint_eq(a.clients, 9);
	ck_assert_uint_eq(a.users_min, 1);
	ck_assert_uint_eq(a.users_max, 30);
	ck_assert_uint_eq(a.seed, 5);
	ck_assert_str_eq(a.profile_counts, "c1.json");

	parse(&b, 8, argv);
	ck_assert_int_eq(shard_setup(&b, no_env, err, sizeof(err)), 0);
	ck_assert_uint_eq(b.clients, 3);
	ck_assert_uint_eq(b.users_min, 11);
	ck_assert_uint_eq(b.users_max, 20);
	ck_assert_uint_eq(b.seed, 6);
	ck_assert_str_eq(b.profile_counts, "c1.json");
	config_free(&a);
	config_free(&b);

	/* a profile run of 20 shards is not held to clients=10 */
	char *many[] = { "imapstress", "--shard", "19/20", NULL };
	parse(&a, 3, many);
	ck_assert_int_eq(shard_locate(&a, no_env, err, sizeof(err)), 0);
	config_free(&a);
	parse(&a, 3, many);
	ck_assert_int_eq(shard_setup(&a, no_env, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "clients=10: fewer clients than the 20 shards");
	config_free(&a);
}
END_TEST

START_TEST(test_counts_path_per_shard)
{
	char *s0[] = { "imapstress", "--shard", "0/2", "--profile-counts",
		       "/a/c0.json", "clients=4", NULL };
	char *s1[] = { "imapstress", "--shard", "1/2", "--profile-counts",
		       "/b/c1.json", "clients=4", NULL };
	struct config a, b;

	parse(&a, 6, s0);
	parse(&b, 6, s1);
	/* merge compares the keys: the shards are one run */
	ck_assert_str_eq(a.args_key, b.args_key);
	ck_assert_ptr_null(strstr(a.args_key, "profile-counts"));
	config_free(&a);
	config_free(&b);
}
END_TEST

static Suite *
shard_modes_suite(void)
{
	Suite *s = suite_create("shard_modes");
	TCase *tc = tcase_create("locate");
	tcase_add_test(tc, test_locate_leaves_cfg);
	tcase_add_test(tc, test_counts_path_per_shard);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(shard_modes_suite)
