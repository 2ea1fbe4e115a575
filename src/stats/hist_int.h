/* hist_int.h: the histogram's layout, shared by hist.c (writing, merging)
 * and hist_read.c (percentiles, export, loading); see hist.c for why it
 * is laid out this way.  Nothing outside those two includes it. */
#ifndef IMAPSTRESS_HIST_INT_H
#define IMAPSTRESS_HIST_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats/hist.h"

#define HIST_SUB_BITS 10			/* 1024 buckets per octave */
#define HIST_SUB_HALF (1u << HIST_SUB_BITS)
#define HIST_EXACT (2u * HIST_SUB_HALF)		/* values below are exact */
#define HIST_TOP_INDEX 23220u			/* hist_index(HIST_MAX_US) */
#define HIST_BLOCK 64u
#define HIST_BLOCKS ((HIST_TOP_INDEX + HIST_BLOCK) / HIST_BLOCK)
#define HIST_BUCKETS (HIST_BLOCKS * HIST_BLOCK)
#define HIST_WORDS ((HIST_BLOCKS + 63) / 64)

typedef _Atomic uint64_t hist_ctr;
#define HIST_CELL 8u				/* buckets per allocation */
#define HIST_CELLS (HIST_BLOCK / HIST_CELL)

struct hist_block {
	hist_ctr *_Atomic cell[HIST_CELLS];	/* HIST_CELL counters, or NULL */
};
typedef struct hist_block *_Atomic hist_slot;

/* Cells and blocks are both 64-byte pieces, carved by the writer from
 * chunks of 8 up to 64 pieces that the histogram owns (malloc's 16 bytes
 * a piece would add a quarter). */
#define HIST_PIECE 64u
struct hist_chunk {
	struct hist_chunk *next;
	unsigned used, cap;		/* pieces */
	unsigned char piece[];		/* cap * HIST_PIECE bytes */
};

struct hist {
	hist_ctr count, sum;
	hist_ctr min;		/* UINT64_MAX while empty */
	hist_ctr max;
	hist_ctr used[HIST_WORDS];	/* one bit per block with data */
	/* The writer's own, never read by another thread: blocks it
	 * changed since the last hist_refresh, and in the one before.  In
	 * a copy hist_refresh writes (which nothing records into), `dirty`
	 * and the cells' `now` say instead what that refresh changed, for
	 * the reader the copy is handed to (hist_add_changes). */
	uint64_t dirty[HIST_WORDS], dirty_prev[HIST_WORDS];
	/* Block b's pointer is group[b / 64][b % 64]: a group's 64 slots
	 * are allocated with its first block, so a histogram of a few
	 * octaves holds two or three 512-byte groups, not 363 slots.  Behind
	 * the slots, the writer's own cell masks (struct hist_cells). */
	hist_slot *_Atomic group[HIST_WORDS];
	struct hist_chunk *chunks;	/* the writer's own; newest first */
	/* The writer's too: a word of its own that every change sets `bit`
	 * in (hist_watch), or NULL. */
	uint64_t *watch, watch_bit;
};

/* After a group's 64 slots: for each of its blocks, the cells the writer
 * changed since the last hist_refresh (bit c: cell c) and in the one
 * before, as `dirty` and `dirty_prev` are for blocks.  Never read by
 * another thread; a refresh copies only these cells. */
struct hist_cells {
	uint8_t now[64], prev[64];
};
#define HIST_GROUP_BYTES (64 * sizeof(hist_slot) + sizeof(struct hist_cells))

static inline struct hist_cells *
group_cells(hist_slot *t)
{
	return (struct hist_cells *)(void *)(t + 64);
}

_Static_assert(sizeof(struct hist_block) == HIST_PIECE &&
	       HIST_CELL * sizeof(hist_ctr) == HIST_PIECE,
	       "cells and blocks are pieces");

_Static_assert(sizeof(struct hist) < 256, "an empty hist stays small");
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

/* A block's cells for reading (NULL: never written, all zero). */
struct bview {
	hist_ctr *cell[HIST_CELLS];
};

/* Fills v; false when the block holds no cell at all. */
static inline bool
view(const struct hist *h, unsigned block, struct bview *v)
{
	hist_slot *t = atomic_load_explicit(&((struct hist *)h)->group[block / 64],
					    memory_order_acquire);
	struct hist_block *b = t == NULL ? NULL :
	    atomic_load_explicit(&t[block % 64], memory_order_acquire);
	bool any = false;
	for (unsigned c = 0; c < HIST_CELLS; c++) {
		v->cell[c] = b == NULL ? NULL :
		    atomic_load_explicit(&b->cell[c], memory_order_acquire);
		any |= v->cell[c] != NULL;
	}
	return any;
}

static inline uint64_t
vget(const struct bview *v, unsigned k)
{
	const hist_ctr *c = v->cell[k / HIST_CELL];
	return c == NULL ? 0 : get(&c[k % HIST_CELL]);
}

/* A window's extremes (hist_diff, hist_window_end), for a window of the
 * samples of a sum with extremes amin..amax: all of them (`all`), whose
 * extremes are exact; or some, known only to their lowest and highest
 * buckets lo..hi, which the sum's own extremes bound. */
static inline void
set_window_extremes(struct hist *dst, bool all, uint64_t amin, uint64_t amax,
		    unsigned lo, unsigned hi)
{
	uint64_t mn = amin, mx = amax;
	if (!all) {
		mn = hist_low(lo);
		mx = hist_high(hi);
		if (mn < amin)
			mn = amin;
		if (mx > amax)
			mx = amax;
		if (mn > mx)
			mn = mx;
	}
	put(&dst->min, mn);
	put(&dst->max, mx);
}

/* Bucket j's counter for h's single writer, allocating (zeroed) the
 * table, block and cell that hold it when they are missing (hist.c). */
hist_ctr *hist_bucket_need(struct hist *h, unsigned j);

static inline void
mark_block(struct hist *h, unsigned block)
{
	hist_ctr *w = &h->used[block / 64];
	uint64_t bit = 1ull << (block % 64);
	uint64_t old = get(w);
	if (!(old & bit))
		put(w, old | bit);
}

#endif
