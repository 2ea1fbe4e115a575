/* learn_sizes.c: the sizes of the messages a log shows, as the buckets
 * --msg-sizes takes.  A bucket stands for the sizes nearest one power of
 * two (log scale) and is their mean, so a log of messages of a few fixed
 * sizes (an imapstress --msg-sizes run) gives those sizes back exactly,
 * and real mail gives one bucket per octave, each at its own mean. */
#include <math.h>
#include <string.h>

#include "learn/learn_int.h"
#include "msg/msg_sizes.h"

/* The classes the buckets may take: MSG_SIZES_MIN_SIZE (2^9) to
 * MSG_SIZES_MAX_SIZE (2^30); sizes beyond go to the end classes. */
#define CLASS_MIN 9
#define CLASS_MAX 30

static unsigned
size_class(uint64_t v)
{
	unsigned k = 0;

	while (k + 1 < 64 && (v >> (k + 1)) != 0)
		k++;
	/* v in [2^k, 2^(k+1)): nearer 2^(k+1) in log scale from
	 * 2^(k+1/2) on, i.e. when v^2 >= 2^(2k+1). */
	if ((double)v * (double)v >= ldexp(1.0, 2 * (int)k + 1))
		k++;
	return k < CLASS_MIN ? CLASS_MIN : k > CLASS_MAX ? CLASS_MAX : k;
}

void
learn_size_add(struct lhist *h, struct lsizes *c, uint64_t size)
{
	unsigned k = size_class(size);

	lhist_add(h, (double)size);
	c->n[k]++;
	c->sum[k] += (double)size;
	c->total++;
}

int
learn_sizes_spec(const struct lsizes *c, struct msg_sizes *out)
{
	unsigned pct[LHIST_BUCKETS] = { 0 }, given = 0;
	double rem[LHIST_BUCKETS] = { 0 };

	memset(out, 0, sizeof(*out));
	if (c->total == 0)
		return -1;
	/* Percent by largest remainder: the weights sum to 100. */
	for (unsigned k = 0; k < LHIST_BUCKETS; k++) {
		double exact = 100.0 * (double)c->n[k] / (double)c->total;
		pct[k] = (unsigned)exact;
		rem[k] = exact - pct[k];
		given += pct[k];
	}
	while (given < 100) {
		unsigned best = 0;
		for (unsigned k = 1; k < LHIST_BUCKETS; k++)
			if (rem[k] > rem[best])
				best = k;
		pct[best]++;
		rem[best] = -1;
		given++;
	}
	for (unsigned k = 0; k < LHIST_BUCKETS && out->n < MSG_SIZES_MAX; k++) {
		if (pct[k] == 0)
			continue;
		double mean = c->sum[k] / (double)c->n[k];
		uint64_t v = (uint64_t)(mean + 0.5);
		out->size[out->n] = v < MSG_SIZES_MIN_SIZE ? MSG_SIZES_MIN_SIZE :
		    v > MSG_SIZES_MAX_SIZE ? MSG_SIZES_MAX_SIZE : v;
		out->weight[out->n] = pct[k];
		out->cum[out->n] = (out->n ? out->cum[out->n - 1] : 0) + pct[k];
		out->n++;
	}
	return out->n ? 0 : -1;
}

int
learn_sizes_of(const struct learn *l, char *spec, size_t len)
{
	struct msg_sizes s;
	const struct lsizes *c = l->append_sz.total ? &l->append_sz :
	    &l->fetch_sz;

	if (learn_sizes_spec(c, &s) < 0)
		return -1;
	msg_sizes_format(&s, spec, len);
	return 0;
}
