/* test_script_opts.c: scripted tests refuse shards by name (a shard of
 * them would run every test against the same mailboxes as the others),
 * whether --shard or a launcher's variables asked; one process (no shard,
 * or 0/1) runs. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "script/script_opts.h"

START_TEST(test_refuses_shards)
{
	struct config cfg;
	char err[256];

	config_defaults(&cfg);
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), 0);
	cfg.shard_index = 0;
	cfg.shard_count = 1;
	cfg.shard_from = "--shard";
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), 0);
	cfg.shard_index = 1;
	cfg.shard_count = 2;
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--shard 1/2: scripted tests (test=) run as one "
			 "process, not in shards");
	cfg.shard_from = "SLURM_PROCID/SLURM_NTASKS";
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "shard 1/2 (from SLURM_PROCID/SLURM_NTASKS): "
			 "scripted tests (test=) run as one process, not in "
			 "shards");
	config_free(&cfg);
}
END_TEST

/* imaptest refuses a '%' in user= with tests ("Don't use % in username
 * with tests"): every connection logs in as user= itself, so u%d would
 * be sent to the letter.  user2= is taken as it is, as imaptest does. */
START_TEST(test_refuses_user_template)
{
	struct config cfg;
	char err[256];

	config_defaults(&cfg);
	free(cfg.user_template);
	cfg.user_template = strdup("u%d");
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "user=u%d: scripted tests (test=) log in as user= "
			 "itself, without %d or %i (imaptest refuses '%' in it "
			 "with tests too); give one user, and user2= or 'user N:' "
			 "lines for others");
	free(cfg.user_template);
	cfg.user_template = strdup("100%%");
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), -1);
	free(cfg.user_template);
	cfg.user_template = strdup("u1");
	cfg.user2 = strdup("v%d");
	ck_assert_int_eq(script_check_options(&cfg, err, sizeof(err)), 0);
	config_free(&cfg);
}
END_TEST

static Suite *
script_opts_suite(void)
{
	Suite *s = suite_create("script_opts");
	TCase *tc = tcase_create("shard");
	tcase_add_test(tc, test_refuses_shards);
	tcase_add_test(tc, test_refuses_user_template);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(script_opts_suite)
