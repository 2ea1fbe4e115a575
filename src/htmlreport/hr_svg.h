/* hr_svg.h: the report's charts, drawn as inline SVG by our own code
 * (hr_svg.c, hr_axis.c): a line chart over time, a percentile plot
 * (HdrHistogram style: latency on a log axis against 1/(1-p)), and an
 * interval chart (a point and its interval per row, around a reference
 * line).  Series are told apart by a colour-blind-safe palette (Okabe and
 * Ito) AND a dash pattern AND a marker shape, so a grey print still
 * separates them.  Every series carries its values in data-* attributes
 * (data-x, data-y, in the unit of the input), so a test reads the
 * numbers the chart was drawn from. */
#ifndef IMAPSTRESS_HR_SVG_H
#define IMAPSTRESS_HR_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "htmlreport/hr_buf.h"

/* One line: n points; a y that is NAN is a gap (the line breaks). */
struct hr_series {
	char *name;
	size_t n;
	double *x, *y;
	double *ylo, *yhi;	/* NULL, or an interval per point (a bar) */
	bool dots;		/* markers only, no line (one point per run) */
};

struct hr_chart {
	const char *id;		/* data-chart, and the element id */
	const char *title;
	const char *xlabel, *ylabel;	/* with units */
	double yscale;		/* drawn value = data value * yscale */
	bool logy;
	bool pct_x;		/* x is a percentile (0..100, 100 = max) */
	size_t ns;
	struct hr_series *s;
	bool small;		/* half width: small multiples, two a row */
	double shade_to;	/* the warm-up, shaded up to this x (0: none) */
};

/* What a chart may have besides its series (hr_line_chart_marked). */
struct hr_marks {
	/* A limit drawn across at y = limit (has_limit), named. */
	bool has_limit;
	double limit;
	const char *limit_label;
	/* An x range shaded and named (band_hi > band_lo): an interval. */
	double band_lo, band_hi;
	const char *band_label;
};

/* A series of n points with a copy of name; x, y allocated, NAN-filled. */
void hr_series_init(struct hr_series *s, const char *name, size_t n);
void hr_chart_free(struct hr_chart *c);	/* its series (not the chart) */
/* Appends a new series to c and returns it; the pointer lasts until the
 * next add (c->s grows by realloc): fill a series before adding another. */
struct hr_series *hr_chart_add(struct hr_chart *c, const char *name,
			       size_t n);
/* Gives s an interval per point (ylo, yhi: NAN-filled, freed with it). */
void hr_series_bars(struct hr_series *s);

/* A <figure> with the SVG and its legend; a chart without one finite
 * point says so in words instead of drawing empty axes. */
void hr_line_chart(struct hbuf *b, const struct hr_chart *c);
/* The same with a limit line and a shaded interval (m NULL: none). */
void hr_line_chart_marked(struct hbuf *b, const struct hr_chart *c,
			  const struct hr_marks *m);

/* Interval chart rows: a value and its interval, drawn against ref (1 for
 * a ratio), with a verdict word shown beside it. */
struct hr_interval {
	const char *label;
	double v, lo, hi;	/* NAN: none */
	const char *verdict;	/* NULL: none */
	bool bad;		/* drawn with the "worse" marker */
};
void hr_interval_chart(struct hbuf *b, const char *id, const char *title,
		       const char *xlabel, double ref,
		       const struct hr_interval *rows, size_t n);

/* --- shared by the drawing files (hr_axis.c) --- */

#define HR_PALETTE 8
extern const char *const hr_colour[HR_PALETTE];
extern const char *const hr_dash[5];
/* Series i's colour, dash and marker. */
const char *hr_series_colour(size_t i);
const char *hr_series_dash(size_t i);
/* A marker of series i's shape at (x, y) appended as path data. */
void hr_marker(struct hbuf *b, size_t i, double x, double y);

/* "Nice" axis ticks between lo and hi: up to max of them into t; the
 * count.  Log axes tick at powers of ten (and 2, 5 when few decades). */
size_t hr_ticks(double lo, double hi, bool log, double *t, size_t max);
/* A tick label: 1, 2.5, 10k, 1.5M; log ticks below 1 as 0.1, 0.01. */
void hr_tick_label(struct hbuf *b, double v);

#endif
