/* report.c: the report object, its output files, and the dispatch of each
 * tick to the text, JSON, CSV and TSV writers (report_text.c,
 * report_json.c, report_csv.c).  No measuring here: everything printed
 * comes from the snapshots and struct report_run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "report/report_int.h"
#include "report/result.h"
#include "util/xmalloc.h"

static const char *const stop_names[STOP_COUNT] = {
	[STOP_DURATION] = "duration",
	[STOP_SIGNAL] = "signal",
	[STOP_ERROR_QUIT] = "error_quit",
	[STOP_DISCONNECT_QUIT] = "disconnect_quit",
	[STOP_UNUSABLE] = "server unusable",
	[STOP_FOREIGN] = "foreign mail",
};

const char *
stop_reason_name(enum stop_reason r)
{
	return r < STOP_COUNT ? stop_names[r] : "?";
}

int
stop_reason_lookup(const char *name)
{
	for (int i = 0; i < STOP_COUNT; i++)
		if (name != NULL && strcmp(name, stop_names[i]) == 0)
			return i;
	return -1;
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

/* How a stream is named in its error line. */
static void
stream_name(const struct report *r, const FILE *fp, char *buf, size_t n)
{
	const struct config *cfg = r->cfg;
	if (fp == r->json && r->json_own)
		snprintf(buf, n, "--json %s", cfg->json_path);
	else if (fp == r->csv && r->csv_own)
		snprintf(buf, n, "--csv %s", cfg->csv_path);
	else if (fp == r->tsv && r->tsv_own)
		snprintf(buf, n, "output=%s", cfg->output_path);
	else
		snprintf(buf, n, "standard output");
}

/* The first failure of a stream (a write, flush or close) is named once
 * with its errno; the stream then gets nothing more, so a half-written
 * file is not made worse. */
static void
report_fail(struct report *r, FILE *fp, bool *failed, int e)
{
	char name[512];
	if (*failed)
		return;
	*failed = r->failed = true;
	stream_name(r, fp, name, sizeof(name));
	log_error("%s: cannot write: %s; nothing more is written there, and "
		  "the exit status will say so", name, strerror(e != 0 ? e : EIO));
}

/* After a batch of writes to fp: stdio keeps the first error in
 * ferror(), and a flush writes what is left.  glibc drops the buffer of
 * a failed write, so that flush may "succeed": the errno of the batch
 * (callers zero it before) is the one to show then (ENOSPC on a full
 * disk). */
static bool
report_check(struct report *r, FILE *fp, bool *failed)
{
	int batch = errno;
	if (fp == NULL || *failed)
		return !*failed;
	errno = 0;
	if (fflush(fp) != 0 || ferror(fp))
		report_fail(r, fp, failed, errno != 0 ? errno : batch);
	return !*failed;
}

/* One writer call on one stream, checked. */
#define REPORT_WRITE(r, fp, call)					\
	do {								\
		if ((fp) != NULL && !*failed_flag((r), (fp))) {		\
			errno = 0;					\
			call;						\
			report_check((r), (fp), failed_flag((r), (fp))); \
		}							\
	} while (0)

/* The stdout flags are shared: with "-" the machine format is stdout. */
static bool *
failed_flag(struct report *r, FILE *fp)
{
	if (fp == r->json && r->json_own)
		return &r->json_failed;
	if (fp == r->csv && r->csv_own)
		return &r->csv_failed;
	if (fp == r->tsv && r->tsv_own)
		return &r->tsv_failed;
	return &r->out_failed;
}

bool
report_failed(const struct report *r)
{
	return r->failed;
}

struct report *
report_new(const struct config *cfg, const struct derived *dv, FILE *out,
	   char *err, size_t errlen)
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
	if (dv != NULL)
		r->dv = *dv;
	else
		derived_init(&r->dv, cfg, false);
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
	    (r->result = result_writer_new(cfg, &r->dv, err, errlen)) == NULL) {
		report_free(r);
		return NULL;
	}
	r->scratch = hist_new();
	REPORT_WRITE(r, r->csv, report_csv_header(r));
	REPORT_WRITE(r, r->tsv, report_tsv_header(r));
	return r;
}

/* Flush, and close what is ours; *fp is NULL afterwards. */
static void
close_output(struct report *r, FILE **fp, bool own)
{
	if (*fp == NULL)
		return;
	bool *failed = failed_flag(r, *fp);
	errno = 0;
	report_check(r, *fp, failed);
	if (own) {
		errno = 0;
		if (fclose(*fp) != 0)
			report_fail(r, *fp, failed, errno);
	}
	*fp = NULL;
}

void
report_free(struct report *r)
{
	if (r == NULL)
		return;
	close_output(r, &r->json, r->json_own);
	close_output(r, &r->csv, r->csv_own);
	close_output(r, &r->tsv, r->tsv_own);
	result_writer_free(r->result);
	hist_free(r->scratch);
	free(r);
}

void
report_tick(struct report *r, const struct report_run *run,
	    const struct stats_snap *win, const struct stats_snap *cum)
{
	/* imaptest writes its TSV row before the terminal line. */
	REPORT_WRITE(r, r->tsv, report_tsv_tick(r, win));
	/* The text writer prints the ms/cmd line of the ten seconds before
	 * this one, then counts this second into the next. */
	if (!r->out_failed) {
		errno = 0;
		report_text_tick(r, run, win, cum);
		report_check(r, r->out, &r->out_failed);
	}
	/* The window restarts every ten ticks even when no line is shown
	 * (quiet, output=), so the final line always covers the last one. */
	if (r->ticks % 10 == 0) {
		memset(r->lat_sum_us, 0, sizeof(r->lat_sum_us));
		memset(r->lat_cnt, 0, sizeof(r->lat_cnt));
	}
	for (int op = 0; op < OP_COUNT; op++) {
		r->lat_sum_us[op] += win->lat_sum_us[op];
		r->lat_cnt[op] += stats_snap_lat_count(win, op);
	}
	REPORT_WRITE(r, r->json, report_json_tick(r, run, win, cum));
	REPORT_WRITE(r, r->csv, report_csv_tick(r, run, win, cum));
	if (r->result != NULL)
		result_writer_tick(r->result, run, win);
	r->ticks++;
}

int
report_final(struct report *r, const struct report_run *run,
	     const struct stats_snap *tot)
{
	struct report_run rr = *run;

	/* The result file first: what was measured, whatever happens to
	 * the other outputs (merge judges its own). */
	if (r->result != NULL)
		result_writer_final(r->result, run, tot);

	/* Every CSV and TSV row was written at its tick; a totals row would
	 * break "one row per second" for scripts.  Closed first, so that
	 * the JSON summary's exit status can count their loss. */
	close_output(r, &r->csv, r->csv_own);
	close_output(r, &r->tsv, r->tsv_own);
	if (r->failed && rr.exit_status == 0)
		rr.exit_status = 1;
	REPORT_WRITE(r, r->json, report_json_final(r, &rr, tot));
	close_output(r, &r->json, r->json_own);

	FILE *text = r->out_failed ? NULL : r->out;
	if (text != NULL) {
		errno = 0;
		report_text_final(r, &rr, tot);
		report_check(r, text, &r->out_failed);
	}
	if (r->out_failed) {
		/* What was measured still reaches the terminal: stdout
		 * (the text, or the machine format on "-") failed, so the
		 * summary goes to stderr.  report_text_final prints to
		 * r->out, lent to stderr for this one call. */
		FILE *saved = r->out;
		log_error("standard output could not be written: the summary "
			  "follows on stderr");
		r->out = stderr;
		report_text_final(r, &rr, tot);
		r->out = saved;
	}
	return r->failed ? -1 : 0;
}
