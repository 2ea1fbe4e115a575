/* report_profile.c: profile mode's sections of the report, in text, JSON
 * and CSV: per action counts and latency, push latency (LMTP 250 to the
 * EXISTS seen in IDLE, and to the FETCH of the mail), push missed, users
 * logged in, deliveries per second and LMTP replies by code.
 *
 * The writers of report_text.c, report_json.c and report_csv.c call in
 * here only when report_profile_on() says the run was in profile mode,
 * so a stress run's output is what it was, byte for byte.  Gauges (users
 * logged in, LMTP sessions open) come from the window, which carries the
 * gauges' values at its end (and their sum over shards in a merge). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report_int.h"
#include "util/units.h"

bool
report_profile_on(const struct report *r)
{
	return r->cfg->profile_path != NULL;
}

/* Recipients without a 2xx: refused (4xx, 5xx) or never answered. */
static uint64_t
lmtp_not_ok(const struct act_snap *a)
{
	return a->lmtp.rcpt_tempfail + a->lmtp.rcpt_permfail +
	    a->lmtp.rcpt_local;
}

/* ---- text ---- */

/* " push=494ms pmiss=2" (IDLE's; "npush", "npmiss": NOTIFY's), each
 * when there is something to say. */
static void
tick_push(FILE *o, const char *name, const struct hist *h, const char *miss,
	  uint64_t missed)
{
	if (hist_count(h) > 0) {
		char v[32];
		fmt_us_compact(v, sizeof(v), hist_percentile(h, 50));
		fprintf(o, " %s=%s", name, v);
	}
	if (missed > 0)
		fprintf(o, " %s=%" PRIu64, miss, missed);
}

void
report_profile_text_tick(struct report *r, const struct stats_snap *win,
			 const struct stats_snap *cum)
{
	FILE *o = r->out;
	const struct act_snap *a = &win->act;

	fprintf(o, " users=%" PRIu64 " dlv=%" PRIu64, win->act.users_in,
		a->lmtp.rcpt_ok);
	if (lmtp_not_ok(a) > 0)
		fprintf(o, " dlv_err=%" PRIu64, lmtp_not_ok(a));
	tick_push(o, "push", a->push[PUSH_EXISTS], "pmiss", a->push_missed);
	tick_push(o, "npush", a->push[PUSH_NOTIFY_EXISTS], "npmiss",
		  a->push_missed_notify);
	report_pop3_text_tick(r, win);
}

#define ACT_TABLE_HEAD							\
	"action        count   ok/s     mean      p50      p90      p95"	\
	"      p99    p99.9      max failed\n"
#define PUSH_TABLE_HEAD							\
	"latency       count    1/s     mean      p50      p90      p95"	\
	"      p99    p99.9      max\n"

static void
text_actions(const struct report_run *run, const struct act_snap *a, FILE *o)
{
	bool any = false;
	for (int i = 0; i < ACT_COUNT; i++) {
		if (!act_activity(a, i))
			continue;
		if (!any)
			fputs(ACT_TABLE_HEAD, o);
		any = true;
		print_lat_row(o, action_name[i], a->ok[i] + a->failed[i],
			      report_div((double)a->ok[i], run->measured_s),
			      a->lat[i]);
		fprintf(o, " %6" PRIu64 "\n", a->failed[i]);
	}
	if (!any)
		fputs("actions: none\n", o);
}

/* Push latency and the LMTP client's own latency, one table; rows with
 * no samples are shown too, so "no EXISTS seen" is visible as a 0. */
static void
text_latencies(const struct report_run *run, const struct act_snap *a,
	       FILE *o)
{
	static const char *const label[PUSH_COUNT] = {
		[PUSH_EXISTS] = "250->EXISTS",
		[PUSH_FETCH] = "250->FETCH",
		[PUSH_NOTIFY_EXISTS] = "250->N.EXISTS",
		[PUSH_NOTIFY_FETCH] = "250->N.FETCH",
		[PUSH_EXISTS_LMTP] = "  from LMTP",
		[PUSH_EXISTS_SUBMIT] = "  submitted",
	};
	/* 250->EXISTS split by source under it, only when users submitted
	 * (without submission it is 250->EXISTS again; the split counts the
	 * announcements of both mechanisms); NOTIFY's rows only when a
	 * NOTIFY client took part. */
	static const int order[] = { PUSH_EXISTS, PUSH_EXISTS_LMTP,
				     PUSH_EXISTS_SUBMIT, PUSH_FETCH,
				     PUSH_NOTIFY_EXISTS, PUSH_NOTIFY_FETCH };
	bool split = a->submit.rcpts > 0;
	bool notify = report_push_notify_on(a);

	fputs(PUSH_TABLE_HEAD, o);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int k = order[i];
		if (!split && (k == PUSH_EXISTS_LMTP || k == PUSH_EXISTS_SUBMIT))
			continue;
		if (!notify && (k == PUSH_NOTIFY_EXISTS || k == PUSH_NOTIFY_FETCH))
			continue;
		uint64_t n = hist_count(a->push[k]);
		print_lat_row(o, label[k], n,
			      report_div((double)n, run->measured_s), a->push[k]);
		fputc('\n', o);
	}
	uint64_t n = hist_count(a->lmtp.lat_total);
	print_lat_row(o, "LMTP 2xx", n, report_div((double)n, run->measured_s),
		      a->lmtp.lat_total);
	fputc('\n', o);
}

/* The LMTP block ("deliveries", "LMTP") or the submission block
 * ("submissions", "SMTP"): recipients by outcome, replies by code
 * and by enhanced status code. */
static void
text_lmtp(const struct report_run *run, const struct lmtp_snap *b,
	  const char *what, const char *proto, FILE *o)
{
	const char *sep = "";
	fprintf(o, "%s: %" PRIu64 " recipients in %" PRIu64
		" %s %s: %" PRIu64 " ok (%.1f/s), %" PRIu64 " 4xx, %"
		PRIu64 " 5xx, %" PRIu64 " without a reply", what, b->rcpts,
		b->deliveries, proto, what, b->rcpt_ok,
		report_div((double)b->rcpt_ok, run->measured_s),
		b->rcpt_tempfail, b->rcpt_permfail, b->rcpt_local);
	if (b->rcpt_local > 0) {
		fputs(" (", o);
		for (int k = 1; k < LMTP_FAIL_SLOTS; k++) {
			if (b->fails[k] == 0)
				continue;
			fprintf(o, "%s%s=%" PRIu64, sep, lmtp_fail_name[k],
				b->fails[k]);
			sep = " ";
		}
		fputc(')', o);
	}
	fprintf(o, "; %" PRIu64 " sessions, %" PRIu64 " transactions\n",
		b->sessions, b->transactions);
	fprintf(o, "%s replies by code:", proto);
	bool any = false;
	for (int c = 0; c < LMTP_CODES; c++) {
		if (b->codes[c] == 0)
			continue;
		fprintf(o, " %d=%" PRIu64, c, b->codes[c]);
		any = true;
	}
	fputs(any ? "\n" : " none\n", o);
	char head[48];
	snprintf(head, sizeof(head), "%s replies by enhanced code:", proto);
	lmtp_snap_print_esc(o, head, b);
}

void
report_profile_text_final(struct report *r, const struct report_run *run,
			  const struct stats_snap *tot)
{
	FILE *o = r->out;
	const struct act_snap *a = &tot->act;

	fputs("Profile:\n", o);
	text_actions(run, a, o);
	fputc('\n', o);
	text_latencies(run, a, o);
	fprintf(o, "push missed: %" PRIu64 " deliveries not announced in IDLE "
		"within %.15g s\n", a->push_missed, r->cfg->push_timeout_s);
	fprintf(o, "push unseen: %" PRIu64 " deliveries not announced when "
		"the push ended (settle up to %.15g s)\n", a->push_unseen_end,
		config_push_settle_s(r->cfg));
	report_push_text(a, o);
	fprintf(o, "users logged in: %" PRIu64 " at the end\n", a->users_in);
	text_lmtp(run, &a->lmtp, "deliveries", "LMTP", o);
	if (a->submit.deliveries > 0)
		text_lmtp(run, &a->submit, "submissions", "SMTP", o);
	report_pop3_text_final(r, run, tot);
	fputc('\n', o);
}

/* ---- JSON ---- */

/* "lmtp":{...} (or "submit") of a window or the totals. */
static void
json_lmtp(FILE *f, const char *key, const struct lmtp_snap *b, bool summary)
{
	json_key(f, key);
	fputc('{', f);
	json_u64(f, "deliveries", b->deliveries);
	fputc(',', f);
	json_u64(f, "rcpts", b->rcpts);
	fputc(',', f);
	json_u64(f, "ok", b->rcpt_ok);
	fputc(',', f);
	json_u64(f, "tempfail", b->rcpt_tempfail);
	fputc(',', f);
	json_u64(f, "permfail", b->rcpt_permfail);
	fputc(',', f);
	json_u64(f, "no_reply", b->rcpt_local);
	fputc(',', f);
	json_u64(f, "sessions_open", b->sessions_open);
	fputs(",\"codes\":{", f);
	const char *sep = "";
	for (int c = 0; c < LMTP_CODES; c++) {
		if (b->codes[c] == 0)
			continue;
		fprintf(f, "%s\"%d\":%" PRIu64, sep, c, b->codes[c]);
		sep = ",";
	}
	fputs("},\"enhanced_codes\":{", f);
	sep = "";
	for (int e = 0; e < LMTP_ESC_SLOTS; e++) {
		char n[16];
		if (b->esc[e] == 0)
			continue;
		lmtp_esc_name(e, n, sizeof(n));
		fprintf(f, "%s\"%s\":%" PRIu64, sep, n, b->esc[e]);
		sep = ",";
	}
	fputc('}', f);
	if (summary) {
		fputc(',', f);
		/* slot 0 is no failure */
		json_named(f, "no_reply_by_kind", lmtp_fail_name + 1,
			   b->fails + 1, LMTP_FAIL_SLOTS - 1);
		fputc(',', f);
		json_u64(f, "sessions", b->sessions);
		fputc(',', f);
		json_u64(f, "transactions", b->transactions);
		fputc(',', f);
		json_u64(f, "queued_max", b->queued_max);
		fputc(',', f);
		json_u64(f, "bytes_sent", b->bytes_sent);
		fputc(',', f);
		json_latency(f, "latency_us", b->lat_total);
		fputc(',', f);
		json_latency(f, "data_latency_us", b->lat_data);
	}
	fputc('}', f);
}

/* "actions":{...},"push":{...}: a tick's (run NULL) has the p50/p95/p99/
 * max of the second, the summary's the rate and the whole latency set. */
static void
json_actions_push(FILE *f, const struct act_snap *a,
		  const struct report_run *run)
{
	static const char *const keys[] = { "ok", "failed" };
	const char *sep = "";

	fputs("\"actions\":{", f);
	for (int i = 0; i < ACT_COUNT; i++) {
		if (!act_activity(a, i))
			continue;
		const uint64_t v[] = { a->ok[i], a->failed[i] };
		json_cmd(f, &sep, action_name[i], keys, v, 2, a->lat[i], run);
	}
	fputs("},\"push\":{", f);
	for (int k = 0; k < PUSH_COUNT; k++) {
		if (k > 0)
			fputc(',', f);
		json_key(f, push_kind_name[k]);
		fputc('{', f);
		json_u64(f, "count", hist_count(a->push[k]));
		fputc(',', f);
		if (run != NULL)
			json_latency(f, "latency_us", a->push[k]);
		else
			json_pcts(f, a->push[k]);
		fputc('}', f);
	}
	fputs("},", f);
}

void
report_profile_json_tick(struct report *r, const struct stats_snap *win,
			 const struct stats_snap *cum)
{
	FILE *f = r->json;
	const struct act_snap *a = &win->act;

	fputs(",\"profile\":{", f);
	json_u64(f, "users_in", a->users_in);
	fputc(',', f);
	json_u64(f, "users_started", a->users_started);
	fputc(',', f);
	json_u64(f, "push_missed", a->push_missed);
	fputc(',', f);
	json_actions_push(f, a, NULL);
	json_lmtp(f, "lmtp", &a->lmtp, false);
	fputc(',', f);
	json_lmtp(f, "submit", &a->submit, false);
	report_push_json(f, a);
	report_pop3_json(r, win, NULL);
	fputc('}', f);
}

void
report_profile_json_final(struct report *r, const struct report_run *run,
			  const struct stats_snap *tot)
{
	FILE *f = r->json;
	const struct act_snap *a = &tot->act;

	fputs(",\"profile\":{", f);
	json_u64(f, "users_in", a->users_in);
	fputc(',', f);
	json_u64(f, "users_started", a->users_started);
	fputc(',', f);
	json_u64(f, "push_missed", a->push_missed);
	fputs(",\"push_timeout_s\":", f);
	json_num(f, r->cfg->push_timeout_s);
	fputc(',', f);
	json_u64(f, "push_unseen_end", a->push_unseen_end);
	fputs(",\"push_settle_s\":", f);
	json_num(f, config_push_settle_s(r->cfg));
	fputs(",\"deliveries_per_s\":", f);
	json_num(f, report_div((double)a->lmtp.rcpt_ok, run->measured_s));
	fputc(',', f);
	json_actions_push(f, a, run);
	json_lmtp(f, "lmtp", &a->lmtp, true);
	fputc(',', f);
	json_lmtp(f, "submit", &a->submit, true);
	report_push_json(f, a);
	report_pop3_json(r, tot, run);
	fputc('}', f);
}

/* ---- CSV: a fixed set after the stress columns ---- */

static const char *const csv_cols[] = {
	"users_in", "deliveries_ok", "deliveries_tempfail",
	"deliveries_permfail", "deliveries_no_reply", "push_missed",
	"push_exists_count", "push_exists_p50_us", "push_exists_p95_us",
	"push_exists_p99_us", "push_exists_max_us", "push_fetch_count",
	"push_fetch_p50_us", "push_fetch_p95_us", "push_fetch_p99_us",
	"push_fetch_max_us", "submissions_ok", "submissions_tempfail",
	"submissions_permfail", "submissions_no_reply",
};
enum csv_act_col { CSV_ACT_OK, CSV_ACT_FAILED, CSV_ACT_P95, CSV_ACT_COLS };
static const char *const csv_act_col_name[CSV_ACT_COLS] = {
	"ok", "failed", "p95_us",
};

void
report_profile_csv_header(struct report *r)
{
	for (size_t i = 0; i < sizeof(csv_cols) / sizeof(csv_cols[0]); i++)
		fprintf(r->csv, ",%s", csv_cols[i]);
	for (int i = 0; i < ACT_COUNT; i++)
		for (int c = 0; c < CSV_ACT_COLS; c++)
			fprintf(r->csv, ",act_%s_%s", action_name[i],
				csv_act_col_name[c]);
	report_push_csv_header(r->csv);
	report_pop3_csv_header(r);
}

static void
csv_push(FILE *f, const struct hist *h)
{
	uint64_t v[3];

	hist_p50_p95_p99(h, v);
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		hist_count(h), v[0], v[1], v[2], hist_max(h));
}

void
report_profile_csv_tick(struct report *r, const struct stats_snap *win,
			const struct stats_snap *cum)
{
	FILE *f = r->csv;
	const struct act_snap *a = &win->act;

	/* csv_cols order */
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64, win->act.users_in, a->lmtp.rcpt_ok,
		a->lmtp.rcpt_tempfail, a->lmtp.rcpt_permfail,
		a->lmtp.rcpt_local, a->push_missed);
	csv_push(f, a->push[PUSH_EXISTS]);
	csv_push(f, a->push[PUSH_FETCH]);
	/* Recipients by their reply to submission (each RCPT of a message
	 * once), as deliveries_* are LMTP's. */
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		a->submit.rcpt_ok, a->submit.rcpt_tempfail,
		a->submit.rcpt_permfail, a->submit.rcpt_local);
	for (int i = 0; i < ACT_COUNT; i++)
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, a->ok[i],
			a->failed[i], hist_percentile(a->lat[i], 95));
	report_push_csv_row(f, a, csv_push);
	report_pop3_csv_tick(r, win);
}
