/* text_fmt.c: what the terminal writers (report_text.c and its
 * sections: profile, POP3) format alike: a compact latency for a tick
 * line, a rate with about three significant digits, and a row of the
 * summary's latency tables.  It calls nothing of report/. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report_int.h"
#include "util/units.h"

/* "12.3ms": units_fmt_us without the space, to keep a tick line compact. */
void
fmt_us_compact(char *buf, size_t n, uint64_t us)
{
	char tmp[32];
	size_t j = 0;

	units_fmt_us(tmp, sizeof(tmp), us);
	for (size_t i = 0; tmp[i] != '\0' && j + 1 < n; i++)
		if (tmp[i] != ' ')
			buf[j++] = tmp[i];
	buf[j] = '\0';
}

/* Requests per second with about three significant digits. */
void
fmt_rate(char *buf, size_t n, double v)
{
	if (v < 9.995)
		snprintf(buf, n, "%.2f", v);
	else if (v < 99.95)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.0f", v);
}

/* "command       count": the name and the count share this width, so a
 * name longer than 12 ("TLS handshake") still ends its count in line. */
#define TABLE_NAME_COUNT_W 19

/* A row up to the max column; widths match the tables' heads
 * (report_text.c's TABLE_HEAD, report_profile.c's). */
void
print_lat_row(FILE *o, const char *name, uint64_t count, double per_s,
	      const struct hist *h)
{
	char cnt[24], rate[32], mean[32], p[HIST_ROW_PCTS][32], max[32];
	uint64_t v[HIST_ROW_PCTS];

	snprintf(cnt, sizeof(cnt), "%" PRIu64, count);
	int pad = TABLE_NAME_COUNT_W - (int)strlen(name) - (int)strlen(cnt);
	fmt_rate(rate, sizeof(rate), per_s);
	units_fmt_us(mean, sizeof(mean), (uint64_t)llround(hist_mean(h)));
	hist_row_percentiles(h, v);
	for (int i = 0; i < HIST_ROW_PCTS; i++)
		units_fmt_us(p[i], sizeof(p[i]), v[i]);
	units_fmt_us(max, sizeof(max), hist_max(h));
	fprintf(o, "%s%*s%s %6s %8s %8s %8s %8s %8s %8s %8s", name,
		pad > 1 ? pad : 1, "", cnt, rate, mean, p[0], p[1], p[2],
		p[3], p[4], max);
}
