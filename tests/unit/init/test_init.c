/* test_init.c: the parts of `imapstress init` that need no server: the
 * table (defaults = the seed's LoadSim mailbox, profile keys over them),
 * its folders, the plan "what is missing given STATUS", the verdicts of
 * the check, the progress line and the final report's lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "init/init_report.h"
#include "drivers/init/init_spec.h"
#include "profile/profile.h"

START_TEST(test_default_table_is_the_seed)
{
	struct init_table t;
	struct init_spec s;
	char err[256];

	init_table_defaults(&t);
	ck_assert_int_eq(init_spec_build(&s, &t, err, sizeof(err)), 0);
	/* 100 in the inbox, 1 in Deleted Items, 10 new folders of 10. */
	ck_assert_uint_eq(s.n, 12);
	ck_assert_str_eq(s.f[0].name, "INBOX");
	ck_assert_uint_eq(s.f[0].want, 100);
	ck_assert_str_eq(s.f[1].name, "Deleted Items");
	ck_assert_uint_eq(s.f[1].want, 1);
	ck_assert_str_eq(s.f[2].name, "Folder01");
	ck_assert_str_eq(s.f[11].name, "Folder10");
	for (unsigned i = 2; i < 12; i++)
		ck_assert_uint_eq(s.f[i].want, 10);
	ck_assert_uint_eq(s.msgs_per_user, 201);
	ck_assert_uint_eq(s.msg_size, 75 * 1024);
	init_spec_free(&s);
}
END_TEST

START_TEST(test_table_variants)
{
	struct init_table t;
	struct init_spec s;
	char err[256];

	init_table_defaults(&t);
	t.deleted = 0;			/* no deleted folder at all */
	t.new_folders = 100;		/* three digits past 99 */
	t.calendar = 25;
	t.contacts = 128;
	snprintf(t.folder_prefix, sizeof(t.folder_prefix), "Box ");
	ck_assert_int_eq(init_spec_build(&s, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.n, 1 + 100 + 2);
	ck_assert_str_eq(s.f[1].name, "Box 001");
	ck_assert_str_eq(s.f[100].name, "Box 100");
	ck_assert_str_eq(s.f[101].name, "Calendar");
	ck_assert_uint_eq(s.f[101].want, 25);
	ck_assert_str_eq(s.f[102].name, "Contacts");
	ck_assert_uint_eq(s.f[102].want, 128);
	init_spec_free(&s);

	/* A deleted folder named like a new one: refused by name. */
	init_table_defaults(&t);
	snprintf(t.deleted_folder, sizeof(t.deleted_folder), "Folder03");
	ck_assert_int_eq(init_spec_build(&s, &t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "'Folder03'") != NULL, "%s", err);
	/* INBOX in any case is INBOX. */
	snprintf(t.deleted_folder, sizeof(t.deleted_folder), "inbox");
	ck_assert_int_eq(init_spec_build(&s, &t, err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_table_from_profile)
{
	static const char text[] =
	    "lmtp_port = 24\ntotal_user_count = 1\n"
	    "init_inbox_messages = 7\ninit_deleted_folder = Trash\n"
	    "init_message_size = 2 KB\n"
	    "user u {\n count = 100%\n username_format = u%n\n}\n"
	    "client c {\n count = 100%\n}\n";
	char err[512];
	struct profile *p = profile_parse("t.conf", text, strlen(text), err,
					  sizeof(err));
	struct init_table t;

	ck_assert_msg(p != NULL, "%s", err);
	init_table_defaults(&t);
	init_table_from_profile(&t, &p->loadsim.init);
	/* Given keys replace the defaults; the rest stay the seed's. */
	ck_assert_uint_eq(t.inbox, 7);
	ck_assert_str_eq(t.deleted_folder, "Trash");
	ck_assert_uint_eq(t.msg_size, 2048);
	ck_assert_uint_eq(t.deleted, 1);
	ck_assert_uint_eq(t.new_folders, 10);
	ck_assert_str_eq(t.folder_prefix, "Folder");
	profile_free(p);
}
END_TEST

START_TEST(test_plan)
{
	struct init_table t;
	struct init_spec s;
	char err[256];

	init_table_defaults(&t);
	t.new_folders = 2;
	ck_assert_int_eq(init_spec_build(&s, &t, err, sizeof(err)), 0);
	/* INBOX, Deleted Items, Folder01, Folder02. */
	struct init_have have[4] = {
		{ true, 40 },		/* 60 short */
		{ false, 0 },		/* missing: create, 1 */
		{ true, 10 },		/* complete */
		{ true, 13 },		/* more than asked: nothing, never delete */
	};
	struct init_todo todo[4];
	ck_assert_uint_eq(init_plan(&s, have, todo), 61);
	ck_assert(!todo[0].create);
	ck_assert_uint_eq(todo[0].append, 60);
	ck_assert(todo[1].create);
	ck_assert_uint_eq(todo[1].append, 1);
	ck_assert(!todo[2].create);
	ck_assert_uint_eq(todo[2].append, 0);
	ck_assert_uint_eq(todo[3].append, 0);
	/* A second run on a complete mailbox: nothing at all. */
	struct init_have full[4] = { { true, 100 }, { true, 1 }, { true, 10 },
				     { true, 10 } };
	ck_assert_uint_eq(init_plan(&s, full, todo), 0);
	for (int i = 0; i < 4; i++)
		ck_assert(!todo[i].create);
	/* INBOX is never created, even when STATUS said NO. */
	struct init_have none[4] = { { false, 0 } };
	ck_assert_uint_eq(init_plan(&s, none, todo), 121);
	ck_assert(!todo[0].create);
	ck_assert(todo[1].create && todo[2].create && todo[3].create);

	ck_assert_int_eq(init_verdict(&s.f[2], &(struct init_have){ true, 10 }), INIT_OK);
	ck_assert_int_eq(init_verdict(&s.f[2], &(struct init_have){ true, 9 }), INIT_FEWER);
	ck_assert_int_eq(init_verdict(&s.f[2], &(struct init_have){ true, 11 }), INIT_MORE);
	ck_assert_int_eq(init_verdict(&s.f[2], &(struct init_have){ false, 0 }), INIT_MISSING);
	init_spec_free(&s);
}
END_TEST

START_TEST(test_progress_line)
{
	char buf[256];
	struct init_progress p = { .users_done = 0, .users_total = 200,
				   .appended = 0, .msgs_per_sec = 0,
				   .elapsed_s = 3 };

	init_progress_format(buf, sizeof(buf), &p);
	ck_assert_str_eq(buf, "init: 0/200 users, 0 messages appended (0/s), ETA ?");
	/* 50 users in 30 s: 150 more take 90 s. */
	p = (struct init_progress){ 50, 200, 10050, 812.4, 30 };
	init_progress_format(buf, sizeof(buf), &p);
	ck_assert_str_eq(buf, "init: 50/200 users, 10050 messages appended (812/s), ETA 1:30");
	p = (struct init_progress){ 1, 1000, 201, 10, 10 };
	init_progress_format(buf, sizeof(buf), &p);
	ck_assert_str_eq(buf, "init: 1/1000 users, 201 messages appended (10/s), ETA 2:46:30");
	p = (struct init_progress){ 200, 200, 40200, 0, 60 };
	init_progress_format(buf, sizeof(buf), &p);
	ck_assert_str_eq(buf, "init: 200/200 users, 40200 messages appended (0/s), ETA 0:00");
}
END_TEST

/* Four users: ok, one folder short and one missing, failed, never done. */
static char *
report_of(unsigned max_lines, struct init_tally *t)
{
	struct init_table tb;
	struct init_spec s;
	struct init_results r;
	char err[256], *out = NULL;
	size_t len = 0;

	init_table_defaults(&tb);
	tb.new_folders = 1;
	ck_assert_int_eq(init_spec_build(&s, &tb, err, sizeof(err)), 0);
	init_results_init(&r, 4, s.n);
	const char *names[4] = { "alice", "bob", "carol", "dave\x1b" };
	for (int u = 0; u < 4; u++)
		r.names[u] = strdup(names[u]);
	uint32_t ok[3] = { 100, 1, 10 }, bad[3] = { 97, INIT_HAVE_NONE, 12 };
	memcpy(&r.have[0], ok, sizeof(ok));
	memcpy(&r.have[3], bad, sizeof(bad));
	r.state[0] = r.state[1] = INIT_U_CHECKED;
	r.state[2] = INIT_U_FAILED;
	r.err[2] = strdup("gave up after 5 attempts (last: login)");
	r.state[3] = INIT_U_PENDING;
	r.appended = 3;
	r.append_cmds = 2;	/* one of them a MULTIAPPEND of two */
	r.created = 1;
	r.bytes = 3 * 1024;

	FILE *f = open_memstream(&out, &len);
	init_report(f, &s, &r, 2.0, max_lines, t);
	fclose(f);
	init_results_free(&r);
	init_spec_free(&s);
	return out;
}

START_TEST(test_report)
{
	struct init_tally t;
	char *out = report_of(50, &t);

	ck_assert_str_eq(out,
	    "init: bob: INBOX holds 97 of 100 messages\n"
	    "init: bob: Deleted Items does not exist\n"
	    "init: carol: failed: gave up after 5 attempts (last: login)\n"
	    "init: dave\\x1b: not done (the run ended first)\n"
	    "init: 4 users in 2.0 s: 1 folders created, 3 messages appended (3.0 KiB) "
	    "in 2 APPEND commands\n"
	    "init: check FAILED: 3 of 4 users do not hold what was asked "
	    "(1 folders short, 1 missing, 1 users failed, 1 not done)\n"
	    "init: note: 1 folders hold more than asked (init never deletes)\n");
	ck_assert_uint_eq(t.users_ok, 1);
	ck_assert_uint_eq(t.users_bad, 3);
	ck_assert_uint_eq(t.folders_more, 1);
	free(out);

	/* Bounded: two lines, then how many more. */
	out = report_of(2, &t);
	ck_assert_msg(strstr(out, "init: bob: Deleted Items does not exist\n"
			     "init: ... and 2 more such lines\n") != NULL, "%s", out);
	ck_assert(strstr(out, "carol") == NULL);
	free(out);
}
END_TEST

START_TEST(test_report_all_good)
{
	struct init_table tb;
	struct init_spec s;
	struct init_results r;
	struct init_tally t;
	char err[256], *out = NULL;
	size_t len = 0;

	init_table_defaults(&tb);
	ck_assert_int_eq(init_spec_build(&s, &tb, err, sizeof(err)), 0);
	init_results_init(&r, 2, s.n);
	for (unsigned u = 0; u < 2; u++) {
		r.state[u] = INIT_U_CHECKED;
		for (unsigned f = 0; f < s.n; f++)
			r.have[u * s.n + f] = s.f[f].want;
	}
	FILE *f = open_memstream(&out, &len);
	init_report(f, &s, &r, 0.5, 50, &t);
	fclose(f);
	ck_assert_str_eq(out,
	    "init: 2 users in 0.5 s: 0 folders created, 0 messages appended (0 B) in "
	    "0 APPEND commands\n"
	    "init: check: every folder of all 2 users holds what was asked "
	    "(12 folders, 201 messages each)\n");
	ck_assert_uint_eq(t.users_bad, 0);
	free(out);
	init_results_free(&r);
	init_spec_free(&s);
}
END_TEST

static Suite *
init_suite(void)
{
	Suite *s = suite_create("init");
	TCase *tc = tcase_create("spec");
	tcase_add_test(tc, test_default_table_is_the_seed);
	tcase_add_test(tc, test_table_variants);
	tcase_add_test(tc, test_table_from_profile);
	tcase_add_test(tc, test_plan);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, test_progress_line);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_report_all_good);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(init_suite)
