/* msg_sizes.h: a message size distribution, --msg-sizes SPEC: weighted
 * buckets "SIZE:WEIGHT,..." (say 1k:30,4k:40,32k:20,256k:10).  A bucket's
 * SIZE is the size of a message as sent and stored (msg_wire_len: the
 * marker and Message-ID lines included), so that what `imapstress learn`
 * measures in a log (APPEND literals, RFC822.SIZE) is the same quantity
 * and a learned distribution runs as it was seen.  WEIGHTs are relative
 * (they need not sum to 100).  The generator fills a pool with messages of
 * exactly each bucket's size; a send draws the bucket by weight from the
 * cumulative table (msg_sizes_draw, a few compares), then a message. */
#ifndef IMAPSTRESS_MSG_SIZES_H
#define IMAPSTRESS_MSG_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

#define MSG_SIZES_MAX		16
/* The generator's smallest message with its marker and Message-ID. */
#define MSG_SIZES_MIN_SIZE	512
#define MSG_SIZES_MAX_SIZE	(1ULL << 30)
#define MSG_SIZES_MAX_WEIGHT	1000000

struct msg_sizes {
	unsigned n;			/* buckets; 0: no distribution */
	uint64_t size[MSG_SIZES_MAX];	/* ascending, octets as stored */
	uint32_t weight[MSG_SIZES_MAX];
	uint32_t cum[MSG_SIZES_MAX];	/* weight[0] + ... + weight[i] */
};

/* Parse SPEC into out (buckets sorted by size).  0, or -1 with why saying
 * which item is bad and how ("item 2 '4x:40': size: unknown unit 'x'"). */
int msg_sizes_parse(const char *spec, struct msg_sizes *out, char *why,
		    size_t whylen);

/* The canonical SPEC ("1k:30,4k:40"): what msg_sizes_parse reads back to
 * the same buckets.  The length written (as snprintf). */
int msg_sizes_format(const struct msg_sizes *s, char *out, size_t len);

/* The distribution's mean in octets. */
double msg_sizes_mean(const struct msg_sizes *s);

/* A bucket drawn by weight: one draw of r, n <= 16 compares. */
static inline unsigned
msg_sizes_draw(const struct msg_sizes *s, struct rng *r)
{
	uint32_t x = rng_below(r, s->cum[s->n - 1]);
	unsigned b = 0;

	while (x >= s->cum[b])
		b++;
	return b;
}

#endif
