/* seqpick.c: random sorted sets of distinct sequence numbers (see
 * seqpick.h).  A module of its own, out of the state builders, so that the
 * distribution can be unit-tested without a connection.
 *
 * Both methods give each set of the right size the same probability (to
 * within exists / 2^64, from scaling 64 random bits to 1..exists):
 *   - Floyd's algorithm makes exactly count draws, marks them in a
 *     bitmap, and reading the bitmap back gives the set sorted.  It costs
 *     exists/64 words to clear and scan, so it is used when that is no
 *     more than count.
 *   - Otherwise (a big mailbox, a small set) draws rarely collide: draw
 *     count numbers, sort them (seqpick_fill), drop duplicates, draw what
 *     is missing and again until the set is full.  The result is the
 *     first count distinct values of an i.i.d. uniform sequence, hence a
 *     uniform set. */
#include <string.h>

#include "plan/seqpick.h"

/* x scaled to [0, n): the high half of a 64x32-bit product, no
 * division.  Uniform in [0, n) for a uniform x, to within n / 2^64. */
static inline uint32_t
seqpick_scale(uint64_t x, uint32_t n)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 seqpick_u128;

	return (uint32_t)(((seqpick_u128)x * n) >> 64);
#else
	/* the high 32 bits, the same way: a bias of n / 2^32 at most */
	return (uint32_t)(((x >> 32) * n) >> 32);
#endif
}

/* Uniform in [0, n), n > 0. */
static inline uint32_t
seqpick_below(struct rng *r, uint32_t n)
{
	return seqpick_scale(rng_next(r), n);
}

/* count >= exists: every message, no draw needed. */
static unsigned
seqpick_all(uint32_t exists, uint32_t *out)
{
	for (uint32_t i = 0; i < exists; i++)
		out[i] = i + 1;
	return exists;
}

unsigned
seqpick_floyd(struct rng *r, uint32_t exists, unsigned count, uint32_t *out)
{
	uint64_t bits[SEQPICK_BITMAP_BITS / 64];

	if (count >= exists)
		return seqpick_all(exists, out);
	if (exists > SEQPICK_BITMAP_BITS)
		return seqpick_redraw(r, exists, count, out);

	size_t words = (exists + 63) / 64;
	memset(bits, 0, words * sizeof(*bits));
	/* Numbers 0-based here.  Each round adds one new member: a draw in
	 * [0, j], or j itself (never drawn before) if the draw is taken. */
	for (uint32_t j = exists - count; j < exists; j++) {
		uint32_t t = seqpick_below(r, j + 1);
		if ((bits[t / 64] >> (t % 64)) & 1)
			t = j;
		bits[t / 64] |= 1ull << (t % 64);
	}
	unsigned n = 0;
	for (size_t w = 0; w < words; w++)
		for (uint64_t b = bits[w]; b != 0; b &= b - 1)
			out[n++] = (uint32_t)(w * 64) +
				   (uint32_t)__builtin_ctzll(b) + 1;
	return n;
}

/* Shell sort with Ciura's gaps: no recursion, no allocation.  Used on
 * arrays already sorted but for a few entries, where each pass is a
 * predictable walk, and for sets too big for seqpick_fill. */
static void
seqpick_sort(uint32_t *a, unsigned n)
{
	static const unsigned gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };

	for (unsigned g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		unsigned gap = gaps[g];
		for (unsigned i = gap; i < n; i++) {
			uint32_t v = a[i];
			unsigned j = i;
			for (; j >= gap && a[j - gap] > v; j -= gap)
				a[j] = a[j - gap];
			a[j] = v;
		}
	}
}

#define SEQPICK_BUCKETS_MAX	256u

/* count uniform draws in 1..exists, sorted (duplicates possible).  A
 * comparison sort of random data mispredicts a branch every other step;
 * instead each draw also goes to one of count buckets by the same random
 * word (value and bucket both grow with the word, so the buckets are in
 * value order), and the insertion sort left has about one entry per
 * bucket to order. */
static void
seqpick_fill(struct rng *r, uint32_t exists, unsigned count, uint32_t *out)
{
	uint32_t val[SEQPICK_BUCKETS_MAX];
	uint16_t bucket[SEQPICK_BUCKETS_MAX];
	uint16_t start[SEQPICK_BUCKETS_MAX + 1];

	if (count > SEQPICK_BUCKETS_MAX) {
		for (unsigned i = 0; i < count; i++)
			out[i] = 1 + seqpick_below(r, exists);
		seqpick_sort(out, count);
		return;
	}
	memset(start, 0, (count + 1) * sizeof(*start));
	for (unsigned i = 0; i < count; i++) {
		uint64_t x = rng_next(r);
		val[i] = 1 + seqpick_scale(x, exists);
		bucket[i] = (uint16_t)seqpick_scale(x, count);
		start[bucket[i] + 1]++;
	}
	for (unsigned b = 1; b < count; b++)
		start[b] = (uint16_t)(start[b] + start[b - 1]);
	for (unsigned i = 0; i < count; i++)
		out[start[bucket[i]]++] = val[i];
	for (unsigned i = 1; i < count; i++) {
		uint32_t v = out[i];
		unsigned j = i;
		for (; j > 0 && out[j - 1] > v; j--)
			out[j] = out[j - 1];
		out[j] = v;
	}
}

/* Drop repeats from the sorted a[0..n), n > 0; returns how many are
 * left. */
static unsigned
seqpick_dedup(uint32_t *a, unsigned n)
{
	unsigned k = 1;

	for (unsigned i = 1; i < n; i++)
		if (a[i] != a[k - 1])
			a[k++] = a[i];
	return k;
}

unsigned
seqpick_redraw(struct rng *r, uint32_t exists, unsigned count, uint32_t *out)
{
	if (count >= exists)
		return seqpick_all(exists, out);
	if (count == 0)
		return 0;
	seqpick_fill(r, exists, count, out);
	unsigned n = seqpick_dedup(out, count);
	while (n < count) {
		for (unsigned i = n; i < count; i++)
			out[i] = 1 + seqpick_below(r, exists);
		seqpick_sort(out, count);
		n = seqpick_dedup(out, count);
	}
	return n;
}

unsigned
seqpick_draw(struct rng *r, uint32_t exists, unsigned count, uint32_t *out)
{
	if (count >= exists)
		return seqpick_all(exists, out);
	if (exists <= SEQPICK_BITMAP_BITS && exists / 64 <= count)
		return seqpick_floyd(r, exists, count, out);
	return seqpick_redraw(r, exists, count, out);
}
