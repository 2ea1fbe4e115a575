/* compare_text.c: the table `imapstress compare` prints: one row per
 * command and figure, both sides' values, NEW/BASE with its interval,
 * and the verdict; then the rows that got worse. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_int.h"
#include "util/escape.h"

/* A value of a figure: the rate per second, latency in ms. */
static void
fmt_value(char *buf, size_t n, enum cmp_metric m, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (m == CMP_RATE)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3f", v / 1000.0);
}

static void
fmt_ratio(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "-");
}

static void
side_line(FILE *f, const struct cmp_side *s)
{
	char path[512];

	escape_text(path, sizeof(path), s->runs[0].path,
		    strlen(s->runs[0].path));
	fprintf(f, "%-5s %u run%s, %.1f measured s (first: %s)\n", s->name,
		s->n_runs, s->n_runs == 1 ? "" : "s", s->dur, path);
}

void
cmp_print_text(FILE *f, const struct cmp_report *r)
{
	const struct cmp_opts *o = r->o;
	char b[32], n[32], q[32], lo[32], hi[32], fig[16];

	side_line(f, r->base);
	side_line(f, r->nw);
	fprintf(f, "95%% intervals of NEW/BASE from %u resamples of the runs "
		"and of each run's seconds (seed %llu); threshold %g%%, "
		"min-count %llu\n\n", o->resamples, (unsigned long long)o->seed,
		o->threshold * 100.0, (unsigned long long)o->min_count);
	fprintf(f, "%-10s %-8s %12s %12s %9s  %-17s  %s\n", "command",
		"figure", "BASE", "NEW", "NEW/BASE", "95% interval", "verdict");
	for (unsigned i = 0; i < r->n_rows; i++) {
		const struct cmp_row *w = &r->rows[i];
		fmt_value(b, sizeof(b), w->metric, w->base);
		fmt_value(n, sizeof(n), w->metric, w->new_);
		fmt_ratio(q, sizeof(q), w->ratio);
		fmt_ratio(lo, sizeof(lo), w->lo);
		fmt_ratio(hi, sizeof(hi), w->hi);
		snprintf(fig, sizeof(fig), "%s %s", cmp_metric_name[w->metric],
			 w->metric == CMP_RATE ? "/s" : "ms");
		char iv[80];
		snprintf(iv, sizeof(iv), "%s - %s", lo, hi);
		fprintf(f, "%-10s %-8s %12s %12s %9s  %-17s  %s\n",
			op_table[w->op].name, fig, b, n, q, iv,
			cmp_verdict_name[w->verdict]);
	}
	unsigned worse = cmp_worse(r->rows, r->n_rows);
	fputc('\n', f);
	if (worse == 0) {
		fprintf(f, "no row worse beyond %g%%\n", o->threshold * 100.0);
		return;
	}
	fprintf(f, "%u row%s worse beyond %g%%:", worse, worse == 1 ? "" : "s",
		o->threshold * 100.0);
	for (unsigned i = 0; i < r->n_rows; i++)
		if (r->rows[i].verdict == CMP_WORSE)
			fprintf(f, " %s %s", op_table[r->rows[i].op].name,
				cmp_metric_name[r->rows[i].metric]);
	fputc('\n', f);
}
