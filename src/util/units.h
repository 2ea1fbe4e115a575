/* units.h: parsing and printing of durations, sizes and counts as users
 * type them ("10s", "2m", "500ms", "4k", "75KB", "1MiB"). */
#ifndef IMAPSTRESS_UNITS_H
#define IMAPSTRESS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Durations: a non-negative decimal number with an optional unit us, ms,
 * s, m, h (no unit = seconds, as imaptest's secs=).  Returns 0 or -1 with
 * a reason ("unknown unit 'x'", "not a number", "negative", "too large"). */
int units_parse_duration(const char *s, double *secs, const char **why);

/* Sizes: a non-negative integer or decimal with an optional unit
 * b, k/kb/kib, m/mb/mib, g/gb/gib (case-insensitive; k = 1024, as mail
 * people mean it).  Rejects overflow past 2^63. */
int units_parse_size(const char *s, uint64_t *bytes, const char **why);

/* Plain unsigned integer in [min, max] (decimal only, no sign, no junk). */
int units_parse_uint(const char *s, uint64_t min, uint64_t max,
		     uint64_t *out, const char **why);

/* Percent 0..100, integer. */
int units_parse_percent(const char *s, int *out, const char **why);

/* "1.23 ms", "450 us", "12.0 s" */
void units_fmt_us(char *buf, size_t n, uint64_t us);
/* "1.5 KiB", "75.0 KiB", "3.2 MiB" */
void units_fmt_size(char *buf, size_t n, uint64_t bytes);

#endif
