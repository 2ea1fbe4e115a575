/* hist_read.c: what is read out of a histogram (percentiles, stddev, the
 * non-empty buckets, the HdrHistogram and Prometheus exports) and how a
 * result file's buckets are loaded back in; the layout is hist_int.h's. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "stats/hist.h"
#include "stats/hist_int.h"

/* From the buckets' midpoints around the exact mean: exact below 2048 us,
 * within the buckets' 0.1% above. */
double
hist_stddev(const struct hist *h)
{
	uint64_t n = get(&h->count), c;
	if (n < 2)
		return 0.0;
	double mean = hist_mean(h), ss = 0;
	for (unsigned i = 0; hist_next_bucket(h, &i, &c); i++) {
		double mid = ((double)hist_low(i) + (double)hist_high(i)) / 2;
		ss += (double)c * (mid - mean) * (mid - mean);
	}
	return sqrt(ss / (double)n);
}

/* The rank of percentile p of n samples: ceil(p% of n), at least 1, with
 * a hair of slack so that e.g. 99.9% of 1000 is 999 even though 99.9 is
 * not exact in binary.  0 < p < 100. */
static uint64_t
pct_rank(double p, uint64_t n)
{
	long double x = (long double)p * (long double)n / 100.0L;
	long double r = x - x * 1e-15L;
	uint64_t rank = (uint64_t)r;
	if ((long double)rank < r)
		rank++;
	return rank == 0 ? 1 : rank;
}

uint64_t
hist_percentile(const struct hist *h, double p)
{
	uint64_t v;
	hist_percentiles(h, &p, 1, &v);
	return v;
}

void
hist_p50_p95_p99(const struct hist *h, uint64_t out[3])
{
	static const double pct[] = { 50, 95, 99 };
	hist_percentiles(h, pct, 3, out);
}

void
hist_row_percentiles(const struct hist *h, uint64_t out[HIST_ROW_PCTS])
{
	static const double pct[HIST_ROW_PCTS] = { 50, 90, 95, 99, 99.9 };
	hist_percentiles(h, pct, HIST_ROW_PCTS, out);
}

/* p is answered from the ends, without a walk: p <= 0 (also NaN) or
 * >= 100. */
static bool
pct_at_end(double p)
{
	return !(p > 0.0) || p >= 100.0;
}

/* The first of p[k..n) that needs the walk, or n. */
static unsigned
pct_next(const double *p, unsigned k, unsigned n)
{
	while (k < n && pct_at_end(p[k]))
		k++;
	return k;
}

/* One walk over the buckets for all of p (a report row asks for five:
 * walking once per percentile was most of a short run's report). */
void
hist_percentiles(const struct hist *h, const double *p, unsigned n,
		 uint64_t *out)
{
	uint64_t count = get(&h->count);
	uint64_t mn = hist_min(h), mx = hist_max(h);

	/* The ends for all; the walk overwrites the ones it answers. */
	for (unsigned i = 0; i < n; i++)
		out[i] = count == 0 ? 0 : p[i] >= 100.0 ? mx : mn;
	if (count == 0)
		return;
	unsigned k = pct_next(p, 0, n);
	uint64_t want = k < n ? pct_rank(p[k], count) : 0, seen = 0, c;
	for (unsigned j = 0; k < n && hist_next_bucket(h, &j, &c); j++) {
		seen += c;
		if (seen < want)
			continue;
		uint64_t top = hist_high(j);
		top = top > mx ? mx : top < mn ? mn : top;
		while (k < n && seen >= want) {
			out[k] = top;
			k = pct_next(p, k + 1, n);
			if (k < n)
				want = pct_rank(p[k], count);
		}
	}
	/* Only reachable on a live histogram whose count ran ahead of the
	 * buckets this reader saw. */
	for (; k < n; k = pct_next(p, k + 1, n))
		out[k] = mx;
}

bool
hist_next_bucket(const struct hist *h, unsigned *idx, uint64_t *count)
{
	for (unsigned i = *idx; i < HIST_BUCKETS; ) {
		unsigned block = i / HIST_BLOCK, end = (block + 1) * HIST_BLOCK;
		struct bview v;
		if (!(get(&h->used[block / 64]) & (1ull << (block % 64))) ||
		    !view(h, block, &v)) {
			i = end;
			continue;
		}
		for (; i < end; i++) {
			uint64_t c = vget(&v, i % HIST_BLOCK);
			if (c != 0) {
				*idx = i;
				*count = c;
				return true;
			}
		}
	}
	return false;
}

int
hist_load_bucket(struct hist *h, unsigned idx, uint64_t count)
{
	if (idx > HIST_TOP_INDEX || count == 0 ||
	    get(&h->count) + count < get(&h->count))
		return -1;
	hist_ctr *p = hist_bucket_need(h, idx);
	put(p, get(p) + count);
	mark_block(h, idx / HIST_BLOCK);
	put(&h->count, get(&h->count) + count);
	return 0;
}

int
hist_load_end(struct hist *h, uint64_t sum, uint64_t min, uint64_t max)
{
	uint64_t n = get(&h->count);
	if (n == 0) {
		if (sum != 0 || min != 0 || max != 0)
			goto bad;
		return 0;
	}
	unsigned lo = 0, hi = 0;
	uint64_t c;
	if (!hist_next_bucket(h, &lo, &c) || min > max || max > HIST_MAX_US)
		goto bad;
	for (unsigned i = lo; hist_next_bucket(h, &i, &c); i++)
		hi = i;
	if (hist_index(min) != lo || hist_index(max) != hi ||
	    sum < min || sum / n > max)
		goto bad;
	put(&h->sum, sum);
	put(&h->min, min);
	put(&h->max, max);
	return 0;
bad:
	hist_reset(h);
	return -1;
}

/* The bucket layout above is HdrHistogram's for lowest value 1 and three
 * significant digits (2048 unit-wide buckets, then 1024 per octave), so a
 * bucket index here is the index into HdrHistogram's counts array and the
 * interval log (hdrlog.c) can copy counts across without re-binning. */
unsigned
hist_export(const struct hist *h, uint64_t *counts, unsigned n)
{
	unsigned len = 0;
	uint64_t c;

	memset(counts, 0, (size_t)n * sizeof(*counts));
	for (unsigned j = 0; hist_next_bucket(h, &j, &c) && j < n; j++) {
		counts[j] = c;
		len = j + 1;
	}
	return len;
}

void
hist_count_le_each(const struct hist *h, const uint64_t *le, unsigned n,
		   uint64_t *out)
{
	uint64_t c;

	memset(out, 0, (size_t)n * sizeof(*out));
	for (unsigned j = 0; hist_next_bucket(h, &j, &c); j++) {
		uint64_t hi = hist_high(j);
		for (unsigned k = 0; k < n; k++)
			if (hi <= le[k])
				out[k] += c;
	}
}

uint64_t
hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t n;
	hist_count_le_each(h, &v, 1, &n);
	return n;
}
