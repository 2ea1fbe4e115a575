/* seqpick.h: a uniformly random set of distinct message sequence numbers,
 * sorted ascending, for the commands that name several messages (FETCH,
 * STORE, ...).  Pure: the randomness comes from the caller's struct rng.
 *
 * In a FETCH-heavy run this is called for every command, so it avoids the
 * quadratic insertion of the first version: a bitmap (Floyd's algorithm)
 * when the mailbox is small next to the set, draws sorted and deduplicated
 * otherwise. */
#ifndef IMAPSTRESS_SEQPICK_H
#define IMAPSTRESS_SEQPICK_H

#include <stdint.h>

#include "util/rng.h"

/* Largest mailbox seqpick_floyd handles (its bitmap lives on the stack). */
#define SEQPICK_BITMAP_BITS	8192u

/* Writes min(count, exists) distinct numbers in 1..exists to out, sorted
 * ascending, every such set equally likely, and returns how many.  When
 * count >= exists that is all of 1..exists, with no draw.  out holds
 * count entries. */
unsigned seqpick_draw(struct rng *r, uint32_t exists, unsigned count,
		      uint32_t *out);

/* The two methods seqpick_draw chooses between, exposed so that the tests
 * can check each whatever the sizes.  Same contract as seqpick_draw;
 * seqpick_floyd is meant for exists <= SEQPICK_BITMAP_BITS (beyond, it
 * hands over to seqpick_redraw). */
unsigned seqpick_floyd(struct rng *r, uint32_t exists, unsigned count,
		       uint32_t *out);
unsigned seqpick_redraw(struct rng *r, uint32_t exists, unsigned count,
			uint32_t *out);

#endif
