/* Report, text: imaptest's terminal layout (header rows, tick line, the
 * 10-tick ms/cmd line, Totals), output= TSV lined up, and the extended
 * summary with the open-loop, TLS, connect and IMAP-octet lines.  The
 * machine formats are tested in test_report_json.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "report/report.h"
#include "report_fixture.h"
#include "stats/stats.h"

/* The three header rows imaptest prints for seed_config's mix. */
#define SEED_HEADER "Logi Appe \n100% 100% \n       5% \n"

START_TEST(test_visible)
{
	struct config cfg;
	struct derived dv;
	seed_config(&cfg);
	derived_init(&dv, &cfg, false);
	ck_assert(report_visible(&dv, OP_LOGIN));
	ck_assert(report_visible(&dv, OP_APPEND));
	ck_assert(!report_visible(&dv, OP_SELECT));
	ck_assert(!report_visible(&dv, OP_AUTHENTICATE));
	ck_assert(!report_visible(&dv, -1));
	ck_assert(!report_visible(&dv, OP_COUNT));
	report_free(NULL);
	config_free(&cfg);
}
END_TEST

START_TEST(test_seed_header_and_tick)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, cum;
	char err[256] = "";

	seed_config(&cfg);
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&cum);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);

	struct report_run run = plain_run(1);
	seed_window(&win, 100, 1642, 0);
	seed_window(&cum, 100, 1642, 0);
	report_tick(r, &run, &win, &cum);
	ck_assert_str_eq(memout_text(&m), SEED_HEADER " 100 1642 100/100\n");

	/* Ramp-up, stalls, errors and warm-up, in imaptest's order and then
	 * ours. */
	seed_window(&win, 3, 20, 0);
	win.errors[ERR_TIMEOUT] = 2;
	win.errors[ERR_NO] = 1;
	cum.conns_open = 7;
	cum.conns_total = 40;
	cum.stalled3 = 4;
	run = plain_run(2);
	run.ramping = true;
	run.ramp_pct = 40;
	run.warmup = true;
	report_tick(r, &run, &win, &cum);
	const char *want = SEED_HEADER " 100 1642 100/100\n"
		"   3   20   7/ 40 (4 stalled >3s) [40%] err=3 (warmup)\n";
	ck_assert_str_eq(memout_text(&m), want);

	report_free(r);
	stats_snap_free(&win);
	stats_snap_free(&cum);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

START_TEST(test_tick_percentile)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, cum;
	char err[256];

	seed_config(&cfg);
	cfg.tick_percentile = 99;
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&cum);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	struct report_run run = plain_run(1);

	/* 99 fast APPENDs and one slow LOGIN: p99 over all commands of the
	 * second is the 99th of 100, a fast one; the max is the LOGIN. */
	seed_window(&win, 1, 99, 1000);
	hist_record(win.lat[OP_LOGIN], 50000);
	report_tick(r, &run, &win, &win);
	cfg.tick_percentile = 100;
	report_tick(r, &run, &win, &win);
	/* A second without replies has no percentile to show. */
	seed_window(&win, 0, 0, 0);
	report_tick(r, &run, &win, &win);

	char line[256];
	const char *text = memout_text(&m);
	ck_assert_str_eq(line_at(text, 3, line, sizeof(line)),
			 "   1   99 100/100 {p99=1.00ms}");
	ck_assert_str_eq(line_at(text, 4, line, sizeof(line)),
			 "   1   99 100/100 {p100=50.0ms}");
	ck_assert_str_eq(line_at(text, 5, line, sizeof(line)),
			 "   0    0 100/100");

	report_free(r);
	stats_snap_free(&win);
	stats_snap_free(&cum);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

/* imaptest prints the ms/cmd line of ticks 1-10 just before the header at
 * tick 11, and then the final line covers what is left. */
START_TEST(test_latency_line_placement)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, cum, tot;
	char err[256], line[256];

	seed_config(&cfg);
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&cum);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);

	for (int t = 1; t <= 22; t++) {
		struct report_run run = plain_run(t);
		/* 2 ms in the first ten seconds, 2.5 ms (rounds up) in the
		 * next ten, then 7 ms. */
		seed_window(&win, 1, 10, t <= 10 ? 2000 : t <= 20 ? 2500 : 7000);
		seed_window(&cum, 1, 10, 0);
		report_tick(r, &run, &win, &cum);
	}
	const char *text = memout_text(&m);
	/* 3 header rows, 10 ticks, latency, 3 header rows, 10 ticks,
	 * latency, 3 header rows, 2 ticks. */
	ck_assert_str_eq(line_at(text, 0, line, sizeof(line)), "Logi Appe ");
	ck_assert_str_eq(line_at(text, 12, line, sizeof(line)),
			 "   1   10 100/100");
	ck_assert_str_eq(line_at(text, 13, line, sizeof(line)),
			 "   0    2 ms/cmd avg");
	ck_assert_str_eq(line_at(text, 14, line, sizeof(line)), "Logi Appe ");
	ck_assert_str_eq(line_at(text, 27, line, sizeof(line)),
			 "   0    3 ms/cmd avg");
	ck_assert_str_eq(line_at(text, 28, line, sizeof(line)), "Logi Appe ");
	ck_assert_str_eq(line_at(text, 31, line, sizeof(line)),
			 "   1   10 100/100");
	ck_assert_str_eq(line_at(text, 32, line, sizeof(line)),
			 "   1   10 100/100");
	ck_assert_ptr_null(line_at(text, 33, line, sizeof(line)));

	struct report_run run = plain_run(22);
	report_final(r, &run, &tot);
	text = memout_text(&m);
	ck_assert_str_eq(line_at(text, 33, line, sizeof(line)),
			 "   0    7 ms/cmd avg");
	ck_assert_str_eq(line_at(text, 34, line, sizeof(line)), "");
	ck_assert_str_eq(line_at(text, 35, line, sizeof(line)), "Totals:");

	report_free(r);
	stats_snap_free(&win);
	stats_snap_free(&cum);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

START_TEST(test_latency_color_and_output_file)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win;
	char err[256], line[256];
	char dir[] = "/tmp/report-test-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char tsv[300];
	snprintf(tsv, sizeof(tsv), "%s/out.tsv", dir);

	/* Bold when asked. */
	seed_config(&cfg);
	struct derived dv;
	derived_init(&dv, &cfg, true);
	memout_open(&m);
	stats_snap_init(&win);
	struct report *r = report_new(&cfg, &dv, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	struct report_run run = plain_run(1);
	seed_window(&win, 1, 1, 4000);
	for (int t = 0; t < 11; t++)
		report_tick(r, &run, &win, &win);
	ck_assert_str_eq(line_at(memout_text(&m), 13, line, sizeof(line)),
			 "\x1b[1m   0    4 ms/cmd avg\x1b[0m");
	report_free(r);
	memout_close(&m);

	/* output= drops the 10-tick line, as imaptest does, and writes a
	 * TSV whose rows have as many fields as its header. */
	cfg.output_path = strdup(tsv);
	memout_open(&m);
	r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (int t = 0; t < 11; t++)
		report_tick(r, &run, &win, &win);
	const char *text = memout_text(&m);
	ck_assert_ptr_null(strstr(text, "ms/cmd"));
	ck_assert_str_eq(line_at(text, 13, line, sizeof(line)), "Logi Appe ");
	report_free(r);

	char *t = slurp(tsv);
	ck_assert_str_eq(line_at(t, 0, line, sizeof(line)),
			 "LOGIN count\tLOGIN msecs\tAPPEND count\tAPPEND msecs");
	ck_assert_str_eq(line_at(t, 1, line, sizeof(line)), "1\t0\t1\t4");
	ck_assert_str_eq(line_at(t, 11, line, sizeof(line)), "1\t0\t1\t4");
	ck_assert_ptr_null(line_at(t, 12, line, sizeof(line)));
	free(t);

	memout_close(&m);
	stats_snap_free(&win);
	unlink(tsv);
	rmdir(dir);
	config_free(&cfg);
}
END_TEST

START_TEST(test_totals_and_summary)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, tot;
	char err[256];

	seed_config(&cfg);
	cfg.n_slas = 3;
	cfg.slas[0] = (struct sla){ .op = OP_APPEND, .percentile = 95,
				    .max_us = 500000, .text = "APPEND.p95<500ms" };
	cfg.slas[1] = (struct sla){ .op = -1, .percentile = 100,
				    .max_us = 1000, .text = "ALL.max<1ms" };
	cfg.slas[2] = (struct sla){ .op = OP_FETCH, .percentile = 0,
				    .max_us = 1000, .text = "FETCH.mean<1ms" };
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);

	seed_window(&tot, 3000, 32844, 0);
	for (int i = 0; i < 32844; i++)
		hist_record(tot.lat[OP_APPEND], i % 2 ? 2000 : 4000);
	hist_record_n(tot.lat[OP_LOGIN], 1000, 3000);
	tot.no[OP_APPEND] = 5;
	tot.failed[OP_APPEND] = 2;
	tot.append_msgs = 34000;
	tot.append_bytes = 34000ULL * 4096;
	tot.bytes_sent = 30 * 1000 * 1000 / 8 * 10;	/* 10000 Kbps over 30 s */
	tot.bytes_received = 30 * 1000 / 8 * 10;	/* 10 Kbps */
	/* plain IMAP: the wire carries exactly the IMAP octets */
	tot.imap_sent = tot.bytes_sent;
	tot.imap_received = tot.bytes_received;
	tot.connects = tot.logins = 3000;
	hist_record_n(tot.connect_lat, 500, 3000);
	tot.conns_open = tot.conns_total = 0;
	struct report_run run = plain_run(35);
	run.measured_s = 30;
	run.measured_from_s = 5;
	run.workers = 4;
	run.cpu_user_us = 1500000;
	run.cpu_sys_us = 500000;
	run.peak_rss_kb = 2048;
	run.self_limited = true;
	run.cpu_pct = 93.4;
	run.loop_lag_max_us = 25000;
	report_final(r, &run, &tot);

	const char *text = memout_text(&m);
	const char *want_totals =
		"   0    0 ms/cmd avg\n"
		"\nTotals:\n" SEED_HEADER
		"3000 32844 \n"
		"\n"
		"command       count   ok/s     mean      p50      p90      p95"
		"      p99    p99.9      max   no  bad failed\n"
		"LOGIN          3000    100  1.00 ms  1.00 ms  1.00 ms  1.00 ms"
		"  1.00 ms  1.00 ms  1.00 ms    0    0      0\n"
		"APPEND        32851   1095  3.00 ms  2.00 ms  4.00 ms  4.00 ms"
		"  4.00 ms  4.00 ms  4.00 ms    5    0      2\n"
		"\n"
		"messages appended: 34000 (132.8 MiB in APPEND bodies, 1.04 per "
		"APPEND command)\n"
		"unanswered: 2 APPEND commands got no reply before their "
		"connection closed: the server may hold them (not in messages "
		"appended)\n"
		"bytes: sent 37500000 (10000.0 Kbps), received 37500 (10.0 "
		"Kbps); per connection: 100.1 Kbps\n"
		"connections: 3000 connects, 3000 logins; connect->greeting "
		"p50 500 us p99 500 us\n"
		"errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0 "
		"tls=0 connect=0 login=0 state=0\n"
		"benign NO codes (not errors): TRYCREATE=0 EXPUNGEISSUED=0 "
		"ALREADYEXISTS=0 NONEXISTENT=0\n"
		"measured: 30.0 s (from t=5.0 s to t=35.0 s), clients=100, "
		"workers=4\n"
		"client cpu: user 1.50 s, sys 0.50 s, 55.8 us per command; "
		"peak RSS 2.0 MiB\n"
		"Warning: imapstress itself was saturated (cpu 93%, loop lag "
		"25 ms): numbers describe the tester, not the server\n"
		"SLA APPEND.p95<500ms: ok (actual 4.00 ms)\n"
		"SLA ALL.max<1ms: FAILED (actual 4.00 ms)\n"
		"SLA FETCH.mean<1ms: FAILED (no samples)\n";
	ck_assert_str_eq(text, want_totals);

	report_free(r);
	stats_snap_free(&win);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

/* main's verdict and figure win over the report's own (one rule, one
 * place: the exit status and the printed line can never disagree). */
START_TEST(test_sla_from_main)
{
	struct config cfg;
	struct memout m;
	struct stats_snap tot;
	char err[256];
	static const bool ok[2] = { true, false };
	static const uint64_t actual[2] = { 123456, 7 };

	seed_config(&cfg);
	cfg.format = OUT_QUIET;
	cfg.n_slas = 2;
	cfg.slas[0] = (struct sla){ .op = OP_APPEND, .percentile = 95,
				    .max_us = 1, .text = "APPEND.p95<1us" };
	cfg.slas[1] = (struct sla){ .op = OP_APPEND, .percentile = 100,
				    .max_us = 1000000, .text = "APPEND.max<1s" };
	memout_open(&m);
	stats_snap_init(&tot);
	seed_window(&tot, 1, 10, 2000);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	struct report_run run = plain_run(10);
	run.sla_ok = ok;
	run.sla_actual_us = actual;
	report_final(r, &run, &tot);
	ck_assert_ptr_nonnull(strstr(memout_text(&m),
		"\nSLA APPEND.p95<1us: ok (actual 123 ms)\n"
		"SLA APPEND.max<1s: FAILED (actual 7 us)\n"));

	report_free(r);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

/* Every error kind is named in the totals even when all are zero, and
 * counts land under their own names.  Closed loop, plain IMAP, no TLS,
 * saturated in one second only: none of the conditional lines appear. */
START_TEST(test_errors_all_kinds)
{
	struct config cfg;
	struct memout m;
	struct stats_snap tot;
	char err[256], line[256];

	seed_config(&cfg);
	cfg.format = OUT_QUIET;
	memout_open(&m);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	/* quiet: a tick prints nothing */
	struct report_run run = plain_run(1);
	report_tick(r, &run, &tot, &tot);
	memout_text(&m);
	ck_assert_uint_eq(m.len, 0);

	for (int k = 0; k < ERR_COUNT; k++)
		tot.errors[k] = (uint64_t)k * 10;
	tot.state[MBOX_ERR_SEQ_TOO_HIGH] = 60;	/* the 90 state errors */
	tot.state[MBOX_ERR_STATIC_CHANGED] = 18;
	tot.state[MBOX_ERR_KEYWORD] = 12;
	tot.rate_missed = 5;	/* never counted closed-loop; still not shown */
	run.cpu_pct = 99;	/* the worst second, but run.c found it */
	run.loop_lag_max_us = 50000;	/* not sustained: no self_limited */
	report_final(r, &run, &tot);
	const char *text = memout_text(&m);
	const char *e = strstr(text, "\nerrors:");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(line_at(e + 1, 0, line, sizeof(line)),
			 "errors: no=0 bad=10 bye=20 disconnect=30 timeout=40 "
			 "protocol=50 tls=60 connect=70 login=80 state=90");
	/* the state errors by sub-kind, those that happened */
	ck_assert_str_eq(line_at(e + 1, 1, line, sizeof(line)),
			 "state errors by kind: seq-too-high=60 "
			 "static-changed=18 keyword=12");
	/* No APPEND, no "messages appended" line; the table has only its
	 * header. */
	ck_assert_ptr_null(strstr(text, "messages appended"));
	ck_assert_ptr_nonnull(strstr(text, " failed\n\nbytes: sent 0 (0.0 Kbps)"));
	/* No greeting ever came: counts, but no latency to show. */
	ck_assert_ptr_nonnull(strstr(text, "\nconnections: 0 connects, "
				     "0 logins\nerrors:"));
	ck_assert(strncmp(text, "   0    0 ms/cmd avg\n\nTotals:\n", 30) == 0);
	ck_assert_ptr_null(strstr(text, "TLS handshake"));
	ck_assert_ptr_null(strstr(text, "IMAP octets"));
	ck_assert_ptr_null(strstr(text, "open loop"));
	ck_assert_ptr_null(strstr(text, "Warning"));

	report_free(r);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

/* An open-loop run over implicit TLS with COMPRESS.  A tick shows its
 * late sends (only when there were some); in the summary the TLS row
 * closes the command table in its columns, the wire and IMAP octets
 * differ, and the connect and open-loop lines follow the bytes. */
START_TEST(test_summary_open_loop_tls)
{
	struct config cfg;
	struct memout m;
	struct stats_snap tot;
	char err[256], line[256];

	seed_config(&cfg);
	cfg.rate = 500;
	memout_open(&m);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	struct report_run run = plain_run(1);
	seed_window(&tot, 1, 10, 0);
	tot.errors[ERR_TIMEOUT] = 2;
	tot.rate_missed = 3;
	run.warmup = true;
	report_tick(r, &run, &tot, &tot);
	tot.rate_missed = 0;
	report_tick(r, &run, &tot, &tot);
	ck_assert_str_eq(line_at(memout_text(&m), 3, line, sizeof(line)),
			 "   1   10 100/100 err=2 late=3 (warmup)");
	ck_assert_str_eq(line_at(memout_text(&m), 4, line, sizeof(line)),
			 "   1   10 100/100 err=2 (warmup)");

	/* 14910 scheduled commands in 30 s: 497/s; the 100 LOGINs are
	 * not on the schedule and do not count. */
	seed_window(&tot, 100, 14900, 2000);
	hist_record_n(tot.lat[OP_LOGIN], 1000, 100);
	tot.no[OP_APPEND] = 10;
	tot.rate_missed = 37;
	tot.tls_handshakes = 100;
	hist_record_n(tot.tls_lat, 3000, 50);
	hist_record_n(tot.tls_lat, 5000, 50);
	tot.connects = 102;
	tot.logins = 100;
	hist_record_n(tot.connect_lat, 800, 98);
	hist_record_n(tot.connect_lat, 20000, 2);
	tot.bytes_sent = 1200000;
	tot.bytes_received = 6000000;
	tot.imap_sent = 1000000;
	tot.imap_received = 9000000;
	run = plain_run(30);
	report_final(r, &run, &tot);

	const char *text = memout_text(&m);
	const char *want =
		"command       count   ok/s     mean      p50      p90      p95"
		"      p99    p99.9      max   no  bad failed\n"
		"LOGIN           100   3.33  1.00 ms  1.00 ms  1.00 ms  1.00 ms"
		"  1.00 ms  1.00 ms  1.00 ms    0    0      0\n"
		"APPEND        14910    497  2.00 ms  2.00 ms  2.00 ms  2.00 ms"
		"  2.00 ms  2.00 ms  2.00 ms   10    0      0\n"
		"TLS handshake   100   3.33  4.00 ms  3.00 ms  5.00 ms  5.00 ms"
		"  5.00 ms  5.00 ms  5.00 ms\n"
		"\n"
		"messages appended: 14900 (0 B in APPEND bodies, 1.00 per "
		"APPEND command)\n"
		"bytes: sent 1200000 (320.0 Kbps), received 6000000 (1600.0 "
		"Kbps); per connection: 19.2 Kbps; IMAP octets sent 1000000, "
		"received 9000000 (wire/IMAP ratio 0.72)\n"
		"connections: 102 connects, 100 logins; connect->greeting p50 "
		"800 us p99 20.0 ms\n"
		"open loop: target 500 cmd/s, achieved 497 cmd/s, 37 sent late "
		"(>1 ms after due)\n"
		"errors:";
	const char *table = strstr(text, "command ");
	ck_assert_ptr_nonnull(table);
	ck_assert_msg(strncmp(table, want, strlen(want)) == 0, "got:\n%s",
		      table);

	report_free(r);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("text");
	tcase_add_test(tc, test_visible);
	tcase_add_test(tc, test_seed_header_and_tick);
	tcase_add_test(tc, test_tick_percentile);
	tcase_add_test(tc, test_latency_line_placement);
	tcase_add_test(tc, test_latency_color_and_output_file);
	tcase_add_test(tc, test_totals_and_summary);
	tcase_add_test(tc, test_sla_from_main);
	tcase_add_test(tc, test_errors_all_kinds);
	tcase_add_test(tc, test_summary_open_loop_tls);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(report_suite)
