/* test_profile_loadsim.c: the LoadSim extension keys (profile_loadsim.c):
 * one case per key with its parsed value, one per bad value with the
 * exact "FILE:LINE: KEY:" prefix, keys in the wrong section, duplicates,
 * the checks across keys, and the two shipped profiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "profile/profile.h"

/* Line 1-2 globals, 3 the global slot, 4 "user u {", 5 count, 6 username,
 * 7 the user slot, 8 "}", 9 "client c {", 10 count, 11 the client slot. */
static char *
text(const char *g, const char *u, const char *c)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "lmtp_port = 24\ntotal_user_count = 10\n%s\n"
		 "user u {\n  count = 100%%\n  username_format = u%%n\n  %s\n}\n"
		 "client c {\n  count = 100%%\n  %s\n}\n", g, u, c);
	return buf;
}

static struct profile *
parse(const char *t, char *err, size_t n)
{
	err[0] = '\0';
	return profile_parse("t.conf", t, strlen(t), err, n);
}

enum where { G, U, C };

/* What a good line must have set, read back from the struct. */
static double
value_of(const struct profile *p, const char *what)
{
	const struct profile_loadsim *ls = &p->loadsim;
	const struct loadsim_user *lu = &ls->users[0];

	for (unsigned i = 0; i < LS_N_ACTIONS; i++) {
		char k[64];
		snprintf(k, sizeof(k), "%s_per_day", loadsim_action_name[i]);
		if (strcmp(what, k) == 0)
			return lu->per_day[i];
		snprintf(k, sizeof(k), "score_weight_%s", loadsim_action_name[i]);
		if (strcmp(what, k) == 0)
			return ls->weight[i];
	}
	const struct { const char *k; double v; } f[] = {
		{ "received_mail_per_day", lu->received_per_day },
		{ "sent_mail_per_day", lu->sent_per_day },
		{ "send_recipients_min", lu->rcpt_min },
		{ "send_recipients_avg", lu->rcpt_avg },
		{ "send_recipients_max", lu->rcpt_max },
		{ "deleted_folder_max_messages", lu->deleted_max },
		{ "day_length", (double)ls->day_length_us },
		{ "day_compressed_to", (double)ls->day_compressed_us },
		{ "distribution_lists", ls->dl_count },
		{ "distribution_list_min_size", ls->dl_min },
		{ "distribution_list_avg_size", ls->dl_avg },
		{ "distribution_list_max_size", ls->dl_max },
		{ "init_inbox_messages", ls->init.inbox },
		{ "init_deleted_messages", ls->init.deleted },
		{ "init_new_folders", ls->init.new_folders },
		{ "init_folder_messages", ls->init.folder_messages },
		{ "init_calendar_appointments", ls->init.calendar },
		{ "init_contacts", ls->init.contacts },
		{ "init_message_size", (double)ls->init.msg_size },
		{ "client_mode", ls->mode[0] },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(what, f[i].k) == 0)
			return f[i].v;
	ck_abort_msg("no field for %s", what);
	return -1;
}

static const struct {
	enum where w;
	const char *line;
	const char *key;
	double want;
} good[] = {
	{ U, "send_mail_per_day = 12", "send_mail_per_day", 12 },
	{ U, "clean_inbox_per_day = 20", "clean_inbox_per_day", 20 },
	{ U, "browse_mail_per_day = 0", "browse_mail_per_day", 0 },
	{ U, "free_busy_per_day = 4", "free_busy_per_day", 4 },
	{ U, "meeting_request_per_day = 1.4", "meeting_request_per_day", 1.4 },
	{ U, "make_appointment_per_day = 2.8", "make_appointment_per_day", 2.8 },
	{ U, "browse_calendar_per_day = 6", "browse_calendar_per_day", 6 },
	{ U, "journal_per_day = 0", "journal_per_day", 0 },
	{ U, "log_off_per_day = 3", "log_off_per_day", 3 },
	{ U, "browse_contacts_per_day = 0", "browse_contacts_per_day", 0 },
	{ U, "create_contact_per_day = 0.0", "create_contact_per_day", 0 },
	{ U, "received_mail_per_day = 161.90", "received_mail_per_day", 161.9 },
	{ U, "sent_mail_per_day = 44.12", "sent_mail_per_day", 44.12 },
	{ U, "send_recipients_min = 1", "send_recipients_min", 1 },
	{ U, "send_recipients_avg = 4.5", "send_recipients_avg", 4.5 },
	{ U, "send_recipients_max = 20", "send_recipients_max", 20 },
	{ U, "deleted_folder_max_messages = 5", "deleted_folder_max_messages", 5 },
	{ G, "day_length = 8 hours", "day_length", 8 * 3600e6 },
	{ G, "day_length = 8h", "day_length", 8 * 3600e6 },
	{ G, "day_compressed_to = 10 min", "day_compressed_to", 600e6 },
	{ G, "distribution_lists = 100", "distribution_lists", 100 },
	{ G, "distribution_list_min_size = 2", "distribution_list_min_size", 2 },
	{ G, "distribution_list_avg_size = 10", "distribution_list_avg_size", 10 },
	{ G, "distribution_list_max_size = 20", "distribution_list_max_size", 20 },
	{ G, "score_weight_browse_mail = 55", "score_weight_browse_mail", 55 },
	{ G, "score_weight_send_mail = 7.5", "score_weight_send_mail", 7.5 },
	{ G, "init_inbox_messages = 100", "init_inbox_messages", 100 },
	{ G, "init_deleted_messages = 1", "init_deleted_messages", 1 },
	{ G, "init_new_folders = 10", "init_new_folders", 10 },
	{ G, "init_folder_messages = 10", "init_folder_messages", 10 },
	{ G, "init_calendar_appointments = 25", "init_calendar_appointments", 25 },
	{ G, "init_contacts = 128", "init_contacts", 128 },
	{ G, "init_message_size = 75 KB", "init_message_size", 75 * 1024 },
	{ G, "init_message_size = 2k", "init_message_size", 2048 },
	{ C, "client_mode = online", "client_mode", LS_MODE_ONLINE },
	{ C, "client_mode = cached", "client_mode", LS_MODE_CACHED },
};

START_TEST(test_good_key)
{
	char err[512];
	const char *l = good[_i].line;
	struct profile *p = parse(text(good[_i].w == G ? l : "",
				       good[_i].w == U ? l : "",
				       good[_i].w == C ? l : ""), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s: %s", l, err);
	ck_assert_msg(fabs(value_of(p, good[_i].key) - good[_i].want) < 1e-9,
		      "%s: got %g", l, value_of(p, good[_i].key));
	ck_assert(p->loadsim.any);
	profile_free(p);
}
END_TEST

START_TEST(test_folder_names)
{
	char err[512];
	struct profile *p = parse(text("init_deleted_folder = Trash\n"
				       "init_folder_prefix = Projects/F", "", ""),
				  err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(p->loadsim.init.deleted_folder, "Trash");
	ck_assert_str_eq(p->loadsim.init.folder_prefix, "Projects/F");
	ck_assert_uint_eq(p->loadsim.init.has,
			  (1u << LS_INIT_DELETED_FOLDER) |
			  (1u << LS_INIT_FOLDER_PREFIX));
	profile_free(p);
}
END_TEST

static const struct {
	enum where w;
	const char *line;
	const char *want;	/* the whole message after "t.conf:" */
} bad[] = {
	{ U, "send_mail_per_day = -1", "7: send_mail_per_day: '-1': not a number" },
	{ U, "browse_mail_per_day = 1e3", "7: browse_mail_per_day: '1e3': not a number" },
	{ U, "clean_inbox_per_day = 1.2.3", "7: clean_inbox_per_day: '1.2.3': not a number" },
	{ U, "free_busy_per_day = ", "7: free_busy_per_day: '': not a number" },
	{ U, "meeting_request_per_day = 100001", "7: meeting_request_per_day: '100001': too large" },
	{ U, "make_appointment_per_day = 2,8", "7: make_appointment_per_day: '2,8': not a number" },
	{ U, "browse_calendar_per_day = six", "7: browse_calendar_per_day: 'six': not a number" },
	{ U, "journal_per_day = x", "7: journal_per_day: 'x': not a number" },
	{ U, "journal_per_day = 1", "7: journal_per_day: '1': not supported yet: the profile user driver has no journal or contacts action (only 0 is accepted)" },
	{ U, "browse_contacts_per_day = 0.5", "7: browse_contacts_per_day: '0.5': not supported yet: the profile user driver has no journal or contacts action (only 0 is accepted)" },
	{ U, "create_contact_per_day = 1", "7: create_contact_per_day: '1': not supported yet: the profile user driver has no journal or contacts action (only 0 is accepted)" },
	{ U, "log_off_per_day = 3/day", "7: log_off_per_day: '3/day': not a number" },
	{ U, "browse_contacts_per_day = .", "7: browse_contacts_per_day: '.': not a number" },
	{ U, "create_contact_per_day = +1", "7: create_contact_per_day: '+1': not a number" },
	{ U, "received_mail_per_day = lots", "7: received_mail_per_day: 'lots': not a number" },
	{ U, "sent_mail_per_day = 1e9", "7: sent_mail_per_day: '1e9': not a number" },
	{ U, "send_recipients_min = 0", "7: send_recipients_min: '0': out of range" },
	{ U, "send_recipients_max = 10001", "7: send_recipients_max: '10001': out of range" },
	{ U, "send_recipients_avg = 0.5", "7: send_recipients_avg: '0.5': below 1" },
	{ U, "deleted_folder_max_messages = 0", "7: deleted_folder_max_messages: '0': out of range" },
	{ U, "deleted_folder_max_messages = 1000001", "7: deleted_folder_max_messages: '1000001': out of range" },
	{ G, "deleted_folder_max_messages = 5", "3: deleted_folder_max_messages: a LoadSim key that belongs in a user { } block" },
	{ G, "day_length = 0", "3: day_length: '0': shorter than a second" },
	{ G, "day_length = 8 fortnights", "3: day_length: '8 fortnights': unknown time unit" },
	{ G, "day_compressed_to = soon", "3: day_compressed_to: 'soon': not a number" },
	{ G, "distribution_lists = -1", "3: distribution_lists: '-1': negative" },
	{ G, "distribution_list_min_size = 0", "3: distribution_list_min_size: '0': out of range" },
	{ G, "distribution_list_avg_size = x", "3: distribution_list_avg_size: 'x': not a number" },
	{ G, "distribution_list_max_size = 100001", "3: distribution_list_max_size: '100001': out of range" },
	{ G, "score_weight_browse_mail = heavy", "3: score_weight_browse_mail: 'heavy': not a number" },
	{ G, "init_inbox_messages = 1000001", "3: init_inbox_messages: '1000001': out of range" },
	{ G, "init_deleted_messages = one", "3: init_deleted_messages: 'one': not a number" },
	{ G, "init_new_folders = 1001", "3: init_new_folders: '1001': out of range" },
	{ G, "init_folder_messages = 1.5", "3: init_folder_messages: '1.5': not a number" },
	{ G, "init_calendar_appointments = -2", "3: init_calendar_appointments: '-2': negative" },
	{ G, "init_contacts = x", "3: init_contacts: 'x': not a number" },
	{ G, "init_message_size = 0", "3: init_message_size: '0': not in 1 octet .. 64 MiB" },
	{ G, "init_message_size = 65 MB", "3: init_message_size: '65 MB': not in 1 octet .. 64 MiB" },
	{ G, "init_message_size = big", "3: init_message_size: 'big': not a number" },
	{ G, "init_deleted_folder = ", "3: init_deleted_folder: '': empty" },
	{ G, "init_deleted_folder = Del*", "3: init_deleted_folder: 'Del*': not a folder name" },
	{ G, "init_folder_prefix = a\"b", "3: init_folder_prefix: 'a\"b': not a folder name" },
	{ C, "client_mode = offline", "11: client_mode: 'offline': not a client mode (online or cached)" },
	/* The wrong section, by name. */
	{ G, "send_mail_per_day = 1", "3: send_mail_per_day: a LoadSim key that belongs in a user { } block" },
	{ U, "day_length = 8h", "7: day_length: a LoadSim key that belongs outside the blocks (a global key)" },
	{ C, "init_contacts = 1", "11: init_contacts: a LoadSim key that belongs outside the blocks (a global key)" },
	{ U, "client_mode = online", "7: client_mode: a LoadSim key that belongs in a client { } block" },
	/* Twice. */
	{ G, "day_length = 8h\nday_length = 4h", "4: day_length: given twice (first on line 3)" },
	{ U, "send_mail_per_day = 1\n  send_mail_per_day = 2", "8: send_mail_per_day: given twice (first on line 7)" },
	/* Across keys, at the line of the key that does not fit. */
	{ G, "day_length = 1h\nday_compressed_to = 2h", "4: day_compressed_to: longer than day_length" },
	{ G, "distribution_list_min_size = 5\ndistribution_list_avg_size = 3",
	  "4: distribution_list_avg_size: the average 3 is not between" },
	{ G, "distribution_list_min_size = 5\ndistribution_list_max_size = 3\n"
	  "distribution_list_avg_size = 4", "5: distribution_list_avg_size: the minimum 5 is above the maximum 3" },
	{ U, "send_recipients_min = 3\n  send_recipients_avg = 2", "4: send_recipients_avg: the average 2 is not between" },
	/* Still unknown: not every *_per_day is a LoadSim action. */
	{ U, "dance_per_day = 3", "7: dance_per_day: unknown key in a user { } block" },
};

START_TEST(test_bad_value)
{
	char err[512], want[256];
	const char *l = bad[_i].line;
	struct profile *p = parse(text(bad[_i].w == G ? l : "", bad[_i].w == U ? l : "",
				       bad[_i].w == C ? l : ""), err, sizeof(err));

	ck_assert_msg(p == NULL, "%s: accepted", l);
	snprintf(want, sizeof(want), "t.conf:%s", bad[_i].want);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s:\n got  %s\n want %s...",
		      l, err, want);
}
END_TEST

START_TEST(test_defaults_and_derived)
{
	char err[512];
	struct profile *p = parse(text("", "send_mail_per_day = 12\n"
				       "  sent_mail_per_day = 52", ""), err,
				  sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	/* An 8-hour day in real time unless told otherwise. */
	ck_assert_uint_eq(p->loadsim.day_length_us, 8ull * 3600 * 1000000);
	ck_assert(fabs(profile_loadsim_speedup(&p->loadsim) - 1.0) < 1e-12);
	/* Recipients per mail: the seed's sent-counting-recipients over sent. */
	ck_assert(fabs(p->loadsim.users[0].rcpt_avg - 52.0 / 12.0) < 1e-9);
	/* Clean inbox empties the deleted folder past 20 messages. */
	ck_assert_uint_eq(p->loadsim.users[0].deleted_max, LS_DELETED_MAX_DEFAULT);
	ck_assert_uint_eq(LS_DELETED_MAX_DEFAULT, 20);
	profile_free(p);
	/* No LoadSim key: nothing says it is one, and --profile-check adds
	 * nothing. */
	p = parse(text("", "", ""), err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert(!p->loadsim.any);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	profile_loadsim_print(p, f);
	fclose(f);
	ck_assert_uint_eq(len, 0);
	free(out);
	profile_free(p);
}
END_TEST

START_TEST(test_speedup)
{
	char err[512];
	struct profile *p = parse(text("day_length = 8h\n"
				       "day_compressed_to = 10 min", "", ""),
				  err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert(fabs(profile_loadsim_speedup(&p->loadsim) - 48.0) < 1e-12);
	profile_free(p);
}
END_TEST

/* The shipped scenarios hold the seed's tables, row by row (run from
 * the top of the source tree, as make check does). */
START_TEST(test_shipped_profiles)
{
	static const double online[LS_N_ACTIONS] = { 12, 12, 20, 1, 1.4, 2.8, 6, 0, 0, 0, 0 };
	static const double cached[LS_N_ACTIONS] = { 7, 20, 0, 4, 2, 4, 1, 0, 3, 0, 0 };
	const char *files[2] = { "profiles/loadsim-online.conf",
				 "profiles/loadsim-cached.conf" };
	const double *want[2] = { online, cached };
	const double recv[2] = { 208, 161.90 }, sent[2] = { 52, 44.12 };
	char err[512];

	for (int f = 0; f < 2; f++) {
		struct profile *p = profile_load(files[f], err, sizeof(err));
		ck_assert_msg(p != NULL, "%s", err);
		const struct profile_loadsim *ls = &p->loadsim;
		for (unsigned i = 0; i < LS_N_ACTIONS; i++)
			ck_assert_msg(fabs(ls->users[0].per_day[i] - want[f][i]) < 1e-9,
				      "%s: %s", files[f], loadsim_action_name[i]);
		ck_assert(fabs(ls->users[0].received_per_day - recv[f]) < 1e-9);
		ck_assert(fabs(ls->users[0].sent_per_day - sent[f]) < 1e-9);
		ck_assert_uint_eq(ls->init.inbox, 100);
		ck_assert_uint_eq(ls->init.deleted, 1);
		ck_assert_uint_eq(ls->init.new_folders, 10);
		ck_assert_uint_eq(ls->init.folder_messages, 10);
		ck_assert_uint_eq(ls->init.calendar, 25);
		ck_assert_uint_eq(ls->init.contacts, 128);
		ck_assert_uint_eq(ls->init.msg_size, 75 * 1024);
		ck_assert_uint_eq(ls->dl_count, 100);
		ck_assert_uint_eq(ls->dl_min, 2);
		ck_assert_uint_eq(ls->dl_avg, 10);
		ck_assert_uint_eq(ls->dl_max, 20);
		ck_assert_uint_eq(ls->day_length_us, 8ull * 3600 * 1000000);
		ck_assert_int_eq(ls->mode[0], f == 0 ? LS_MODE_ONLINE : LS_MODE_CACHED);
		profile_free(p);
	}
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
profile_loadsim_suite(void)
{
	Suite *s = suite_create("profile_loadsim");
	TCase *tc = tcase_create("keys");
	tcase_add_loop_test(tc, test_good_key, 0, N(good));
	tcase_add_test(tc, test_folder_names);
	tcase_add_loop_test(tc, test_bad_value, 0, N(bad));
	tcase_add_test(tc, test_defaults_and_derived);
	tcase_add_test(tc, test_speedup);
	tcase_add_test(tc, test_shipped_profiles);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(profile_loadsim_suite)
