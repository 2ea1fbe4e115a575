/* hr_capacity_answer.c: the answer of a capacity search on its page:
 * DIR/capacity-answer.json as scripts/capacity writes it (the capacity,
 * its 95% interval, the value at it and the limit), said in a sentence
 * at the top with the script's own line and settings, and the chart the
 * answer is read from: each run's score (or the limiting command's p95)
 * against users, the median per count, the limit across and the
 * capacity's interval shaded (hr_cap.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htmlreport/hr_cap.h"
#include "htmlreport/hr_int.h"
#include "util/xmalloc.h"

int
hr_cap_answer_read(const char *dir, struct jv *a, bool *have, char *err,
		   size_t errlen)
{
	char path[4096], *text = NULL, jerr[160];

	*have = false;
	snprintf(path, sizeof(path), "%s/capacity-answer.json", dir);
	if (access(path, F_OK) != 0)
		return 0;
	if (hr_read_whole(path, &text, err, errlen) < 0) {
		free(text);
		return -1;
	}
	if (jv_parse(text, a, jerr, sizeof(jerr)) < 0) {
		snprintf(err, errlen, "%s: not JSON: %s", path, jerr);
		free(text);
		return -1;
	}
	free(text);
	const char *type = jv_str(jv_get(a, "type"));
	if (type == NULL || strcmp(type, "capacity-answer") != 0 ||
	    jv_str(jv_get(a, "verdict")) == NULL) {
		snprintf(err, errlen, "%s: not scripts/capacity's answer (no "
			 "\"type\":\"capacity-answer\" with a verdict)", path);
		jv_free(a);
		return -1;
	}
	*have = true;
	return 0;
}

/* data-KEY="V" ("-" for none), so a test reads the numbers shown. */
static void
data_num(struct hbuf *b, const char *key, double v)
{
	hb_printf(b, " data-%s=\"", key);
	if (isfinite(v))
		hb_num(b, v);
	else
		hb_put(b, "-");
	hb_put(b, "\"");
}

/* "(95% interval A..B)" or "(95% interval A..T+, open above)". */
static void
interval_words(struct hbuf *b, double lo, double hi, double top, bool open)
{
	if (!isfinite(lo))
		return;
	if (open)
		hb_printf(b, " (95%% interval %.0f..%.0f+, open above)", lo,
			  top);
	else if (isfinite(hi))
		hb_printf(b, " (95%% interval %.0f..%.0f)", lo, hi);
}

static void
sentence(struct hbuf *b, const struct jv *a)
{
	const char *verdict = jv_str(jv_get(a, "verdict"));
	const char *metric = jv_str(jv_get(a, "metric"));
	double n = jv_num(jv_get(a, "users"), NAN);
	double lo = jv_num(jv_get(a, "lo"), NAN);
	double hi = jv_num(jv_get(a, "hi"), NAN);
	double top = jv_num(jv_get(a, "top"), NAN);
	double v = jv_num(jv_get(a, "value_ms"), NAN);
	double lim = jv_num(jv_get(a, "threshold_ms"), NAN);
	double bad = jv_num(jv_get(a, "not_held"), NAN);
	const struct jv *op = jv_get(a, "open_above");
	bool open = op != NULL && op->t == J_BOOL && op->b;

	hb_put(b, "<p class=\"answer\" data-verdict=\"");
	hb_esc(b, verdict);
	hb_put(b, "\"");
	data_num(b, "capacity", n);
	data_num(b, "lo", lo);
	data_num(b, "hi", hi);
	data_num(b, "top", top);
	hb_printf(b, " data-open-above=\"%d\"", open);
	data_num(b, "repeat-lo", jv_num(jv_get(a, "repeat_lo"), NAN));
	data_num(b, "repeat-hi", jv_num(jv_get(a, "repeat_hi"), NAN));
	data_num(b, "value", v);
	data_num(b, "threshold", lim);
	hb_put(b, ">");
	if (strcmp(verdict, "undecided") == 0)
		hb_put(b, "Could not decide within --max-time: ");
	else if (strcmp(verdict, "disk") == 0)
		hb_put(b, "Stopped before the server's disk fills; so far: ");
	if (!isfinite(n)) {
		hb_put(b, "Holds <b>fewer users than the first step</b>: no "
		       "count held");
	} else {
		bool max = strcmp(verdict, "max") == 0;
		hb_printf(b, "Holds %s<b>%.0f users</b>", max ? "at least " :
			  "", n);
		/* As the script says it: a search stopped by --max gives
		 * no interval (the chart still shades it). */
		if (!max)
			interval_words(b, lo, hi, top, open);
		if (metric != NULL && isfinite(v)) {
			hb_put(b, " at ");
			hb_esc(b, metric);
			hb_printf(b, " %.1f ms", v);
		}
		if (max)
			hb_put(b, " (--max reached)");
		else if (isfinite(bad))
			hb_printf(b, " (%.0f did not)", bad);
	}
	if (metric != NULL && isfinite(lim)) {
		hb_put(b, "; the limit: ");
		hb_esc(b, metric);
		hb_printf(b, " under %g ms", lim);
	}
	hb_put(b, ".</p>\n");
}

/* Where a repeat of the search would answer, 95% of the time
 * (repeat_lo..repeat_hi): the interval above holds the true capacity, and
 * another search's answer carries an error of its own.  "C..D", or
 * "C..T+ (open above)"; no row without a knee. */
static void
repeat_kv(struct hbuf *b, const struct jv *a)
{
	double c = jv_num(jv_get(a, "repeat_lo"), NAN);
	double d = jv_num(jv_get(a, "repeat_hi"), NAN);
	double top = jv_num(jv_get(a, "top"), NAN);
	char s[96];

	if (!isfinite(c))
		return;
	if (isfinite(d))
		snprintf(s, sizeof(s), "%.0f..%.0f", c, d);
	else
		snprintf(s, sizeof(s), "%.0f..%.0f+ (open above)", c, top);
	hr_kv(b, "a repeat of the search answers in (95%)", s);
}

/* The command line: the list's words with spaces between. */
static void
command_kv(struct hbuf *b, const struct jv *cmd)
{
	struct hbuf s;

	if (cmd == NULL || cmd->t != J_ARR)
		return;
	hb_init(&s);
	for (size_t i = 0; i < cmd->nk; i++) {
		if (i > 0)
			hb_put(&s, " ");
		hb_put(&s, jv_str(&cmd->kids[i]) != NULL ?
		       jv_str(&cmd->kids[i]) : "?");
	}
	hr_kv(b, "command line", s.p != NULL ? s.p : "");
	hb_free(&s);
}

void
hr_cap_answer(struct hbuf *b, const struct jv *a)
{
	static const char *const nums[][3] = {
		{ "runs", "runs", "" },
		{ "max_login_p95_ms", "login p95 limit", "ms" },
		{ "max_errors", "hard errors allowed per run", "" },
		{ "repeats", "runs at each bound (--repeats)", "" },
		{ "width_pct", "width wanted (--width)", "%" },
		{ "max_time_s", "--max-time", "s" },
	};

	if (a == NULL) {
		hb_put(b, "<p class=\"note\" data-answer=\"none\">No answer "
		       "file (capacity-answer.json): the directory is from a "
		       "scripts/capacity older than the file, so the page "
		       "names the most users a run held instead of the "
		       "search's answer and its interval.</p>\n");
		return;
	}
	sentence(b, a);
	hb_put(b, "<table class=\"settings\" data-table=\"answer\">");
	hr_kv(b, "verdict", jv_str(jv_get(a, "verdict")));
	hr_kv(b, "the script said", jv_str(jv_get(a, "line")));
	repeat_kv(b, a);
	if (jv_str(jv_get(a, "why")) != NULL)
		hr_kv(b, "why it stopped", jv_str(jv_get(a, "why")));
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		double v = jv_num(jv_get(a, nums[i][0]), NAN);
		if (isfinite(v))
			hr_kv_num(b, nums[i][1], v, nums[i][2]);
	}
	command_kv(b, jv_get(a, "command"));
	hb_put(b, "</table>\n");
}

/* The CSV column of the answer's metric: "score" is score_ms, "CMD p95"
 * CMD_p95_ms. */
static int
metric_col(const struct cap *c, const struct jv *a, char *label,
	   size_t lablen)
{
	const char *m = a != NULL ? jv_str(jv_get(a, "metric")) : NULL;
	char name[128];

	if (m == NULL || strcmp(m, "score") == 0) {
		snprintf(label, lablen, "score");
		return cap_col(c, "score_ms");
	}
	size_t len = strlen(m);
	if (len > 4 && strcmp(m + len - 4, " p95") == 0 && len < 100) {
		snprintf(name, sizeof(name), "%.*s_p95_ms", (int)(len - 4), m);
		snprintf(label, lablen, "%s", m);
		return cap_col(c, name);
	}
	return -1;
}

bool
hr_cap_limit_chart(struct hbuf *b, const struct cap *c, const size_t *o,
		   const struct jv *a)
{
	char what[120], title[320], ylabel[140], lim[160], band[160];
	int col = metric_col(c, a, what, sizeof(what));
	int u = cap_col(c, "users"), h = cap_col(c, "held");
	bool any = false;

	for (size_t i = 0; col >= 0 && i < c->nrow; i++)
		any |= isfinite(cap_at(c, i, col));
	if (!any)
		return false;
	snprintf(title, sizeof(title), "%s against users, one point per run%s",
		 what, a != NULL ? " (dashed: the limit; shaded: the "
		 "capacity's 95% interval)" : "");
	snprintf(ylabel, sizeof(ylabel), "%s (ms)", what);
	struct hr_chart ch = { "capacity-score", title, "users", ylabel, 1,
			       false, false, 0, NULL, false, 0 };
	double lo = a != NULL ? jv_num(jv_get(a, "lo"), NAN) : NAN;
	double hi = a != NULL ? jv_num(jv_get(a, "hi"), NAN) : NAN;
	double top = a != NULL ? jv_num(jv_get(a, "top"), NAN) : NAN;
	double t = a != NULL ? jv_num(jv_get(a, "threshold_ms"), NAN) : NAN;
	struct hr_marks mk = { false, 0, NULL, 0, 0, NULL };
	if (isfinite(t)) {
		mk.has_limit = true;
		mk.limit = t;
		snprintf(lim, sizeof(lim), "limit: %s < %g ms", what, t);
		mk.limit_label = lim;
	}
	if (isfinite(lo)) {
		/* Open above: shaded up to the most users tried. */
		bool open = !isfinite(hi);
		mk.band_lo = lo - 0.5;
		mk.band_hi = (open ? top : hi) + 0.5;
		snprintf(band, sizeof(band), "capacity's 95%% interval: "
			 "%.0f..%.0f%s", lo, open ? top : hi, open ? "+" : "");
		mk.band_label = band;
	}

	/* The median per count, over every run with a value (as the PNG). */
	struct hr_series *m = hr_chart_add(&ch, "median of the runs",
					   c->nrow);
	size_t k = 0;
	double *vs = xcalloc(c->nrow + 1, sizeof(double));
	for (size_t i = 0; i < c->nrow;) {
		double n = cap_at(c, o[i], u);
		size_t nv = 0, j = i;
		for (; j < c->nrow && cap_at(c, o[j], u) == n; j++)
			if (isfinite(cap_at(c, o[j], col)))
				vs[nv++] = cap_at(c, o[j], col);
		for (size_t p = 1; p < nv; p++)	/* few: insertion sort */
			for (size_t q = p; q > 0 && vs[q - 1] > vs[q]; q--) {
				double tmp = vs[q];
				vs[q] = vs[q - 1];
				vs[q - 1] = tmp;
			}
		m->x[k] = n;
		m->y[k++] = nv > 0 ? vs[nv / 2] : NAN;
		i = j;
	}
	m->n = k;
	free(vs);
	for (int held = 1; held >= 0; held--) {
		/* No such run (every one held): no empty series. */
		bool some = false;
		for (size_t i = 0; i < c->nrow; i++)
			some |= (cap_at(c, i, h) == 1) == held &&
				isfinite(cap_at(c, i, col));
		if (!some)
			continue;
		struct hr_series *s = hr_chart_add(&ch, held ? "run that held" :
						   "run that did not",
						   c->nrow);
		s->dots = true;
		for (size_t i = 0; i < c->nrow; i++) {
			s->x[i] = cap_at(c, o[i], u);
			if ((cap_at(c, o[i], h) == 1) == held)
				s->y[i] = cap_at(c, o[i], col);
		}
	}
	hr_line_chart_marked(b, &ch, &mk);
	hr_chart_free(&ch);
	return true;
}
