/* units.c: durations, sizes and counts as people type them.
 *
 * Numbers are parsed by hand rather than with strtod/strtoull so that
 * nothing a user did not mean slips through: no sign, no exponent, no hex,
 * no leading blanks, no "inf".  Only digits with an optional ".digits". */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/escape.h"
#include "util/units.h"

/* A duration past this is a typo, and keeping durations well inside what a
 * microsecond uint64_t or a time_t holds spares every consumer the check. */
#define UNITS_MAX_SECS 1e9

/* Fraction digits beyond this are dropped: 9 digits times a GiB multiplier
 * still fits in 64 bits, and nobody means a nanobyte. */
#define UNITS_FRAC_DIGITS 9

struct decimal {
	uint64_t ip;		/* integer part */
	bool ip_overflow;	/* integer part did not fit in uint64_t */
	uint64_t frac;		/* fraction digits as an integer ... */
	uint64_t frac_scale;	/* ... over this power of ten (1 if none) */
};

/* Scans digits[.digits] at the start of s.  Returns the number of
 * characters consumed, or 0 if s does not start with such a number. */
static size_t
decimal_scan(const char *s, struct decimal *d)
{
	size_t i = 0;

	memset(d, 0, sizeof(*d));
	d->frac_scale = 1;
	while (isdigit((unsigned char)s[i])) {
		unsigned digit = (unsigned)(s[i] - '0');
		if (d->ip > (UINT64_MAX - digit) / 10)
			d->ip_overflow = true;
		else
			d->ip = d->ip * 10 + digit;
		i++;
	}
	if (i == 0)
		return 0;
	if (s[i] != '.')
		return i;
	if (!isdigit((unsigned char)s[i + 1]))
		return 0;	/* "1." is more likely a typo than 1.0 */
	i++;
	unsigned nfrac = 0;
	while (isdigit((unsigned char)s[i])) {
		if (nfrac < UNITS_FRAC_DIGITS) {
			d->frac = d->frac * 10 + (uint64_t)(s[i] - '0');
			d->frac_scale *= 10;
			nfrac++;
		}
		i++;
	}
	return i;
}

static double
decimal_value(const struct decimal *d)
{
	return (double)d->ip + (double)d->frac / (double)d->frac_scale;
}

/* The reason names the unit the user typed, so it needs storage; a
 * per-thread buffer keeps concurrent parses from clobbering each other.
 * Valid until the next failing call in the same thread. */
static const char *
unknown_unit(const char *unit)
{
	static _Thread_local char buf[48];
	char shown[24];
	size_t len = strlen(unit);

	/* Escaped (escape.h) like every argument shown to the user. */
	size_t i = escape_text(shown, sizeof(shown) - 3, unit, len);
	if (i < escape_len(unit, len))
		memcpy(shown + i, "...", 4);
	snprintf(buf, sizeof(buf), "unknown unit '%s'", shown);
	return buf;
}

/* Common front of every parser: empty, sign and "not a number" checks. */
static int
number_front(const char *s, struct decimal *d, size_t *len, const char **why)
{
	if (s == NULL || *s == '\0') {
		*why = "empty value";
		return -1;
	}
	if (s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.')) {
		*why = "negative";
		return -1;
	}
	*len = decimal_scan(s, d);
	if (*len == 0) {
		*why = "not a number";
		return -1;
	}
	return 0;
}

int
units_parse_duration(const char *s, double *secs, const char **why)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "", 1.0 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1.0 },
		{ "m", 60.0 }, { "h", 3600.0 },
	};
	struct decimal d;
	size_t len;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (number_front(s, &d, &len, why) < 0)
		return -1;
	const char *unit = s + len;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(unit, units[i].name) != 0)
			continue;
		double v = decimal_value(&d) * units[i].mult;
		if (d.ip_overflow || v > UNITS_MAX_SECS) {
			*why = "too large";
			return -1;
		}
		*secs = v;
		return 0;
	}
	*why = unknown_unit(unit);
	return -1;
}

int
units_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
		{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
		{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
	};
	struct decimal d;
	size_t len;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (number_front(s, &d, &len, why) < 0)
		return -1;
	const char *unit = s + len;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(unit, units[i].name) != 0)
			continue;
		uint64_t mult = units[i].mult;
		if (mult == 1 && d.frac != 0) {
			*why = "not a whole number of bytes";
			return -1;
		}
		/* frac < 10^9 and mult <= 2^30, so this cannot overflow;
		 * round half up to the nearest byte. */
		uint64_t part = (d.frac * mult + d.frac_scale / 2) / d.frac_scale;
		if (d.ip_overflow || d.ip > (uint64_t)INT64_MAX / mult ||
		    d.ip * mult > (uint64_t)INT64_MAX - part) {
			*why = "too large";
			return -1;
		}
		*bytes = d.ip * mult + part;
		return 0;
	}
	*why = unknown_unit(unit);
	return -1;
}

int
units_parse_uint(const char *s, uint64_t min, uint64_t max,
		 uint64_t *out, const char **why)
{
	struct decimal d;
	size_t len;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (number_front(s, &d, &len, why) < 0)
		return -1;
	if (s[len] != '\0' || d.frac_scale != 1) {
		*why = "not a number";
		return -1;
	}
	if (d.ip_overflow) {
		*why = "too large";
		return -1;
	}
	if (d.ip < min || d.ip > max) {
		*why = "out of range";
		return -1;
	}
	*out = d.ip;
	return 0;
}

int
units_parse_percent(const char *s, int *out, const char **why)
{
	uint64_t v;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (units_parse_uint(s, 0, 100, &v, why) < 0) {
		/* "-5" and "150" are the same mistake to the user. */
		if (strcmp(*why, "not a number") != 0 &&
		    strcmp(*why, "empty value") != 0)
			*why = "percent must be 0..100";
		return -1;
	}
	*out = (int)v;
	return 0;
}

void
units_fmt_us(char *buf, size_t n, uint64_t us)
{
	/* Three significant digits, switching unit before the rounding
	 * would print "1000". */
	if (us < 1000) {
		snprintf(buf, n, "%llu us", (unsigned long long)us);
		return;
	}
	double ms = (double)us / 1e3;
	if (ms < 9.995) {
		snprintf(buf, n, "%.2f ms", ms);
		return;
	}
	if (ms < 99.95) {
		snprintf(buf, n, "%.1f ms", ms);
		return;
	}
	if (ms < 999.5) {
		snprintf(buf, n, "%.0f ms", ms);
		return;
	}
	double s = (double)us / 1e6;
	if (s < 9.995)
		snprintf(buf, n, "%.2f s", s);
	else if (s < 99.95)
		snprintf(buf, n, "%.1f s", s);
	else
		snprintf(buf, n, "%.0f s", s);
}

void
units_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	static const char *const names[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	if (bytes < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)bytes);
		return;
	}
	double v = (double)bytes / 1024.0;
	size_t i = 0;
	while (v >= 1023.95 && i + 1 < sizeof(names) / sizeof(names[0])) {
		v /= 1024.0;
		i++;
	}
	snprintf(buf, n, "%.1f %s", v, names[i]);
}
