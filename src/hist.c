/* hist.c: log-linear histogram.  Values below 2048 get one bucket each;
 * above that every power of two [2^k, 2^(k+1)) is cut into 1024 equal
 * buckets of width 2^(k-10), so a bucket is never wider than 1/1024 of
 * the values in it.  Up to HIST_MAX_US (< 2^32) that is 23221 buckets,
 * rounded up to whole 64-bucket blocks.
 *
 * Every bucket is non-zero only inside a block whose bit is set in
 * `used`.  The writer sets a block's bit when one of its buckets leaves
 * zero, and merge/diff/copy/reset/percentile walk only the set bits, so a
 * histogram whose samples span a few decades costs a few hundred bucket
 * reads per merge rather than 23k.
 *
 * Readers never see a count go down: each bucket and each `used` word
 * only grows between resets, and relaxed atomics still give per-object
 * coherence.  A snapshot's count is the sum of the buckets it read (not
 * the writer's count field) so that the snapshot is self-consistent. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "xmalloc.h"

#define HIST_SUB_BITS 10			/* 1024 buckets per octave */
#define HIST_SUB_HALF (1u << HIST_SUB_BITS)
#define HIST_EXACT (2u * HIST_SUB_HALF)		/* values below are exact */
#define HIST_TOP_INDEX 23220u			/* hist_index(HIST_MAX_US) */
#define HIST_BLOCK 64u
#define HIST_BLOCKS ((HIST_TOP_INDEX + HIST_BLOCK) / HIST_BLOCK)
#define HIST_BUCKETS (HIST_BLOCKS * HIST_BLOCK)
#define HIST_WORDS ((HIST_BLOCKS + 63) / 64)

typedef _Atomic uint64_t hist_ctr;

struct hist {
	hist_ctr count, sum;
	hist_ctr min;		/* UINT64_MAX while empty */
	hist_ctr max;
	hist_ctr used[HIST_WORDS];	/* one bit per block with data */
	hist_ctr buckets[HIST_BUCKETS];
};

_Static_assert(sizeof(struct hist) < 200 * 1024, "hist must stay < 200 KB");
_Static_assert(HIST_N_BUCKETS == HIST_TOP_INDEX + 1, "hist.h exports the bucket count");

static inline uint64_t
get(const hist_ctr *c)
{
	return atomic_load_explicit((hist_ctr *)c, memory_order_relaxed);
}

static inline void
put(hist_ctr *c, uint64_t v)
{
	atomic_store_explicit(c, v, memory_order_relaxed);
}

static inline unsigned
hist_index(uint64_t v)
{
	if (v < HIST_EXACT)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = msb - HIST_SUB_BITS;
	return (shift << HIST_SUB_BITS) + (unsigned)(v >> shift);
}

static inline uint64_t
hist_low(unsigned i)
{
	if (i < HIST_SUB_HALF)
		return i;
	unsigned shift = (i >> HIST_SUB_BITS) - 1;
	uint64_t sub = (i & (HIST_SUB_HALF - 1)) + HIST_SUB_HALF;
	return sub << shift;
}

static inline uint64_t
hist_high(unsigned i)
{
	if (i < HIST_SUB_HALF)
		return i;
	unsigned shift = (i >> HIST_SUB_BITS) - 1;
	return hist_low(i) + (1ull << shift) - 1;
}

static inline void
mark_block(struct hist *h, unsigned block)
{
	hist_ctr *w = &h->used[block / 64];
	uint64_t bit = 1ull << (block % 64);
	uint64_t old = get(w);
	if (!(old & bit))
		put(w, old | bit);
}

struct hist *
hist_new(void)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	put(&h->min, UINT64_MAX);
	return h;
}

void
hist_free(struct hist *h)
{
	free(h);
}

static void
clear_scalars(struct hist *h)
{
	put(&h->count, 0);
	put(&h->sum, 0);
	put(&h->min, UINT64_MAX);
	put(&h->max, 0);
}

void
hist_reset(struct hist *h)
{
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&h->used[w]);
		while (bits) {
			unsigned block = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			memset((void *)&h->buckets[block * HIST_BLOCK], 0,
			       HIST_BLOCK * sizeof(h->buckets[0]));
		}
		put(&h->used[w], 0);
	}
	clear_scalars(h);
}

void
hist_record_n(struct hist *h, uint64_t us, uint64_t n)
{
	if (n == 0)
		return;
	if (us > HIST_MAX_US)
		us = HIST_MAX_US;
	unsigned i = hist_index(us);
	uint64_t c = get(&h->buckets[i]);
	put(&h->buckets[i], c + n);
	if (c == 0)
		mark_block(h, i / HIST_BLOCK);
	put(&h->count, get(&h->count) + n);
	put(&h->sum, get(&h->sum) + us * n);
	if (us < get(&h->min))
		put(&h->min, us);
	if (us > get(&h->max))
		put(&h->max, us);
}

void
hist_record(struct hist *h, uint64_t us)
{
	hist_record_n(h, us, 1);
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	uint64_t total = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&src->used[w]);
		while (bits) {
			unsigned block = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			unsigned base = block * HIST_BLOCK;
			uint64_t seen = 0;
			for (unsigned j = base; j < base + HIST_BLOCK; j++) {
				uint64_t c = get(&src->buckets[j]);
				if (c != 0)
					put(&dst->buckets[j], get(&dst->buckets[j]) + c);
				seen += c;
			}
			if (seen != 0)
				mark_block(dst, block);
			total += seen;
		}
	}
	if (total == 0)
		return;
	put(&dst->count, get(&dst->count) + total);
	put(&dst->sum, get(&dst->sum) + get(&src->sum));
	uint64_t mn = get(&src->min), mx = get(&src->max);
	if (mn < get(&dst->min))
		put(&dst->min, mn);
	if (mx > get(&dst->max))
		put(&dst->max, mx);
}

/* dst = a - b over the blocks of dst and a, bucket by bucket, reading
 * a[j] and b[j] before writing dst[j]; so dst may be a or b.  Blocks used
 * only by b would come out negative, which only a misuse can cause, and
 * are left at zero.  With b == NULL this is a copy. */
static uint64_t
sub_buckets(struct hist *dst, const struct hist *a, const struct hist *b,
	    unsigned *lo, unsigned *hi)
{
	uint64_t total = 0;
	*lo = HIST_BUCKETS;
	*hi = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t abits = get(&a->used[w]);
		uint64_t bits = abits | get(&dst->used[w]);
		uint64_t out = 0;
		while (bits) {
			unsigned bit = (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			unsigned base = (w * 64 + bit) * HIST_BLOCK;
			if (!(abits & (1ull << bit))) {
				memset((void *)&dst->buckets[base], 0,
				       HIST_BLOCK * sizeof(dst->buckets[0]));
				continue;
			}
			uint64_t seen = 0;
			for (unsigned j = base; j < base + HIST_BLOCK; j++) {
				uint64_t c = get(&a->buckets[j]);
				uint64_t cb = b ? get(&b->buckets[j]) : 0;
				c = c > cb ? c - cb : 0;
				put(&dst->buckets[j], c);
				if (c != 0) {
					if (j < *lo)
						*lo = j;
					*hi = j;
				}
				seen += c;
			}
			if (seen != 0)
				out |= 1ull << bit;
			total += seen;
		}
		put(&dst->used[w], out);
	}
	return total;
}

void
hist_copy(struct hist *dst, const struct hist *src)
{
	if (dst == src)
		return;
	uint64_t sum = get(&src->sum), mn = get(&src->min), mx = get(&src->max);
	unsigned lo, hi;
	uint64_t total = sub_buckets(dst, src, NULL, &lo, &hi);
	clear_scalars(dst);
	if (total == 0)
		return;
	put(&dst->count, total);
	put(&dst->sum, sum);
	put(&dst->min, mn);
	put(&dst->max, mx);
}

void
hist_diff(struct hist *dst, const struct hist *a, const struct hist *b)
{
	uint64_t asum = get(&a->sum), bsum = get(&b->sum);
	uint64_t amin = hist_min(a), amax = hist_max(a);
	bool b_empty = hist_count(b) == 0;
	unsigned lo, hi;
	uint64_t total = sub_buckets(dst, a, b, &lo, &hi);
	clear_scalars(dst);
	if (total == 0)
		return;
	put(&dst->count, total);
	put(&dst->sum, asum > bsum ? asum - bsum : 0);
	if (b_empty) {
		/* The window is all of a, whose extremes are exact. */
		put(&dst->min, amin);
		put(&dst->max, amax);
		return;
	}
	/* Only the buckets are known; a's own extremes bound them. */
	uint64_t mn = hist_low(lo), mx = hist_high(hi);
	if (mn < amin)
		mn = amin;
	if (mx > amax)
		mx = amax;
	if (mn > mx)
		mn = mx;
	put(&dst->min, mn);
	put(&dst->max, mx);
}

uint64_t
hist_count(const struct hist *h)
{
	return get(&h->count);
}

uint64_t
hist_min(const struct hist *h)
{
	uint64_t mn = get(&h->min);
	/* A reader racing the first record may see count > 0 before min. */
	return mn == UINT64_MAX ? 0 : mn;
}

uint64_t
hist_max(const struct hist *h)
{
	return get(&h->max);
}

uint64_t
hist_sum(const struct hist *h)
{
	return get(&h->sum);
}

double
hist_mean(const struct hist *h)
{
	uint64_t n = get(&h->count);
	return n == 0 ? 0.0 : (double)get(&h->sum) / (double)n;
}

uint64_t
hist_percentile(const struct hist *h, double p)
{
	uint64_t n = get(&h->count);
	if (n == 0)
		return 0;
	uint64_t mn = hist_min(h), mx = hist_max(h);
	if (!(p > 0.0))		/* also catches NaN */
		return mn;
	if (p >= 100.0)
		return mx;
	/* rank = ceil(p% of n), with a hair of slack so that e.g. 99.9% of
	 * 1000 is 999 even though 99.9 is not exact in binary. */
	long double x = (long double)p * (long double)n / 100.0L;
	long double r = x - x * 1e-15L;
	uint64_t rank = (uint64_t)r;
	if ((long double)rank < r)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&h->used[w]);
		while (bits) {
			unsigned block = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			unsigned base = block * HIST_BLOCK;
			for (unsigned j = base; j < base + HIST_BLOCK; j++) {
				seen += get(&h->buckets[j]);
				if (seen >= rank) {
					uint64_t v = hist_high(j);
					if (v > mx)
						v = mx;
					return v < mn ? mn : v;
				}
			}
		}
	}
	/* Only reachable on a live histogram whose count ran ahead of the
	 * buckets this reader saw. */
	return mx;
}

bool
hist_next_bucket(const struct hist *h, unsigned *idx, uint64_t *count)
{
	for (unsigned i = *idx; i < HIST_BUCKETS; ) {
		unsigned block = i / HIST_BLOCK;
		if (!(get(&h->used[block / 64]) & (1ull << (block % 64)))) {
			i = (block + 1) * HIST_BLOCK;
			continue;
		}
		uint64_t c = get(&h->buckets[i]);
		if (c != 0) {
			*idx = i;
			*count = c;
			return true;
		}
		i++;
	}
	return false;
}

int
hist_load_bucket(struct hist *h, unsigned idx, uint64_t count)
{
	if (idx > HIST_TOP_INDEX || count == 0 ||
	    get(&h->count) + count < get(&h->count))
		return -1;
	uint64_t c = get(&h->buckets[idx]);
	put(&h->buckets[idx], c + count);
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

/* The blocks with data, in order: the walk both exports below need. */
static unsigned
used_blocks(const struct hist *h, unsigned out[HIST_BLOCKS])
{
	unsigned n = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&h->used[w]);
		while (bits) {
			out[n++] = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
		}
	}
	return n;
}

/* The bucket layout above is HdrHistogram's for lowest value 1 and three
 * significant digits (2048 unit-wide buckets, then 1024 per octave), so a
 * bucket index here is the index into HdrHistogram's counts array and the
 * interval log (hdrlog.c) can copy counts across without re-binning. */
unsigned
hist_export(const struct hist *h, uint64_t *counts, unsigned n)
{
	unsigned blocks[HIST_BLOCKS], len = 0;
	unsigned nb = used_blocks(h, blocks);

	memset(counts, 0, (size_t)n * sizeof(*counts));
	for (unsigned b = 0; b < nb; b++) {
		unsigned base = blocks[b] * HIST_BLOCK;
		for (unsigned j = base; j < base + HIST_BLOCK && j < n; j++) {
			counts[j] = get(&h->buckets[j]);
			if (counts[j] != 0)
				len = j + 1;
		}
	}
	return len;
}

void
hist_count_le_each(const struct hist *h, const uint64_t *le, unsigned n,
		   uint64_t *out)
{
	unsigned blocks[HIST_BLOCKS];
	unsigned nb = used_blocks(h, blocks);

	memset(out, 0, (size_t)n * sizeof(*out));
	for (unsigned b = 0; b < nb; b++) {
		unsigned base = blocks[b] * HIST_BLOCK;
		for (unsigned j = base; j < base + HIST_BLOCK; j++) {
			uint64_t c = get(&h->buckets[j]);
			if (c == 0)
				continue;
			uint64_t hi = hist_high(j);
			for (unsigned k = 0; k < n; k++)
				if (hi <= le[k])
					out[k] += c;
		}
	}
}

uint64_t
hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t n;
	hist_count_le_each(h, &v, 1, &n);
	return n;
}
