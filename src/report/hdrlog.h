/* hdrlog.h: --hdr-log FILE, each command's latency per interval in the
 * HdrHistogram interval log format (histograms in the compressed V2
 * encoding), so HistogramLogAnalyzer, hdr-plot and the HdrHistogram
 * libraries read our runs.  The main thread writes it from the window
 * snapshots it already takes once a second. */
#ifndef IMAPSTRESS_HDRLOG_H
#define IMAPSTRESS_HDRLOG_H

#include <stddef.h>
#include <stdint.h>

#include "stats/stats.h"

struct hdrlog;

/* Creates FILE and writes the header.  t0_us is the run's start on the
 * monotonic clock; interval timestamps are seconds since then.  NULL with
 * a message naming the file on error. */
struct hdrlog *hdrlog_open(const char *path, uint64_t t0_us,
			   char *err, size_t errlen);

/* One interval ending at now_us (monotonic): a line per command that got
 * replies in win.  The interval starts where the previous one ended. */
void hdrlog_window(struct hdrlog *h, const struct stats_snap *win,
		   uint64_t now_us);

/* Moves the next interval's start to now_us without writing (the warm-up,
 * which the totals leave out too). */
void hdrlog_skip(struct hdrlog *h, uint64_t now_us);

/* Flushes and closes; -1 (after logging which file) if any write failed.
 * NULL is a no-op returning 0. */
int hdrlog_close(struct hdrlog *h);

/* The compressed V2 encoding of h, base64 ("HISTF..."), NUL-terminated in
 * a buffer the caller frees.  Exposed for the unit tests. */
char *hdrlog_encode(const struct hist *h);

#endif
