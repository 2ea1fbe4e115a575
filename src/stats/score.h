/* score.h: the LoadSim score.  LoadSim (Exchange's load simulator) judged
 * a run by the 95th-percentile response time of each task, weighted (its
 * read task carried over half the weight), with the first hour left out;
 * LSLOG printed each task's p50, p95, mean and standard deviation.
 *
 * Here a task is a command (stress mode; the per-action statistics of
 * profile mode will give tasks of their own), its samples the command's
 * latency histogram over the measured interval (--warmup already taken
 * out, as LSLOG's first hour), and
 *
 *     score = sum(w_i * p95_i) / sum(w_i)
 *
 * over the tasks with a weight > 0 and at least one sample: a task that
 * never ran neither helps nor hurts, and the weights need not add up to 1.
 * Without --score-weights every command that ran weighs 1. */
#ifndef IMAPSTRESS_SCORE_H
#define IMAPSTRESS_SCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/hist.h"
#include "plan/ops.h"
#include "stats/stats.h"
#include "stats/actions.h"

struct score_task {
	int op;			/* a command, or an action (by_action) */
	const char *name;	/* its report name */
	double weight;
	uint64_t count;
	uint64_t p50_us, p95_us;
	double mean_us, stddev_us;
};

struct score {
	struct score_task task[(int)OP_COUNT > (int)ACT_COUNT ? (int)OP_COUNT :
			      (int)ACT_COUNT];
					/* the tasks that ran */
	unsigned n;
	double weight_sum;	/* of those with samples */
	double score_us;	/* 0 when no weighted task ran */
	bool valid;		/* some weighted task ran */
	bool by_action;		/* profile mode: tasks are actions */
};

/* LSLOG's four for one histogram. */
void score_task_fill(struct score_task *t, const struct hist *h);
/* The weighted p95 over t[0..n): tasks with weight 0 or no samples are
 * left out.  *wsum gets the weights that counted; 0 when none did. */
double score_weighted_p95(const struct score_task *t, unsigned n,
			  double *wsum);
/* Every command of tot; weights[op] (NULL: 1 for each op that ran). */
void score_compute(struct score *s, const struct stats_snap *tot,
		   const double *weights);

/* Profile mode: every action of a that ran is a task, weighted by
 * weights[action] (ACT_COUNT of them). */
void score_compute_actions(struct score *s, const struct act_snap *a,
			   const double *weights);
/* The default action weights of a LoadSim profile without score_weight_*
 * keys: browse and read 8 each, the other LoadSim actions (send, clean,
 * calendar, appointment, free/busy, meeting, log off) 1 each, so that the
 * reading of mail carries over half the weight whichever of the two runs;
 * deliver, notice, login, logout, reply, delete, move 0. */
void score_action_defaults(double *weights);

#endif
