/* config_value.c: the value parsers the option handlers and the state words
 * share, and the one-line error format they all fail through (config_int.h).
 *
 * A leaf of src/config/: it calls nothing else of the folder, so the
 * handlers (config_opts.c, config_login.c, config_measure.c,
 * config_shard.c) and the argv walk in config.c all call down into it;
 * in config.c, which also calls the handlers, these made a file circle. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_int.h"
#include "util/escape.h"
#include "util/units.h"
#include "util/xmalloc.h"

/* "<word as typed>: <problem>", on one line whatever the value holds. */
int
config_fail(struct pctx *c, const char *fmt, ...)
{
	int n;
	va_list ap;

	if (c->val == NULL)
		n = snprintf(c->err, c->errlen, "%s: ", c->name);
	else
		n = snprintf(c->err, c->errlen, "%s%s%s: ", c->name,
			     c->val[0] == '\0' ? "=" : c->sep, c->val);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	config_clean_err(c->err, c->errlen);
	return -1;
}

/* One printable line whatever the user typed: the value goes through
 * escape.c like every other byte bound for the terminal, so it cannot
 * break the line or send escapes to it (the buffer may also be read by
 * callers that do not print through log.c). */
void
config_clean_err(char *err, size_t errlen)
{
	escape_in_place(err, errlen);
}

void
config_set_str(char **dst, const char *val)
{
	free(*dst);
	*dst = xstrdup(val);
}

/* Strict decimal (digits with an optional fraction) for rates. */
int
config_parse_decimal(struct pctx *c, double *out)
{
	const char *s = c->val;
	size_t i = 0, digits = 0;

	if (s[0] == '-')
		return config_fail(c, "negative");
	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (digits > 0 && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			;
	if (digits == 0 || s[i] != '\0')
		return config_fail(c, "not a number");
	if (digits > 15)
		return config_fail(c, "too large");
	*out = strtod(s, NULL);
	return 0;
}

int
config_parse_uint(struct pctx *c, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	const char *why;

	if (units_parse_uint(s, 0, UINT64_MAX, out, &why) < 0)
		return config_fail(c, "%s", why);
	if (*out < min || *out > max)
		return config_fail(c, "must be between %llu and %llu",
				   (unsigned long long)min,
				   (unsigned long long)max);
	return 0;
}

/* The row's min/max bound the size; the message shows them as sizes. */
int
config_parse_size(struct pctx *c, const struct opt *o, uint64_t *out)
{
	const char *why;
	char lo[32], hi[32];

	if (units_parse_size(c->val, out, &why) < 0)
		return config_fail(c, "%s", why);
	if (*out < o->min || *out > o->max) {
		units_fmt_size(lo, sizeof(lo), o->min);
		units_fmt_size(hi, sizeof(hi), o->max);
		return config_fail(c, "must be between %s and %s", lo, hi);
	}
	return 0;
}

int
config_parse_dur(struct pctx *c, const char *s, bool positive, double *out)
{
	const char *why;

	if (units_parse_duration(s, out, &why) < 0)
		return config_fail(c, "%s", why);
	if (positive && *out <= 0)
		return config_fail(c, "must be greater than 0");
	return 0;
}

/* The P[,R] of a state word; val NULL means a bare name (100%). */
int
config_state_set(struct pctx *c, int op, const char *val)
{
	const char *why, *comma;
	int prob = 100, again = c->cfg->states[op].again;

	if (val != NULL) {
		comma = strchr(val, ',');
		char *p = xstrndup(val, comma ? (size_t)(comma - val)
					      : strlen(val));
		int r = units_parse_percent(p, &prob, &why);
		free(p);
		if (r < 0)
			return config_fail(c, "%s", why);
		if (comma != NULL &&
		    units_parse_percent(comma + 1, &again, &why) < 0)
			return config_fail(c, "repeat: %s", why);
	}
	c->cfg->states[op].prob = prob;
	c->cfg->states[op].again = again;
	return 0;
}
