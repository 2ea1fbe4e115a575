/* report.c: the report object, its output files, and the dispatch of each
 * tick to the text, JSON, CSV and TSV writers (report_text.c,
 * report_json.c, report_csv.c).  No measuring here: everything printed
 * comes from the snapshots and struct report_run. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "result.h"
#include "xmalloc.h"

bool
report_visible(const struct config *cfg, int op)
{
	return op >= 0 && op < OP_COUNT && cfg->states[op].prob != 0;
}

uint64_t
report_op_activity(const struct stats_snap *s, int op)
{
	return s->ok[op] + s->no[op] + s->bad[op] + s->failed[op];
}

uint64_t
report_commands(const struct stats_snap *s)
{
	uint64_t n = 0;
	for (int op = 0; op < OP_COUNT; op++)
		n += report_op_activity(s, op);
	return n;
}

double
report_div(double a, double b)
{
	if (!(b > 0.0))
		return 0.0;
	double q = a / b;
	return isfinite(q) ? q : 0.0;
}

double
report_achieved_rate(const struct report_run *run,
		     const struct stats_snap *tot)
{
	uint64_t n = report_commands(tot) -
		report_op_activity(tot, OP_LOGIN) -
		report_op_activity(tot, OP_AUTHENTICATE);
	return report_div((double)n, run->measured_s);
}

uint64_t
report_sla_actual(struct report *r, const struct report_run *run,
		  const struct stats_snap *tot, unsigned i, uint64_t *samples)
{
	const struct sla *sla = &r->cfg->slas[i];
	const struct hist *h;
	if (sla->op >= 0 && sla->op < OP_COUNT) {
		h = tot->lat[sla->op];
	} else {
		hist_reset(r->scratch);
		for (int op = 0; op < OP_COUNT; op++)
			hist_merge(r->scratch, tot->lat[op]);
		h = r->scratch;
	}
	*samples = hist_count(h);
	if (run->sla_actual_us != NULL)
		return run->sla_actual_us[i];
	if (sla->percentile <= 0.0)
		return (uint64_t)llround(hist_mean(h));
	return hist_percentile(h, sla->percentile);
}

/* Without a verdict from main, "<" is taken literally, and a bound with no
 * samples at all fails: an SLA on a command that never ran proves nothing. */
bool
report_sla_ok(struct report *r, const struct report_run *run,
	      const struct stats_snap *tot, unsigned i)
{
	if (run->sla_ok != NULL)
		return run->sla_ok[i];
	uint64_t n;
	uint64_t v = report_sla_actual(r, run, tot, i, &n);
	return n > 0 && v < r->cfg->slas[i].max_us;
}

unsigned
report_sla_failures(struct report *r, const struct stats_snap *tot)
{
	const struct report_run none = { 0 };
	unsigned n = 0;
	for (unsigned i = 0; i < r->cfg->n_slas; i++)
		n += !report_sla_ok(r, &none, tot, i);
	return n;
}

static bool
is_stdout(const char *path)
{
	return path != NULL && strcmp(path, "-") == 0;
}

/* "-" is the caller's out (stdout); anything else a file we create. */
static int
open_output(const char *opt, const char *path, FILE *out, FILE **fp,
	    bool *own, char *err, size_t errlen)
{
	if (path == NULL)
		return 0;
	if (is_stdout(path)) {
		if (out == NULL) {
			snprintf(err, errlen, "%s -: no standard output to "
				 "write to", opt);
			return -1;
		}
		*fp = out;
		*own = false;
		return 0;
	}
	if (*path == '\0') {
		snprintf(err, errlen, "%s: empty file name", opt);
		return -1;
	}
	*fp = fopen(path, "w");
	if (*fp == NULL) {
		snprintf(err, errlen, "%s %s: cannot create: %s", opt, path,
			 strerror(errno));
		return -1;
	}
	*own = true;
	return 0;
}

struct report *
report_new(const struct config *cfg, FILE *out, char *err, size_t errlen)
{
	int on_stdout = is_stdout(cfg->json_path) + is_stdout(cfg->csv_path) +
			is_stdout(cfg->output_path);
	if (on_stdout > 1) {
		snprintf(err, errlen, "--json -, --csv - and output=-: only one "
			 "of them can write to stdout");
		return NULL;
	}
	struct report *r = xcalloc(1, sizeof(*r));
	r->cfg = cfg;
	/* Text and a machine format on one stream would make both useless;
	 * the machine format was asked for explicitly, so it wins. */
	r->out = on_stdout ? NULL : out;
	if (open_output("--json", cfg->json_path, out, &r->json,
			&r->json_own, err, errlen) < 0 ||
	    open_output("--csv", cfg->csv_path, out, &r->csv,
			&r->csv_own, err, errlen) < 0 ||
	    open_output("output=", cfg->output_path, out, &r->tsv,
			&r->tsv_own, err, errlen) < 0) {
		report_free(r);
		return NULL;
	}
	/* The result file is one more output of the same calls, so that
	 * merge, replaying it through this file, prints what we print. */
	if (cfg->result_path != NULL &&
	    (r->result = result_writer_new(cfg, err, errlen)) == NULL) {
		report_free(r);
		return NULL;
	}
	r->scratch = hist_new();
	if (r->csv != NULL)
		report_csv_header(r);
	if (r->tsv != NULL)
		report_tsv_header(r);
	return r;
}

static void
close_output(FILE *fp, bool own)
{
	if (fp == NULL)
		return;
	if (own)
		fclose(fp);
	else
		fflush(fp);
}

void
report_free(struct report *r)
{
	if (r == NULL)
		return;
	close_output(r->json, r->json_own);
	close_output(r->csv, r->csv_own);
	close_output(r->tsv, r->tsv_own);
	result_writer_free(r->result);
	hist_free(r->scratch);
	free(r);
}

void
report_tick(struct report *r, const struct report_run *run,
	    const struct stats_snap *win, const struct stats_snap *cum)
{
	/* imaptest writes its TSV row before the terminal line. */
	if (r->tsv != NULL)
		report_tsv_tick(r, win);
	/* The text writer prints the ms/cmd line of the ten seconds before
	 * this one, then counts this second into the next. */
	report_text_tick(r, run, win, cum);
	/* The window restarts every ten ticks even when no line is shown
	 * (quiet, output=), so the final line always covers the last one. */
	if (r->ticks % 10 == 0) {
		memset(r->lat_sum_us, 0, sizeof(r->lat_sum_us));
		memset(r->lat_cnt, 0, sizeof(r->lat_cnt));
	}
	for (int op = 0; op < OP_COUNT; op++) {
		r->lat_sum_us[op] += hist_sum(win->lat[op]);
		r->lat_cnt[op] += hist_count(win->lat[op]);
	}
	if (r->json != NULL)
		report_json_tick(r, run, win, cum);
	if (r->csv != NULL)
		report_csv_tick(r, run, win, cum);
	if (r->result != NULL)
		result_writer_tick(r->result, run, win);
	r->ticks++;
}

void
report_final(struct report *r, const struct report_run *run,
	     const struct stats_snap *tot)
{
	report_text_final(r, run, tot);
	if (r->json != NULL)
		report_json_final(r, run, tot);
	if (r->result != NULL)
		result_writer_final(r->result, run, tot);
	/* Every CSV and TSV row was written and flushed at its tick; a
	 * totals row would break "one row per second" for scripts. */
	if (r->csv != NULL)
		fflush(r->csv);
	if (r->tsv != NULL)
		fflush(r->tsv);
}
