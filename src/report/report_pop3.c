/* report_pop3.c: the POP3 part of profile mode's report (pop3_stats.h):
 * per command +OK, -ERR and in flight when the session died, with the
 * latency of each; sessions by how they failed; messages retrieved and
 * deletions committed.  Text and JSON print it only when a POP3 session
 * ran (a run without POP3 users reads as before); the CSV has its
 * columns in every profile-mode file, so that a file's columns do not
 * depend on what happened. */
#include <inttypes.h>

#include "report/report_int.h"
#include "util/units.h"

/* ---- text ---- */

void
report_pop3_text_tick(struct report *r, const struct stats_snap *win)
{
	const struct pop3_snap *p = &win->act.pop3;

	if (!pop3_snap_any(p))
		return;
	fprintf(r->out, " pop3=%" PRIu64 " retr=%" PRIu64, p->sessions,
		p->retrieved);
	if (pop3_snap_errors(p) > 0)
		fprintf(r->out, " pop3_err=%" PRIu64, pop3_snap_errors(p));
}

void
report_pop3_text_final(struct report *r, const struct report_run *run,
		       const struct stats_snap *tot)
{
	const struct pop3_snap *p = &tot->act.pop3;
	FILE *o = r->out;

	if (!pop3_snap_any(p))
		return;
	fprintf(o, "POP3: %" PRIu64 " sessions, %" PRIu64 " logins, %" PRIu64
		" messages retrieved (%.1f/s, %" PRIu64 " bytes), %" PRIu64
		" deleted, %" PRIu64 " DELE not committed (no QUIT +OK)",
		p->sessions, p->logins, p->retrieved,
		report_div((double)p->retrieved, run->measured_s),
		p->retr_bytes, p->deleted, p->delete_lost);
	const char *sep = "; sessions failed: ";
	for (int k = 0; k < P3F_COUNT; k++) {
		if (p->fails[k] == 0)
			continue;
		fprintf(o, "%s%s=%" PRIu64, sep, pop3_fail_name[k], p->fails[k]);
		sep = " ";
	}
	fputc('\n', o);
	fputs("pop3 cmd       ok    -ERR  failed     mean      p50      p95"
	      "      p99      max\n", o);
	for (int c = 0; c < P3_CMD_COUNT; c++) {
		const struct hist *h = p->lat[c];
		char v[5][32];
		if (p->ok[c] + p->err[c] + p->failed[c] == 0)
			continue;
		fmt_us_compact(v[0], sizeof(v[0]), (uint64_t)hist_mean(h));
		fmt_us_compact(v[1], sizeof(v[1]), hist_percentile(h, 50));
		fmt_us_compact(v[2], sizeof(v[2]), hist_percentile(h, 95));
		fmt_us_compact(v[3], sizeof(v[3]), hist_percentile(h, 99));
		fmt_us_compact(v[4], sizeof(v[4]), hist_max(h));
		fprintf(o, "%-8s %8" PRIu64 " %7" PRIu64 " %7" PRIu64
			" %8s %8s %8s %8s %8s\n", pop3_cmd_name[c], p->ok[c],
			p->err[c], p->failed[c], v[0], v[1], v[2], v[3], v[4]);
	}
}

/* ---- JSON ---- */

void
report_pop3_json(struct report *r, const struct stats_snap *s,
		 const struct report_run *run)
{
	static const char *const keys[] = { "ok", "err", "failed" };
	const struct pop3_snap *p = &s->act.pop3;
	FILE *f = r->json;

	if (!pop3_snap_any(p))
		return;
	fputs(",\"pop3\":{", f);
#define X(n) json_u64(f, #n, p->n); fputc(',', f);
	POP3_COUNTERS(X)
#undef X
	json_u64(f, "sessions_open", p->sessions_open);
	fputc(',', f);
	json_named(f, "failed_sessions", pop3_fail_name, p->fails, P3F_COUNT);
	fputs(",\"commands\":{", f);
	const char *sep = "";
	for (int c = 0; c < P3_CMD_COUNT; c++) {
		const uint64_t v[] = { p->ok[c], p->err[c], p->failed[c] };
		if (v[0] + v[1] + v[2] == 0)
			continue;
		json_cmd(f, &sep, pop3_cmd_name[c], keys, v, 3, p->lat[c], run);
	}
	fputs("}}", f);
}

/* ---- CSV ---- */

void
report_pop3_csv_header(struct report *r)
{
	fputs(",pop3_sessions,pop3_retrieved,pop3_deleted,pop3_delete_lost,"
	      "pop3_failed_sessions", r->csv);
	for (int c = 0; c < P3_CMD_COUNT; c++)
		fprintf(r->csv, ",pop3_%s_ok,pop3_%s_err", pop3_cmd_name[c],
			pop3_cmd_name[c]);
}

void
report_pop3_csv_tick(struct report *r, const struct stats_snap *win)
{
	const struct pop3_snap *p = &win->act.pop3;
	uint64_t failed = 0;

	for (int k = 0; k < P3F_COUNT; k++)
		failed += p->fails[k];
	fprintf(r->csv, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64, p->sessions, p->retrieved, p->deleted,
		p->delete_lost, failed);
	for (int c = 0; c < P3_CMD_COUNT; c++)
		fprintf(r->csv, ",%" PRIu64 ",%" PRIu64, p->ok[c], p->err[c]);
}
