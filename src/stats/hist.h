/* hist.h: a log-linear latency histogram (the HdrHistogram idea, our own
 * code): microsecond values from 1 us to 1 hour with about three
 * significant digits, exact count/min/max/sum, mergeable; memory grows
 * with the buckets used (blocks allocated when first written), at most
 * about 190 KB.
 *
 * Concurrency contract: one thread writes (hist_record), any thread may
 * read (merge, snapshot) at the same time.  Counts are C11 atomics used
 * with memory_order_relaxed, and the writer uses plain load+store rather
 * than read-modify-write, so the hot path costs what a plain increment
 * costs.  A reader sees each count torn-free, possibly a moment stale. */
#ifndef IMAPSTRESS_HIST_H
#define IMAPSTRESS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_MAX_US 3600000000ULL	/* 1 hour; larger values are clamped */

struct hist;

struct hist *hist_new(void);
void hist_free(struct hist *h);			/* NULL is a no-op */
void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t us);	/* single writer */
void hist_record_n(struct hist *h, uint64_t us, uint64_t n);

/* dst += src.  dst must not be written concurrently. */
void hist_merge(struct hist *dst, const struct hist *src);
/* dst = a - b, for a a later snapshot of the same histogram as b (per-tick
 * windows).  min/max of the window are taken from its buckets. */
void hist_diff(struct hist *dst, const struct hist *a, const struct hist *b);
void hist_copy(struct hist *dst, const struct hist *src);
/* dst = src for src's writer, who keeps two copies of src and refreshes
 * them in turn (a double buffer, stats_pub.c): only the cells src changed
 * since the refresh before this one are copied, so dst must be the copy
 * refreshed then (or empty, for the first two).  O(cells changed), not
 * O(cells held): a tick's samples touch few of a long run's buckets. */
void hist_refresh(struct hist *dst, struct hist *src);
/* dst also keeps which of its cells that refresh found changed since the
 * one before (the last interval), for the reader the copy is handed to
 * (hist_window.c): win's buckets += now - before, for now and before two
 * such copies, now refreshed right after before, over the cells now's
 * refresh changed; O(cells changed).  src's counts must only grow (no
 * hist_reset between the copies).  Once every copy of a window is added,
 * hist_window_end(win, count, min, max) gives win the count, sum and
 * extremes hist_diff(cum, cum before the window) would, for cum a sum of
 * `count` samples (the window's included) from min to max: the copies
 * last taken, one per writer. */
void hist_add_changes(struct hist *win, const struct hist *now,
		      const struct hist *before);
void hist_window_end(struct hist *win, uint64_t count, uint64_t min,
		     uint64_t max);
/* For that writer: every later change to h (a sample, a reset) sets `bit`
 * in *word, so that it can tell which of many histograms it needs to
 * refresh without reading each one.  Also sets it now; NULL stops it.
 * The word is the writer's own: no other thread may touch it. */
void hist_watch(struct hist *h, uint64_t *word, uint64_t bit);

uint64_t hist_count(const struct hist *h);
uint64_t hist_min(const struct hist *h);	/* 0 when empty */
uint64_t hist_max(const struct hist *h);	/* 0 when empty */
double hist_mean(const struct hist *h);		/* 0 when empty */
uint64_t hist_sum(const struct hist *h);
/* Population standard deviation; 0 with fewer than two samples. */
double hist_stddev(const struct hist *h);
/* p in [0, 100]: the smallest recorded value v such that at least p% of
 * the samples are <= v (reported as the bucket's upper bound, capped at
 * the max).  0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
/* Several at once, in one walk: p[0..n) in non-decreasing order (a p
 * <= 0 or >= 100 may stand anywhere); out[i] is hist_percentile(h,
 * p[i]). */
void hist_percentiles(const struct hist *h, const double *p, unsigned n,
		      uint64_t *out);
/* The trio the per-second lines, push rows and latency logs print. */
void hist_p50_p95_p99(const struct hist *h, uint64_t out[3]);
/* A report row's five (p50 p90 p95 p99 p99.9), the text table's columns
 * and the JSON latency object's keys, in that order. */
#define HIST_ROW_PCTS 5
void hist_row_percentiles(const struct hist *h, uint64_t out[HIST_ROW_PCTS]);

/* Lossless export and import (result files): the non-empty buckets in
 * index order (indexes below HIST_N_BUCKETS), and the exact scalars.
 * hist_next_bucket starts at *idx and returns false past the last;
 * callers loop with idx = found + 1. */
bool hist_next_bucket(const struct hist *h, unsigned *idx, uint64_t *count);
/* Rebuild: add buckets to an empty (reset) histogram, then hist_load_end
 * sets sum/min/max.  It returns -1 (and leaves h reset) when they cannot
 * belong to those buckets: min/max outside the first/last bucket, a
 * count of buckets with no samples, or an index out of range. */
int hist_load_bucket(struct hist *h, unsigned idx, uint64_t count);
int hist_load_end(struct hist *h, uint64_t sum, uint64_t min, uint64_t max);
/* Bytes h uses: the struct, and the counters (with the pointers to them)
 * allocated when a count in them was first written; for tests and sizing.
 * They come in chunks of up to 4 KB, so h holds at most 4 KB more. */
size_t hist_bytes(const struct hist *h);
/* HdrHistogram export.  Our bucket i holds exactly the values of index i
 * in an HdrHistogram with lowest discernible value 1 and 3 significant
 * digits; HIST_N_BUCKETS covers HIST_MAX_US.  hist_export fills
 * counts[0..n) and returns one past the highest non-zero index. */
#define HIST_N_BUCKETS 23221u
#define HIST_SIG_DIGITS 3
unsigned hist_export(const struct hist *h, uint64_t *counts, unsigned n);
/* Samples whose whole bucket lies at or below v (a Prometheus `le`
 * bucket; exact when v + 1 starts a bucket, as every value < 2048 does). */
uint64_t hist_count_le(const struct hist *h, uint64_t v);
/* The same for n boundaries in one pass over the buckets: out[k] for le[k]. */
void hist_count_le_each(const struct hist *h, const uint64_t *le, unsigned n,
			uint64_t *out);

#endif
