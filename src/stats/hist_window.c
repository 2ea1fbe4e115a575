/* hist_window.c: the reader's side of a writer's published copies
 * (stats_pub.c).  A copy made by hist_refresh carries the cells its
 * interval changed (dirty and the group's `now` masks, which a copy
 * otherwise never uses), so the reader adds to the current window only
 * those cells: O(cells changed since the last copy), not O(cells held).
 * The run's total is the sum of the copies last taken, made only when
 * someone needs it (hist_merge).  The counts of a live histogram only
 * grow (it is never reset), so every difference is >= 0 and the windows
 * come out exactly as summing whole copies and subtracting the last
 * second's sum would (hist_merge, hist_diff). */
#include <stdatomic.h>
#include <stdint.h>

#include "stats/hist.h"
#include "stats/hist_int.h"

/* win's buckets += now - before, over the cells now's refresh found
 * changed.  now and before are a writer's two copies, now the newer
 * (see hist.h); both stay still while this reads them. */
void
hist_add_changes(struct hist *win, const struct hist *now,
		 const struct hist *before)
{
	uint64_t total = 0;
	for (unsigned w = 0; w < HIST_WORDS; w++) {
		uint64_t bits = now->dirty[w];
		if (bits == 0)
			continue;
		const struct hist_cells *m = group_cells(atomic_load_explicit(
		    &((struct hist *)now)->group[w], memory_order_relaxed));
		while (bits) {
			unsigned bit = (unsigned)__builtin_ctzll(bits);
			unsigned block = w * 64 + bit;
			bits &= bits - 1;
			struct bview nv, bv;
			view(now, block, &nv);
			view(before, block, &bv);
			uint64_t seen = 0;
			for (unsigned c = 0; c < HIST_CELLS; c++) {
				const hist_ctr *nc = nv.cell[c], *bc = bv.cell[c];
				if (!(m->now[bit] & (1u << c)) || nc == NULL)
					continue;
				hist_ctr *wc = NULL;
				for (unsigned k = 0; k < HIST_CELL; k++) {
					uint64_t n = get(&nc[k]);
					uint64_t nb = bc != NULL ? get(&bc[k]) : 0;
					if (n <= nb)
						continue;
					if (wc == NULL)
						wc = hist_bucket_need(win, block * HIST_BLOCK +
								 c * HIST_CELL);
					put(&wc[k], get(&wc[k]) + (n - nb));
					seen += n - nb;
				}
			}
			if (seen != 0)
				mark_block(win, block);
			total += seen;
		}
	}
	if (total == 0)
		return;
	uint64_t nsum = get(&now->sum), bsum = get(&before->sum);
	put(&win->count, get(&win->count) + total);
	put(&win->sum, get(&win->sum) + (nsum > bsum ? nsum - bsum : 0));
}

/* The lowest (first) or highest non-zero bucket of h, which holds one. */
static unsigned
edge_bucket(const struct hist *h, bool first)
{
	for (unsigned i = 0; i < HIST_WORDS; i++) {
		unsigned w = first ? i : HIST_WORDS - 1 - i;
		uint64_t bits = get(&h->used[w]);
		if (bits == 0)
			continue;
		unsigned block = w * 64 + (first ? (unsigned)__builtin_ctzll(bits) :
					   63u - (unsigned)__builtin_clzll(bits));
		struct bview v;
		view(h, block, &v);
		for (unsigned k = 0; k < HIST_BLOCK; k++) {
			unsigned kk = first ? k : HIST_BLOCK - 1 - k;
			if (vget(&v, kk) != 0)
				return block * HIST_BLOCK + kk;
		}
	}
	return 0;
}

/* win's extremes once every copy of the window is added: those
 * hist_diff(cum, cum as it was before the window) gives, for cum a sum
 * of `count` samples between amin and amax, the window's included. */
void
hist_window_end(struct hist *win, uint64_t count, uint64_t amin, uint64_t amax)
{
	uint64_t total = get(&win->count);
	if (total == 0) {
		put(&win->sum, 0);
		put(&win->min, UINT64_MAX);
		put(&win->max, 0);
		return;
	}
	bool all = count == total;	/* cum held nothing before */
	set_window_extremes(win, all, amin, amax,
			    all ? 0 : edge_bucket(win, true),
			    all ? 0 : edge_bucket(win, false));
}
