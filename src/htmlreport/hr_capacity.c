/* hr_capacity.c: the page of a directory scripts/capacity wrote: its
 * capacity.csv (one row per step, or per run once the script repeats
 * counts: users, held, score, each command's p95, the server's CPU and
 * memory, and words such as a verdict), each step's users-N.json (or
 * users-N-rR.json) and, when there, capacity-fit.csv.  Shown: the most
 * users a step held and the fewest above it that did not (the answer, with
 * the limit drawn on the curve, is hr_capacity_answer.c's), every command's
 * p95 against users, the server's CPU against users, per step the worst
 * command's p95 with its p50..p99 interval (from that step's summary),
 * and the share of runs that held per count with the script's fit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htmlreport/hr_cap.h"
#include "htmlreport/hr_int.h"
#include "util/xmalloc.h"

#define LOGIN_ESTIMATE "login (the script's estimate, warm-up included)"

/* capacity.csv as the script writes it: a header, then a row per step
 * (per run, since the script repeats counts): numbers, empty cells and
 * words (a verdict), kept as written for the table.  A row with another
 * number of fields than the header is refused. */
static int
read_csv(const char *path, struct cap *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, rcap = 0;
	unsigned long lineno = 0;
	ssize_t n;
	int rc = -1;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s (not a directory scripts/"
			 "capacity wrote)", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n == 0 || line[n - 1] != '\n') {
			snprintf(err, errlen, "%s:%lu: truncated", path, lineno);
			goto out;
		}
		line[--n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		size_t k = 0;
		char *p = line;
		if (lineno == 1) {
			for (char *t; (t = strsep(&p, ",")) != NULL; k++) {
				if (k == CAP_MAX_COLS) {
					snprintf(err, errlen, "%s:1: more than "
						 "%d columns", path, CAP_MAX_COLS);
					goto out;
				}
				c->cols[c->ncol++] = xstrdup(t);
			}
			if (cap_col(c, "users") < 0 || cap_col(c, "held") < 0) {
				snprintf(err, errlen, "%s:1: not capacity.csv's "
					 "header (no users and held columns)",
					 path);
				goto out;
			}
			continue;
		}
		if (c->nrow == rcap) {
			rcap = rcap ? rcap * 2 : 16;
			c->v = xrealloc(c->v, rcap * c->ncol * sizeof(double));
			c->text = xrealloc(c->text, rcap * c->ncol *
					   sizeof(char *));
		}
		double *row = c->v + c->nrow * c->ncol;
		char **txt = c->text + c->nrow * c->ncol;
		for (char *t; (t = strsep(&p, ",")) != NULL; k++) {
			char *e;
			if (k >= c->ncol)
				break;
			row[k] = *t == '\0' ? NAN : strtod(t, &e);
			if (*t != '\0' && (*e != '\0' || !isfinite(row[k])))
				row[k] = NAN;
			txt[k] = xstrdup(t);
		}
		for (size_t j = k; j < c->ncol; j++)
			txt[j] = NULL;
		c->nrow++;	/* its texts are freed with c, even if refused */
		if (k != c->ncol) {
			snprintf(err, errlen, "%s:%lu: %zu fields, the header "
				 "has %zu", path, lineno, k, c->ncol);
			goto out;
		}
		if (!(cap_at(c, c->nrow - 1, cap_col(c, "users")) >= 0)) {
			snprintf(err, errlen, "%s:%lu: column %d (users): not "
				 "a number", path, lineno,
				 cap_col(c, "users") + 1);
			goto out;
		}
	}
	rc = hr_read_end(f, path, lineno, err, errlen);
out:
	free(line);
	fclose(f);
	return rc;
}

static void
cap_free(struct cap *c)
{
	for (size_t i = 0; i < c->nrow * c->ncol; i++)
		free(c->text[i]);
	for (size_t i = 0; i < c->ncol; i++)
		free(c->cols[i]);
	free(c->text);
	free(c->v);
}

/* Row indexes ordered by users (a step list is in the order run). */
static size_t *
by_users(const struct cap *c)
{
	size_t *o = xcalloc(c->nrow + 1, sizeof(*o));
	int u = cap_col(c, "users");

	for (size_t i = 0; i < c->nrow; i++) {
		size_t j = i;
		while (j > 0 && cap_at(c, o[j - 1], u) > cap_at(c, i, u)) {
			o[j] = o[j - 1];
			j--;
		}
		o[j] = i;
	}
	return o;
}

/* A series per column whose name ends in suffix, against users; nothing
 * when no column has a value (false). */
static bool
curve(struct hbuf *b, const struct cap *c, const size_t *o,
      struct hr_chart *ch, const char *suffix)
{
	int u = cap_col(c, "users");
	size_t sl = strlen(suffix);

	for (size_t k = 0; k < c->ncol; k++) {
		size_t len = strlen(c->cols[k]);
		if (len <= sl || strcmp(c->cols[k] + len - sl, suffix) != 0)
			continue;
		bool any = false;
		for (size_t i = 0; i < c->nrow; i++)
			any |= isfinite(cap_at(c, i, (int)k));
		if (!any)
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)(len - sl > 100 ?
			 100 : len - sl), c->cols[k]);
		/* Beside LOGIN's own p95: the script's estimate is another
		 * figure (from the ticks, the warm-up's logins too). */
		if (strcmp(c->cols[k], "login_p95_ms") == 0)
			snprintf(name, sizeof(name), LOGIN_ESTIMATE);
		struct hr_series *s = hr_chart_add(ch, name, c->nrow);
		for (size_t i = 0; i < c->nrow; i++) {
			s->x[i] = cap_at(c, o[i], u);
			s->y[i] = cap_at(c, o[i], (int)k);
		}
	}
	bool drawn = ch->ns > 0;
	if (drawn)
		hr_line_chart(b, ch);
	hr_chart_free(ch);
	return drawn;
}

/* Step row's worst command by p95, with its p50 and p99 from the step's
 * summary (DIR/users-N.json, last line).  Quietly NAN when it is not
 * there: the CSV alone still makes the page. */
static void
step_interval(const char *dir, const struct cap *c, size_t row,
	      struct hr_interval *iv, char *label, size_t lablen)
{
	int u = cap_col(c, "users"), worst = -1;
	double wv = -1;

	for (size_t k = 0; k < c->ncol; k++) {
		size_t len = strlen(c->cols[k]);
		/* login_p95_ms is the script's estimate from the ticks (the
		 * warm-up's logins too), no summary's: LOGIN_p95_ms is the
		 * command's. */
		if (len > 7 && strcmp(c->cols[k] + len - 7, "_p95_ms") == 0 &&
		    strcmp(c->cols[k], "login_p95_ms") != 0 &&
		    cap_at(c, row, (int)k) > wv) {
			wv = cap_at(c, row, (int)k);
			worst = (int)k;
		}
	}
	iv->v = iv->lo = iv->hi = NAN;
	snprintf(label, lablen, "%.0f users", cap_at(c, row, u));
	if (worst < 0)
		return;
	size_t nl = strlen(c->cols[worst]) - 7;
	double rp = cap_at(c, row, cap_col(c, "repeat"));
	if (isfinite(rp))
		snprintf(label, lablen, "%.0f users, run %.0f (%.*s)",
			 cap_at(c, row, u), rp, (int)(nl > 50 ? 50 : nl),
			 c->cols[worst]);
	else
		snprintf(label, lablen, "%.0f users (%.*s)", cap_at(c, row, u),
			 (int)(nl > 60 ? 60 : nl), c->cols[worst]);
	iv->v = wv;
	char path[4096], cmd[64];
	snprintf(cmd, sizeof(cmd), "%.*s", (int)(nl > 60 ? 60 : nl),
		 c->cols[worst]);
	/* users-N.json; users-N-rR.json once the script repeats counts. */
	double rep = cap_at(c, row, cap_col(c, "repeat"));
	if (isfinite(rep))
		snprintf(path, sizeof(path), "%s/users-%.0f-r%.0f.json", dir,
			 cap_at(c, row, u), rep);
	else
		snprintf(path, sizeof(path), "%s/users-%.0f.json", dir,
			 cap_at(c, row, u));
	struct hr_run r = { 0 };
	char e[256];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return;
	if (hr_read_jsonl(path, f, &r, e, sizeof(e)) == 0 && r.has_summary) {
		const struct jv *l = jv_at(&r.summary, "commands", cmd,
					   "latency_us", NULL);
		if (l == NULL)	/* a profile's action, in lower case */
			l = jv_at(&r.summary, "profile", "actions", cmd,
				  "latency_us", NULL);
		iv->lo = jv_num(jv_get(l, "p50"), NAN) / 1000;
		iv->hi = jv_num(jv_get(l, "p99"), NAN) / 1000;
	}
	fclose(f);
	hr_run_free(&r);
}

/* The most users a run held and the fewest above that did not: the
 * capacity itself when the directory has no answer file (data-capacity),
 * else a note beside the answer. */
static void
headline(struct hbuf *b, const struct cap *c, const size_t *o, double *good,
	 bool answered)
{
	int u = cap_col(c, "users"), h = cap_col(c, "held");
	double bad = NAN;

	*good = NAN;
	for (size_t i = 0; i < c->nrow; i++)
		if (cap_at(c, o[i], h) == 1)
			*good = cap_at(c, o[i], u);
	for (size_t i = 0; i < c->nrow; i++)
		if (cap_at(c, o[i], h) != 1 && !(cap_at(c, o[i], u) < *good)) {
			bad = cap_at(c, o[i], u);
			break;
		}
	if (answered) {
		hb_put(b, "<p class=\"note\">");
		if (isfinite(*good))
			hb_printf(b, "The most users a run held: %.0f.", *good);
		else
			hb_put(b, "No run held.");
		if (isfinite(bad) && isfinite(*good))
			hb_printf(b, " The fewest above that which did not: "
				  "%.0f.", bad);
		hb_put(b, "</p>\n");
		return;
	}
	hb_put(b, "<p class=\"headline\"");
	if (isfinite(*good)) {
		hb_put(b, " data-capacity=\"");
		hb_num(b, *good);
		hb_put(b, "\"");
	}
	hb_put(b, ">");
	if (!isfinite(*good))
		hb_put(b, "No step held: the capacity is below the first "
		       "step's users.");
	else if (!isfinite(bad))
		hb_printf(b, "Holds at least <b>%.0f users</b> (every step "
			  "held).", *good);
	else
		hb_printf(b, "Holds <b>%.0f users</b>; %.0f did not.", *good,
			  bad);
	hb_put(b, "</p>\n");
}

static void
table(struct hbuf *b, const struct cap *c, const size_t *o, const char *id)
{
	hb_printf(b, "<div class=\"wide\"><table class=\"num\" "
		  "data-table=\"%s\"><tr>", id);
	for (size_t k = 0; k < c->ncol; k++) {
		hb_put(b, "<th>");
		hb_esc(b, c->cols[k]);
		hb_put(b, "</th>");
	}
	hb_put(b, "</tr>\n");
	for (size_t i = 0; i < c->nrow; i++) {
		hb_printf(b, "<tr data-name=\"%zu\">", o[i] + 1);
		for (size_t k = 0; k < c->ncol; k++) {
			double v = cap_at(c, o[i], (int)k);
			const char *t = c->text[o[i] * c->ncol + k];
			if (isfinite(v)) {
				hr_num_cell(b, c->cols[k], v, v);
			} else {
				hb_put(b, "<td>");
				hb_esc(b, t);
				hb_put(b, "</td>");
			}
		}
		hb_put(b, "</tr>\n");
	}
	hb_put(b, "</table></div>\n");
}

/* capacity-fit.csv (the script repeats counts): per count, the runs, how
 * many held, their share and the fitted share; a chart and the table.
 * Absent in a directory of the script's first version: nothing. */
static int
fit_section(struct hbuf *b, const char *dir, char *err, size_t errlen)
{
	struct cap f = { .ncol = 0 };
	char path[4096];
	int u, sh, ft, lo, hi;

	snprintf(path, sizeof(path), "%s/capacity-fit.csv", dir);
	if (access(path, F_OK) != 0)
		return 0;
	if (read_csv(path, &f, err, errlen) < 0) {
		cap_free(&f);
		return -1;
	}
	u = cap_col(&f, "users");
	sh = cap_col(&f, "share");
	ft = cap_col(&f, "fitted");
	lo = cap_col(&f, "share_lo");
	hi = cap_col(&f, "share_hi");
	hr_section(b, "fit", "Share of runs that held, per count");
	if (lo >= 0 && hi >= 0)
		hb_put(b, "<p class=\"note\">The bar at each count is its "
		       "share's 95% interval (Beta posterior of its runs): "
		       "few runs leave it wide.</p>\n");
	struct hr_chart c = { "capacity-fit", "Share of runs that held, "
			      "against users", "users", "share of runs held "
			      "(0 to 1)", 1, false, false, 0, NULL, false, 0 };
	/* The capacity is where the fit crosses a half. */
	const struct hr_marks half = { true, 0.5, "1/2", 0, 0, NULL };
	size_t *o = by_users(&f);
	const int cols[2] = { sh, ft };
	const char *const names[2] = { "share held", "fitted" };
	for (int k = 0; k < 2; k++) {
		if (cols[k] < 0)
			continue;
		struct hr_series *s = hr_chart_add(&c, names[k], f.nrow);
		if (k == 0 && lo >= 0 && hi >= 0)
			hr_series_bars(s);
		for (size_t i = 0; i < f.nrow; i++) {
			s->x[i] = cap_at(&f, o[i], u);
			s->y[i] = cap_at(&f, o[i], cols[k]);
			if (s->ylo != NULL) {
				s->ylo[i] = cap_at(&f, o[i], lo);
				s->yhi[i] = cap_at(&f, o[i], hi);
			}
		}
	}
	hr_line_chart_marked(b, &c, &half);
	hr_chart_free(&c);
	table(b, &f, o, "fit");
	free(o);
	cap_free(&f);
	return 0;
}

int
hr_capacity_page(struct hbuf *b, const char *dir, char *err, size_t errlen)
{
	struct cap c = { .ncol = 0 };
	char path[4096];
	double good;
	struct jv ans;
	bool answered;

	snprintf(path, sizeof(path), "%s/capacity.csv", dir);
	if (read_csv(path, &c, err, errlen) < 0 ||
	    hr_cap_answer_read(dir, &ans, &answered, err, errlen) < 0) {
		cap_free(&c);
		return -1;
	}
	size_t *o = by_users(&c);
	hr_section(b, "capacity", "Capacity");
	hb_put(b, "<table class=\"settings\" data-table=\"input\">");
	hr_kv(b, "input", dir);
	hb_put(b, "</table>\n");
	hr_cap_answer(b, answered ? &ans : NULL);
	headline(b, &c, o, &good, answered);
	hr_cap_limit_chart(b, &c, o, answered ? &ans : NULL);
	struct hr_chart p95 = { "capacity-p95", "p95 per command against users",
				"users", "p95 (ms, log scale)", 1, true, false,
				0, NULL, false, 0 };
	if (!curve(b, &c, o, &p95, "_p95_ms"))
		hb_put(b, "<p class=\"note\">No step has a p95.</p>\n");
	struct hr_chart cpu = { "capacity-cpu", "Server CPU against users",
				"users", "CPU (%, 100 = one core)", 1, false,
				false, 0, NULL, false, 0 };
	if (!curve(b, &c, o, &cpu, "server_cpu_pct"))
		hb_put(b, "<p class=\"note\">The server's CPU was not sampled "
		       "(give --server-pid among the imapstress arguments).</p>\n");

	struct hr_interval *iv = xcalloc(c.nrow + 1, sizeof(*iv));
	char (*labels)[96] = xcalloc(c.nrow + 1, sizeof(*labels));
	double ref = NAN;
	for (size_t i = 0; i < c.nrow; i++) {
		step_interval(dir, &c, o[i], &iv[i], labels[i], 96);
		iv[i].label = labels[i];
		iv[i].bad = cap_at(&c, o[i], cap_col(&c, "held")) != 1;
		iv[i].verdict = iv[i].bad ? "over" : "held";
		if (cap_at(&c, o[i], cap_col(&c, "users")) == good)
			ref = iv[i].v;
	}
	if (!(ref > 0))
		ref = c.nrow > 0 && iv[0].v > 0 ? iv[0].v : 1;
	hr_section(b, "steps", "Each step");
	hb_put(b, "<p class=\"note\">Per step, the command with the highest "
	       "p95: the point is its p95, the bar runs from its p50 to its "
	       "p99 (that step's summary); the dashed line is the p95 at the "
	       "capacity. A triangle marks a step over the limit.</p>\n");
	hr_interval_chart(b, "capacity-steps", "Worst p95 per step, with p50 "
			  "to p99", "latency (ms, log scale)", ref, iv, c.nrow);
	table(b, &c, o, "steps");
	free(labels);
	free(iv);
	free(o);
	cap_free(&c);
	if (answered)
		jv_free(&ans);
	return fit_section(b, dir, err, errlen);
}
