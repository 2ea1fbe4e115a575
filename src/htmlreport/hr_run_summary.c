/* hr_run_summary.c: a run summary's commands, actions or POP3 commands
 * as a table (counts, rate and the latency set) and as a percentile
 * plot, for every section of a run page.  hr_run.c, hr_run_profile.c and
 * hr_run_pop3.c call down here; it calls none of them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "htmlreport/hr_int.h"

/* The page's table of the summary's commands (or actions): count, rate
 * and the latency set; data-v holds the JSON's own numbers. */
void
hr_latency_table(struct hbuf *b, const char *id, const struct jv *o)
{
	static const char *const ck[] = { "ok", "no", "bad", "failed", NULL };

	hr_count_table(b, id, o, ck);
}

void
hr_count_table(struct hbuf *b, const char *id, const struct jv *o,
	       const char *const *counts)
{
	static const char *const lk[] = {
		"mean", "p50", "p90", "p95", "p99", "p999", "max",
	};
	char heads[256] = "name";

	if (o == NULL || o->t != J_OBJ || o->nk == 0)
		return;
	for (size_t k = 0; counts[k] != NULL; k++)
		snprintf(heads + strlen(heads), sizeof(heads) - strlen(heads),
			 "|%s", counts[k]);
	snprintf(heads + strlen(heads), sizeof(heads) - strlen(heads),
		 "|ok/s|mean ms|p50 ms|p90 ms|p95 ms|p99 ms|p99.9 ms|max ms");
	hr_table_open(b, id, heads);
	for (size_t i = 0; i < o->nk; i++) {
		const struct jv *c = &o->kids[i];
		hr_row_open(b, o->keys[i]);
		for (size_t k = 0; counts[k] != NULL; k++) {
			const struct jv *v = jv_get(c, counts[k]);
			if (v == NULL) {
				hb_put(b, "<td></td>");
				continue;
			}
			hr_num_cell(b, counts[k], jv_num(v, NAN),
				    jv_num(v, NAN));
		}
		double rate = jv_num(jv_get(c, "rate"), NAN);
		hr_num_cell(b, "rate", rate, rate);
		const struct jv *l = jv_get(c, "latency_us");
		for (size_t k = 0; k < 7; k++) {
			double v = jv_num(jv_get(l, lk[k]), NAN);
			hr_num_cell(b, lk[k], v, v / 1000);
		}
		hb_put(b, "</tr>\n");
	}
	hb_put(b, "</table>\n");
}

/* The summary's percentile sets of the members of o (each under
 * latency_us) as one percentile plot. */
void
hr_pct_chart(struct hbuf *b, const char *id, const char *title,
	     const struct jv *o, const char *sub)
{
	static const char *const k[] = { "p50", "p90", "p95", "p99", "p999",
					 "max" };
	static const double p[] = { 50, 90, 95, 99, 99.9, 100 };
	struct hr_chart c = { id, title, "percentile (log scale: each step "
			      "one more nine)", "latency (ms, log scale)",
			      1e-3, true, true, 0, NULL, false, 0 };

	if (o == NULL || o->t != J_OBJ)
		return;
	for (size_t i = 0; i < o->nk; i++) {
		const struct jv *l = jv_get(&o->kids[i], sub);
		/* a kind with a count of 0 has no curve (NOTIFY's push rows
		 * in a run without NOTIFY clients, submission's without
		 * submission) */
		if (l == NULL || jv_num(jv_get(&o->kids[i], "count"), 1) == 0)
			continue;
		struct hr_series *s = hr_chart_add(&c, o->keys[i], 6);
		for (size_t j = 0; j < 6; j++) {
			s->x[j] = p[j];
			s->y[j] = jv_num(jv_get(l, k[j]), NAN);
		}
	}
	/* Every member with a count of 0 (push in a run of POP3 users
	 * only): no chart rather than an empty one. */
	if (c.ns > 0)
		hr_line_chart(b, &c);
	hr_chart_free(&c);
}
