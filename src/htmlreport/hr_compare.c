/* hr_compare.c: the page of a `compare --json`: each command's figure
 * NEW/BASE as a ratio with its 95% interval around 1, its verdict, and
 * the table of the numbers behind it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"
#include "util/xmalloc.h"

static void
side(struct hbuf *b, const char *name, const struct jv *s)
{
	char buf[64];
	const struct jv *files = jv_get(s, "files");

	hb_put(b, "<tr><th>");
	hb_esc(b, name);
	hb_printf(b, "</th><td data-key=\"%s-runs\" data-v=\"", name);
	hb_num(b, jv_num(jv_get(s, "runs"), NAN));
	snprintf(buf, sizeof(buf), "\">runs: %.0f, measured %.1f s: ",
		 jv_num(jv_get(s, "runs"), 0), jv_num(jv_get(s, "seconds"), 0));
	hb_put(b, buf);
	for (size_t i = 0; files != NULL && files->t == J_ARR &&
	     i < files->nk; i++) {
		if (i > 0)
			hb_put(b, ", ");
		hb_put(b, "<code>");
		hb_esc(b, jv_str(&files->kids[i]));
		hb_put(b, "</code>");
	}
	hb_put(b, "</td></tr>\n");
}

static void
cell(struct hbuf *b, const char *key, const struct jv *v, double scale)
{
	if (v != NULL && v->t == J_NUM) {
		hr_num_cell(b, key, v->n, v->n * scale);
		return;
	}
	hb_printf(b, "<td data-key=\"%s\"", key);
	if (v != NULL && v->t == J_STR) {
		hb_put(b, ">");
		hb_esc(b, v->s);
	} else {
		hb_put(b, ">-");
	}
	hb_put(b, "</td>");
}

void
hr_compare_page(struct hbuf *b, const struct jv *cmp, const char *src)
{
	const struct jv *rows = jv_get(cmp, "rows");
	struct hr_interval *iv = xcalloc(rows->nk + 1, sizeof(*iv));
	char **labels = xcalloc(rows->nk + 1, sizeof(*labels));
	double worse = jv_num(jv_get(cmp, "worse"), 0);

	hr_section(b, "compare", "The comparison");
	hb_put(b, "<table class=\"settings\" data-table=\"compare\">");
	hr_kv(b, "input", src);
	side(b, "base", jv_get(cmp, "base"));
	side(b, "new", jv_get(cmp, "new"));
	hr_kv_num(b, "confidence", jv_num(jv_get(cmp, "confidence"), NAN), "");
	hr_kv_num(b, "threshold", jv_num(jv_get(cmp, "threshold"), NAN), "");
	hr_kv_num(b, "rows worse", worse, "");
	hr_kv_num(b, "exit status", jv_num(jv_get(cmp, "exit_status"), NAN),
		  "");
	hb_put(b, "</table>\n");
	for (size_t i = 0; i < rows->nk; i++) {
		const struct jv *r = &rows->kids[i];
		const char *c = jv_str(jv_get(r, "command"));
		const char *f = jv_str(jv_get(r, "figure"));
		size_t len = (c ? strlen(c) : 1) + (f ? strlen(f) : 1) + 2;
		labels[i] = xmalloc(len);
		snprintf(labels[i], len, "%s %s", c ? c : "?", f ? f : "?");
		iv[i].label = labels[i];
		iv[i].v = jv_num(jv_get(r, "ratio"), NAN);
		iv[i].lo = jv_num(jv_get(r, "ci_low"), NAN);
		iv[i].hi = jv_num(jv_get(r, "ci_high"), NAN);
		iv[i].verdict = jv_str(jv_get(r, "verdict"));
		iv[i].bad = iv[i].verdict != NULL &&
			    strcmp(iv[i].verdict, "worse") == 0;
	}
	hr_section(b, "ratios", "NEW against BASE");
	hb_put(b, "<p class=\"note\">Each row: NEW's figure over BASE's (a "
	       "rate below 1 or a latency above 1 is worse), its 95% "
	       "interval as a bar, the verdict at the right. A triangle "
	       "marks a row judged worse.</p>\n");
	hr_interval_chart(b, "ratios", "Ratio NEW/BASE with its 95% interval",
			  "ratio NEW/BASE (log scale; dashed line: 1, no "
			  "change)", 1, iv, rows->nk);
	hr_table_open(b, "rows", "row|unit|base|new|ratio|ci low|ci high|"
		      "base n|new n|verdict");
	for (size_t i = 0; i < rows->nk; i++) {
		const struct jv *r = &rows->kids[i];
		hr_row_open(b, labels[i]);
		cell(b, "unit", jv_get(r, "unit"), 1);
		cell(b, "base", jv_get(r, "base"), 1);
		cell(b, "new", jv_get(r, "new"), 1);
		cell(b, "ratio", jv_get(r, "ratio"), 1);
		cell(b, "ci_low", jv_get(r, "ci_low"), 1);
		cell(b, "ci_high", jv_get(r, "ci_high"), 1);
		cell(b, "base_samples", jv_get(r, "base_samples"), 1);
		cell(b, "new_samples", jv_get(r, "new_samples"), 1);
		cell(b, "verdict", jv_get(r, "verdict"), 1);
		hb_put(b, "</tr>\n");
		free(labels[i]);
	}
	hb_put(b, "</table>\n");
	free(labels);
	free(iv);
}
