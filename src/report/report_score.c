/* report_score.c: the LoadSim score in the summary (src/stats/score.h):
 * LSLOG's four per task and the weighted 95th percentile.  Shown when
 * --score-weights or an --sla on the score asks for it. */
#include <inttypes.h>
#include <math.h>

#include "report/report_int.h"
#include "stats/score.h"
#include "util/units.h"

bool
report_score_shown(const struct config *cfg, const struct derived *dv)
{
	if (cfg->score_weights_set || dv->act_weights_set)
		return true;
	for (unsigned i = 0; i < cfg->n_slas; i++)
		if (cfg->slas[i].op == SLA_OP_SCORE)
			return true;
	return false;
}

void
report_score_of(const struct config *cfg, const struct derived *dv,
		const struct stats_snap *tot, struct score *sc)
{
	if (dv->act_weights_set && tot->act.profile > 0)
		score_compute_actions(sc, &tot->act, dv->act_weights);
	else
		score_compute(sc, tot, cfg->score_weights_set ?
			      cfg->score_weights : NULL);
}

void
report_score_text(struct report *r, const struct stats_snap *tot, FILE *o)
{
	struct score sc;
	char p50[32], p95[32], mean[32], sd[32], v[32];

	if (!report_score_shown(r->cfg, &r->dv))
		return;
	report_score_of(r->cfg, &r->dv, tot, &sc);
	fputs("\nscore (LoadSim: weighted 95th percentile, warm-up left out):\n"
	      "task          weight    count      p50      p95     mean   "
	      "stddev\n", o);
	for (unsigned i = 0; i < sc.n; i++) {
		const struct score_task *t = &sc.task[i];
		units_fmt_us(p50, sizeof(p50), t->p50_us);
		units_fmt_us(p95, sizeof(p95), t->p95_us);
		units_fmt_us(mean, sizeof(mean), (uint64_t)t->mean_us);
		units_fmt_us(sd, sizeof(sd), (uint64_t)t->stddev_us);
		fprintf(o, "%-12s %7.3f %8" PRIu64 " %8s %8s %8s %8s\n",
			t->name, t->weight, t->count, p50, p95,
			mean, sd);
	}
	if (sc.valid) {
		units_fmt_us(v, sizeof(v), (uint64_t)sc.score_us);
		fprintf(o, "score: %s (%.0f us; weights counted %.3f)\n", v,
			sc.score_us, sc.weight_sum);
	} else {
		fprintf(o, "score: none (no weighted %s ran)\n",
			sc.by_action ? "action" : "command");
	}
}

void
report_score_json(struct report *r, FILE *f, const struct stats_snap *tot)
{
	struct score sc;

	if (!report_score_shown(r->cfg, &r->dv))
		return;
	report_score_of(r->cfg, &r->dv, tot, &sc);
	fputs(",\"score\":{\"tasks\":{", f);
	for (unsigned i = 0; i < sc.n; i++) {
		const struct score_task *t = &sc.task[i];
		fprintf(f, "%s\"%s\":{\"weight\":%.6g,\"count\":%" PRIu64
			",\"p50_us\":%" PRIu64 ",\"p95_us\":%" PRIu64
			",\"mean_us\":%.1f,\"stddev_us\":%.1f}", i ? "," : "",
			t->name, t->weight, t->count, t->p50_us,
			t->p95_us, t->mean_us, t->stddev_us);
	}
	fputs("},\"score_us\":", f);
	if (sc.valid)
		fprintf(f, "%.1f", sc.score_us);
	else
		fputs("null", f);
	fprintf(f, ",\"weight_sum\":%.6g}", sc.weight_sum);
}
