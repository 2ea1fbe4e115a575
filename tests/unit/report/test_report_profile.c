/* Profile mode in the report and in result files: the sections appear
 * only in profile mode (a stress run's text, JSON and CSV do not change),
 * carry the per-action, push, user and LMTP figures, and a profile-mode
 * result file gives every one of them back exactly; version 1 files are
 * still read, and profile lines in a stress file are refused. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "report_fixture.h"
#include "report/result.h"

/* A profile second: 3 users, 5 deliveries (4 ok, one 452), reads and a
 * failed reply, push samples at 20 ms and 30 ms, one missed. */
static void
seed_profile(struct stats_snap *w)
{
	struct act_snap *a = &w->act;
	a->profile = 1;
	a->users_in = 3;
	a->users_started = 4;	/* one of them logged off on its own day */
	a->ok[ACT_READ] = 2;
	hist_record(a->lat[ACT_READ], 1000);
	hist_record(a->lat[ACT_READ], 3000);
	a->failed[ACT_REPLY] = 1;
	hist_record(a->push[PUSH_EXISTS], 20000);
	hist_record(a->push[PUSH_EXISTS], 30000);
	hist_record(a->push[PUSH_FETCH], 25000);
	a->push_missed = 1;
	a->push_unseen_end = 3;
	a->lmtp.deliveries = 5;
	a->lmtp.rcpts = 5;
	a->lmtp.rcpt_ok = 4;
	a->lmtp.rcpt_tempfail = 1;
	a->lmtp.codes[250] = 4;
	a->lmtp.codes[452] = 1;
	a->lmtp.fails[2] = 0;
	a->lmtp.sessions = 2;
	a->lmtp.sessions_open = 2;
	a->lmtp.queued_max = 3;
	hist_record_n(a->lmtp.lat_total, 900, 4);
	/* 3 submissions to 3 recipients each (submission_rcpt_count = 3) */
	a->submit.deliveries = 3;
	a->submit.rcpts = 9;
	a->submit.rcpt_ok = 6;
	a->submit.rcpt_permfail = 2;
	a->submit.rcpt_local = 1;
}

/* NOTIFY clients beside the IDLE ones: 3 seen (10, 20, 4000 ms), one
 * fetched, 2 missed, one session refused, one overflow. */
static void
seed_notify(struct stats_snap *w)
{
	struct act_snap *a = &w->act;
	hist_record(a->push[PUSH_NOTIFY_EXISTS], 10000);
	hist_record(a->push[PUSH_NOTIFY_EXISTS], 20000);
	hist_record(a->push[PUSH_NOTIFY_EXISTS], 4000000);
	hist_record(a->push[PUSH_NOTIFY_FETCH], 40000);
	a->push_missed_notify = 2;
	a->notify_refused = 1;
	a->notify_overflow = 1;
}

/* POP3 users' counters (issue 29): RETR 40 +OK and 1 in flight when a
 * session died, DELE 2 -ERR, one session timed out. */
static void
seed_pop3(struct stats_snap *s)
{
	s->act.pop3.sessions = 7;
	s->act.pop3.retrieved = 40;
	s->act.pop3.deleted = 38;
	s->act.pop3.fails[P3F_TIMEOUT] = 1;
	s->act.pop3.ok[P3_RETR] = 40;
	s->act.pop3.err[P3_DELE] = 2;
	s->act.pop3.failed[P3_RETR] = 1;
	hist_record(s->act.pop3.lat[P3_RETR], 2500);
}

/* One tick and the final of a run, text and JSON and CSV, into strings;
 * extra (or NULL) seeds more into both snapshots. */
static void
run_report_as(bool profile, void (*extra)(struct stats_snap *), char **text,
	      char **json, char **csv)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, cum;
	char err[256] = "", jpath[] = "/tmp/rprof-json-XXXXXX",
	     cpath[] = "/tmp/rprof-csv-XXXXXX";
	int jfd = mkstemp(jpath), cfd = mkstemp(cpath);
	ck_assert_int_ge(jfd, 0);
	ck_assert_int_ge(cfd, 0);
	close(jfd);
	close(cfd);

	seed_config(&cfg);
	if (profile)
		cfg.profile_path = strdup("p.profile");
	cfg.json_path = strdup(jpath);
	cfg.csv_path = strdup(cpath);
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&cum);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	struct report_run run = plain_run(1);
	seed_window(&win, 100, 1642, 500);
	seed_window(&cum, 100, 1642, 500);
	seed_profile(&win);
	seed_profile(&cum);
	if (extra != NULL) {
		extra(&win);
		extra(&cum);
	}
	report_tick(r, &run, &win, &cum);
	ck_assert_int_eq(report_final(r, &run, &cum), 0);
	report_free(r);
	*text = strdup(memout_text(&m));
	*json = slurp(jpath);
	*csv = slurp(cpath);
	unlink(jpath);
	unlink(cpath);
	stats_snap_free(&win);
	stats_snap_free(&cum);
	memout_close(&m);
	config_free(&cfg);
}

static void
run_report(bool profile, char **text, char **json, char **csv)
{
	run_report_as(profile, NULL, text, json, csv);
}

START_TEST(test_stress_unchanged)
{
	char *text, *json, *csv;
	/* The same snapshots, act figures included, in a stress run: not a
	 * word of profile output anywhere. */
	run_report(false, &text, &json, &csv);
	ck_assert_ptr_null(strstr(text, "users="));
	ck_assert_ptr_null(strstr(text, "Profile"));
	ck_assert_ptr_null(strstr(text, "push"));
	ck_assert_ptr_null(strstr(json, "profile"));
	ck_assert_ptr_null(strstr(csv, "users_in"));
	ck_assert_ptr_null(strstr(csv, "act_"));
	free(text);
	free(json);
	free(csv);
}
END_TEST

static int
csv_col(const char *header_line, const char *name)
{
	int col = 0;
	size_t n = strlen(name);
	for (const char *p = header_line; *p != '\0' && *p != '\n'; col++) {
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\n'))
			return col;
		p = strchr(p, ',');
		if (p == NULL)
			break;
		p++;
	}
	return -1;
}

static long
csv_value(const char *row, int col)
{
	const char *p = row;
	for (int i = 0; i < col && p != NULL; i++) {
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	ck_assert_ptr_nonnull(p);
	return strtol(p, NULL, 10);
}

/* As many fields in the row as in the header. */
static void
csv_same_width(const char *csv, const char *row)
{
	int hdr_commas = 0, row_commas = 0;
	for (const char *p = csv; *p != '\n'; p++)
		hdr_commas += *p == ',';
	for (const char *p = row; *p != '\n'; p++)
		row_commas += *p == ',';
	ck_assert_int_eq(hdr_commas, row_commas);
}

START_TEST(test_profile_sections)
{
	char *text, *json, *csv;
	run_report(true, &text, &json, &csv);

	/* The tick line: users now, deliveries and their errors, push p50,
	 * missed. */
	ck_assert_msg(strstr(text, " users=3 dlv=4 dlv_err=1 push=20.0ms pmiss=1\n")
		      != NULL, "%s", text);
	/* The summary's profile block. */
	ck_assert_ptr_nonnull(strstr(text, "Profile:\naction        count   ok/s"));
	ck_assert_ptr_nonnull(strstr(text, "\nread              2   2.00"));
	ck_assert_ptr_nonnull(strstr(text, "\nreply             1   0.00"));
	ck_assert_ptr_nonnull(strstr(text, "\n250->EXISTS       2   2.00"));
	ck_assert_ptr_nonnull(strstr(text, "\n250->FETCH        1   1.00"));
	/* Users submitted (submit.rcpts): 250->EXISTS split by source under
	 * it, no samples in either here. */
	ck_assert_ptr_nonnull(strstr(text, "\n250->EXISTS       2   2.00"));
	ck_assert_msg(strstr(text, "\n  from LMTP       0 ") != NULL &&
		      strstr(text, "\n  submitted       0 ") != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "push missed: 1 deliveries not "
				     "announced in IDLE within 30 s\n"));
	/* --push-settle not given: PUSH_SETTLE_DEFAULT_S. */
	ck_assert_ptr_nonnull(strstr(text, "push unseen: 3 deliveries not "
				     "announced when the push ended (settle up "
				     "to 5 s)\n"));
	/* No NOTIFY client: no NOTIFY rows, no side-by-side table. */
	ck_assert_ptr_null(strstr(text, "250->N.EXISTS"));
	ck_assert_ptr_null(strstr(text, "push by"));
	ck_assert_ptr_null(strstr(text, "npush"));
	ck_assert_ptr_nonnull(strstr(text, "users logged in: 3 at the end\n"));
	ck_assert_ptr_nonnull(strstr(text, "deliveries: 5 recipients in 5 LMTP "
				     "deliveries: 4 ok (4.0/s), 1 4xx, 0 5xx, 0 "
				     "without a reply; 2 sessions"));
	ck_assert_ptr_nonnull(strstr(text, "LMTP replies by code: 250=4 452=1\n"));
	/* The command table is still there, before the profile block. */
	ck_assert(strstr(text, "\nAPPEND ") < strstr(text, "Profile:"));

	/* JSON: tick and summary both carry it. */
	const char *tick = strstr(json, "\"type\":\"tick\"");
	const char *sum = strstr(json, "\"type\":\"summary\"");
	ck_assert_ptr_nonnull(tick);
	ck_assert_ptr_nonnull(sum);
	const char *pt = strstr(tick, ",\"profile\":{\"users_in\":3,"
				"\"users_started\":4,\"push_missed\":1,\"actions\":{\"read\":{\"ok\":2,"
				"\"failed\":0,\"p50_us\":1000,");
	ck_assert_msg(pt != NULL && pt < sum, "%s", json);
	/* p50 is its bucket's upper end (hist.h): 20000 us is in [20000, 20015]. */
	ck_assert_ptr_nonnull(strstr(tick, "\"push\":{\"exists\":{\"count\":2,"
				     "\"p50_us\":20015,"));
	ck_assert_ptr_nonnull(strstr(tick, "\"codes\":{\"250\":4,\"452\":1}"));
	ck_assert_ptr_nonnull(strstr(sum, "\"profile\":{\"users_in\":3,"
				     "\"users_started\":4,\"push_missed\":1,\"push_timeout_s\":30,"
				     "\"push_unseen_end\":3,\"push_settle_s\":5,"
				     "\"deliveries_per_s\":4,"));
	ck_assert_ptr_nonnull(strstr(sum, "\"exists\":{\"count\":2,\"latency_us\":"
				     "{\"mean\":25000,\"p50\":20015,"));
	ck_assert_ptr_nonnull(strstr(sum, "\"no_reply_by_kind\":{\"connect\":0,"));
	ck_assert_ptr_nonnull(strstr(sum, "\"queued_max\":3,"));

	/* CSV: the columns after the stress ones, values under their names. */
	const char *row = strchr(csv, '\n') + 1;
	ck_assert_int_gt(csv_col(csv, "rate_missed"), 0);
	ck_assert_int_eq(csv_col(csv, "users_in"), csv_col(csv, "rate_missed") + 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "users_in")), 3);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "deliveries_ok")), 4);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "deliveries_tempfail")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_missed")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_unseen_end")), 3);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_exists_p50_us")), 20015);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_fetch_max_us")), 25000);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "submissions_ok")), 6);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "submissions_tempfail")), 0);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "submissions_permfail")), 2);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "submissions_no_reply")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "act_read_ok")), 2);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "act_reply_failed")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "act_logoff_p95_us")), 0);
	csv_same_width(csv, row);
	free(text);
	free(json);
	free(csv);
}
END_TEST

/* IDLE and NOTIFY side by side: text, JSON, CSV. */
START_TEST(test_notify_sections)
{
	char *text, *json, *csv;
	run_report_as(true, seed_notify, &text, &json, &csv);

	ck_assert_msg(strstr(text, " push=20.0ms pmiss=1 npush=20.0ms "
			     "npmiss=2\n") != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\n250->N.EXISTS     3   3.00"));
	ck_assert_ptr_nonnull(strstr(text, "\n250->N.FETCH      1   1.00"));
	ck_assert_msg(strstr(text, "\npush by                IDLE     NOTIFY\n"
			     "seen                      2          3\n"
			     "missed                    1          2\n") != NULL,
		      "%s", text);
	/* p99 of 10, 20, 4000 ms is the 4 s one; IDLE's is 30 ms. */
	ck_assert_msg(strstr(text, "\n250->seen p99       30.0 ms     4.00 s\n")
		      != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\n250->FETCH p50      25.0 ms    40.0 ms\n")
		      != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "NOTIFY: 1 sessions could not set it "
				     "up (waited in IDLE, counted as IDLE), 1 "
				     "NOTIFICATIONOVERFLOW\n"));

	const char *tick = strstr(json, "\"type\":\"tick\"");
	const char *sum = strstr(json, "\"type\":\"summary\"");
	ck_assert_ptr_nonnull(strstr(tick, "\"notify_exists\":{\"count\":3,"));
	ck_assert_ptr_nonnull(strstr(tick, "\"notify\":{\"push_missed_notify\":2,"
				     "\"notify_refused\":1,\"notify_overflow\":1}"));
	ck_assert_ptr_nonnull(strstr(sum, "\"notify_fetch\":{\"count\":1,"
				     "\"latency_us\":"));
	ck_assert_ptr_nonnull(strstr(sum, "\"notify\":{\"push_missed_notify\":2,"));

	const char *row = strchr(csv, '\n') + 1;
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_missed_notify")), 2);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "notify_refused")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "notify_overflow")), 1);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_notify_exists_count")), 3);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_notify_fetch_max_us")),
			 40000);
	ck_assert_int_eq(csv_value(row, csv_col(csv, "push_exists_count")), 2);
	csv_same_width(csv, row);
	free(text);
	free(json);
	free(csv);
}
END_TEST

static void
write_file(const char *path, bool profile, const struct stats_snap *s)
{
	struct config cfg;
	char err[256];
	config_defaults(&cfg);
	cfg.result_path = strdup(path);
	cfg.args_key = strdup("clients=2");
	if (profile)
		cfg.profile_path = strdup("/x/mail day.profile");
	cfg.push_timeout_s = 2.5;
	struct derived dv;
	derived_init(&dv, &cfg, false);
	struct result_writer *w = result_writer_new(&cfg, &dv, err,
						    sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct report_run run = { .elapsed_s = 1, .measured_s = 1, .clients = 2,
				  .workers = 1 };
	result_writer_tick(w, &run, s);
	result_writer_final(w, &run, s);
	result_writer_free(w);
	config_free(&cfg);
}

/* write_file, then the first `from` in it replaced by `to`. */
static void
write_edited(const char *path, bool profile, const struct stats_snap *s,
	     const char *from, const char *to)
{
	write_file(path, profile, s);
	char *file = slurp(path);
	char *at = strstr(file, from);
	ck_assert_msg(at != NULL, "%s", from);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(file, 1, (size_t)(at - file), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	ck_assert_int_eq(fclose(f), 0);
	free(file);
}

/* Reads the file's first record into got; 0 or -1 (err). */
static int
read_first(const char *path, struct result_header *h, struct stats_snap *got,
	   char *err, size_t errlen)
{
	enum result_rec kind = RESULT_TICK;
	int64_t sec;
	struct report_run run;
	struct result_reader *r = result_reader_open(path, err, errlen);
	if (r == NULL)
		return -1;
	*h = *result_reader_header(r);
	h->args_key = NULL;
	int rc = result_reader_next(r, &kind, &sec, &run, got, err, errlen);
	/* ... and the rest must parse too. */
	struct stats_snap rest;
	stats_snap_init(&rest);
	while (rc == 0 && kind != RESULT_END)
		rc = result_reader_next(r, &kind, &sec, &run, &rest, err, errlen);
	stats_snap_free(&rest);
	result_reader_free(r);
	return rc;
}

/* POP3's commands in the JSON have the shape of IMAP's and the actions'
 * (json_cmd): a tick's counts and p50/p95/p99/max, the summary's counts,
 * rate (+OK per measured second) and latency set; the sessions that
 * failed by kind. */
START_TEST(test_pop3_json)
{
	char *text, *json, *csv;
	run_report_as(true, seed_pop3, &text, &json, &csv);

	const char *sum = strstr(json, "\"type\":\"summary\"");
	ck_assert_ptr_nonnull(sum);
	const char *t = strstr(json, "\"pop3\":{\"sessions\":7,");
	ck_assert_msg(t != NULL && t < sum, "%s", json);
	ck_assert_msg(strstr(t, "\"retr\":{\"ok\":40,\"err\":0,\"failed\":1,"
			     "\"p50_us\":2500,") != NULL, "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "\"dele\":{\"ok\":0,\"err\":2,"
				     "\"failed\":0,\"p50_us\":0,"));
	ck_assert_ptr_nonnull(strstr(t, "\"failed_sessions\":{\"connect\":0,"
				     "\"timeout\":1,"));
	const char *s = strstr(sum, "\"pop3\":{\"sessions\":7,");
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(strstr(s, "\"retr\":{\"ok\":40,\"err\":0,\"failed\":1,"
			     "\"rate\":40,\"latency_us\":{\"mean\":2500,") !=
		      NULL, "%s", s);
	ck_assert_ptr_nonnull(strstr(s, "\"dele\":{\"ok\":0,\"err\":2,"
				     "\"failed\":0,\"rate\":0,"));
	/* Commands nothing happened to are left out. */
	ck_assert_ptr_null(strstr(s, "\"stls\""));
	free(text);
	free(json);
	free(csv);
}
END_TEST

START_TEST(test_result_roundtrip)
{
	char path[] = "/tmp/rprof-res-XXXXXX", err[512];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct stats_snap s, got;
	struct result_header h;
	stats_snap_init(&s);
	stats_snap_init(&got);
	seed_window(&s, 10, 20, 700);
	seed_profile(&s);
	seed_notify(&s);
	s.act.lmtp.fails[3] = 2;
	s.act.lmtp.rcpt_local = 2;
	s.act.ok[ACT_LOGOFF] = 1;
	hist_record(s.act.lmtp.lat_data, 123456);
	hist_record(s.act.lat[ACT_LOGOFF], HIST_MAX_US);
	/* POP3's block (issue 29): its counters and a command's latency. */
	seed_pop3(&s);
	write_file(path, true, &s);
	char *file = slurp(path);
	ck_assert_ptr_nonnull(strstr(file, "\npop3cmd retr ok=40 err=0 failed=1\n"));
	ck_assert_ptr_nonnull(strstr(file, "imapstress-result 2\n"));
	ck_assert_ptr_nonnull(strstr(file, "\nmode profile\n"));
	ck_assert_ptr_nonnull(strstr(file, "\nprofile push_timeout_s=2.5 "
				     "path=/x/mail%20day.profile\n"));
	ck_assert_ptr_nonnull(strstr(file, "\nlmtpcode 250=4 452=1\n"));

	ck_assert_msg(read_first(path, &h, &got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(h.mode, "profile");
	ck_assert_str_eq(h.profile_path, "/x/mail day.profile");
	ck_assert(h.push_timeout_s == 2.5);
	ck_assert_uint_eq(got.ok[OP_APPEND], 20);
	ck_assert_uint_eq(got.act.profile, 1);
	ck_assert_uint_eq(got.act.users_in, 3);
	ck_assert_uint_eq(got.act.users_started, 4);
	ck_assert_uint_eq(got.act.push_missed, 1);
	ck_assert_uint_eq(got.act.push_missed_notify, 2);
	ck_assert_uint_eq(got.act.push_unseen_end, 3);
	ck_assert_uint_eq(got.act.notify_refused, 1);
	ck_assert_uint_eq(got.act.notify_overflow, 1);
	for (int i = 0; i < ACT_COUNT; i++) {
		ck_assert_uint_eq(got.act.ok[i], s.act.ok[i]);
		ck_assert_uint_eq(got.act.failed[i], s.act.failed[i]);
	}
	ck_assert_uint_eq(got.act.lmtp.deliveries, 5);
	ck_assert_uint_eq(got.act.lmtp.rcpt_tempfail, 1);
	ck_assert_uint_eq(got.act.lmtp.rcpt_local, 2);
	ck_assert_uint_eq(got.act.lmtp.fails[3], 2);
	ck_assert_uint_eq(got.act.lmtp.sessions_open, 2);
	ck_assert_uint_eq(got.act.lmtp.queued_max, 3);
	ck_assert(memcmp(got.act.lmtp.codes, s.act.lmtp.codes,
			 sizeof(s.act.lmtp.codes)) == 0);
	ck_assert_uint_eq(got.act.pop3.sessions, 7);
	ck_assert_uint_eq(got.act.pop3.retrieved, 40);
	ck_assert_uint_eq(got.act.pop3.deleted, 38);
	ck_assert_uint_eq(got.act.pop3.fails[P3F_TIMEOUT], 1);
	ck_assert_uint_eq(got.act.pop3.ok[P3_RETR], 40);
	ck_assert_uint_eq(got.act.pop3.err[P3_DELE], 2);
	ck_assert_uint_eq(got.act.pop3.failed[P3_RETR], 1);
	ck_assert_uint_eq(hist_count(act_snap_hist_named(&got.act, "pop3.retr")), 1);
	char name[ACT_HIST_NAME_MAX];
	struct hist *hw;
	unsigned n = 0;
	for (unsigned i = 0; (hw = act_snap_hist(&s.act, i, name)) != NULL; i++) {
		ck_assert_msg(same_hist(act_snap_hist_named(&got.act, name), hw),
			      "%s", name);
		n++;
	}
	ck_assert_uint_eq(n, ACT_N_HISTS);
	ck_assert_ptr_null(act_snap_hist_named(&got.act, "act.nope"));

	/* The same lines in a stress file are refused. */
	write_file(path, false, &s);
	free(file);
	file = slurp(path);
	ck_assert_ptr_nonnull(strstr(file, "\nmode stress\n"));
	ck_assert_ptr_null(strstr(file, "\nact "));
	ck_assert_int_eq(read_first(path, &h, &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.act.profile, 0);
	write_edited(path, false, &s, "\nctr ",
		     "\nact profile=1 push_missed=0 users_in=0\nctr ");
	ck_assert_int_eq(read_first(path, &h, &got, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown line"));

	/* A version 1 file (stress, as earlier versions wrote it) reads. */
	write_edited(path, false, &s, "imapstress-result 2\n",
		     "imapstress-result 1\n");
	ck_assert_msg(read_first(path, &h, &got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(h.version, 1);
	ck_assert_uint_eq(got.ok[OP_APPEND], 20);
	/* ... but not as a profile file: that needs version 2. */
	write_edited(path, true, &s, "imapstress-result 2\n",
		     "imapstress-result 1\n");
	ck_assert_int_eq(read_first(path, &h, &got, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "mode"));
	/* Bad profile values are refused with the line. */
	static const char *const bad[][2] = {
		{ "push_timeout_s=2.5", "push_timeout_s=0" },
		{ "action read ok=2", "action reed ok=2" },
		{ "lmtpcode 250=4", "lmtpcode 600=4" },
		{ "lmtpfail none=0", "lmtpfail nothing=0" },
		{ " queued_max=3", " queued_max=x" },
		{ "hist act.read ", "hist act.reed " },
	};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		write_edited(path, true, &s, bad[b][0], bad[b][1]);
		ck_assert_msg(read_first(path, &h, &got, err, sizeof(err)) == -1,
			      "edit %zu accepted", b);
		ck_assert_ptr_nonnull(strstr(err, path));
	}
	free(file);
	unlink(path);
	stats_snap_free(&s);
	stats_snap_free(&got);
}
END_TEST

static Suite *
report_profile_suite(void)
{
	Suite *s = suite_create("report_profile");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_stress_unchanged);
	tcase_add_test(tc, test_profile_sections);
	tcase_add_test(tc, test_notify_sections);
	tcase_add_test(tc, test_pop3_json);
	tcase_add_test(tc, test_result_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(report_profile_suite)
