/* stats_pub.c: see stats_pub.h.  The copies are struct stats, whose
 * counters and histogram buckets are relaxed atomics, so a reader racing
 * a rewrite of a counters copy reads stale or mixed values (which the
 * sequence check then throws away) but never has a data race.
 *
 * The counters (a few KB, in a row) are copied ten times a second; the
 * histograms only when the reader asks (once a second), and then only
 * those that changed: the live shard's histograms each set a bit of the
 * writer's `changed` words when written (hist_watch), so a publish reads
 * none of the rest, which are most of them (a run uses a few of its ~60
 * histograms).  The reader in turn adds only what each copy changed
 * (hist_add_changes), so neither side walks all the cells a long run
 * holds.  A run that reads no second's histograms asks for none each
 * second and for whole copies where its totals need them (enum
 * stats_pub_hists). */
#include <stdatomic.h>
#include <stdlib.h>

#include "stats/actions.h"
#include "stats/stats_pub.h"
#include "util/xmalloc.h"

struct pub_buf {
	_Atomic uint64_t seq;	/* odd while the worker rewrites it */
	struct stats *s;
};

/* Every histogram of a shard, in one fixed order: the bit of hist i is
 * bit i % 64 of word i / 64. */
#define PUB_N_HISTS (OP_COUNT + 2 + ACT_N_HISTS)
#define PUB_WORDS ((PUB_N_HISTS + 63) / 64)

/* The worker's own, in its own allocation so that the bits it sets per
 * command never share a cache line with what the reader reads. */
struct pub_writer {
	const struct stats *live;	/* the shard whose histograms we watch */
	uint64_t changed[PUB_WORDS];	/* since the last publish */
	uint64_t changed_prev[PUB_WORDS];	/* in the interval before it */
};

/* The histograms' copies go by a handshake, not a seqlock: the writer
 * makes copy g + 1 only once the reader has taken copy g and asked again
 * (want == taken + 1 > gen), so while the reader takes copy g (reading it
 * and copy g - 1, the other buffer, which it is compared with) neither is
 * written. */
struct hist_chan {
	_Atomic uint64_t gen;		/* writer: copies made */
	_Atomic uint64_t want;		/* reader: the copy it asks for */
	_Atomic uint64_t taken;		/* reader: the last copy it took */
	_Atomic int what;		/* reader: enum stats_pub_hists, before want */
	struct stats *buf[2];		/* copy g lives in buf[g & 1] */
	/* per buffer: the histograms its copy's interval changed (none
	 * unless CHANGES), and whether it holds them at all */
	uint64_t changed[2][PUB_WORDS];
	bool hists[2];
};

struct stats_pub {
	_Atomic uint64_t gen;		/* worker: generations published */
	_Atomic uint64_t read_gen;	/* reader: the one it last read */
	struct pub_buf buf[2];		/* generation g lives in buf[g & 1] */
	struct hist_chan h;
	struct pub_writer *wr;
};

struct stats_pub *
stats_pub_new(void)
{
	struct stats_pub *p = xcalloc(1, sizeof(*p));
	for (int i = 0; i < 2; i++) {
		p->buf[i].s = stats_new();
		p->h.buf[i] = stats_new();
	}
	p->wr = xcalloc(1, sizeof(*p->wr));
	return p;
}

void
stats_pub_free(struct stats_pub *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		stats_free(p->buf[i].s);
		stats_free(p->h.buf[i]);
	}
	free(p->wr);
	free(p);
}

static void
shard_hists(const struct stats *s, struct hist *h[PUB_N_HISTS])
{
	unsigned n = 0;
	for (int i = 0; i < OP_COUNT; i++)
		h[n++] = s->lat[i];
	h[n++] = s->tls_lat;
	h[n++] = s->connect_lat;
	act_stats_hists(&s->act, &h[n]);
}

/* The same histograms of a snapshot, in the same order. */
static void
snap_hists(const struct stats_snap *d, struct hist *h[PUB_N_HISTS])
{
	unsigned n = 0;
	for (int i = 0; i < OP_COUNT; i++)
		h[n++] = d->lat[i];
	h[n++] = d->tls_lat;
	h[n++] = d->connect_lat;
	act_snap_hists(&d->act, &h[n]);
}

/* From the first publish of `live` on: its histograms tell us when they
 * change.  Both buffers are still to be filled, so all count as changed
 * in both intervals. */
static void
watch_shard(struct pub_writer *wr, const struct stats *live)
{
	struct hist *h[PUB_N_HISTS];

	shard_hists(live, h);
	for (unsigned i = 0; i < PUB_N_HISTS; i++)
		hist_watch(h[i], &wr->changed[i / 64], 1ull << (i % 64));
	for (unsigned w = 0; w < PUB_WORDS; w++)
		wr->changed_prev[w] = wr->changed[w];
	wr->live = live;
}

/* d = s for every counter and gauge; d is written by this thread only.
 * s is the live shard: each command's latency sum is its histogram's. */
static void
copy_counts(struct stats *d, const struct stats *s)
{
	for (int i = 0; i < OP_COUNT; i++) {
		ctr_set(&d->ok[i], ctr_get(&s->ok[i]));
		ctr_set(&d->no[i], ctr_get(&s->no[i]));
		ctr_set(&d->bad[i], ctr_get(&s->bad[i]));
		ctr_set(&d->failed[i], ctr_get(&s->failed[i]));
		ctr_set(&d->lat_sum_us[i], hist_sum(s->lat[i]));
	}
#define X(a, n)							\
	for (int k = 0; k < (n); k++) ctr_set(&d->a[k], ctr_get(&s->a[k]));
	STATS_ARRAYS(X)
#undef X
#define X(f) ctr_set(&d->f, ctr_get(&s->f));
	STATS_COUNTERS(X)
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
	act_stats_copy_counts(&d->act, &s->act);
}

/* d's histograms = s's, d the copy refreshed the time before last
 * (hist_refresh).  A histogram that changed in neither interval since
 * d's refresh is the same in both; `changed` gets those of the last. */
static void
copy_hists(struct stats *d, struct stats *s, struct pub_writer *wr,
	   uint64_t changed[PUB_WORDS])
{
	struct hist *hd[PUB_N_HISTS], *hs[PUB_N_HISTS];

	shard_hists(d, hd);
	shard_hists(s, hs);
	for (unsigned w = 0; w < PUB_WORDS; w++) {
		uint64_t bits = wr->changed[w] | wr->changed_prev[w];
		changed[w] = wr->changed[w];
		wr->changed_prev[w] = wr->changed[w];
		wr->changed[w] = 0;
		while (bits) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			hist_refresh(hd[i], hs[i]);
		}
	}
}

/* d's histograms = s's, every cell: O(cells held), for the few copies
 * of a run that reads no window (STATS_PUB_WHOLE). */
static void
copy_all_hists(struct stats *d, const struct stats *s)
{
	struct hist *hd[PUB_N_HISTS], *hs[PUB_N_HISTS];

	shard_hists(d, hd);
	shard_hists(s, hs);
	for (unsigned i = 0; i < PUB_N_HISTS; i++)
		hist_copy(hd[i], hs[i]);
}

void
stats_pub_publish(struct stats_pub *p, struct stats *live)
{
	uint64_t g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
	struct pub_buf *b = &p->buf[g & 1];
	uint64_t seq = atomic_load_explicit(&b->seq, memory_order_relaxed);

	atomic_store_explicit(&b->seq, seq + 1, memory_order_relaxed);
	/* the odd sequence is visible before any rewritten field */
	atomic_thread_fence(memory_order_release);
	copy_counts(b->s, live);
	atomic_store_explicit(&b->seq, seq + 2, memory_order_release);
	atomic_store_explicit(&p->gen, g, memory_order_release);
}

bool
stats_pub_read_all(const struct stats_pub *p)
{
	return atomic_load_explicit(&p->read_gen, memory_order_relaxed) ==
	    atomic_load_explicit(&p->gen, memory_order_relaxed);
}

const struct stats *
stats_pub_read_begin(struct stats_pub *p, struct stats_pub_read *r)
{
	r->gen = atomic_load_explicit(&p->gen, memory_order_acquire);
	if (r->gen == 0)
		return NULL;		/* nothing published yet: all zero */
	struct pub_buf *b = &p->buf[r->gen & 1];
	r->seq = atomic_load_explicit(&b->seq, memory_order_acquire);
	return b->s;
}

bool
stats_pub_read_end(struct stats_pub *p, const struct stats_pub_read *r)
{
	if (r->gen == 0)
		return true;
	/* every field read before the sequence is read again */
	atomic_thread_fence(memory_order_acquire);
	uint64_t seq = atomic_load_explicit(&p->buf[r->gen & 1].seq,
					    memory_order_relaxed);
	if ((r->seq & 1) || seq != r->seq)
		return false;
	atomic_store_explicit(&p->read_gen, r->gen, memory_order_relaxed);
	return true;
}

bool
stats_pub_add_to(struct stats_pub *p, struct stats_snap *d)
{
	struct stats_pub_read r;
	const struct stats *s = stats_pub_read_begin(p, &r);

	if (s != NULL && !(r.seq & 1))
		stats_snap_add_live_counts(d, s);
	return stats_pub_read_end(p, &r);
}

/* ---- the histograms' handshake ---- */

void
stats_pub_ask(struct stats_pub *p, enum stats_pub_hists what)
{
	uint64_t t = atomic_load_explicit(&p->h.taken, memory_order_relaxed);
	atomic_store_explicit(&p->h.what, (int)what, memory_order_relaxed);
	/* release: what the reader read of the copies is before the writer
	 * may rewrite one */
	atomic_store_explicit(&p->h.want, t + 1, memory_order_release);
}

bool
stats_pub_wanted(const struct stats_pub *p)
{
	return atomic_load_explicit(&p->h.want, memory_order_acquire) >
	    atomic_load_explicit(&p->h.gen, memory_order_relaxed);
}

bool
stats_pub_publish_hists(struct stats_pub *p, struct stats *live)
{
	if (!stats_pub_wanted(p))
		return false;
	/* what the reader stored before the want stats_pub_wanted acquired */
	int what = atomic_load_explicit(&p->h.what, memory_order_relaxed);
	uint64_t g = atomic_load_explicit(&p->h.gen, memory_order_relaxed) + 1;
	struct stats *d = p->h.buf[g & 1];

	if (what == STATS_PUB_CHANGES) {
		if (p->wr->live != live)
			watch_shard(p->wr, live);
		copy_hists(d, live, p->wr, p->h.changed[g & 1]);
	} else {
		for (unsigned w = 0; w < PUB_WORDS; w++)
			p->h.changed[g & 1][w] = 0;
		if (what == STATS_PUB_WHOLE)
			copy_all_hists(d, live);
	}
	p->h.hists[g & 1] = what != STATS_PUB_NONE;
	copy_counts(d, live);
	atomic_store_explicit(&p->h.gen, g, memory_order_release);
	return true;
}

bool
stats_pub_ready(const struct stats_pub *p)
{
	return atomic_load_explicit(&p->h.gen, memory_order_acquire) >
	    atomic_load_explicit(&p->h.taken, memory_order_relaxed);
}

void
stats_pub_take(struct stats_pub *p, struct stats_snap *win)
{
	uint64_t g = atomic_load_explicit(&p->h.gen, memory_order_acquire);
	struct hist *hw[PUB_N_HISTS], *hn[PUB_N_HISTS], *hb[PUB_N_HISTS];

	if (g == atomic_load_explicit(&p->h.taken, memory_order_relaxed))
		return;		/* nothing new */
	if (win == NULL) {	/* the counters only */
		atomic_store_explicit(&p->h.taken, g, memory_order_release);
		return;
	}
	snap_hists(win, hw);
	shard_hists(p->h.buf[g & 1], hn);
	shard_hists(p->h.buf[(g - 1) & 1], hb);	/* copy 0: empty */
	for (unsigned w = 0; w < PUB_WORDS; w++) {
		uint64_t bits = p->h.changed[g & 1][w];
		while (bits) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			hist_add_changes(hw[i], hn[i], hb[i]);
		}
	}
	atomic_store_explicit(&p->h.taken, g, memory_order_release);
}

/* The copy last taken, or NULL before the first. */
static const struct stats *
taken_copy(const struct stats_pub *p)
{
	uint64_t t = atomic_load_explicit(&p->h.taken, memory_order_relaxed);
	return t == 0 ? NULL : p->h.buf[t & 1];
}

bool
stats_pub_taken_hists(const struct stats_pub *p)
{
	uint64_t t = atomic_load_explicit(&p->h.taken, memory_order_relaxed);
	return t != 0 && p->h.hists[t & 1];
}

void
stats_pub_add_taken(const struct stats_pub *p, struct stats_snap *d)
{
	const struct stats *s = taken_copy(p);
	if (s != NULL)
		stats_snap_add_live_figures(d, s);
}

void
stats_pub_add_taken_all(const struct stats_pub *p, struct stats_snap *d)
{
	const struct stats *s = taken_copy(p);
	if (s != NULL)
		stats_snap_add_live(d, s);
}

void
stats_pub_end_window(struct stats_snap *win, struct stats_pub *const *p,
		     unsigned n)
{
	struct hist *hw[PUB_N_HISTS], *h[PUB_N_HISTS];
	uint64_t count[PUB_N_HISTS] = { 0 }, max[PUB_N_HISTS] = { 0 };
	uint64_t min[PUB_N_HISTS];

	for (unsigned i = 0; i < PUB_N_HISTS; i++)
		min[i] = UINT64_MAX;
	/* the run's count and extremes: those of the copies last taken */
	for (unsigned k = 0; k < n; k++) {
		const struct stats *s = taken_copy(p[k]);
		if (s == NULL)
			continue;
		shard_hists(s, h);
		for (unsigned i = 0; i < PUB_N_HISTS; i++) {
			if (hist_count(h[i]) == 0)
				continue;
			count[i] += hist_count(h[i]);
			if (hist_min(h[i]) < min[i])
				min[i] = hist_min(h[i]);
			if (hist_max(h[i]) > max[i])
				max[i] = hist_max(h[i]);
		}
	}
	snap_hists(win, hw);
	for (unsigned i = 0; i < PUB_N_HISTS; i++)
		hist_window_end(hw[i], count[i], min[i], max[i]);
}
