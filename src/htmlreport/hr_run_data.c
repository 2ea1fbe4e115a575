/* hr_run_data.c: series and key lists out of a run's ticks, for the run
 * page's sections (hr_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"
#include "util/xmalloc.h"

static const struct jv *
walk(const struct jv *v, const char *const *path)
{
	for (size_t i = 0; v != NULL && path[i] != NULL; i++)
		v = jv_get(v, path[i]);
	return v;
}

double
hr_tick_val(const struct hr_run *r, size_t i, const char *const *path)
{
	return jv_num(walk(&r->ticks[i], path), NAN);
}

double
hr_tick_secs(const struct hr_run *r, size_t i)
{
	/* From the tick before to this one: a tick fires when the loop gets
	 * to it, late on a loaded machine, so not always 1 s apart. */
	double t = jv_num(jv_get(&r->ticks[i], "t"), NAN);
	double t0 = i == 0 ? 0 : jv_num(jv_get(&r->ticks[i - 1], "t"), NAN);
	if (t - t0 > 0 && t - t0 < 1e9)
		return t - t0;
	double p = jv_num(jv_get(&r->ticks[i], "partial_s"), 0);
	return p > 0 ? p : 1.0;
}

struct hr_series *
hr_tick_series(struct hr_chart *c, const struct hr_run *r, const char *name,
	       const char *const *path, bool rate, bool zero_absent)
{
	struct hr_series *s = hr_chart_add(c, name, r->nt);

	for (size_t i = 0; i < r->nt; i++) {
		double v = hr_tick_val(r, i, path);
		if (!isfinite(v) && zero_absent)
			v = 0;
		if (rate)
			v /= hr_tick_secs(r, i);
		s->x[i] = jv_num(jv_get(&r->ticks[i], "t"), (double)i + 1);
		s->y[i] = v;
		const struct jv *w = jv_get(&r->ticks[i], "warmup");
		if (w != NULL && w->b && s->x[i] > c->shade_to)
			c->shade_to = s->x[i];
	}
	return s;
}

static void
add_keys(const struct jv *o, const char ***k, size_t *n, size_t *cap)
{
	if (o == NULL || o->t != J_OBJ)
		return;
	for (size_t i = 0; i < o->nk; i++) {
		size_t j;
		for (j = 0; j < *n; j++)
			if (strcmp((*k)[j], o->keys[i]) == 0)
				break;
		if (j < *n)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*k = xrealloc(*k, *cap * sizeof(**k));
		}
		(*k)[(*n)++] = o->keys[i];
	}
}

const char **
hr_keys(const struct hr_run *r, const char *const *path, size_t *n)
{
	const char **k = NULL;
	size_t cap = 0;

	*n = 0;
	if (r->has_summary)
		add_keys(walk(&r->summary, path), &k, n, &cap);
	for (size_t i = 0; i < r->nt; i++)
		add_keys(walk(&r->ticks[i], path), &k, n, &cap);
	return k;
}

/* obj (NULL-ended, at most 3 keys), then key and leaf, into path[6]. */
static void
leaf_path(const char **path, const char *const *obj, const char *key,
	  const char *leaf)
{
	size_t n = 0;

	while (obj[n] != NULL && n < 3) {
		path[n] = obj[n];
		n++;
	}
	path[n++] = key;
	path[n++] = leaf;
	path[n] = NULL;
}

/* Whether any second measured key: a kind nothing happened to (NOTIFY's
 * push rows in a run without NOTIFY clients) gets no empty chart. */
static bool
p99_seen(const struct hr_run *r, const char *const *obj, const char *key)
{
	const char *path[6];

	leaf_path(path, obj, key, "p99_us");
	for (size_t t = 0; t < r->nt; t++) {
		double v = hr_tick_val(r, t, path);
		if (isfinite(v) && v > 0)
			return true;
	}
	return false;
}

void
hr_p3_charts(struct hbuf *b, const struct hr_run *r, const char *id_pfx,
	     const char *title_pfx, const char *const *obj)
{
	static const char *const pcts[] = { "p50_us", "p95_us", "p99_us" };
	static const char *const names[] = { "p50", "p95", "p99" };
	size_t n;
	const char **keys = hr_keys(r, obj, &n);
	char id[96], title[160];

	for (size_t i = 0; i < n; i++) {
		if (!p99_seen(r, obj, keys[i]))
			continue;
		snprintf(id, sizeof(id), "%s-%.80s", id_pfx, keys[i]);
		snprintf(title, sizeof(title), "%s%.80s: p50, p95, p99 per "
			 "second", title_pfx, keys[i]);
		struct hr_chart c = { id, title, "time (s since start)",
				      "latency (ms, log scale)", 1e-3, true,
				      false, 0, NULL, true, 0 };
		for (size_t k = 0; k < 3; k++) {
			const char *path[6];
			leaf_path(path, obj, keys[i], pcts[k]);
			hr_tick_series(&c, r, names[k], path, false, false);
		}
		hr_line_chart(b, &c);
		hr_chart_free(&c);
	}
	free(keys);
}

void
hr_row_open(struct hbuf *b, const char *name)
{
	hb_put(b, "<tr data-name=\"");
	hb_esc(b, name);
	hb_put(b, "\"><td>");
	hb_esc(b, name);
	hb_put(b, "</td>");
}

void
hr_run_free(struct hr_run *r)
{
	for (size_t i = 0; i < r->nt; i++)
		jv_free(&r->ticks[i]);
	free(r->ticks);
	jv_free(&r->summary);
	free(r->sources);
	free(r->args);
	free(r->mode);
	for (size_t i = 0; i < r->n_dist; i++) {
		free(r->dist[i].p);
		free(r->dist[i].us);
	}
	memset(r, 0, sizeof(*r));
}
