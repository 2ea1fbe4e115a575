/* rng.h: a small per-connection PRNG (splitmix64).  Each connection owns
 * one, seeded from seed= and its slot, so a run with seed= is repeatable
 * per connection and no thread shares random state. */
#ifndef IMAPSTRESS_RNG_H
#define IMAPSTRESS_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

static inline uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0.  The modulo bias is below 2^-32 for the
 * small n used here. */
static inline uint32_t
rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

/* True with probability pct percent, like imaptest's rand() % 100 < pct. */
static inline int
rng_pct(struct rng *r, int pct)
{
	/* 0 and 100 need no draw (the plan walk asks for every state). */
	if (pct <= 0)
		return 0;
	if (pct >= 100)
		return 1;
	return (int)rng_below(r, 100) < pct;
}

/* Uniform in [0, 1), 53 random bits. */
static inline double
rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static inline void
rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	(void)rng_next(r);
}

#endif
