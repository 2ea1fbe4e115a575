/* run.h: the main thread's part of a run (see run.c). */
#ifndef IMAPSTRESS_RUN_H
#define IMAPSTRESS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "config/derived.h"
#include "report/hdrlog.h"
#include "report/metrics.h"
#include "srv/procstat.h"
#include "report/report.h"
#include "run/worker.h"

/* Outputs fed from the main thread's snapshots besides the report: each
 * may be NULL. */
struct run_sinks {
	struct metrics *metrics;	/* --metrics-listen */
	struct hdrlog *hdr;		/* --hdr-log */
	struct srv_watch *srv;		/* --server-pid */
};

/* Before any worker exists, in every mode: SIGINT and SIGTERM blocked
 * (the runner takes them with sigtimedwait, and every thread inherits
 * the mask), SIGPIPE ignored (a server that closes is an error counted,
 * not the end of the process). */
void run_signals_block(void);

/* Workers must be started, and SIGINT/SIGTERM blocked in every thread.
 * Returns the exit status: 0 clean, 1 errors / SLA failed / unfinished
 * commands, 3 server unusable. */
int run_loop(struct worker **w, unsigned n, const struct config *cfg,
	     const struct derived *dv, struct report *rep, const struct run_sinks *sinks);

/* A mode with output of its own (init) instead of the report: the same
 * loop, signals, stop and exit policy (exit_policy.h), without the
 * per-second lines and the totals.  Each hook may be NULL. */
struct run_hooks {
	/* Every turn of the loop (at most POLL_US, 100 ms, apart): a
	 * progress line, say. */
	void (*poll)(void *arg, uint64_t now);
	/* SIGINT or SIGTERM stops the run: first, it drains; else it halts.
	 * The line that says so (NULL: the runner's own). */
	void (*stopping)(void *arg, int sig, bool first);
	void *arg;
};

/* Runs the workers as run_loop does until every one is done (the
 * driver's finite work ended, or a signal stopped it), then joins them;
 * the mode judges what they did (the workers are not freed). */
void run_wait(struct worker **w, unsigned n, const struct config *cfg,
	      const struct run_hooks *hooks);

#endif
