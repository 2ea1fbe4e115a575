/* hr_axis.c: what every chart shares: the palette, dash patterns and
 * markers that tell series apart, and the axis ticks (hr_svg.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_svg.h"
#include "util/xmalloc.h"

/* Okabe and Ito's colour-blind-safe set, its yellow replaced by black
 * (yellow on white disappears in print). */
const char *const hr_colour[HR_PALETTE] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7",
	"#E69F00", "#56B4E9", "#000000", "#999999",
};
/* Solid first: with up to 8 series colour and marker suffice, and the
 * dashes start with the 9th; a dash also changes with each colour round. */
const char *const hr_dash[5] = {
	"", "6 3", "2 2", "8 3 2 3", "1 4",
};

const char *
hr_series_colour(size_t i)
{
	return hr_colour[i % HR_PALETTE];
}

/* Series of one chart never share colour AND dash: the dash moves on
 * every time the colours come round, and also within a round so that a
 * print in grey separates neighbours. */
const char *
hr_series_dash(size_t i)
{
	return hr_dash[(i + i / HR_PALETTE) % 5];
}

void
hr_marker(struct hbuf *b, size_t i, double x, double y)
{
	switch ((i + i / HR_PALETTE) % 4) {
	case 0:		/* circle */
		hb_printf(b, "M%.1f %.1fa3 3 0 1 0 6 0a3 3 0 1 0 -6 0",
			  x - 3, y);
		break;
	case 1:		/* square */
		hb_printf(b, "M%.1f %.1fh6v6h-6z", x - 3, y - 3);
		break;
	case 2:		/* triangle */
		hb_printf(b, "M%.1f %.1fl3.5 6h-7z", x, y - 3.5);
		break;
	default:	/* diamond */
		hb_printf(b, "M%.1f %.1fl4 4l-4 4l-4 -4z", x, y - 4);
		break;
	}
}

size_t
hr_ticks(double lo, double hi, bool log, double *t, size_t max)
{
	size_t n = 0;

	if (!(hi > lo) || max == 0)
		return 0;
	if (log) {
		int a = (int)floor(log10(lo) + 1e-9);
		int z = (int)ceil(log10(hi) - 1e-9);
		bool fine = z - a <= 2;
		for (int e = a; e <= z && n < max; e++) {
			double d = pow(10, e);
			static const double m[] = { 1, 2, 5 };
			for (size_t k = 0; k < 3 && n < max; k++) {
				double v = d * m[k];
				if (k > 0 && !fine)
					break;
				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					t[n++] = v;
			}
		}
		return n;
	}
	double span = hi - lo;
	double step = pow(10, floor(log10(span / 5)));
	if (span / step > 10)
		step *= 2;
	if (span / step > 10)
		step *= 2.5;
	for (double v = ceil(lo / step - 1e-9) * step;
	     v <= hi + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void
hr_tick_label(struct hbuf *b, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		hb_printf(b, "%gG", v / 1e9);
	else if (a >= 1e6)
		hb_printf(b, "%gM", v / 1e6);
	else if (a >= 1e4)
		hb_printf(b, "%gk", v / 1e3);
	else
		hb_printf(b, "%g", v);
}

void
hr_series_init(struct hr_series *s, const char *name, size_t n)
{
	s->name = xstrdup(name);
	s->n = n;
	s->x = xcalloc(n ? n : 1, sizeof(double));
	s->y = xcalloc(n ? n : 1, sizeof(double));
	for (size_t i = 0; i < n; i++)
		s->x[i] = s->y[i] = NAN;
	s->ylo = s->yhi = NULL;
	s->dots = false;
}

void
hr_series_bars(struct hr_series *s)
{
	s->ylo = xcalloc(s->n ? s->n : 1, sizeof(double));
	s->yhi = xcalloc(s->n ? s->n : 1, sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		s->ylo[i] = s->yhi[i] = NAN;
}

struct hr_series *
hr_chart_add(struct hr_chart *c, const char *name, size_t n)
{
	c->s = xrealloc(c->s, (c->ns + 1) * sizeof(*c->s));
	hr_series_init(&c->s[c->ns], name, n);
	return &c->s[c->ns++];
}

void
hr_chart_free(struct hr_chart *c)
{
	for (size_t i = 0; i < c->ns; i++) {
		free(c->s[i].name);
		free(c->s[i].x);
		free(c->s[i].y);
		free(c->s[i].ylo);
		free(c->s[i].yhi);
	}
	free(c->s);
	c->s = NULL;
	c->ns = 0;
}
