/* run.h: the main thread's part of a run (see run.c). */
#ifndef IMAPSTRESS_RUN_H
#define IMAPSTRESS_RUN_H

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

/* Workers must be started, and SIGINT/SIGTERM blocked in every thread.
 * Returns the exit status: 0 clean, 1 errors / SLA failed / unfinished
 * commands, 3 server unusable. */
int run_loop(struct worker **w, unsigned n, const struct config *cfg,
	     const struct derived *dv, struct report *rep, const struct run_sinks *sinks);

#endif
