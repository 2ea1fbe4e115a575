/* hist.c: log-linear histogram.  Values below 2048 get one bucket each;
 * above that every power of two [2^k, 2^(k+1)) is cut into 1024 equal
 * buckets of width 2^(k-10), so a bucket is never wider than 1/1024 of
 * the values in it.  Up to HIST_MAX_US (< 2^32) that is 23221 buckets,
 * rounded up to whole 64-bucket blocks.
 *
 * Every bucket is non-zero only inside a block whose bit is set in
 * `used`.  Counters are allocated in cells of 8 buckets the first time a
 * count in one is written (a block holds the pointers to its 8 cells, a
 * group of 64 blocks their pointers, each allocated on first use too), so
 * an empty histogram is a couple of hundred bytes.  A run keeps some two
 * hundred histograms (every op, in every shard, published copy and
 * snapshot); most stay empty, and the rest are sparse: a few hundred
 * latencies of a mix against a real server spread over many octaves, about
 * one count per 64-bucket block, so cells of 8 hold them in a quarter of
 * the memory whole blocks would.  Storage once allocated stays until
 * hist_free; a reset zeroes it.  The writer publishes each new piece with
 * a release store after zeroing it, so a reader that finds a pointer
 * finds zeros or counts, and one that finds NULL reads zeros.
 *  The writer sets a block's bit when one of its buckets leaves
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

#include "stats/hist.h"
#include "stats/hist_int.h"
#include "util/xmalloc.h"

/* A zeroed piece from h's newest chunk, or from a new one twice its
 * size (at most 4 KB, so a histogram wastes at most that). */
static void *
piece_new(struct hist *h)
{
	struct hist_chunk *c = h->chunks;
	if (c == NULL || c->used == c->cap) {
		unsigned cap = c == NULL ? 8 : c->cap >= 32 ? 64 : 2 * c->cap;
		struct hist_chunk *n = xcalloc(1, sizeof(*n) +
					       (size_t)cap * HIST_PIECE);
		n->next = c;
		n->cap = cap;
		h->chunks = c = n;
	}
	return c->piece + (size_t)HIST_PIECE * c->used++;
}

/* See hist_int.h.  Each piece is zeroed before the release store that
 * makes it visible to readers. */
hist_ctr *
hist_bucket_need(struct hist *h, unsigned j)
{
	unsigned block = j / HIST_BLOCK;
	hist_slot *_Atomic *g = &h->group[block / 64];
	hist_slot *t = atomic_load_explicit(g, memory_order_relaxed);
	if (t == NULL) {
		t = xcalloc(1, HIST_GROUP_BYTES);
		atomic_store_explicit(g, t, memory_order_release);
	}
	struct hist_block *b = atomic_load_explicit(&t[block % 64],
						    memory_order_relaxed);
	if (b == NULL) {
		b = piece_new(h);
		atomic_store_explicit(&t[block % 64], b, memory_order_release);
	}
	hist_ctr *_Atomic *slot = &b->cell[j % HIST_BLOCK / HIST_CELL];
	hist_ctr *c = atomic_load_explicit(slot, memory_order_relaxed);
	if (c == NULL) {
		c = piece_new(h);
		atomic_store_explicit(slot, c, memory_order_release);
	}
	return &c[j % HIST_CELL];
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
	if (h == NULL)
		return;
	for (unsigned g = 0; g < HIST_WORDS; g++)
		free(atomic_load_explicit(&h->group[g], memory_order_relaxed));
	while (h->chunks != NULL) {
		struct hist_chunk *c = h->chunks;
		h->chunks = c->next;
		free(c);
	}
	free(h);
}

size_t
hist_bytes(const struct hist *h)
{
	size_t n = sizeof(*h);
	for (unsigned block = 0; block < HIST_BLOCKS; block++) {
		hist_slot *t = atomic_load_explicit(
		    &((struct hist *)h)->group[block / 64], memory_order_acquire);
		if (t == NULL)
			continue;
		if (block % 64 == 0)
			n += HIST_GROUP_BYTES;
		if (atomic_load_explicit(&t[block % 64], memory_order_acquire) == NULL)
			continue;
		struct bview v;
		n += sizeof(struct hist_block);
		view(h, block, &v);
		for (unsigned c = 0; c < HIST_CELLS; c++)
			if (v.cell[c] != NULL)
				n += HIST_CELL * sizeof(hist_ctr);
	}
	return n;
}

/* Zero one block of the writer's own histogram (it may be missing). */
static void
clear_block(struct hist *h, unsigned block)
{
	struct bview v;
	view(h, block, &v);
	for (unsigned c = 0; c < HIST_CELLS; c++)
		if (v.cell[c] != NULL)
			memset((void *)v.cell[c], 0, HIST_CELL * sizeof(hist_ctr));
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
hist_watch(struct hist *h, uint64_t *word, uint64_t bit)
{
	h->watch = word;
	h->watch_bit = bit;
	if (word != NULL)
		*word |= bit;	/* what came before the watch is unknown */
}

static inline void
tell_watch(struct hist *h)
{
	if (h->watch != NULL)
		*h->watch |= h->watch_bit;
}

/* The writer's: bucket j's block and cell changed (its group exists). */
static inline void
mark_dirty(struct hist *h, unsigned j)
{
	unsigned block = j / HIST_BLOCK;
	hist_slot *t = atomic_load_explicit(&h->group[block / 64],
					    memory_order_relaxed);
	group_cells(t)->now[block % 64] |= (uint8_t)(1u << (j % HIST_BLOCK / HIST_CELL));
	h->dirty[block / 64] |= 1ull << (block % 64);
}

void
hist_reset(struct hist *h)
{
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&h->used[w]);
		h->dirty[w] |= bits;
		while (bits) {
			unsigned block = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			clear_block(h, block);
			hist_slot *t = atomic_load_explicit(&h->group[w],
							    memory_order_relaxed);
			if (t != NULL)
				group_cells(t)->now[block % 64] = 0xff;
		}
		put(&h->used[w], 0);
	}
	clear_scalars(h);
	tell_watch(h);
}

void
hist_record_n(struct hist *h, uint64_t us, uint64_t n)
{
	if (n == 0)
		return;
	if (us > HIST_MAX_US)
		us = HIST_MAX_US;
	unsigned i = hist_index(us);
	hist_ctr *p = hist_bucket_need(h, i);
	uint64_t c = get(p);
	put(p, c + n);
	if (c == 0)
		mark_block(h, i / HIST_BLOCK);
	mark_dirty(h, i);
	tell_watch(h);
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

/* Cell by cell: a missing cell of src is skipped whole, and dst's cell
 * is found (or allocated) once per cell that holds a count, not once per
 * bucket. */
void
hist_merge(struct hist *dst, const struct hist *src)
{
	uint64_t total = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = get(&src->used[w]);
		while (bits) {
			unsigned block = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			struct bview sv;
			if (!view(src, block, &sv))
				continue;
			uint64_t seen = 0;
			for (unsigned c = 0; c < HIST_CELLS; c++) {
				const hist_ctr *sc = sv.cell[c];
				if (sc == NULL)
					continue;
				hist_ctr *dc = NULL;
				for (unsigned k = 0; k < HIST_CELL; k++) {
					uint64_t n = get(&sc[k]);
					if (n == 0)
						continue;
					if (dc == NULL)
						dc = hist_bucket_need(dst, block * HIST_BLOCK +
								 c * HIST_CELL);
					put(&dc[k], get(&dc[k]) + n);
					seen += n;
				}
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
 * are left at zero.  With b == NULL this is a copy.  A block of dst is
 * allocated only for a count that is not zero: a window (cum - prev)
 * holds the blocks that changed, not every block of the run. */
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
			unsigned block = w * 64 + bit;
			if (!(abits & (1ull << bit))) {
				clear_block(dst, block);
				continue;
			}
			struct bview av, bv, dv;
			view(a, block, &av);
			if (b != NULL)
				view(b, block, &bv);
			view(dst, block, &dv);
			uint64_t seen = 0;
			for (unsigned c = 0; c < HIST_CELLS; c++) {
				const hist_ctr *ac = av.cell[c];
				const hist_ctr *bc = b != NULL ? bv.cell[c] : NULL;
				hist_ctr *dc = dv.cell[c];
				unsigned j0 = block * HIST_BLOCK + c * HIST_CELL;
				if (ac == NULL) {
					/* a holds no count here: nor does dst */
					if (dc != NULL)
						memset((void *)dc, 0,
						       HIST_CELL * sizeof(hist_ctr));
					continue;
				}
				for (unsigned k = 0; k < HIST_CELL; k++) {
					uint64_t n = get(&ac[k]);
					uint64_t nb = bc != NULL ? get(&bc[k]) : 0;
					n = n > nb ? n - nb : 0;
					if (dc != NULL) {
						put(&dc[k], n);
					} else if (n != 0) {
						dc = hist_bucket_need(dst, j0);
						put(&dc[k], n);
					}
					if (n != 0) {
						if (j0 + k < *lo)
							*lo = j0 + k;
						*hi = j0 + k;
					}
					seen += n;
				}
			}
			if (seen != 0)
				out |= 1ull << bit;
			total += seen;
		}
		put(&dst->used[w], out);
	}
	return total;
}

/* Only the cells changed in the last two intervals: dst, one of two
 * copies refreshed in turn, last saw src two refreshes ago. */
void
hist_refresh(struct hist *dst, struct hist *src)
{
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = src->dirty_prev[w] | src->dirty[w];
		uint64_t carried = 0;
		struct hist_cells *m = bits == 0 ? NULL : group_cells(
		    atomic_load_explicit(&src->group[w], memory_order_relaxed));
		while (bits) {
			unsigned bit = (unsigned)__builtin_ctzll(bits);
			unsigned block = w * 64 + bit;
			bits &= bits - 1;
			unsigned latest = m->now[bit];
			unsigned cells = latest | m->prev[bit];
			m->prev[bit] = m->now[bit];
			m->now[bit] = 0;
			struct bview sv, dv;
			view(src, block, &sv);
			view(dst, block, &dv);
			for (unsigned c = 0; c < HIST_CELLS; c++) {
				const hist_ctr *sc = sv.cell[c];
				hist_ctr *dc = dv.cell[c];
				if (!(cells & (1u << c)) || sc == NULL)
					continue;	/* unchanged, or never held a count */
				if (dc == NULL)
					dc = hist_bucket_need(dst, block * HIST_BLOCK +
							 c * HIST_CELL);
				for (unsigned k = 0; k < HIST_CELL; k++)
					put(&dc[k], get(&sc[k]));
			}
			/* what this interval changed, for dst's reader
			 * (hist_add_changes); a cell with no count has no
			 * change to tell, so a missing group has none */
			hist_slot *dt = atomic_load_explicit(&dst->group[w],
							     memory_order_relaxed);
			if (latest != 0 && dt != NULL) {
				group_cells(dt)->now[bit] = (uint8_t)latest;
				carried |= 1ull << bit;
			}
		}
		dst->dirty[w] = carried;
		put(&dst->used[w], get(&src->used[w]));
		src->dirty_prev[w] = src->dirty[w];
		src->dirty[w] = 0;
	}
	put(&dst->count, get(&src->count));
	put(&dst->sum, get(&src->sum));
	put(&dst->min, get(&src->min));
	put(&dst->max, get(&src->max));
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
	set_window_extremes(dst, b_empty, amin, amax, lo, hi);
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
