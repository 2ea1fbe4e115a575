/* run_int.h: between the files of the main thread's run (src/run/run.c
 * and run_collect.c): the state of one run and the collection of the
 * workers' published copies into it. */
#ifndef IMAPSTRESS_RUN_INT_H
#define IMAPSTRESS_RUN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "run/run.h"
#include "srv/procstat.h"
#include "stats/stats_pub.h"

enum run_phase { PHASE_RUN, PHASE_DRAIN, PHASE_HALT };

struct run_state {
	struct worker **w;
	unsigned n;
	const struct config *cfg;
	const struct derived *dv;
	struct report *rep;
	const struct run_sinks *sinks;
	const struct run_hooks *hooks;	/* a mode with output of its own,
					 * else NULL (run.h) */
	struct stats_pub **pubs;	/* the workers', in order */
	/* cum: the run so far; its histograms only after run_sum_all (the
	 * warm-up's end, a metrics page, the end), else a past sum.  prev:
	 * cum's figures at the tick before.  win: the last tick's window. */
	struct stats_snap cum, prev, win, warm;
	uint64_t t0;
	uint64_t t_first_connect;	/* when a session was first begun; 0: none yet */
	uint64_t cpu_prev_us, t_cpu_prev;
	bool warm_taken;
	bool tick_hists;	/* an output reads each second's (setup.c) */
	uint64_t warm_user_us, warm_sys_us;	/* CPU at the end of warm-up */
	bool stopping;		/* drain or halt has begun */
	unsigned ticks, self_limited_ticks;
	uint64_t lag_max_ever;
	double cpu_max;
	/* --server-pid: the last sample, the totals at the end of the
	 * warm-up, and the measured ticks' peaks and sums */
	struct srv_sample srv, srv_warm;
	double srv_secs, srv_cpu_max, users_sum;
	uint64_t srv_mem_max;
	unsigned srv_procs_max, users_ticks;
	bool srv_io_any, srv_pss_any;
	/* The loop (run_turns): where the stop stands, why, and when the
	 * last tick was. */
	bool finite;		/* the driver's work ends (driver.h) */
	enum run_phase phase;
	enum stop_reason why;
	bool quit, unusable;
	uint64_t last_tick;
};

/* run_collect.c.  Between ticks: the counters and gauges the stop checks
 * need; once a second and at the end: the tick (see run_collect.c); the
 * histograms a tick asks for; whether every copy taken holds them; cum
 * with its histograms, summed whole. */
void run_collect_counts(struct run_state *rs);
void run_collect(struct run_state *rs, bool last, enum stats_pub_hists what);
enum stats_pub_hists run_tick_what(const struct run_state *rs, uint64_t now);
bool run_taken_hists(const struct run_state *rs);
void run_sum_all(struct run_state *rs);

#endif
