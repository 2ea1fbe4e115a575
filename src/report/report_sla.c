/* report_sla.c: --sla judged, in one place: run.c's verdict (sla_eval)
 * and the report's own when it is given none (merge), so the two cannot
 * differ.  Its callers are the text and JSON writers, run.c and merge;
 * of report/ it calls only report_score.c (a 'score<T' bound). */
#include "report/report_int.h"
#include "stats/score.h"

/* The one place a --sla bound is judged: the value over every sample of
 * its command (or of all commands), the mean truncated to microseconds,
 * and "<" taken literally; a bound with no samples fails (an SLA on a
 * command that never ran proves nothing). */
static bool
sla_judge(const struct config *cfg, const struct derived *dv,
	  const struct sla *sla,
	  const struct stats_snap *tot, struct hist *scratch,
	  uint64_t *actual, uint64_t *samples)
{
	if (sla->op == SLA_OP_SCORE) {
		struct score sc;
		report_score_of(cfg, dv, tot, &sc);
		*samples = 0;
		for (unsigned i = 0; i < sc.n; i++)
			if (sc.task[i].weight > 0)
				*samples += sc.task[i].count;
		*actual = (uint64_t)sc.score_us;
		return sc.valid && *actual < sla->max_us;
	}
	hist_reset(scratch);
	for (int op = 0; op < OP_COUNT; op++)
		if (sla->op < 0 || sla->op == op)
			hist_merge(scratch, tot->lat[op]);
	*samples = hist_count(scratch);
	*actual = sla->percentile <= 0.0 ? (uint64_t)hist_mean(scratch) :
	    hist_percentile(scratch, sla->percentile);
	return *samples > 0 && *actual < sla->max_us;
}

bool
sla_eval(const struct config *cfg, const struct derived *dv,
	 const struct stats_snap *tot,
	 bool *ok, uint64_t *actual)
{
	struct hist *h = hist_new();
	bool all = true;
	uint64_t n;

	for (unsigned i = 0; i < cfg->n_slas; i++) {
		ok[i] = sla_judge(cfg, dv, &cfg->slas[i], tot, h, &actual[i], &n);
		all = all && ok[i];
	}
	hist_free(h);
	return all;
}

/* The run's verdict when it gave one (a live run: run.c), else judged
 * here on `tot` (merge). */
uint64_t
report_sla_actual(struct report *r, const struct report_run *run,
		  const struct stats_snap *tot, unsigned i, uint64_t *samples)
{
	uint64_t v;
	sla_judge(r->cfg, &r->dv, &r->cfg->slas[i], tot, r->scratch, &v, samples);
	return run->sla_actual_us != NULL ? run->sla_actual_us[i] : v;
}

bool
report_sla_ok(struct report *r, const struct report_run *run,
	      const struct stats_snap *tot, unsigned i)
{
	uint64_t v, n;
	bool ok = sla_judge(r->cfg, &r->dv, &r->cfg->slas[i], tot, r->scratch, &v, &n);
	return run->sla_ok != NULL ? run->sla_ok[i] : ok;
}

unsigned
report_sla_failures(struct report *r, const struct stats_snap *tot)
{
	const struct report_run none = { 0 };
	unsigned n = 0;
	for (unsigned i = 0; i < r->cfg->n_slas; i++)
		n += !report_sla_ok(r, &none, tot, i);
	return n;
}
