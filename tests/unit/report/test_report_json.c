/* Report, machine formats: JSON Lines well-formed with the schema keys
 * (and the open-loop, TLS and connect figures under theirs), CSV with as
 * many columns in every row as in its header, and the output files'
 * error messages.  The text layout is tested in test_report.c; the
 * fixture helpers both use are in report_fixture.c. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "report/report.h"
#include "report_fixture.h"
#include "stats/stats.h"

/* A small JSON well-formedness checker (RFC 8259 grammar). */
static void
js_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static int js_value(const char **p, int depth);

static int
js_string(const char **p)
{
	if (**p != '"')
		return 0;
	for ((*p)++; **p != '"'; (*p)++) {
		unsigned char c = (unsigned char)**p;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		(*p)++;
		if (**p == 'u') {
			for (int i = 0; i < 4; i++) {
				(*p)++;
				if (strchr("0123456789abcdefABCDEF", **p) == NULL ||
				    **p == '\0')
					return 0;
			}
		} else if (**p == '\0' || strchr("\"\\/bfnrt", **p) == NULL) {
			return 0;
		}
	}
	(*p)++;
	return 1;
}

static int
js_digits(const char **p)
{
	const char *s = *p;
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > s;
}

static int
js_number(const char **p)
{
	if (**p == '-')
		(*p)++;
	if (**p == '0')
		(*p)++;
	else if (!js_digits(p))
		return 0;
	if (**p == '.') {
		(*p)++;
		if (!js_digits(p))
			return 0;
	}
	if (**p == 'e' || **p == 'E') {
		(*p)++;
		if (**p == '+' || **p == '-')
			(*p)++;
		if (!js_digits(p))
			return 0;
	}
	return 1;
}

static int
js_word(const char **p, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(*p, w, n) != 0)
		return 0;
	*p += n;
	return 1;
}

static int
js_members(const char **p, int depth, char close, int object)
{
	(*p)++;
	js_ws(p);
	if (**p == close) {
		(*p)++;
		return 1;
	}
	for (;;) {
		js_ws(p);
		if (object) {
			if (!js_string(p))
				return 0;
			js_ws(p);
			if (**p != ':')
				return 0;
			(*p)++;
		}
		if (!js_value(p, depth + 1))
			return 0;
		if (**p == close) {
			(*p)++;
			return 1;
		}
		if (**p != ',')
			return 0;
		(*p)++;
	}
}

static int
js_value(const char **p, int depth)
{
	int ok;
	if (depth > 32)
		return 0;
	js_ws(p);
	switch (**p) {
	case '{': ok = js_members(p, depth, '}', 1); break;
	case '[': ok = js_members(p, depth, ']', 0); break;
	case '"': ok = js_string(p); break;
	case 't': ok = js_word(p, "true"); break;
	case 'f': ok = js_word(p, "false"); break;
	case 'n': ok = js_word(p, "null"); break;
	default: ok = js_number(p); break;
	}
	js_ws(p);
	return ok;
}

static int
json_valid(const char *s)
{
	return js_value(&s, 0) && *s == '\0';
}

START_TEST(test_json_checker)
{
	/* The checker itself must reject what a JSON parser rejects. */
	ck_assert(json_valid("{\"a\":[1,-2.5e3,true,null,\"x\\u00e9\"]}"));
	ck_assert(!json_valid("{\"a\":nan}"));
	ck_assert(!json_valid("{\"a\":1,}"));
	ck_assert(!json_valid("{\"a\":01}"));
	ck_assert(!json_valid("{\"a\":\"\x01\"}"));
	ck_assert(!json_valid("{\"a\":1"));
	ck_assert(!json_valid("{\"a\":1}{"));
}
END_TEST

static void
assert_keys(const char *line, const char *const *keys)
{
	for (; *keys != NULL; keys++) {
		char k[64];
		snprintf(k, sizeof(k), "\"%s\":", *keys);
		ck_assert_msg(strstr(line, k) != NULL, "key %s missing in %s",
			      *keys, line);
	}
}

/* w as a word of its own (a printf of NaN or infinity: ":nan", ":-inf"),
 * not inside a key such as "state_unannounced". */
static bool
bare_word(const char *line, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = strstr(line, w); p != NULL; p = strstr(p + 1, w)) {
		bool before = p > line && (isalnum((unsigned char)p[-1]) ||
					   p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return true;
	}
	return false;
}

START_TEST(test_json_lines)
{
	static const char *const tick_keys[] = {
		"type", "t", "warmup", "conns_open", "conns_total", "stalled",
		"commands", "errors", "bytes", "sent", "received",
		"imap_sent", "imap_received", "messages_appended",
		"rate_missed", "cpu_pct", "loop_lag_max_us", "APPEND",
		"ok", "no", "bad", "failed", "p50_us", "p95_us", "p99_us",
		"max_us", "no", "bad", "bye", "disconnect", "timeout",
		"protocol", "tls", "connect", "login", "state", "state_kinds",
		"syntax", "seq-too-high", "static-changed", "keyword", "recent",
		"unannounced-after-status", NULL,
	};
	static const char *const sum_keys[] = {
		"type", "duration_s", "measured_from_s", "clients", "workers",
		"commands", "APPEND", "LOGIN", "CHECKPOINT!", "rate",
		"latency_us", "mean", "p50", "p90", "p95", "p99", "p999", "max",
		"errors", "state_kinds", "seq-too-high", "static-changed",
		"keyword", "unannounced-after-status", "bytes", "imap_sent",
		"imap_received", "messages_appended", "append_bytes", "connects", "logins",
		"connect_latency_us", "unfinished", "cpu", "user_s", "sys_s", "us_per_command",
		"state_unannounced", "peak_rss_kb", "self_limited", "sla", "expr", "ok",
		"actual_us", "exit_status", "stop_reason", NULL,
	};
	struct config cfg;
	struct memout m;
	struct stats_snap win, tot;
	char err[256], line[16384];
	char dir[] = "/tmp/report-test-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[300];
	snprintf(path, sizeof(path), "%s/run.jsonl", dir);

	seed_config(&cfg);
	cfg.json_path = strdup(path);
	/* Quotes, a backslash, a control character and a byte that is not
	 * UTF-8 must still give valid JSON. */
	cfg.n_slas = 1;
	cfg.slas[0] = (struct sla){ .op = OP_APPEND, .percentile = 99,
				    .max_us = 10, .text = "A\"B\\C\x01\xff.p99" };
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);

	for (int t = 1; t <= 3; t++) {
		struct report_run run = plain_run(t);
		run.warmup = t == 1;
		run.cpu_pct = t == 2 ? NAN : 12.5;	/* never printed as nan */
		seed_window(&win, 1, 5, 3000);
		win.failed[OP_LOGOUT] = 1;
		win.errors[ERR_DISCONNECT] = 1;
		win.errors[ERR_MBOXSTATE] = 2;
		win.state[MBOX_ERR_KEYWORD] = 1;
		win.state[MBOX_ERR_UNANNOUNCED] = 1;
		report_tick(r, &run, &win, &win);
		stats_snap_add(&tot, &win);
	}
	tot.ok[OP_CHECKPOINT] = 1;
	struct report_run run = plain_run(3.5);
	run.measured_s = 0;	/* rate must come out 0, not inf */
	run.stop_reason = "sig\"nal";
	run.exit_status = 1;
	report_final(r, &run, &tot);
	report_free(r);

	char *text = slurp(path);
	int n = 0;
	for (; line_at(text, n, line, sizeof(line)) != NULL && *line; n++) {
		ck_assert_msg(json_valid(line), "invalid JSON: %s", line);
		ck_assert_msg(!bare_word(line, "nan"), "nan: %s", line);
		ck_assert_msg(!bare_word(line, "inf"), "inf: %s", line);
		if (n < 3) {
			ck_assert(strncmp(line, "{\"type\":\"tick\",", 15) == 0);
			assert_keys(line, tick_keys);
			/* only commands with activity */
			ck_assert_ptr_null(strstr(line, "\"SELECT\""));
			ck_assert_ptr_nonnull(strstr(line,
				"\"LOGOUT\":{\"ok\":0,\"no\":0,\"bad\":0,"
				"\"failed\":1,"));
		} else {
			ck_assert(strncmp(line, "{\"type\":\"summary\",", 18) == 0);
			assert_keys(line, sum_keys);
			/* closed loop, no TLS: those objects are absent */
			ck_assert_ptr_null(strstr(line, "\"open_loop\""));
			ck_assert_ptr_null(strstr(line, "\"tls\":{"));
		}
	}
	ck_assert_int_eq(n, 4);
	line_at(text, 0, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "\"t\":1,\"warmup\":true,"));
	ck_assert_ptr_nonnull(strstr(line, "\"APPEND\":{\"ok\":5,\"no\":0,"
		"\"bad\":0,\"failed\":0,\"p50_us\":3000,\"p95_us\":3000,"
		"\"p99_us\":3000,\"max_us\":3000}"));
	ck_assert_ptr_nonnull(strstr(line, "\"cpu_pct\":12.5,"));
	line_at(text, 1, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "\"cpu_pct\":0,"));
	line_at(text, 3, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "\"rate\":0,"));
	ck_assert_ptr_nonnull(strstr(line, "\"disconnect\":3,"));
	/* the state errors by sub-kind, every one, adding up to state */
	ck_assert_ptr_nonnull(strstr(line, "\"state\":6},"));
	ck_assert_ptr_nonnull(strstr(line, "\"state_kinds\":{\"syntax\":0,"
		"\"seq-too-high\":0,\"exists-backwards\":0,\"uid-changed\":0,"
		"\"uid-order\":0,\"uidnext\":0,\"static-changed\":0,"
		"\"keyword\":3,\"modseq\":0,\"uidvalidity\":0,\"own-msg\":0,"
		"\"own-flag\":0,\"expunge\":0,\"recent\":0,\"checkpoint\":0,"
		"\"limit\":0,\"unannounced-after-status\":3}"));
	ck_assert_ptr_nonnull(strstr(line, "\"state_unannounced\":3,"));
	ck_assert_ptr_nonnull(strstr(line,
		"\"expr\":\"A\\\"B\\\\C\\u0001\\ufffd.p99\",\"ok\":false,"
		"\"actual_us\":3000"));
	ck_assert_ptr_nonnull(strstr(line,
		"\"exit_status\":1,\"stop_reason\":\"sig\\\"nal\"}"));
	free(text);

	memout_close(&m);
	stats_snap_free(&win);
	stats_snap_free(&tot);
	unlink(path);
	rmdir(dir);
	config_free(&cfg);
}
END_TEST

static int
count_fields(const char *line)
{
	int n = 1;
	for (; *line != '\0'; line++)
		n += *line == ',';
	return n;
}

/* Field number i (0-based) of a CSV line without quoting. */
static const char *
field_at(const char *line, int i, char *buf, size_t len)
{
	for (; i > 0; i--) {
		line = strchr(line, ',');
		ck_assert_ptr_nonnull(line);
		line++;
	}
	size_t l = strcspn(line, ",");
	ck_assert_uint_lt(l, len);
	memcpy(buf, line, l);
	buf[l] = '\0';
	return buf;
}

START_TEST(test_csv_columns)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, cum;
	char err[256], line[8192], hd[64], v[64];
	char dir[] = "/tmp/report-test-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[300];
	snprintf(path, sizeof(path), "%s/run.csv", dir);

	seed_config(&cfg);
	cfg.csv_path = strdup(path);
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&cum);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (int t = 1; t <= 4; t++) {
		struct report_run run = plain_run(t);
		seed_window(&win, 1, 1642, 2000);
		win.errors[ERR_TIMEOUT] = (uint64_t)t;
		win.bytes_sent = 777;
		win.rate_missed = (uint64_t)t * 2;
		win.state[MBOX_ERR_STATIC_CHANGED] = (uint64_t)t * 3;
		seed_window(&cum, 0, 0, 0);
		cum.conns_open = 99;
		report_tick(r, &run, &win, &cum);
	}
	struct report_run run = plain_run(4);
	report_final(r, &run, &cum);
	report_free(r);

	char *text = slurp(path);
	line_at(text, 0, line, sizeof(line));
	int cols = count_fields(line);
	/* every op, so the column set never depends on the mix */
	ck_assert_int_eq(cols, 5 + 2 * OP_COUNT + 4 + MBOX_ERR_COUNT);
	const char *want = "t,conns_open,conns_total,ok_total,errors_total,"
		"state_syntax,state_seq_too_high,state_exists_backwards,"
		"state_uid_changed,state_uid_order,state_uidnext,"
		"state_static_changed,state_keyword,state_modseq,"
		"state_uidvalidity,state_own_msg,state_own_flag,state_expunge,"
		"state_recent,state_checkpoint,state_limit,"
		"state_unannounced_after_status,"
		"AUTHENTICATE_ok,AUTHENTICATE_p95_us,LOGIN_ok,";
	ck_assert(strncmp(line, want, strlen(want)) == 0);
	const char *tail = ",LMTP_ok,LMTP_p95_us,bytes_sent,bytes_received,"
		"messages_appended,rate_missed";
	ck_assert_str_eq(line + strlen(line) - strlen(tail), tail);
	int rows = 0;
	for (int i = 1; line_at(text, i, line, sizeof(line)) != NULL && *line;
	     i++) {
		ck_assert_int_eq(count_fields(line), cols);
		rows++;
	}
	ck_assert_int_eq(rows, 4);

	/* Values sit under their own names. */
	char head[8192];
	line_at(text, 0, head, sizeof(head));
	line_at(text, 3, line, sizeof(line));
	for (int i = 0; i < cols; i++) {
		field_at(head, i, hd, sizeof(hd));
		field_at(line, i, v, sizeof(v));
		if (strcmp(hd, "t") == 0)
			ck_assert_str_eq(v, "3.000");
		else if (strcmp(hd, "conns_open") == 0)
			ck_assert_str_eq(v, "99");
		else if (strcmp(hd, "ok_total") == 0)
			ck_assert_str_eq(v, "1643");
		else if (strcmp(hd, "errors_total") == 0)
			ck_assert_str_eq(v, "3");
		else if (strcmp(hd, "APPEND_ok") == 0)
			ck_assert_str_eq(v, "1642");
		else if (strcmp(hd, "APPEND_p95_us") == 0)
			ck_assert_str_eq(v, "2000");
		else if (strcmp(hd, "LOGIN_ok") == 0)
			ck_assert_str_eq(v, "1");
		else if (strcmp(hd, "bytes_sent") == 0)
			ck_assert_str_eq(v, "777");
		else if (strcmp(hd, "messages_appended") == 0)
			ck_assert_str_eq(v, "1642");
		else if (strcmp(hd, "rate_missed") == 0)
			ck_assert_str_eq(v, "6");
		else if (strcmp(hd, "state_static_changed") == 0)
			ck_assert_str_eq(v, "9");
		else if (strcmp(hd, "conns_total") != 0 &&
			 strcmp(hd, "bytes_received") != 0)
			ck_assert_msg(strcmp(v, "0") == 0, "%s = %s", hd, v);
	}
	free(text);

	memout_close(&m);
	stats_snap_free(&win);
	stats_snap_free(&cum);
	unlink(path);
	rmdir(dir);
	config_free(&cfg);
}
END_TEST

START_TEST(test_open_errors)
{
	struct config cfg;
	char err[256] = "";

	seed_config(&cfg);
	cfg.json_path = strdup("/nonexistent-dir/x.jsonl");
	ck_assert_ptr_null(report_new(&cfg, NULL, stdout, err, sizeof(err)));
	ck_assert_str_eq(err, "--json /nonexistent-dir/x.jsonl: cannot "
			 "create: No such file or directory");
	free(cfg.json_path);

	cfg.json_path = strdup("-");
	cfg.output_path = strdup("-");
	ck_assert_ptr_null(report_new(&cfg, NULL, stdout, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "only one of them can write to "
				     "stdout"));
	free(cfg.output_path);
	cfg.output_path = strdup("");
	ck_assert_ptr_null(report_new(&cfg, NULL, stdout, err, sizeof(err)));
	ck_assert_str_eq(err, "output=: empty file name");
	config_free(&cfg);
}
END_TEST

/* --json -: the lines go to stdout, and the text report stays off it
 * (every line parses).  An open-loop run over TLS: the tick counts late
 * sends; the summary has the connect histogram, then "tls" and
 * "open_loop" objects. */
START_TEST(test_json_stdout_open_loop_tls)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win, tot;
	char err[256], line[4096];

	seed_config(&cfg);
	cfg.rate = 500;
	cfg.json_path = strdup("-");
	memout_open(&m);
	stats_snap_init(&win);
	stats_snap_init(&tot);
	struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);

	struct report_run run = plain_run(1);
	seed_window(&win, 1, 10, 2000);
	win.rate_missed = 3;
	win.bytes_sent = 150;
	win.imap_sent = 100;
	report_tick(r, &run, &win, &win);

	/* 14915 scheduled commands in 30 s (LOGINs are not scheduled) */
	seed_window(&tot, 100, 14900, 2000);
	tot.no[OP_APPEND] = 15;
	tot.rate_missed = 37;
	tot.tls_handshakes = 100;
	hist_record_n(tot.tls_lat, 2000, 50);
	hist_record_n(tot.tls_lat, 4000, 50);
	tot.connects = 102;
	tot.logins = 100;
	tot.clients_in = 90;	/* slots in at least once: fewer than logins */
	hist_record_n(tot.connect_lat, 800, 98);
	hist_record_n(tot.connect_lat, 20000, 2);
	run = plain_run(30);
	report_final(r, &run, &tot);
	report_free(r);

	const char *text = memout_text(&m);
	int n = 0;
	for (; line_at(text, n, line, sizeof(line)) != NULL && *line; n++)
		ck_assert_msg(json_valid(line), "invalid JSON: %s", line);
	ck_assert_int_eq(n, 2);
	line_at(text, 0, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "\"bytes\":{\"sent\":150,"
		"\"received\":0,\"imap_sent\":100,\"imap_received\":0},"
		"\"messages_appended\":10,\"rate_missed\":3,"));
	line_at(text, 1, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "\"connects\":102,\"logins\":100,\"clients_in\":90,"
		"\"connect_latency_us\":{\"mean\":1184,\"p50\":800,"
		"\"p90\":800,\"p95\":800,\"p99\":20000,\"p999\":20000,"
		"\"max\":20000},"
		"\"tls\":{\"handshakes\":100,\"resumed\":0,\"latency_us\":{\"mean\":3000,"
		"\"p50\":2000,\"p90\":4000,\"p95\":4000,\"p99\":4000,"
		"\"p999\":4000,\"max\":4000}},"
		"\"open_loop\":{\"target_rate\":500,\"achieved_rate\":497.167,"
		"\"late\":37},\"unfinished\":0,"));

	memout_close(&m);
	stats_snap_free(&win);
	stats_snap_free(&tot);
	config_free(&cfg);
}
END_TEST

static Suite *
report_json_suite(void)
{
	Suite *s = suite_create("report_json");
	TCase *tc = tcase_create("machine");
	tcase_add_test(tc, test_json_checker);
	tcase_add_test(tc, test_json_lines);
	tcase_add_test(tc, test_json_stdout_open_loop_tls);
	tcase_add_test(tc, test_csv_columns);
	tcase_add_test(tc, test_open_errors);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(report_json_suite)
