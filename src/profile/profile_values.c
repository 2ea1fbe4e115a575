/* profile_values.c: the value syntaxes of a profile file: Dovecot's time
 * settings, booleans, percentages, FETCH item lists, username templates.
 * Each parser returns 0, or -1 with a short reason for the caller to put
 * after "FILE:LINE: KEY: ". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profile/profile_int.h"
#include "util/units.h"
#include "util/xmalloc.h"

int
profile_parse_time(const char *s, uint64_t *us, const char **why)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "", 1 },
		{ "ms", 1e-3 }, { "msec", 1e-3 }, { "msecs", 1e-3 },
		{ "millisecond", 1e-3 }, { "milliseconds", 1e-3 },
		{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
		{ "seconds", 1 },
		{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 },
		{ "minutes", 60 },
		{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
		{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
		{ "w", 604800 }, { "week", 604800 }, { "weeks", 604800 },
	};
	char num[32];
	size_t n = 0;
	double secs;

	if (s[0] == '\0') {
		*why = "empty value";
		return -1;
	}
	while ((isdigit((unsigned char)s[n]) || s[n] == '.' || s[n] == '-') &&
	       n < sizeof(num) - 1) {
		num[n] = s[n];
		n++;
	}
	num[n] = '\0';
	if (n == 0) {
		*why = "not a number";
		return -1;
	}
	/* The number alone, without a unit, is seconds to units.c. */
	if (units_parse_duration(num, &secs, why) < 0)
		return -1;
	const char *unit = s + n;
	while (*unit == ' ' || *unit == '\t')
		unit++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(unit, units[i].name) != 0)
			continue;
		double v = secs * units[i].mult;
		/* A year is far past any test; it also keeps every sum of
		 * intervals well inside 64-bit microseconds. */
		if (v > 366.0 * 86400) {
			*why = "too large (more than a year)";
			return -1;
		}
		*us = (uint64_t)(v * 1e6 + 0.5);
		return 0;
	}
	*why = "unknown time unit (ms, s, min, hour, day, week)";
	return -1;
}

int
profile_parse_bool(const char *s, bool *out, const char **why)
{
	static const char *const yes[] = { "yes", "y", "1", "true", "on" };
	static const char *const no[] = { "no", "n", "0", "false", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	*why = "not a boolean (yes or no)";
	return -1;
}

int
profile_parse_pct(const char *s, bool need_sign, unsigned *out,
		  const char **why)
{
	char buf[16];
	size_t len = strlen(s);
	int v;

	if (len > 0 && s[len - 1] == '%')
		len--;
	else if (need_sign) {
		*why = "must be a percentage like 10%";
		return -1;
	}
	if (len >= sizeof(buf)) {
		*why = "percent must be 0..100";
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (units_parse_percent(buf, &v, why) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
profile_parse_fetch(const char *s, char **out, const char **why)
{
	int paren = 0, bracket = 0;
	size_t len = strlen(s);

	if (len == 0) {
		*why = "empty value";
		return -1;
	}
	if (len > PROFILE_MAX_FETCH) {
		*why = "longer than 1024 bytes";
		return -1;
	}
	/* The items go into a command line as they are: no control bytes,
	 * no quotes or literals, and brackets that close, or the server
	 * would wait for the rest of a command that never comes. */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '{' || c == '\\') {
			*why = "FETCH items must be printable ASCII without "
			       "quotes, literals or backslashes";
			return -1;
		}
		paren += c == '(' ? 1 : c == ')' ? -1 : 0;
		bracket += c == '[' ? 1 : c == ']' ? -1 : 0;
		if (paren < 0 || bracket < 0)
			break;
	}
	if (paren != 0 || bracket != 0) {
		*why = "unbalanced parentheses or brackets";
		return -1;
	}
	*out = xstrdup(s);
	return 0;
}

/* "%{username_idx}" or "%{username_idx | lfill(N, 'c')}", at s (just
 * past the '%'); returns the length consumed, 0 on a syntax error. */
static size_t
template_var(const char *s, struct profile_template *t, const char **why)
{
	static const char var[] = "{username_idx";
	const char *p = s;

	if (strncmp(p, var, sizeof(var) - 1) != 0) {
		*why = "only %{username_idx} (optionally | lfill(N, '0')) "
		       "and %n are supported";
		return 0;
	}
	p += sizeof(var) - 1;
	while (*p == ' ')
		p++;
	if (*p == '}')
		return (size_t)(p + 1 - s);
	*why = "expected '| lfill(N, 'c')}' after username_idx";
	if (*p++ != '|')
		return 0;
	while (*p == ' ')
		p++;
	if (strncmp(p, "lfill(", 6) != 0) {
		*why = "the only filter supported is lfill(N, 'c')";
		return 0;
	}
	p += 6;
	unsigned w = 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p) && w < 1000)
		w = w * 10 + (unsigned)(*p++ - '0');
	while (*p == ' ')
		p++;
	char pad = '0';
	if (*p == ',') {
		p++;
		while (*p == ' ')
			p++;
		if ((p[0] != '\'' && p[0] != '"') || p[1] == '\0' ||
		    p[2] != p[0] || !isgraph((unsigned char)p[1]))
			return 0;
		pad = p[1];
		p += 3;
		while (*p == ' ')
			p++;
	}
	if (p[0] != ')')
		return 0;
	p++;
	while (*p == ' ')
		p++;
	if (*p != '}')
		return 0;
	if (w > 32) {
		*why = "lfill width over 32";
		return 0;
	}
	t->width = w;
	t->pad = pad;
	return (size_t)(p + 1 - s);
}

/* The older "%n", "%0Nn" (zero-padded to N digits) or "%Nn" at s (past
 * the '%').  Dovecot 2.3's var_expand reads a width without the 0 as a
 * substring, the first N characters: "%7n" is the plain number up to
 * 9999999 (its 4,000,000-user example).  Its other modifiers (%N.Mn
 * offsets, other pad bytes) are refused rather than guessed at. */
static size_t
template_old(const char *s, struct profile_template *t, const char **why)
{
	const char *p = s;
	bool zero = *p == '0';
	unsigned w = 0;

	*why = "unknown %-sequence (use %{username_idx}, %n, %Nn or %0Nn)";
	if (zero)
		p++;
	if (zero && !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p) && w < 1000)
		w = w * 10 + (unsigned)(*p++ - '0');
	if (*p != 'n')
		return 0;
	if (w > 32) {
		*why = "padding width over 32";
		return 0;
	}
	if (zero) {
		t->width = w;
		t->pad = '0';
	} else {
		t->trunc = w;
	}
	return (size_t)(p + 1 - s);
}

int
profile_parse_template(const char *s, struct profile_template *t,
		       const char **why)
{
	size_t len = strlen(s);
	char *lit = xmalloc(len + 1), *at = lit;
	char *prefix = NULL;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c >= 0x7f) {
			*why = "user names must be printable ASCII without blanks";
			goto fail;
		}
		if (c != '%') {
			*at++ = (char)c;
			i++;
			continue;
		}
		if (s[i + 1] == '%') {
			*at++ = '%';
			i += 2;
			continue;
		}
		if (t->has_index) {
			*why = "more than one index in the template";
			goto fail;
		}
		size_t used = s[i + 1] == '{' ? template_var(s + i + 1, t, why)
					      : template_old(s + i + 1, t, why);
		if (used == 0)
			goto fail;
		*at = '\0';
		prefix = xstrdup(lit);
		at = lit;
		t->has_index = true;
		i += 1 + used;
	}
	*at = '\0';
	if (len == 0) {
		*why = "empty value";
		goto fail;
	}
	if (t->has_index) {
		t->prefix = prefix;
		t->suffix = lit;
	} else {
		t->prefix = lit;
		t->suffix = xstrdup("");
	}
	t->text = xstrdup(s);
	return 0;
fail:
	free(lit);
	free(prefix);
	memset(t, 0, sizeof(*t));
	return -1;
}

void
profile_template_free(struct profile_template *t)
{
	free(t->text);
	free(t->prefix);
	free(t->suffix);
	memset(t, 0, sizeof(*t));
}

size_t
profile_template_expand(const struct profile_template *t, unsigned idx,
			char *out, size_t n)
{
	char num[48];
	int len = 0;

	if (t->has_index) {
		len = snprintf(num, sizeof(num), "%u", idx);
		if (t->width > (unsigned)len) {
			unsigned padn = t->width - (unsigned)len;
			memmove(num + padn, num, (size_t)len + 1);
			memset(num, t->pad, padn);
			len = (int)t->width;
		}
		if (t->trunc > 0 && (unsigned)len > t->trunc)
			num[t->trunc] = '\0';	/* Dovecot's %Nn: a substring */
	} else {
		num[0] = '\0';
	}
	return (size_t)snprintf(out, n, "%s%s%s", t->prefix, num, t->suffix);
}
