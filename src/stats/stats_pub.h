/* stats_pub.h: a worker's stats shard as other threads may read it, with
 * one writer per datum.  The worker owns its live shard and publishes
 * copies of it here; the main thread reads only the copies, never the live
 * shard.  Two kinds:
 *
 * Counters (and gauges), ten times a second, for the stop checks between
 * ticks: copied into one of two buffers and the generation bumped; the
 * main thread writes only read_gen (which generation it has read: the
 * worker's per-window gauges start over once it has).  Each buffer is a
 * seqlock: odd while the worker rewrites it.  A reader that raced a
 * rewrite (the worker published twice while it read, which at ten
 * publishes a second takes a reader stalled for 100 ms) is told so and
 * reads again; it never waits for the worker.
 *
 * Histograms with the counters of the same moment, when the main thread
 * asks (once a second and at the end): a handshake.  The reader asks
 * (stats_pub_ask), the writer answers at its next chance
 * (stats_pub_publish_hists), the reader takes the answer
 * (stats_pub_take) and only then may ask again; so the copy it reads is
 * never being rewritten, and each copy says what changed since the one
 * before, which is all the reader adds to its window.  The run's total
 * is the sum of the copies last taken, summed only when wanted. */
#ifndef IMAPSTRESS_STATS_PUB_H
#define IMAPSTRESS_STATS_PUB_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/stats.h"

struct stats_pub;

struct stats_pub *stats_pub_new(void);
void stats_pub_free(struct stats_pub *p);	/* NULL is a no-op */

/* Worker: publish a copy of its live shard's counters and gauges (a new
 * generation). */
void stats_pub_publish(struct stats_pub *p, struct stats *live);
/* Worker: has the reader read the latest generation? */
bool stats_pub_read_all(const struct stats_pub *p);

/* Reader: d += the counters and gauges of the latest copy (nothing before
 * the first; profile mode's not: stats_snap_add_live_counts).  False when
 * the worker rewrote that copy meanwhile: d then holds a partial sum, and
 * the caller starts its sum again. */
bool stats_pub_add_to(struct stats_pub *p, struct stats_snap *d);
/* The same in two steps: the copy to read (NULL before the first
 * publish), then whether what was read of it is whole. */
struct stats_pub_read {
	uint64_t gen, seq;
};
const struct stats *stats_pub_read_begin(struct stats_pub *p,
					 struct stats_pub_read *r);
bool stats_pub_read_end(struct stats_pub *p, const struct stats_pub_read *r);

/* ---- histograms: the handshake ---- */

/* What a copy asked for carries of the histograms.  CHANGES keeps both
 * copies up to date by what changed, for windows (stats_pub_take); WHOLE
 * copies every cell, for a run that reads no window's histograms and so
 * needs them only a few times (the warm-up's end, the end), where keeping
 * copies in step would cost every second; NONE, the counters alone.  A
 * run asks for CHANGES every time or never: a WHOLE copy does not keep a
 * copy in step (see hist_refresh). */
enum stats_pub_hists {
	STATS_PUB_CHANGES,
	STATS_PUB_WHOLE,
	STATS_PUB_NONE
};
/* Reader: ask for a copy (no-op while the last one is not taken). */
void stats_pub_ask(struct stats_pub *p, enum stats_pub_hists what);
/* Writer: whether the reader asked. */
bool stats_pub_wanted(const struct stats_pub *p);
/* Writer: if asked, copy the histograms and every counter and gauge; true
 * then.  Always the same shard: the copy is brought up to date from what
 * its histograms changed (hist_refresh), and only the histograms written
 * since are read at all: from the first such publish on, the shard's
 * histograms report their changes into `p` (hist_watch), so p must
 * outlive every write to them.  Once the writer's thread has ended (been
 * joined), another thread may take its place here. */
bool stats_pub_publish_hists(struct stats_pub *p, struct stats *live);
/* Reader: is a copy waiting to be taken? */
bool stats_pub_ready(const struct stats_pub *p);
/* Reader: take the waiting copy (no-op without one): win's histograms
 * get what it changed since the copy taken before added (win NULL, or a
 * copy without CHANGES: nothing added). */
void stats_pub_take(struct stats_pub *p, struct stats_snap *win);
/* Reader: does the copy last taken carry the histograms (CHANGES or
 * WHOLE)?  False before the first. */
bool stats_pub_taken_hists(const struct stats_pub *p);
/* Reader: d += the counters and gauges, profile mode's too, of the copy
 * last taken (nothing before the first). */
void stats_pub_add_taken(const struct stats_pub *p, struct stats_snap *d);
/* The same with its histograms, all the cells they hold (hist_merge): for
 * the run's whole sum, only where one is needed. */
void stats_pub_add_taken_all(const struct stats_pub *p, struct stats_snap *d);
/* Reader: after the window's takes from the n writers p (win's histograms
 * reset before the first), set each of win's histograms' count, sum, min
 * and max as hist_diff(cum, cum before the window) would, for cum the sum
 * of the n copies last taken. */
void stats_pub_end_window(struct stats_snap *win, struct stats_pub *const *p,
			  unsigned n);

#endif
