/* learn_hist.c: histograms over powers of two (message sizes, times in
 * microseconds): enough for a distribution a generator can follow, and no
 * single value of a log is kept. */
#include <math.h>

#include "learn/learn_int.h"

void
lhist_add(struct lhist *h, double v)
{
	if (v < 0)
		return;
	unsigned b = 0;
	while (b + 1 < LHIST_BUCKETS && v >= (double)(1ull << b))
		b++;
	h->b[b]++;
	h->n++;
	h->sum += v;
}

double
lhist_mean(const struct lhist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

/* Bucket b holds values below 2^b (and at least 2^(b-1)): its upper
 * bound stands for it, interpolated inside by the rank. */
double
lhist_quantile(const struct lhist *h, double q)
{
	if (h->n == 0)
		return 0;
	double want = q * (double)h->n, seen = 0;
	for (unsigned b = 0; b < LHIST_BUCKETS; b++) {
		if (h->b[b] == 0)
			continue;
		if (seen + (double)h->b[b] >= want) {
			double lo = b ? ldexp(1, (int)b - 1) : 0, hi = ldexp(1, (int)b);
			double f = (want - seen) / (double)h->b[b];
			return lo + f * (hi - lo);
		}
		seen += (double)h->b[b];
	}
	return ldexp(1, LHIST_BUCKETS - 1);
}
