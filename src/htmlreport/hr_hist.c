/* hr_hist.c: the whole latency distribution of result files: their
 * final histograms, merged bucket by bucket across shards, read at many
 * percentiles for the HdrHistogram-style plot (a run's JSON has only six
 * of them).  The six the summary has (p50 .. p99.9, max) are among the
 * points, so they read exactly as the summary says. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"
#include "report/result.h"
#include "stats/hist.h"
#include "util/xmalloc.h"

/* 0, then a point every tenth of a nine (90, 92.1, 93.7, ...), up to
 * the nines the samples can tell apart; the summary's six merged in. */
static size_t
pct_points(uint64_t count, double *p, size_t max)
{
	static const double six[] = { 50, 90, 95, 99, 99.9 };
	size_t n = 0, s = 0;

	for (int k = 0; k <= 70 && n + 6 < max; k++) {
		double tail = pow(10, -k / 10.0);
		if (k > 0 && tail * (double)count < 1)
			break;
		double v = 100 * (1 - tail);
		while (s < 5 && six[s] <= v + 1e-9) {
			if (fabs(six[s] - v) > 1e-9)
				p[n++] = six[s];
			s++;
		}
		p[n++] = v;
	}
	while (s < 5)
		p[n++] = six[s++];
	p[n++] = 100;
	return n;
}

int
hr_read_hists(char **paths, int n, struct hr_run *r, char *err,
	      size_t errlen)
{
	struct hist *tot[OP_COUNT];
	struct stats_snap snap;
	struct report_run rr;
	int rc = 0;

	for (int op = 0; op < OP_COUNT; op++)
		tot[op] = hist_new();
	stats_snap_init(&snap);
	for (int i = 0; i < n && rc == 0; i++) {
		struct result_reader *rd = result_reader_open(paths[i], err,
							      errlen);
		enum result_rec kind;
		int64_t sec;
		if (rd == NULL) {
			rc = -1;
			break;
		}
		while ((rc = result_reader_next(rd, &kind, &sec, &rr, &snap,
						err, errlen)) >= 0 &&
		       kind != RESULT_END)
			if (kind == RESULT_FINAL)
				for (int op = 0; op < OP_COUNT; op++)
					hist_merge(tot[op], snap.lat[op]);
		result_reader_free(rd);
		rc = rc < 0 ? -1 : 0;
	}
	for (int op = 0; op < OP_COUNT && rc == 0; op++) {
		uint64_t c = hist_count(tot[op]);
		if (c == 0)
			continue;
		struct hr_dist *d = &r->dist[r->n_dist++];
		double p[128];
		uint64_t v[128];
		d->name = op_table[op].name;
		d->n = pct_points(c, p, 128);
		hist_percentiles(tot[op], p, (unsigned)d->n, v);
		d->p = xcalloc(d->n, sizeof(double));
		d->us = xcalloc(d->n, sizeof(double));
		for (size_t k = 0; k < d->n; k++) {
			d->p[k] = p[k];
			d->us[k] = (double)v[k];
		}
	}
	for (int op = 0; op < OP_COUNT; op++)
		hist_free(tot[op]);
	stats_snap_free(&snap);
	return rc;
}
