/* hist_check.h: assertions on histograms shared by the out/ suites. */
#ifndef IMAPSTRESS_TEST_HIST_CHECK_H
#define IMAPSTRESS_TEST_HIST_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <check.h>

#include "stats/hist.h"

/* The same count in every bucket (and so the same count in all). */
static inline void
ck_hist_buckets_same(const struct hist *a, const struct hist *b)
{
	unsigned i = 0, j = 0;
	uint64_t ca, cb;

	ck_assert_uint_eq(hist_count(a), hist_count(b));
	for (;;) {
		bool ha = hist_next_bucket(a, &i, &ca);
		bool hb = hist_next_bucket(b, &j, &cb);
		ck_assert(ha == hb);
		if (!ha)
			break;
		ck_assert_uint_eq(i, j);
		ck_assert_uint_eq(ca, cb);
		i++;
		j++;
	}
}

/* The same buckets and the same exact sum, min and max. */
static inline void
ck_hist_same(const struct hist *a, const struct hist *b)
{
	ck_assert_uint_eq(hist_sum(a), hist_sum(b));
	ck_assert_uint_eq(hist_min(a), hist_min(b));
	ck_assert_uint_eq(hist_max(a), hist_max(b));
	ck_hist_buckets_same(a, b);
}

/* Deterministic xorshift64*, so failures reproduce. */
static inline uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Roughly log-uniform over 1 .. 2^max_bits, so every octave is hit. */
static inline uint64_t
rng_latency(uint64_t *s, unsigned max_bits)
{
	uint64_t r = rng_next(s);
	unsigned bits = (unsigned)(r % max_bits) + 1;
	return (rng_next(s) & ((1ull << bits) - 1)) + 1;
}

/* Two histograms have identical buckets iff neither exceeds the other
 * anywhere; hist_diff saturates at zero, so each diff must be empty. */
static inline bool
same_buckets(const struct hist *a, const struct hist *b)
{
	struct hist *t = hist_new();
	hist_diff(t, a, b);
	uint64_t ab = hist_count(t);
	hist_diff(t, b, a);
	uint64_t ba = hist_count(t);
	hist_free(t);
	return ab == 0 && ba == 0;
}


#endif
