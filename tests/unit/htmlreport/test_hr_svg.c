/* test_hr_svg.c: the report's charts (hr_svg.c, hr_axis.c): each series
 * is one path with its values in data-x/data-y, a gap breaks the line,
 * names are escaped, an empty chart says so instead of drawing axes, log
 * axes skip what they cannot show, ticks are round numbers, and no two
 * series of a chart look alike in grey. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_svg.h"
#include "check_main.h"

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* The d="..." of the first path whose data-series is name. */
static char *
path_d(const char *html, const char *name)
{
	char key[128];
	snprintf(key, sizeof(key), "data-series=\"%s\"", name);
	const char *p = strstr(html, key);
	ck_assert_ptr_nonnull(p);
	p = strstr(p, " d=\"");
	ck_assert_ptr_nonnull(p);
	p += 4;
	return strndup(p, (size_t)(strchr(p, '"') - p));
}

START_TEST(test_line_chart)
{
	struct hbuf b;
	struct hr_chart c = { "t", "Throughput <x>", "time (s)", "ops/s", 1,
			      false, false, 0, NULL, false, 0 };
	/* A series pointer lasts until the next add (the array grows). */
	hr_chart_add(&c, "A&B", 3);
	hr_chart_add(&c, "gap", 3);
	struct hr_series *s = &c.s[0], *g = &c.s[1];

	for (size_t i = 0; i < 3; i++) {
		s->x[i] = g->x[i] = (double)i + 1;
		s->y[i] = 10.0 * (double)(i + 1);
		g->y[i] = 5;
	}
	g->y[1] = NAN;
	hb_init(&b);
	hr_line_chart(&b, &c);
	ck_assert_uint_eq(count(b.p, "<svg class=\"plot\""), 1);
	ck_assert_uint_eq(count(b.p, "class=\"line\" stroke="), 2 + 2);
	ck_assert_ptr_nonnull(strstr(b.p, "data-series=\"A&amp;B\""));
	ck_assert_ptr_nonnull(strstr(b.p, "Throughput &lt;x&gt;"));
	ck_assert_ptr_null(strstr(b.p, "<x>"));
	ck_assert_ptr_nonnull(strstr(b.p, "data-y=\"10 20 30\""));
	ck_assert_ptr_nonnull(strstr(b.p, "data-y=\"5 - 5\""));
	char *d = path_d(b.p, "A&amp;B");
	ck_assert_uint_eq(count(d, "M"), 1);
	ck_assert_uint_eq(count(d, "L"), 2);
	free(d);
	d = path_d(b.p, "gap");
	ck_assert_uint_eq(count(d, "M"), 2);	/* the gap breaks it */
	ck_assert_uint_eq(count(d, "L"), 0);
	free(d);
	hr_chart_free(&c);
	hb_free(&b);
}
END_TEST

START_TEST(test_warmup_shade)
{
	struct hbuf b;
	struct hr_chart c = { "w", "W", "t (s)", "y", 1, false, false, 0, NULL,
			      false, 0 };
	struct hr_series *s = hr_chart_add(&c, "a", 4);

	for (size_t i = 0; i < 4; i++) {
		s->x[i] = (double)i + 1;
		s->y[i] = 1;
	}
	hb_init(&b);
	hr_line_chart(&b, &c);
	ck_assert_ptr_null(strstr(b.p, "class=\"warm\""));
	c.shade_to = 2;
	b.len = 0;
	hr_line_chart(&b, &c);
	ck_assert_uint_eq(count(b.p, "class=\"warm\""), 1);
	/* A third of the plot's width: x from 1 to 4, shaded to 2. */
	ck_assert_ptr_nonnull(strstr(b.p, "class=\"warm\" x=\"72\" y=\"12\" "
				     "width=\"223.3\""));
	hr_chart_free(&c);
	hb_free(&b);
}
END_TEST

START_TEST(test_empty_and_log)
{
	struct hbuf b;
	struct hr_chart c = { "e", "Empty", "x", "y", 1, true, false, 0, NULL,
			      false, 0 };
	struct hr_series *s = hr_chart_add(&c, "zeros", 2);

	s->x[0] = 1;
	s->x[1] = 2;
	s->y[0] = 0;		/* a log axis cannot show 0 */
	s->y[1] = NAN;
	hb_init(&b);
	hr_line_chart(&b, &c);
	ck_assert_ptr_nonnull(strstr(b.p, "nothing to draw"));
	ck_assert_ptr_null(strstr(b.p, "<svg"));
	s->y[1] = 250;
	b.len = 0;
	hr_line_chart(&b, &c);
	char *d = path_d(b.p, "zeros");
	ck_assert_uint_eq(count(d, "M"), 1);
	free(d);
	/* The axis: decades around 250, 100 and 1000. */
	ck_assert_ptr_nonnull(strstr(b.p, ">100</text>"));
	ck_assert_ptr_nonnull(strstr(b.p, ">1000</text>"));
	hr_chart_free(&c);
	hb_free(&b);
}
END_TEST

START_TEST(test_percentile_axis)
{
	struct hbuf b;
	struct hr_chart c = { "p", "Dist", "percentile", "ms", 1e-3, true,
			      true, 0, NULL, false, 0 };
	struct hr_series *s = hr_chart_add(&c, "FETCH", 6);
	static const double p[] = { 50, 90, 95, 99, 99.9, 100 };

	for (size_t i = 0; i < 6; i++) {
		s->x[i] = p[i];
		s->y[i] = 1000.0 * (double)(i + 1);
	}
	hb_init(&b);
	hr_line_chart(&b, &c);
	ck_assert_ptr_nonnull(strstr(b.p, "data-kind=\"percentile\""));
	ck_assert_ptr_nonnull(strstr(b.p, ">99.9%</text>"));
	ck_assert_ptr_nonnull(strstr(b.p, ">max</text>"));
	ck_assert_ptr_null(strstr(b.p, ">99.99%</text>"));
	hr_chart_free(&c);
	hb_free(&b);
}
END_TEST

START_TEST(test_ticks)
{
	double t[24];

	ck_assert_uint_eq(hr_ticks(0, 1050, false, t, 24), 6);
	ck_assert(t[0] == 0 && t[1] == 200 && t[5] == 1000);
	ck_assert_uint_eq(hr_ticks(0.1, 1000, true, t, 24), 5);
	ck_assert(fabs(t[0] - 0.1) < 1e-12 && t[4] == 1000);
	/* Two decades: 1, 2, 5 of each. */
	ck_assert_uint_eq(hr_ticks(1, 100, true, t, 24), 7);
	ck_assert(t[1] == 2 && t[2] == 5 && t[3] == 10);
	ck_assert_uint_eq(hr_ticks(5, 5, false, t, 24), 0);
}
END_TEST

START_TEST(test_series_look_apart)
{
	/* Colour and dash never both repeat among 40 series, and the first
	 * five differ by dash or marker too (grey print). */
	for (size_t i = 0; i < 40; i++)
		for (size_t j = i + 1; j < 40; j++)
			ck_assert_msg(strcmp(hr_series_colour(i),
					     hr_series_colour(j)) != 0 ||
				      strcmp(hr_series_dash(i),
					     hr_series_dash(j)) != 0,
				      "series %zu and %zu look alike", i, j);
	for (size_t i = 0; i < 5; i++)
		for (size_t j = i + 1; j < 5; j++)
			ck_assert(strcmp(hr_series_dash(i), hr_series_dash(j))
				  != 0);
}
END_TEST

/* The capacity chart's marks: a limit above every point still inside
 * the frame (the y axis reaches it), the interval shaded and clipped to
 * the frame, dots without a line, bars with their ends in data-lo/hi,
 * a point without both ends without a bar. */
START_TEST(test_marks)
{
	struct hbuf b;
	struct hr_chart c = { "m", "score", "users", "ms", 1, false, false, 0,
			      NULL, false, 0 };
	const struct hr_marks mk = { true, 500, "limit <b>", 1.5, 99, "CI" };
	struct hr_series *s = hr_chart_add(&c, "runs", 3);

	s->dots = true;
	hr_series_bars(s);
	for (size_t i = 0; i < 3; i++) {
		s->x[i] = (double)i + 1;
		s->y[i] = 100 * (double)(i + 1);
		s->ylo[i] = s->y[i] - 50;
		s->yhi[i] = s->y[i] + 50;
	}
	s->yhi[2] = NAN;
	hb_init(&b);
	hr_line_chart_marked(&b, &c, &mk);
	ck_assert_ptr_nonnull(strstr(b.p, "<line class=\"limit\" "
				     "data-limit=\"500\""));
	ck_assert_ptr_nonnull(strstr(b.p, "limit &lt;b&gt;"));
	ck_assert_ptr_nonnull(strstr(b.p, "<rect class=\"band\" "
				     "data-lo=\"1.5\" data-hi=\"99\""));
	/* The limit (500) is the top: the y axis goes to 500 * 1.05. */
	ck_assert_ptr_nonnull(strstr(b.p, ">500</text>"));
	/* Clipped: from 1.5 of 1..3 (72 + 670 / 4) to the frame's right
	 * edge (W - MR = 742). */
	ck_assert_ptr_nonnull(strstr(b.p, "x=\"239.5\" y=\"12\" "
				     "width=\"502.5\""));
	ck_assert_ptr_null(strstr(b.p, "<path class=\"line\""));
	ck_assert_uint_eq(count(b.p, "class=\"dots\""), 1);
	ck_assert_ptr_nonnull(strstr(b.p, "data-bars=\"runs\" data-lo=\"50 "
				     "150 250\" data-hi=\"150 250 -\""));
	char *d = strstr(b.p, "data-bars=");
	d = strstr(d, " d=\"");
	ck_assert_uint_eq(count(d, "V") - count(strstr(d, "\"/>"), "V"), 2);
	hb_free(&b);
	hb_init(&b);
	hr_line_chart(&b, &c);	/* unmarked: none of them */
	ck_assert_ptr_null(strstr(b.p, "class=\"limit\""));
	ck_assert_ptr_null(strstr(b.p, "class=\"band\""));
	hb_free(&b);
	hr_chart_free(&c);
}
END_TEST

START_TEST(test_interval_chart)
{
	struct hbuf b;
	struct hr_interval r[2] = {
		{ "LOGIN <p50>", 1.3, 1.1, 2.0, "worse", true },
		{ "LIST rate", NAN, NAN, NAN, NULL, false },
	};

	hb_init(&b);
	hr_interval_chart(&b, "i", "Ratios", "ratio", 1, r, 2);
	ck_assert_ptr_nonnull(strstr(b.p, "data-label=\"LOGIN &lt;p50&gt;\""));
	ck_assert_ptr_nonnull(strstr(b.p, "data-v=\"1.3\" data-lo=\"1.1\" "
				     "data-hi=\"2\""));
	ck_assert_ptr_nonnull(strstr(b.p, "data-v=\"-\" data-lo=\"-\""));
	ck_assert_uint_eq(count(b.p, "class=\"ci\""), 1);
	ck_assert_uint_eq(count(b.p, "class=\"row bad\""), 1);
	hb_free(&b);
}
END_TEST

static Suite *
hr_svg_suite(void)
{
	Suite *s = suite_create("hr_svg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_line_chart);
	tcase_add_test(tc, test_empty_and_log);
	tcase_add_test(tc, test_warmup_shade);
	tcase_add_test(tc, test_percentile_axis);
	tcase_add_test(tc, test_ticks);
	tcase_add_test(tc, test_series_look_apart);
	tcase_add_test(tc, test_interval_chart);
	tcase_add_test(tc, test_marks);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hr_svg_suite)
