/* compare_verdict.c: the rows of `imapstress compare` and their
 * verdicts.  A change counts only when the whole 95% interval of
 * NEW/BASE lies beyond the threshold: for latency (higher is worse)
 * "worse" is a lower bound above 1 + t and "better" an upper bound below
 * 1 - t; for the rate (lower is worse) the other way round.  Anything
 * else is "no change" (none beyond the threshold that the runs can
 * show).  A command with fewer than --min-count samples says "few"
 * rather than judge a handful of LOGINs: on BASE for the rate (a rate
 * that fell to nothing on NEW is a finding), on both sides for latency. */
#include <math.h>
#include <stdlib.h>

#include "compare/compare_int.h"
#include "util/xmalloc.h"

const char *const cmp_metric_name[CMP_METRICS] = {
	"rate", "p50", "p95", "p99",
};

const char *const cmp_verdict_name[] = {
	[CMP_SAME] = "no-change", [CMP_BETTER] = "better",
	[CMP_WORSE] = "worse", [CMP_FEW] = "few", [CMP_NODATA] = "no-data",
};

enum cmp_verdict
cmp_verdict_of(enum cmp_metric m, double lo, double hi, double threshold)
{
	if (!isfinite(lo) || !isfinite(hi))
		return CMP_NODATA;
	bool above = lo > 1.0 + threshold, below = hi < 1.0 - threshold;
	if (m == CMP_RATE)
		return below ? CMP_WORSE : above ? CMP_BETTER : CMP_SAME;
	return above ? CMP_WORSE : below ? CMP_BETTER : CMP_SAME;
}

static enum cmp_verdict
row_verdict(const struct cmp_row *r, const struct cmp_opts *o)
{
	bool lat = r->metric != CMP_RATE;

	if (r->base_n == 0 || (lat && r->new_n == 0))
		return CMP_NODATA;
	if (r->base_n < o->min_count || (lat && r->new_n < o->min_count))
		return CMP_FEW;
	return cmp_verdict_of(r->metric, r->lo, r->hi, o->threshold);
}

struct cmp_row *
cmp_rows(const struct cmp_side *base, const struct cmp_side *nw,
	 const struct cmp_opts *o, unsigned *n)
{
	double sb[OP_COUNT][CMP_METRICS], sn[OP_COUNT][CMP_METRICS];
	double lo[OP_COUNT][CMP_METRICS], hi[OP_COUNT][CMP_METRICS];
	struct cmp_row *rows = xcalloc((size_t)OP_COUNT * CMP_METRICS,
				       sizeof(*rows));

	cmp_side_stats(base, sb);
	cmp_side_stats(nw, sn);
	cmp_bootstrap(base, nw, o, lo, hi);
	*n = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		if (base->samples[op] + nw->samples[op] == 0)
			continue;	/* neither side sent it */
		for (int m = 0; m < CMP_METRICS; m++) {
			struct cmp_row *r = &rows[(*n)++];
			r->op = op;
			r->metric = (enum cmp_metric)m;
			r->base = sb[op][m];
			r->new_ = sn[op][m];
			r->ratio = sb[op][m] > 0 && isfinite(sn[op][m]) ?
			    sn[op][m] / sb[op][m] : NAN;
			r->lo = lo[op][m];
			r->hi = hi[op][m];
			r->base_n = base->samples[op];
			r->new_n = nw->samples[op];
			r->verdict = row_verdict(r, o);
		}
	}
	return rows;
}

unsigned
cmp_worse(const struct cmp_row *rows, unsigned n)
{
	unsigned w = 0;
	for (unsigned i = 0; i < n; i++)
		w += rows[i].verdict == CMP_WORSE;
	return w;
}
