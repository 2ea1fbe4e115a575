/* report_csv.c: --csv (one row per second, a fixed column set for sweep
 * scripts) and imaptest's output= TSV.  Both are flushed row by row.
 *
 * imaptest's output= file has a header of two columns per state
 * ("<NAME> count", "<NAME> msecs") but writes three values per state
 * (count, timed-command count, ms sum), so its header and data do not line
 * up.  We keep the header and write the two values it names: the count of
 * OK replies and the sum of the latencies (ms) of the commands answered in
 * that second. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report_int.h"

/* Header and rows are both written from this one list of per-op columns,
 * so they cannot drift apart. */
enum csv_op_col { CSV_OK, CSV_P95_US, CSV_OP_COLS };
static const char *const csv_op_col_name[CSV_OP_COLS] = { "ok", "p95_us" };

static const char *const csv_head_cols[] = {
	"t", "conns_open", "conns_total", "ok_total", "errors_total",
};
static const char *const csv_tail_cols[] = {
	"bytes_sent", "bytes_received", "messages_appended", "rate_missed",
};

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Quoted only when it has to be (RFC 4180). */
static void
csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* "state_seq_too_high": a state sub-kind's column, its name's '-' as
 * '_' like every other column's. */
static void
csv_state_col(FILE *f, int kind)
{
	const char *n = mbox_err_name((enum mbox_err)kind);

	fputs(",state_", f);
	for (; *n != '\0'; n++)
		fputc(*n == '-' ? '_' : *n, f);
}

void
report_csv_header(struct report *r)
{
	FILE *f = r->csv;
	char name[64];

	for (size_t i = 0; i < N_ELEM(csv_head_cols); i++)
		fprintf(f, "%s%s", i > 0 ? "," : "", csv_head_cols[i]);
	/* errors_total's state errors by sub-kind, beside it */
	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		csv_state_col(f, k);
	for (int op = 0; op < OP_COUNT; op++) {
		for (int c = 0; c < CSV_OP_COLS; c++) {
			snprintf(name, sizeof(name), "%s_%s",
				 op_table[op].name, csv_op_col_name[c]);
			fputc(',', f);
			csv_field(f, name);
		}
	}
	for (size_t i = 0; i < N_ELEM(csv_tail_cols); i++)
		fprintf(f, ",%s", csv_tail_cols[i]);
	if (report_server_shown(r->cfg))
		report_server_csv_header(f);
	if (report_profile_on(r))
		report_profile_csv_header(r);
	fputc('\n', f);
	fflush(f);
}

static void
csv_op_value(FILE *f, const struct stats_snap *win, int op, int col)
{
	switch (col) {
	case CSV_OK:
		fprintf(f, ",%" PRIu64, win->ok[op]);
		break;
	case CSV_P95_US:
		fprintf(f, ",%" PRIu64, hist_percentile(win->lat[op], 95));
		break;
	default:
		fputs(",0", f);
		break;
	}
}

void
report_csv_tick(struct report *r, const struct report_run *run,
		const struct stats_snap *win, const struct stats_snap *cum)
{
	FILE *f = r->csv;
	double t = isfinite(run->elapsed_s) ? run->elapsed_s : 0.0;

	/* The five leading columns, in csv_head_cols order. */
	fprintf(f, "%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, t,
		cum->conns_open, cum->conns_total, stats_snap_total_ok(win),
		stats_snap_total_errors(win));
	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		fprintf(f, ",%" PRIu64, win->state[k]);
	for (int op = 0; op < OP_COUNT; op++)
		for (int c = 0; c < CSV_OP_COLS; c++)
			csv_op_value(f, win, op, c);
	/* csv_tail_cols order */
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		win->bytes_sent, win->bytes_received, win->append_msgs,
		win->rate_missed);
	if (report_server_shown(r->cfg))
		report_server_csv_row(f, run, win);
	if (report_profile_on(r))
		report_profile_csv_tick(r, win, cum);
	fputc('\n', f);
	fflush(f);
}

void
report_tsv_header(struct report *r)
{
	bool first = true;

	for (int op = 0; op < OP_COUNT; op++) {
		if (!report_visible(&r->dv, op))
			continue;
		fprintf(r->tsv, "%s%s count\t%s msecs", first ? "" : "\t",
			op_table[op].name, op_table[op].name);
		first = false;
	}
	fputc('\n', r->tsv);
	fflush(r->tsv);
}

void
report_tsv_tick(struct report *r, const struct stats_snap *win)
{
	bool first = true;

	for (int op = 0; op < OP_COUNT; op++) {
		if (!report_visible(&r->dv, op))
			continue;
		uint64_t ms = (win->lat_sum_us[op] + 500) / 1000;
		fprintf(r->tsv, "%s%" PRIu64 "\t%" PRIu64, first ? "" : "\t",
			win->ok[op], ms);
		first = false;
	}
	fputc('\n', r->tsv);
	fflush(r->tsv);
}
