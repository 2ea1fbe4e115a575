/* setup.h: the struct shared of a run (shared.h), built once by the main
 * thread before any worker exists: the resolved server and --source
 * addresses, the userfile (this shard's slice), the message pool, the TLS
 * context, the worker count; and the workers' struct worker_group
 * (worker.h): the --latency-log file.  A
 * bad input is a usage error (exit 2) naming it. */
#ifndef IMAPSTRESS_SETUP_H
#define IMAPSTRESS_SETUP_H

#include <stdbool.h>

struct config;
struct derived;
struct shared;
struct worker_group;

/* dv: the connections (workers are at most one per connection) and the
 * message pool (built when APPEND runs, at its mean size). */
struct shared *shared_new(const struct config *cfg, const struct derived *dv);
void shared_free(struct shared *sh);		/* NULL is a no-op */
struct worker_group *worker_group_new(const struct config *cfg);
void worker_group_free(struct worker_group *g);	/* NULL is a no-op */
/* Whether any output of this run reads each second's histograms (see
 * setup.c): if not, the workers copy them only where the run's totals
 * need them, not every second. */
bool run_tick_hists_wanted(const struct config *cfg);

#endif
