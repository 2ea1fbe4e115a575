/* hr_svg.c: the line chart (over time, or a percentile plot) and the
 * interval chart, as <figure>s of inline SVG (hr_svg.h). */
#include <math.h>
#include <string.h>

#include "htmlreport/hr_svg.h"

/* A chart's size: whole width, or half for the small multiples (one
 * per command) that sit two to a row. */
#define W_FULL 760.0
#define H_FULL 280.0
#define W_SMALL 380.0
#define H_SMALL 230.0
#define ML 72.0
#define MR 18.0
#define MT 12.0
#define MB 46.0
#define MAX_TICKS 24

/* Percentile p (0..100) on the axis: log10(1/(1-p)), so 90, 99, 99.9 are
 * evenly spaced; max (100) one decade past the last finite percentile. */
static double
pct_pos(double p, double max_pos)
{
	if (p >= 100)
		return max_pos;
	return -log10(1 - p / 100);
}

struct frame {
	double W, H;
	double x0, x1, y0, y1;
	double max_pos;		/* pct_x: where "max" sits */
	const struct hr_chart *c;
	const struct hr_marks *m;	/* never NULL */
};

static double
fx(const struct frame *f, double x)
{
	if (f->c->pct_x)
		x = pct_pos(x, f->max_pos);
	return ML + (x - f->x0) / (f->x1 - f->x0) * (f->W - ML - MR);
}

static double
fy(const struct frame *f, double y)
{
	double v = y * f->c->yscale;
	double a = f->y0, z = f->y1;
	if (f->c->logy) {
		v = log10(v);
		a = log10(a);
		z = log10(z);
	}
	return f->H - MB - (v - a) / (z - a) * (f->H - MT - MB);
}

static bool
usable(const struct hr_chart *c, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!c->logy || y > 0);
}

/* The data's extent; false when there is no point to draw. */
static bool
extent(const struct hr_chart *c, const struct hr_marks *m, struct frame *f)
{
	bool any = false;
	double ylo = INFINITY, yhi = -INFINITY, xlo = INFINITY,
	       xhi = -INFINITY, plast = 0;

	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			double x = c->s[i].x[k], y = c->s[i].y[k];
			if (!usable(c, x, y))
				continue;
			any = true;
			y *= c->yscale;
			ylo = fmin(ylo, y);
			yhi = fmax(yhi, y);
			/* A bar's ends are in the frame too. */
			for (int e = 0; c->s[i].ylo != NULL && e < 2; e++) {
				double v = (e ? c->s[i].yhi : c->s[i].ylo)[k];
				if (usable(c, x, v)) {
					ylo = fmin(ylo, v * c->yscale);
					yhi = fmax(yhi, v * c->yscale);
				}
			}
			if (c->pct_x && x < 100)
				plast = fmax(plast, pct_pos(x, 0));
			xlo = fmin(xlo, x);
			xhi = fmax(xhi, x);
		}
	if (!any)
		return false;
	/* The limit is drawn even when every point is far below it. */
	if (m->has_limit && usable(c, 0, m->limit)) {
		ylo = fmin(ylo, m->limit * c->yscale);
		yhi = fmax(yhi, m->limit * c->yscale);
	}
	f->c = c;
	f->m = m;
	if (c->pct_x) {
		f->max_pos = ceil(plast + 1e-9);
		if (f->max_pos < plast + 0.5)
			f->max_pos += 1;
		f->x0 = 0;
		f->x1 = f->max_pos;
	} else {
		f->x0 = xlo;
		f->x1 = xhi > xlo ? xhi : xlo + 1;
	}
	if (c->logy) {
		f->y0 = pow(10, floor(log10(ylo)));
		f->y1 = pow(10, ceil(log10(yhi)));
		if (f->y1 <= f->y0)
			f->y1 = f->y0 * 10;
	} else {
		f->y0 = 0;
		f->y1 = yhi > 0 ? yhi * 1.05 : 1;
	}
	return true;
}

static void
values_attr(struct hbuf *b, const char *name, const double *v, size_t n)
{
	hb_printf(b, " %s=\"", name);
	for (size_t k = 0; k < n; k++) {
		if (k > 0)
			hb_putn(b, " ", 1);
		if (isfinite(v[k]))
			hb_num(b, v[k]);
		else
			hb_put(b, "-");
	}
	hb_putn(b, "\"", 1);
}

/* An interval of x (the capacity's): shaded behind the grid, clipped
 * to the frame, its ends in data-lo and data-hi. */
static void
band(struct hbuf *b, const struct frame *f)
{
	const struct hr_marks *c = f->m;
	double x0 = fx(f, fmax(c->band_lo, f->x0));
	double x1 = fx(f, fmin(c->band_hi, f->x1));

	if (!(x1 > x0))
		return;
	hb_put(b, "<rect class=\"band\"");
	values_attr(b, "data-lo", &c->band_lo, 1);
	values_attr(b, "data-hi", &c->band_hi, 1);
	hb_printf(b, " x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
		  "height=\"%.0f\"/>", x0, MT, x1 - x0, f->H - MT - MB);
}

/* The limit across the frame, dashed, named at its right end. */
static void
limit_line(struct hbuf *b, const struct frame *f)
{
	const struct hr_marks *c = f->m;
	double y = fy(f, c->limit);

	hb_put(b, "<line class=\"limit\"");
	values_attr(b, "data-limit", &c->limit, 1);
	hb_printf(b, " x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		  "<text class=\"ll\" x=\"%.0f\" y=\"%.1f\">", ML,
		  f->W - MR, y, y, f->W - MR - 4, y - 4);
	hb_esc(b, c->limit_label != NULL ? c->limit_label : "limit");
	hb_put(b, "</text>");
}

/* <path class=CLS PAINT=(series i's colour) KEY=NAME, then the values
 * (lo and hi under their keys) and the opening of d: what a series'
 * line, its dots and its bars each start with. */
static void
path_open(struct hbuf *b, const char *cls, const char *paint, size_t i,
	  const char *key, const struct hr_series *s, const double *lo,
	  const double *hi, const char *lo_key, const char *hi_key)
{
	hb_printf(b, "<path class=\"%s\" %s=\"%s\"", cls, paint,
		  hr_series_colour(i));
	if (strcmp(cls, "line") == 0 && *hr_series_dash(i) != '\0')
		hb_printf(b, " stroke-dasharray=\"%s\"", hr_series_dash(i));
	hb_printf(b, " %s=\"", key);
	hb_esc(b, s->name);
	hb_putn(b, "\"", 1);
	values_attr(b, lo_key, lo, s->n);
	values_attr(b, hi_key, hi, s->n);
	hb_put(b, " d=\"");
}

/* Series i's points without a line (dots: a marker each, one point per
 * run) or its interval per point (bar: a bar with short caps). */
static void
points(struct hbuf *b, const struct frame *f, size_t i, bool bar)
{
	const struct hr_series *s = &f->c->s[i];

	if (bar)
		path_open(b, "bar", "stroke", i, "data-bars", s, s->ylo,
			  s->yhi, "data-lo", "data-hi");
	else
		path_open(b, "dots", "fill", i, "data-series", s, s->x, s->y,
			  "data-x", "data-y");
	for (size_t k = 0; k < s->n; k++) {
		double lo = bar ? s->ylo[k] : s->y[k];
		double hi = bar ? s->yhi[k] : s->y[k];
		if (!usable(f->c, s->x[k], lo) || !usable(f->c, s->x[k], hi))
			continue;
		double x = fx(f, s->x[k]);
		if (bar)
			hb_printf(b, "M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8",
				  x, fy(f, lo), fy(f, hi), x - 4, fy(f, lo),
				  x - 4, fy(f, hi));
		else
			hr_marker(b, i, x, fy(f, lo));
	}
	hb_put(b, "\"/>");
}

static void
axes(struct hbuf *b, const struct frame *f)
{
	const struct hr_chart *c = f->c;
	double t[MAX_TICKS];
	size_t n = hr_ticks(f->y0, f->y1, c->logy, t, MAX_TICKS);

	/* The warm-up, left out of the totals: shaded, as the plot script
	 * shaded it. */
	if (!c->pct_x && c->shade_to > f->x0) {
		double x1 = fx(f, fmin(c->shade_to, f->x1));
		hb_printf(b, "<rect class=\"warm\" x=\"%.0f\" y=\"%.0f\" "
			  "width=\"%.1f\" height=\"%.0f\"/><text class=\"wl\" "
			  "x=\"%.0f\" y=\"%.0f\">warm-up</text>", ML, MT,
			  x1 - ML, f->H - MT - MB, ML + 4, f->H - MB - 4);
	}
	if (!c->pct_x && f->m->band_hi > f->m->band_lo)
		band(b, f);
	hb_put(b, "<g class=\"grid\">");
	for (size_t i = 0; i < n; i++) {
		double y = fy(f, t[i] / c->yscale);
		hb_printf(b, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
			  "y2=\"%.1f\"/><text x=\"%.0f\" y=\"%.1f\" "
			  "class=\"yt\">", ML, f->W - MR, y, y, ML - 6, y + 4);
		hr_tick_label(b, t[i]);
		hb_put(b, "</text>");
	}
	if (c->pct_x) {
		static const char *const lab[] = {
			"0%", "90%", "99%", "99.9%", "99.99%", "99.999%",
			"99.9999%",
		};
		for (int k = 0; k <= (int)f->max_pos; k++) {
			double x = ML + k / f->x1 * (f->W - ML - MR);
			hb_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
				  "y2=\"%.0f\"/><text x=\"%.1f\" y=\"%.0f\" "
				  "class=\"xt\">%s</text>", x, x, MT, f->H - MB,
				  x, f->H - MB + 16, k == (int)f->max_pos ? "max" :
				  k < 7 ? lab[k] : "");
		}
	} else {
		n = hr_ticks(f->x0, f->x1, false, t, MAX_TICKS);
		for (size_t i = 0; i < n; i++) {
			double x = fx(f, t[i]);
			hb_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
				  "y2=\"%.0f\"/><text x=\"%.1f\" y=\"%.0f\" "
				  "class=\"xt\">", x, x, MT, f->H - MB, x,
				  f->H - MB + 16);
			hr_tick_label(b, t[i]);
			hb_put(b, "</text>");
		}
	}
	hb_printf(b, "</g><rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" "
		  "width=\"%.0f\" height=\"%.0f\"/>", ML, MT, f->W - ML - MR,
		  f->H - MT - MB);
	hb_printf(b, "<text class=\"xl\" x=\"%.0f\" y=\"%.0f\">",
		  ML + (f->W - ML - MR) / 2, f->H - 8);
	hb_esc(b, c->xlabel);
	hb_printf(b, "</text><text class=\"yl\" transform=\"translate(16 "
		  "%.0f) rotate(-90)\">", MT + (f->H - MT - MB) / 2);
	hb_esc(b, c->ylabel);
	hb_put(b, "</text>");
}

static void
series(struct hbuf *b, const struct frame *f, size_t i)
{
	const struct hr_series *s = &f->c->s[i];
	bool pen = false;
	size_t every = s->n > 12 ? (s->n + 11) / 12 : 1;

	if (s->ylo != NULL)
		points(b, f, i, true);
	if (s->dots) {
		points(b, f, i, false);
		return;
	}
	path_open(b, "line", "stroke", i, "data-series", s, s->x, s->y,
		  "data-x", "data-y");
	for (size_t k = 0; k < s->n; k++) {
		if (!usable(f->c, s->x[k], s->y[k])) {
			pen = false;
			continue;
		}
		hb_printf(b, "%c%.1f %.1f", pen ? 'L' : 'M',
			  fx(f, s->x[k]), fy(f, s->y[k]));
		pen = true;
	}
	/* A lone point draws no line: its marker shows it. */
	hb_printf(b, "\"/><path class=\"mk\" fill=\"%s\" d=\"",
		  hr_series_colour(i));
	for (size_t k = (i * 3) % every; k < s->n; k += every)
		if (usable(f->c, s->x[k], s->y[k]))
			hr_marker(b, i, fx(f, s->x[k]), fy(f, s->y[k]));
	hb_put(b, "\"/>");
}

static void
legend(struct hbuf *b, const struct hr_chart *c, const struct hr_marks *m)
{
	hb_put(b, "<ul class=\"legend\">");
	for (size_t i = 0; i < c->ns; i++) {
		hb_printf(b, "<li><svg width=\"44\" height=\"12\" "
			  "aria-hidden=\"true\"><path d=\"%s\" "
			  "class=\"line\" stroke=\"%s\"", c->s[i].dots ? "" :
			  "M2 6h40", hr_series_colour(i));
		if (*hr_series_dash(i) != '\0')
			hb_printf(b, " stroke-dasharray=\"%s\"",
				  hr_series_dash(i));
		hb_printf(b, "/><path fill=\"%s\" d=\"", hr_series_colour(i));
		hr_marker(b, i, 22, 6);
		hb_put(b, "\"/></svg>");
		hb_esc(b, c->s[i].name);
		hb_put(b, "</li>");
	}
	if (m->has_limit) {
		hb_put(b, "<li><svg width=\"44\" height=\"12\" aria-hidden="
		       "\"true\"><path d=\"M2 6h40\" class=\"limit\"/></svg>");
		hb_esc(b, m->limit_label != NULL ? m->limit_label : "limit");
		hb_put(b, "</li>");
	}
	if (m->band_hi > m->band_lo) {
		hb_put(b, "<li><svg width=\"44\" height=\"12\" aria-hidden="
		       "\"true\"><rect class=\"band\" x=\"2\" y=\"1\" "
		       "width=\"40\" height=\"10\"/></svg>");
		hb_esc(b, m->band_label != NULL ? m->band_label : "interval");
		hb_put(b, "</li>");
	}
	hb_put(b, "</ul>");
}

static void
figure_open(struct hbuf *b, const char *id, const char *kind,
	    const char *title, bool small)
{
	hb_printf(b, "<figure class=\"chart%s\" id=\"c-",
		  small ? " small" : "");
	hb_esc(b, id);
	hb_put(b, "\" data-chart=\"");
	hb_esc(b, id);
	hb_printf(b, "\" data-kind=\"%s\"><figcaption>", kind);
	hb_esc(b, title);
	hb_put(b, "</figcaption>");
}

void
hr_line_chart(struct hbuf *b, const struct hr_chart *c)
{
	hr_line_chart_marked(b, c, NULL);
}

void
hr_line_chart_marked(struct hbuf *b, const struct hr_chart *c,
		     const struct hr_marks *m)
{
	static const struct hr_marks none;
	struct frame f;

	if (m == NULL)
		m = &none;

	figure_open(b, c->id, c->pct_x ? "percentile" : "line", c->title,
		    c->small);
	f.W = c->small ? W_SMALL : W_FULL;
	f.H = c->small ? H_SMALL : H_FULL;
	if (!extent(c, m, &f)) {
		hb_put(b, "<p class=\"empty\">nothing to draw: no value in "
		       "the input</p></figure>\n");
		return;
	}
	hb_printf(b, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" "
		  "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
		  f.W, f.H, f.W, f.H);
	hb_esc(b, c->title);
	hb_put(b, "\">");
	axes(b, &f);
	for (size_t i = 0; i < c->ns; i++)
		series(b, &f, i);
	if (m->has_limit && usable(c, f.x0, m->limit))
		limit_line(b, &f);
	hb_put(b, "</svg>");
	legend(b, c, m);
	hb_put(b, "</figure>\n");
}

/* --- interval chart ----------------------------------------------------- */

#define IROW 26.0
#define IL 200.0
#define IR 110.0

void
hr_interval_chart(struct hbuf *b, const char *id, const char *title,
		  const char *xlabel, double ref,
		  const struct hr_interval *rows, size_t n)
{
	double lo = ref, hi = ref;
	double h = MT + IROW * (double)n + MB;
	double t[MAX_TICKS];

	figure_open(b, id, "interval", title, false);
	for (size_t i = 0; i < n; i++) {
		const double v[3] = { rows[i].v, rows[i].lo, rows[i].hi };
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k]) && v[k] > 0) {
				lo = fmin(lo, v[k]);
				hi = fmax(hi, v[k]);
			}
	}
	/* A log axis: 0.5 and 2 are as far from 1. */
	double a = log10(lo), z = log10(hi);
	double m = fmax(fabs(a - log10(ref)), fabs(z - log10(ref)));
	if (m < 0.05)
		m = 0.05;
	a = log10(ref) - m * 1.1;
	z = log10(ref) + m * 1.1;
#define IX(v) (IL + (log10(v) - a) / (z - a) * (W_FULL - IL - IR))
	hb_printf(b, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" "
		  "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
		  W_FULL, h, W_FULL, h);
	hb_esc(b, title);
	hb_put(b, "\"><g class=\"grid\">");
	size_t nt = hr_ticks(pow(10, a), pow(10, z), true, t, MAX_TICKS);
	for (size_t i = 0; i < nt; i++)
		hb_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
			  "y2=\"%.0f\"/><text x=\"%.1f\" y=\"%.0f\" "
			  "class=\"xt\">%g</text>", IX(t[i]), IX(t[i]), MT,
			  h - MB, IX(t[i]), h - MB + 16, t[i]);
	hb_printf(b, "</g><line class=\"ref\" x1=\"%.1f\" x2=\"%.1f\" "
		  "y1=\"%.0f\" y2=\"%.0f\"/>", IX(ref), IX(ref), MT, h - MB);
	for (size_t i = 0; i < n; i++) {
		const struct hr_interval *r = &rows[i];
		double y = MT + IROW * ((double)i + 0.5);
		hb_printf(b, "<g class=\"row%s\" data-label=\"",
			  r->bad ? " bad" : "");
		hb_esc(b, r->label);
		hb_put(b, "\"");
		values_attr(b, "data-v", &r->v, 1);
		values_attr(b, "data-lo", &r->lo, 1);
		values_attr(b, "data-hi", &r->hi, 1);
		hb_printf(b, "><text class=\"rl\" x=\"%.0f\" y=\"%.1f\">",
			  IL - 8, y + 4);
		hb_esc(b, r->label);
		hb_put(b, "</text>");
		if (isfinite(r->lo) && isfinite(r->hi) && r->lo > 0 &&
		    r->hi > 0)
			hb_printf(b, "<path class=\"ci\" d=\"M%.1f %.1fv-6v12"
				  "M%.1f %.1fH%.1fM%.1f %.1fv-6v12\"/>",
				  IX(r->lo), y - 0, IX(r->lo), y, IX(r->hi),
				  IX(r->hi), y);
		if (isfinite(r->v) && r->v > 0) {
			hb_printf(b, "<path class=\"pt\" fill=\"%s\" d=\"",
				  r->bad ? hr_colour[1] : hr_colour[0]);
			hr_marker(b, r->bad ? 2 : 0, IX(r->v), y);
			hb_put(b, "\"/>");
		}
		hb_printf(b, "<text class=\"vd\" x=\"%.0f\" y=\"%.1f\">",
			  W_FULL - IR + 8, y + 4);
		hb_esc(b, r->verdict);
		hb_put(b, "</text></g>");
	}
	hb_printf(b, "<text class=\"xl\" x=\"%.0f\" y=\"%.0f\">",
		  IL + (W_FULL - IL - IR) / 2, h - 8);
	hb_esc(b, xlabel);
	hb_put(b, "</text></svg></figure>\n");
#undef IX
}
