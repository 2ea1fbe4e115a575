/* compare_json.c: `imapstress compare --json`, the table as one JSON
 * object on one line (keys in the man page, COMPARING RUNS).  A value
 * that does not exist (no ratio, no interval) is null, never 0. */
#include <math.h>
#include <stdio.h>

#include "compare/compare_int.h"
#include "report/json_write.h"

/* Members of the object being written: the comma before all but the
 * first. */
struct obj {
	FILE *f;
	bool more;
};

static FILE *
member(struct obj *o, const char *key)
{
	if (o->more)
		fputc(',', o->f);
	o->more = true;
	json_key(o->f, key);
	return o->f;
}

static void
num(struct obj *o, const char *key, double v)
{
	FILE *f = member(o, key);
	if (isfinite(v))
		json_num(f, v);
	else
		fputs("null", f);
}

static void
u64(struct obj *o, const char *key, uint64_t v)
{
	fprintf(member(o, key), "%llu", (unsigned long long)v);
}

static void
str(struct obj *o, const char *key, const char *v)
{
	json_str(member(o, key), v);
}

static void
side(struct obj *o, const char *key, const struct cmp_side *s)
{
	struct obj in = { member(o, key), false };

	fputc('{', in.f);
	u64(&in, "runs", s->n_runs);
	num(&in, "seconds", s->dur);
	member(&in, "files");
	fputc('[', in.f);
	for (unsigned i = 0; i < s->n_paths; i++) {
		if (i > 0)
			fputc(',', in.f);
		json_str(in.f, s->paths[i]);
	}
	fputs("]}", in.f);
}

static void
row(FILE *f, const struct cmp_row *w)
{
	/* Latency in ms, as the table has it. */
	double scale = w->metric == CMP_RATE ? 1.0 : 1e-3;
	struct obj o = { f, false };

	fputc('{', f);
	str(&o, "command", op_table[w->op].name);
	str(&o, "figure", cmp_metric_name[w->metric]);
	str(&o, "unit", w->metric == CMP_RATE ? "1/s" : "ms");
	num(&o, "base", w->base * scale);
	num(&o, "new", w->new_ * scale);
	num(&o, "ratio", w->ratio);
	num(&o, "ci_low", w->lo);
	num(&o, "ci_high", w->hi);
	u64(&o, "base_samples", w->base_n);
	u64(&o, "new_samples", w->new_n);
	str(&o, "verdict", cmp_verdict_name[w->verdict]);
	fputc('}', f);
}

void
cmp_print_json(FILE *f, const struct cmp_report *r)
{
	struct obj o = { f, false };

	fputc('{', f);
	str(&o, "type", "compare");
	num(&o, "confidence", 0.95);
	num(&o, "threshold", r->o->threshold);
	u64(&o, "seed", r->o->seed);
	u64(&o, "resamples", r->o->resamples);
	u64(&o, "min_count", r->o->min_count);
	side(&o, "base", r->base);
	side(&o, "new", r->nw);
	member(&o, "rows");
	fputc('[', f);
	for (unsigned i = 0; i < r->n_rows; i++) {
		if (i > 0)
			fputc(',', f);
		row(f, &r->rows[i]);
	}
	fputc(']', f);
	u64(&o, "worse", cmp_worse(r->rows, r->n_rows));
	u64(&o, "exit_status", (uint64_t)r->exit_status);
	fputs("}\n", f);
}
