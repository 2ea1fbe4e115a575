/* report.h: turning snapshots into output.  The main thread calls it once
 * a second with the window (last second) and the running total, and once
 * at the end.  Text goes to stdout in imaptest's layout; JSON Lines, CSV
 * and imaptest's output= TSV go to their files.  No measuring here. */
#ifndef IMAPSTRESS_REPORT_H
#define IMAPSTRESS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "stats/stats.h"

struct derived;
struct report;

/* Facts about the run that are not counters. */
struct report_run {
	double elapsed_s;	/* since the run started (first tick = 1.0) */
	double measured_s;	/* length of the totals' interval (warm-up out) */
	double measured_from_s;	/* where that interval starts */
	unsigned clients;
	unsigned workers;
	bool ramping;		/* fewer than clients= connections exist */
	unsigned ramp_pct;	/* connections that exist, % of clients= */
	bool warmup;		/* this tick is inside --warmup */
	/* > 0: the last tick, partial: the seconds since the previous one,
	 * drain included, so that the ticks add up to the totals */
	double partial_s;
	/* generator self-check over the window / the run */
	double cpu_pct;		/* imapstress's CPU, % of its cores */
	uint64_t loop_lag_max_us;
	bool self_limited;	/* cpu > 80% or lag > 10 ms: numbers describe us */
	uint64_t cpu_user_us, cpu_sys_us;	/* whole run, final only */
	uint64_t peak_rss_kb;			/* final only */
	uint64_t unfinished;	/* final: commands still in flight at hard stop */
	int exit_status;	/* final */
	const char *stop_reason;	/* final: stop_reason_name(), or a
					 * result file's word */
	unsigned sla_failed;	/* final: how many --sla bounds failed */
	const bool *sla_ok;	/* final: per cfg->slas[i] */
	const uint64_t *sla_actual_us;	/* final: the measured value per SLA */
	/* --server-pid (src/srv/procstat.h), ticks: the last second; final:
	 * the measured interval.  srv false: no pid given, or the server
	 * is gone (its columns stop; the run goes on). */
	bool srv;
	bool srv_io;		/* disk figures readable */
	bool srv_pss;		/* srv_mem_kb is PSS, else RSS */
	unsigned srv_procs;	/* processes in the tree (final: the most) */
	double srv_cpu_pct;	/* 100 = one core; final: the mean */
	double srv_cpu_max;	/* final: the busiest second */
	unsigned srv_cpu_capped;	/* final: seconds capped at 100% x CPUs */
	uint64_t srv_mem_kb;	/* final: the peak */
	uint64_t srv_read_bytes, srv_write_bytes;
	double srv_secs;	/* final: seconds the server was sampled */
	/* The per-user Kbps divisor: logged-in connections (stress mode;
	 * tick: now, final: the mean over the measured ticks). */
	double net_users;
};

/* Why a run stopped.  The names are what the JSON summary and result
 * files say. */
enum stop_reason {
	STOP_DURATION,		/* "duration": secs= ran out */
	STOP_SIGNAL,		/* "signal": SIGINT or SIGTERM */
	STOP_ERROR_QUIT,	/* "error_quit": --error-quit reached */
	STOP_DISCONNECT_QUIT,	/* "disconnect_quit": --disconnect-quit */
	STOP_UNUSABLE,		/* "server unusable": nobody got in */
	STOP_FOREIGN,		/* "foreign mail": the guard refused */
	STOP_COUNT
};
const char *stop_reason_name(enum stop_reason r);
/* The reason a name says, or -1 (a name this version does not know). */
int stop_reason_lookup(const char *name);

/* Opens the --json/--csv/output= files (or stdout for "-").  NULL with a
 * message naming the file on error.  dv: the run's derived figures (shown
 * columns, color, action weights), copied; NULL takes derived_init's of
 * cfg alone, without color. */
struct report *report_new(const struct config *cfg, const struct derived *dv,
			  FILE *out, char *err, size_t errlen);
void report_free(struct report *r);		/* closes files; NULL ok */

/* One second.  win = the last second, cum = everything since the start
 * (both already summed over workers). */
void report_tick(struct report *r, const struct report_run *run,
		 const struct stats_snap *win, const struct stats_snap *cum);

/* The end: imaptest's final latency line and Totals block, then the
 * extended summary (per command count, rate, mean, percentiles, errors by
 * kind, bytes, messages appended), the JSON summary object and the last
 * CSV row.  tot is the measured interval (warm-up excluded).  0, or -1
 * when some output could not be written (see below). */
int report_final(struct report *r, const struct report_run *run,
		 const struct stats_snap *tot);

/* Output that cannot be written is an error: every write, flush and
 * close of stdout (the text, or the one machine format on "-") and of the
 * --json/--csv/output= files is checked.  The first failure of each is
 * printed once with the file and errno and the stream gets nothing more;
 * the run goes on.  report_final closes the files, returns -1 when any
 * output was lost (its JSON exit_status already says 1 when the loss came
 * first), and then prints the text summary to stderr if stdout was the
 * stream that failed, so what was measured still reaches the terminal.
 * report_failed: has anything failed so far? */
bool report_failed(const struct report *r);

/* --sla: each bound's verdict and measured value over tot (the mean is
 * truncated to microseconds; a bound with no samples fails); true when
 * all hold.  The one place SLAs are judged: run.c gives the result to
 * the report, and the report judges with the same code when it is not
 * given one (merge). */
bool sla_eval(const struct config *cfg, const struct derived *dv,
	      const struct stats_snap *tot,
	      bool *ok, uint64_t *actual);

/* How many --sla bounds tot misses, judged from tot alone (run->sla_ok
 * and sla_actual_us ignored): for a report rebuilt from result files. */
unsigned report_sla_failures(struct report *r, const struct stats_snap *tot);

/* merge: the server counters of one shard (every shard of a run watches
 * the same server: summing would count it once per shard) and the sum of
 * the shards' logged-in connections as the per-user divisor. */
void report_run_take_server(struct report_run *dst,
			    const struct report_run *src);

/* Is a state shown as a column (its probability is not 0)? */
bool report_visible(const struct derived *dv, int op);

#endif
