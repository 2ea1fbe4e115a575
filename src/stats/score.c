/* score.c: the LoadSim score (see score.h). */
#include <string.h>

#include "config/config.h"
#include "stats/score.h"

void
score_task_fill(struct score_task *t, const struct hist *h)
{
	static const double pct[] = { 50, 95 };
	uint64_t v[2];

	hist_percentiles(h, pct, 2, v);
	t->count = hist_count(h);
	t->p50_us = v[0];
	t->p95_us = v[1];
	t->mean_us = hist_mean(h);
	t->stddev_us = hist_stddev(h);
}

double
score_weighted_p95(const struct score_task *t, unsigned n, double *wsum)
{
	double sum = 0, w = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!(t[i].weight > 0) || t[i].count == 0)
			continue;
		sum += t[i].weight * (double)t[i].p95_us;
		w += t[i].weight;
	}
	*wsum = w;
	return w > 0 ? sum / w : 0;
}

void
score_compute(struct score *s, const struct stats_snap *tot,
	      const double *weights)
{
	memset(s, 0, sizeof(*s));
	for (int op = 0; op < OP_COUNT; op++) {
		if (hist_count(tot->lat[op]) == 0)
			continue;
		struct score_task *t = &s->task[s->n++];
		t->op = op;
		t->name = op_table[op].name;
		t->weight = weights != NULL ? weights[op] : 1.0;
		score_task_fill(t, tot->lat[op]);
	}
	s->score_us = score_weighted_p95(s->task, s->n, &s->weight_sum);
	s->valid = s->weight_sum > 0;
}

_Static_assert(ACT_COUNT <= CONFIG_ACT_WEIGHTS, "config's act_weights too small");

void
score_compute_actions(struct score *s, const struct act_snap *a,
		      const double *weights)
{
	memset(s, 0, sizeof(*s));
	s->by_action = true;
	for (int act = 0; act < ACT_COUNT; act++) {
		if (a->lat[act] == NULL || hist_count(a->lat[act]) == 0)
			continue;
		struct score_task *t = &s->task[s->n++];
		t->op = act;
		t->name = action_name[act];
		t->weight = weights[act];
		score_task_fill(t, a->lat[act]);
	}
	s->score_us = score_weighted_p95(s->task, s->n, &s->weight_sum);
	s->valid = s->weight_sum > 0;
}

void
score_action_defaults(double *w)
{
	static const enum action one[] = { ACT_SEND, ACT_CLEAN, ACT_CALENDAR,
		ACT_APPOINTMENT, ACT_FREEBUSY, ACT_MEETING, ACT_LOGOFF };

	for (int act = 0; act < ACT_COUNT; act++)
		w[act] = 0;
	w[ACT_BROWSE] = 8;
	w[ACT_READ] = 8;
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		w[one[i]] = 1;
}
