/* run.h: the main thread's part of a run (see run.c). */
#ifndef IMAPSTRESS_RUN_H
#define IMAPSTRESS_RUN_H

#include "config.h"
#include "report.h"
#include "worker.h"

/* Workers must be started, and SIGINT/SIGTERM blocked in every thread.
 * Returns the exit status: 0 clean, 1 errors / SLA failed / unfinished
 * commands, 3 server unusable. */
int run_loop(struct worker **w, unsigned n, const struct config *cfg,
	     struct report *rep);

#endif
