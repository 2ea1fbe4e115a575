/* Report: imaptest's terminal layout (header rows, tick line, the 10-tick
 * ms/cmd line, Totals), the extended summary, and the machine formats
 * (JSON Lines well-formed with the schema keys, CSV with as many columns
 * in every row as in its header, output= TSV lined up). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config.h"
#include "report.h"
#include "stats.h"

/* Timo's 2007 run: `./imaptest - append=100 ... logout=0 select=0`. */
static void
seed_config(struct config *cfg)
{
	config_defaults(cfg);
	for (int op = 0; op < OP_COUNT; op++)
		cfg->states[op].prob = 0;
	cfg->states[OP_LOGIN].prob = 100;
	cfg->states[OP_APPEND].prob = 100;
	cfg->clients = 100;
}

#define SEED_HEADER "Logi Appe \n100% 100% \n       5% \n"

struct memout {
	char *buf;
	size_t len;
	FILE *f;
};

static void
memout_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
}

static const char *
memout_text(struct memout *m)
{
	fflush(m->f);
	return m->buf;
}

static void
memout_close(struct memout *m)
{
	fclose(m->f);
	free(m->buf);
}

/* One second of Timo's run: 100 logins, 1642 APPENDs at lat_us each. */
static void
seed_window(struct stats_snap *w, uint64_t logins, uint64_t appends,
	    uint64_t lat_us)
{
	stats_snap_clear(w);
	w->ok[OP_LOGIN] = logins;
	w->ok[OP_APPEND] = appends;
	if (lat_us > 0)
		hist_record_n(w->lat[OP_APPEND], lat_us, appends);
	w->append_msgs = appends;
	w->conns_open = 100;
	w->conns_total = 100;
}

static struct report_run
plain_run(double t)
{
	struct report_run run = {
		.elapsed_s = t, .measured_s = t, .clients = 100, .workers = 1,
		.stop_reason = "duration",
	};
	return run;
}

/* Line number n (0-based) of text, into buf. */
static const char *
line_at(const char *text, int n, char *buf, size_t len)
{
	const char *p = text;
	for (int i = 0; i < n && p != NULL; i++) {
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	if (p == NULL || *p == '\0')
		return NULL;
	size_t l = strcspn(p, "\n");
	if (l >= len)
		l = len - 1;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

START_TEST(test_visible)
{
	struct config cfg;
	seed_config(&cfg);
	ck_assert(report_visible(&cfg, OP_LOGIN));
	ck_assert(report_visible(&cfg, OP_APPEND));
	ck_assert(!report_visible(&cfg, OP_SELECT));
	ck_assert(!report_visible(&cfg, OP_AUTHENTICATE));
	ck_assert(!report_visible(&cfg, -1));
	ck_assert(!report_visible(&cfg, OP_COUNT));
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
	cfg.color = true;
	memout_open(&m);
	stats_snap_init(&win);
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
	cfg.color = false;
	cfg.output_path = strdup(tsv);
	memout_open(&m);
	r = report_new(&cfg, m.f, err, sizeof(err));
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
		"3000 32844   0/  0\n"
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
		"bytes: sent 37500000 (10000.0 Kbps), received 37500 (10.0 "
		"Kbps); per connection: 100.1 Kbps\n"
		"errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0 "
		"tls=0 connect=0 login=0 state=0\n"
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
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
 * counts land under their own names. */
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	/* quiet: a tick prints nothing */
	struct report_run run = plain_run(1);
	report_tick(r, &run, &tot, &tot);
	memout_text(&m);
	ck_assert_uint_eq(m.len, 0);

	for (int k = 0; k < ERR_COUNT; k++)
		tot.errors[k] = (uint64_t)k * 10;
	report_final(r, &run, &tot);
	const char *text = memout_text(&m);
	const char *e = strstr(text, "\nerrors:");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(line_at(e + 1, 0, line, sizeof(line)),
			 "errors: no=0 bad=10 bye=20 disconnect=30 timeout=40 "
			 "protocol=50 tls=60 connect=70 login=80 state=90");
	/* No APPEND, no "messages appended" line; the table has only its
	 * header. */
	ck_assert_ptr_null(strstr(text, "messages appended"));
	ck_assert_ptr_nonnull(strstr(text, " failed\n\nbytes: sent 0 (0.0 Kbps)"));
	ck_assert(strncmp(text, "   0    0 ms/cmd avg\n\nTotals:\n", 30) == 0);

	report_free(r);
	stats_snap_free(&tot);
	memout_close(&m);
	config_free(&cfg);
}
END_TEST

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

START_TEST(test_json_lines)
{
	static const char *const tick_keys[] = {
		"type", "t", "warmup", "conns_open", "conns_total", "stalled",
		"commands", "errors", "bytes", "sent", "received",
		"messages_appended", "cpu_pct", "loop_lag_max_us", "APPEND",
		"ok", "no", "bad", "failed", "p50_us", "p95_us", "p99_us",
		"max_us", "no", "bad", "bye", "disconnect", "timeout",
		"protocol", "tls", "connect", "login", "state", NULL,
	};
	static const char *const sum_keys[] = {
		"type", "duration_s", "measured_from_s", "clients", "workers",
		"commands", "APPEND", "LOGIN", "CHECKPOINT!", "rate",
		"latency_us", "mean", "p50", "p90", "p95", "p99", "p999", "max",
		"errors", "bytes", "imap_sent", "imap_received",
		"messages_appended", "append_bytes", "connects", "logins",
		"unfinished", "cpu", "user_s", "sys_s", "us_per_command",
		"peak_rss_kb", "self_limited", "sla", "expr", "ok",
		"actual_us", "exit_status", "stop_reason", NULL,
	};
	struct config cfg;
	struct memout m;
	struct stats_snap win, tot;
	char err[256], line[4096];
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);

	for (int t = 1; t <= 3; t++) {
		struct report_run run = plain_run(t);
		run.warmup = t == 1;
		run.cpu_pct = t == 2 ? NAN : 12.5;	/* never printed as nan */
		seed_window(&win, 1, 5, 3000);
		win.failed[OP_LOGOUT] = 1;
		win.errors[ERR_DISCONNECT] = 1;
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
		ck_assert_ptr_null(strstr(line, "nan"));
		ck_assert_ptr_null(strstr(line, "inf"));
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

/* --json -: the lines go to stdout, and the text report stays off it. */
START_TEST(test_json_stdout)
{
	struct config cfg;
	struct memout m;
	struct stats_snap win;
	char err[256], line[4096];

	seed_config(&cfg);
	cfg.json_path = strdup("-");
	memout_open(&m);
	stats_snap_init(&win);
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	struct report_run run = plain_run(1);
	seed_window(&win, 1, 1, 100);
	report_tick(r, &run, &win, &win);
	report_final(r, &run, &win);
	report_free(r);
	const char *text = memout_text(&m);
	int n = 0;
	for (; line_at(text, n, line, sizeof(line)) != NULL && *line; n++)
		ck_assert_msg(json_valid(line), "not JSON: %s", line);
	ck_assert_int_eq(n, 2);

	memout_close(&m);
	stats_snap_free(&win);
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
	struct report *r = report_new(&cfg, m.f, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (int t = 1; t <= 4; t++) {
		struct report_run run = plain_run(t);
		seed_window(&win, 1, 1642, 2000);
		win.errors[ERR_TIMEOUT] = (uint64_t)t;
		win.bytes_sent = 777;
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
	ck_assert_int_eq(cols, 5 + 2 * OP_COUNT + 3);
	const char *want = "t,conns_open,conns_total,ok_total,errors_total,"
		"AUTHENTICATE_ok,AUTHENTICATE_p95_us,LOGIN_ok,";
	ck_assert(strncmp(line, want, strlen(want)) == 0);
	const char *tail = ",LMTP_ok,LMTP_p95_us,bytes_sent,bytes_received,"
		"messages_appended";
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
	ck_assert_ptr_null(report_new(&cfg, stdout, err, sizeof(err)));
	ck_assert_str_eq(err, "--json /nonexistent-dir/x.jsonl: cannot "
			 "create: No such file or directory");
	free(cfg.json_path);

	cfg.json_path = strdup("-");
	cfg.output_path = strdup("-");
	ck_assert_ptr_null(report_new(&cfg, stdout, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "only one of them can write to "
				     "stdout"));
	free(cfg.output_path);
	cfg.output_path = strdup("");
	ck_assert_ptr_null(report_new(&cfg, stdout, err, sizeof(err)));
	ck_assert_str_eq(err, "output=: empty file name");
	config_free(&cfg);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_visible);
	tcase_add_test(tc, test_seed_header_and_tick);
	tcase_add_test(tc, test_tick_percentile);
	tcase_add_test(tc, test_latency_line_placement);
	tcase_add_test(tc, test_latency_color_and_output_file);
	tcase_add_test(tc, test_totals_and_summary);
	tcase_add_test(tc, test_sla_from_main);
	tcase_add_test(tc, test_errors_all_kinds);
	tcase_add_test(tc, test_json_checker);
	tcase_add_test(tc, test_json_lines);
	tcase_add_test(tc, test_json_stdout);
	tcase_add_test(tc, test_csv_columns);
	tcase_add_test(tc, test_open_errors);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(report_suite)
