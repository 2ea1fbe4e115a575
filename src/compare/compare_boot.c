/* compare_boot.c: the statistics of `imapstress compare`.  A side's
 * figure for a command is taken over all its measured seconds at once:
 * the rate is OK replies over seconds, the percentiles those of the
 * merged histograms (as a merged report gives them).  The interval of
 * NEW/BASE is a percentile bootstrap in two stages, since runs of one
 * setting differ far more than seconds of one run: a resample of a side
 * draws its runs with replacement, then within each drawn run as many
 * seconds as it has, with replacement; the ratio of the two sides'
 * figures is taken per resample, and its 2.5% and 97.5% quantiles are
 * the interval.  The draws come from a seeded splitmix64, so the same
 * files and seed give the same interval. */
#include <math.h>
#include <stdlib.h>

#include "compare/compare_int.h"
#include "util/rng.h"
#include "util/xmalloc.h"

/* What a resample adds up: its seconds as one long second. */
static void
acc_clear(struct cmp_second *a)
{
	a->dur = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		a->ok[op] = 0;
		if (a->lat[op] != NULL)
			hist_reset(a->lat[op]);
	}
}

static void
acc_add(struct cmp_second *a, const struct cmp_second *s)
{
	a->dur += s->dur;
	cmp_second_add(a, s);
}

static void
acc_stats(const struct cmp_second *a, double st[OP_COUNT][CMP_METRICS])
{
	uint64_t p[3];

	for (int op = 0; op < OP_COUNT; op++) {
		st[op][CMP_RATE] = a->dur > 0 ? (double)a->ok[op] / a->dur : NAN;
		if (a->lat[op] == NULL || hist_count(a->lat[op]) == 0) {
			st[op][CMP_P50] = st[op][CMP_P95] = st[op][CMP_P99] = NAN;
			continue;
		}
		hist_p50_p95_p99(a->lat[op], p);
		st[op][CMP_P50] = (double)p[0];
		st[op][CMP_P95] = (double)p[1];
		st[op][CMP_P99] = (double)p[2];
	}
}

void
cmp_side_stats(const struct cmp_side *s, double st[OP_COUNT][CMP_METRICS])
{
	struct cmp_second a = { 0 };

	for (unsigned i = 0; i < s->n_runs; i++)
		for (unsigned k = 0; k < s->runs[i].n_secs; k++)
			acc_add(&a, &s->runs[i].secs[k]);
	acc_stats(&a, st);
	cmp_second_free(&a);
}

/* One resample of a side: runs drawn, then each drawn run's seconds. */
static void
resample(const struct cmp_side *s, struct rng *r, struct cmp_second *a)
{
	acc_clear(a);
	for (unsigned i = 0; i < s->n_runs; i++) {
		const struct cmp_run *run = &s->runs[rng_below(r, s->n_runs)];
		for (unsigned k = 0; k < run->n_secs; k++)
			acc_add(a, &run->secs[rng_below(r, run->n_secs)]);
	}
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double
cmp_quantile(double *v, unsigned n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), dbl_cmp);
	double h = (double)(n - 1) * q;
	unsigned i = (unsigned)h;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

void
cmp_bootstrap(const struct cmp_side *base, const struct cmp_side *nw,
	      const struct cmp_opts *o, double lo[OP_COUNT][CMP_METRICS],
	      double hi[OP_COUNT][CMP_METRICS])
{
	unsigned n_b = o->resamples, nv[OP_COUNT][CMP_METRICS] = { { 0 } };
	double *ratio = xcalloc((size_t)OP_COUNT * CMP_METRICS * n_b,
				sizeof(*ratio));
	double sb[OP_COUNT][CMP_METRICS], sn[OP_COUNT][CMP_METRICS];
	struct rng rng = { o->seed };
	struct cmp_second ab = { 0 }, an = { 0 };

	for (unsigned b = 0; b < n_b; b++) {
		resample(base, &rng, &ab);
		resample(nw, &rng, &an);
		acc_stats(&ab, sb);
		acc_stats(&an, sn);
		/* A resample without the command on BASE has no ratio; it is
		 * left out (the row's sample count says how rare that is). */
		for (int op = 0; op < OP_COUNT; op++)
			for (int m = 0; m < CMP_METRICS; m++)
				if (sb[op][m] > 0 && isfinite(sn[op][m]))
					ratio[((size_t)op * CMP_METRICS + m) * n_b +
					      nv[op][m]++] = sn[op][m] / sb[op][m];
	}
	for (int op = 0; op < OP_COUNT; op++)
		for (int m = 0; m < CMP_METRICS; m++) {
			double *v = ratio + ((size_t)op * CMP_METRICS + m) * n_b;
			/* Half the resamples without a ratio: no interval. */
			bool enough = nv[op][m] > 0 && nv[op][m] * 2 >= n_b;
			lo[op][m] = enough ? cmp_quantile(v, nv[op][m], 0.025) : NAN;
			hi[op][m] = enough ? cmp_quantile(v, nv[op][m], 0.975) : NAN;
		}
	cmp_second_free(&ab);
	cmp_second_free(&an);
	free(ratio);
}
