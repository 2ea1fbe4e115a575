/* run_collect.c: the main thread's sums of what the workers publish
 * (stats_pub.h): the counters between ticks for the stop checks, and once
 * a second the tick's window and the run so far. */
#include "util/clock.h"
#include "run/run_int.h"

#define HIST_WAIT_US 250000	/* a tick waits this long for the workers' copies */

/* Between ticks: the sum of the counters and gauges the workers
 * published (never their live shards), all the stop checks need.  A copy
 * rewritten while it was read (a worker published twice meanwhile) makes
 * the sum start over.  The histograms and profile mode's figures keep the
 * last tick's sum. */
void
run_collect_counts(struct run_state *rs)
{
	bool whole;

	do {
		stats_snap_clear_counts(&rs->cum);
		whole = true;
		for (unsigned i = 0; i < rs->n && whole; i++)
			whole = stats_pub_add_to(rs->pubs[i], &rs->cum);
	} while (!whole);
}

/* cum with its histograms: the sum of the copies last taken, every cell
 * they hold (a window needs only what changed, run_collect). */
void
run_sum_all(struct run_state *rs)
{
	stats_snap_clear(&rs->cum);
	for (unsigned i = 0; i < rs->n; i++)
		stats_pub_add_taken_all(rs->pubs[i], &rs->cum);
}

/* The end of a run no output of which read a second's histograms: the
 * workers are joined, so cum's histograms are merged from their live
 * shards themselves (final since worker_main's last publish), not from a
 * whole copy of each worker's histograms made for the purpose.  That copy
 * was the run's peak of memory: about 0.7 MB of the default mix's 7 MB at
 * 100 clients (issue 35, heaptrack).  The figures still come from a last
 * copy of the counters, as every tick's do (the copy makes the latency
 * sums, which the live shard keeps only in its histograms). */
static void
run_sum_joined(struct run_state *rs)
{
	stats_snap_clear(&rs->cum);
	for (unsigned i = 0; i < rs->n; i++) {
		stats_pub_add_taken(rs->pubs[i], &rs->cum);
		stats_snap_add_live_hists(&rs->cum, rs->w[i]->stats);
	}
}

/* Once a second, and at the end (`last`, the workers joined): cum's
 * figures, and win = cum - prev, the window since the tick before.  Each
 * worker is asked for a copy of its counters, with its histograms when
 * read (`what`), and woken: it makes it between two of its callbacks,
 * mostly within a millisecond.  The tick waits for them HIST_WAIT_US at
 * most: a worker later than that (a callback ran long) is taken at the
 * next tick, which then counts its samples of both seconds, so a busy
 * worker can delay a line but never make us skip one.  Each copy adds to
 * win only what it changed (stats_pub_take); cum's histograms are summed
 * whole only where they are read: with --metrics-listen, and at the end.
 * A run no output of which reads a second's histograms (rs->tick_hists
 * false) leaves win's empty and asks for them only whole and only where
 * the totals need them (`what` WHOLE: the warm-up's end); at its end it
 * asks for none, and reads the joined workers' own (run_sum_joined). */
void
run_collect(struct run_state *rs, bool last, enum stats_pub_hists what)
{
	struct stats_snap *win = rs->tick_hists ? &rs->win : NULL;

	stats_snap_clear(&rs->win);
	for (unsigned i = 0; i < rs->n; i++)	/* late answers to the last ask */
		stats_pub_take(rs->pubs[i], win);
	if (last) {
		/* without win, the histograms are read where they are */
		for (unsigned i = 0; i < rs->n; i++) {
			worker_last_hists(rs->w[i], win != NULL ? what :
					  STATS_PUB_NONE);
			stats_pub_take(rs->pubs[i], win);
		}
	} else {
		for (unsigned i = 0; i < rs->n; i++)
			worker_want_hists(rs->w[i], what);
		uint64_t deadline = clock_us() + HIST_WAIT_US;
		for (unsigned i = 0; i < rs->n; i++)
			if (worker_wait_hists(rs->w[i], deadline))
				stats_pub_take(rs->pubs[i], win);
	}
	if (win != NULL)
		stats_pub_end_window(win, rs->pubs, rs->n);
	if (last && win == NULL) {
		run_sum_joined(rs);
	} else if (last || rs->sinks->metrics != NULL) {
		run_sum_all(rs);
	} else {
		stats_snap_clear_figures(&rs->cum);
		for (unsigned i = 0; i < rs->n; i++)
			stats_pub_add_taken(rs->pubs[i], &rs->cum);
	}
	stats_snap_diff_figures(&rs->win, &rs->cum, &rs->prev);
	stats_snap_copy_figures(&rs->prev, &rs->cum);
}

/* What of the histograms a tick asks for: the changes every second when
 * read; else whole at the warm-up's end, whose snapshot needs them (and
 * the seconds after it until every worker's copy has them: one late
 * worker's copy taken has only counters). */
enum stats_pub_hists
run_tick_what(const struct run_state *rs, uint64_t now)
{
	if (rs->tick_hists)
		return STATS_PUB_CHANGES;
	if (!rs->warm_taken && rs->cfg->warmup_secs > 0 &&
	    (double)(now - rs->t0) / 1e6 >= rs->cfg->warmup_secs)
		return STATS_PUB_WHOLE;
	return STATS_PUB_NONE;
}

/* Whether every copy taken holds the histograms the warm-up's snapshot
 * (run_sum_all) sums. */
bool
run_taken_hists(const struct run_state *rs)
{
	for (unsigned i = 0; i < rs->n; i++)
		if (!stats_pub_taken_hists(rs->pubs[i]))
			return false;
	return true;
}
