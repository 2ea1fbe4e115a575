/* script_lines.c: the first pass over a test file: physical lines into
 * logical ones.  Comments and !ifenv blocks go, continuation lines are
 * joined, and a literal's octets are gathered into the line that
 * announces it (see script.h for the rules we define).  What is left is
 * a list of non-empty lines and blank markers (the header ends at the
 * first blank). */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_buf.h"
#include "script/script_lines.h"
#include "util/xmalloc.h"

#define IF_MAX_DEPTH 32
#define LITERAL_MAX (1u << 20)

struct raw {
	const char *text;
	size_t len;
	size_t pos;		/* next physical line */
	unsigned line;		/* number of the line last taken */
};

int
slines_fail(char *err, size_t errlen, const char *path, unsigned line,
	    const char *fmt, ...)
{
	va_list ap;
	struct sbuf msg = { 0 };
	char why[256];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* The file name came from argv, the reason may quote the file: both
	 * escaped, so the message stays one printable line. */
	sbuf_add_escaped(&msg, path, strlen(path));
	sbuf_addf(&msg, ":%u: ", line);
	sbuf_add_escaped(&msg, why, strlen(why));
	snprintf(err, errlen, "%s", msg.s);
	sbuf_reset(&msg);
	return -1;
}

/* The next physical line without its LF or CRLF; false at the end. */
static bool
raw_next(struct raw *r, const char **s, size_t *n)
{
	if (r->pos >= r->len)
		return false;
	const char *start = r->text + r->pos;
	const char *nl = memchr(start, '\n', r->len - r->pos);
	size_t l = nl ? (size_t)(nl - start) : r->len - r->pos;

	r->pos += l + (nl != NULL);
	if (l > 0 && start[l - 1] == '\r')
		l--;
	*s = start;
	*n = l;
	r->line++;
	return true;
}

static void
slines_push(struct slines *ls, char *text, unsigned line)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? ls->cap * 2 : 32;
		ls->v = xrealloc(ls->v, ls->cap * sizeof(*ls->v));
	}
	ls->v[ls->n].text = text;
	ls->v[ls->n].line = line;
	ls->n++;
}

void
slines_free(struct slines *ls)
{
	for (unsigned i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

/* Does b end in "{N}" or "{N+}"?  *size gets N. */
static bool
ends_in_literal(const struct sbuf *b, size_t *size)
{
	size_t i = b->len;

	if (i < 3 || b->s[i - 1] != '}')
		return false;
	i--;
	if (b->s[i - 1] == '+')
		i--;
	size_t end = i;
	while (i > 0 && isdigit((unsigned char)b->s[i - 1]))
		i--;
	if (i == end || i == 0 || b->s[i - 1] != '{' || end - i > 9)
		return false;
	*size = (size_t)strtoul(b->s + i, NULL, 10);
	return true;
}

/* After a line ending in a literal marker: its octets, then the line
 * that continues the command; again while that one ends in a marker. */
static int
take_literals(struct raw *r, struct sbuf *b, const char *path, char *err,
	      size_t errlen)
{
	size_t size;
	const char *s;
	size_t n;

	while (ends_in_literal(b, &size)) {
		unsigned at = r->line;

		if (size > LITERAL_MAX)
			return slines_fail(err, errlen, path, at,
					   "literal of %zu octets is larger than %u",
					   size, LITERAL_MAX);
		sbuf_add(b, "\r\n", 2);
		size_t got = 0;
		while (got < size) {
			if (!raw_next(r, &s, &n))
				return slines_fail(err, errlen, path, at,
						   "literal of %zu octets: the file ends after %zu",
						   size, got);
			if (got + n + 2 > size)
				return slines_fail(err, errlen, path, r->line,
						   "literal of %zu octets (line %u) ends inside this line",
						   size, at);
			sbuf_add(b, s, n);
			sbuf_add(b, "\r\n", 2);
			got += n + 2;
		}
		if (!raw_next(r, &s, &n))
			return slines_fail(err, errlen, path, at,
					   "the line after the literal (line %u) is missing: "
					   "an empty line ends the command", at);
		sbuf_add(b, s, n);
	}
	return 0;
}

static bool
blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* "!word arg": *word and *arg point into s. */
static bool
directive_is(const char *s, size_t n, const char *word, const char **arg,
	     size_t *arg_len)
{
	size_t w = strlen(word);

	if (n < w || strncmp(s, word, w) != 0 || (n > w && s[w] != ' '))
		return false;
	*arg = s + w;
	*arg_len = n - w;
	while (*arg_len > 0 && **arg == ' ') {
		(*arg)++;
		(*arg_len)--;
	}
	while (*arg_len > 0 && (*arg)[*arg_len - 1] == ' ')
		(*arg_len)--;
	return true;
}

/* !ifenv/!ifnenv/!else/!endif.  if_on[d] says whether lines at depth d
 * are kept (if_on[0] is always true). */
struct ifstack {
	bool on[IF_MAX_DEPTH + 1];
	bool seen_else[IF_MAX_DEPTH + 1];
	unsigned line[IF_MAX_DEPTH + 1];
	unsigned depth;
};

static int
preproc(struct ifstack *st, const char *s, size_t n, unsigned line,
	const char *path, char *err, size_t errlen)
{
	const char *arg;
	size_t alen;
	bool neg = false;

	if (directive_is(s, n, "!ifenv", &arg, &alen) ||
	    (neg = directive_is(s, n, "!ifnenv", &arg, &alen))) {
		if (alen == 0 || memchr(arg, ' ', alen) != NULL)
			return slines_fail(err, errlen, path, line,
					   "%s needs one environment variable name",
					   neg ? "!ifnenv" : "!ifenv");
		if (st->depth == IF_MAX_DEPTH)
			return slines_fail(err, errlen, path, line,
					   "!if nested deeper than %d", IF_MAX_DEPTH);
		char *name = xstrndup(arg, alen);
		bool set = getenv(name) != NULL;
		free(name);
		st->depth++;
		st->on[st->depth] = st->on[st->depth - 1] && (set != neg);
		st->seen_else[st->depth] = false;
		st->line[st->depth] = line;
		return 0;
	}
	if (directive_is(s, n, "!else", &arg, &alen)) {
		if (st->depth == 0 || st->seen_else[st->depth])
			return slines_fail(err, errlen, path, line,
					   st->depth == 0 ? "!else without !ifenv or !ifnenv"
							  : "a second !else for one !if");
		st->seen_else[st->depth] = true;
		st->on[st->depth] = st->on[st->depth - 1] && !st->on[st->depth];
		return 0;
	}
	if (directive_is(s, n, "!endif", &arg, &alen)) {
		if (st->depth == 0)
			return slines_fail(err, errlen, path, line,
					   "!endif without !ifenv or !ifnenv");
		st->depth--;
		return 0;
	}
	struct sbuf w = { 0 };
	sbuf_add(&w, s, n < 40 ? n : 40);
	slines_fail(err, errlen, path, line,
		    "unknown directive '%s' (known: !ifenv, !ifnenv, !else, !endif)",
		    w.s);
	sbuf_reset(&w);
	return -1;
}

int
slines_read(struct slines *ls, const char *path, const char *text,
	    size_t len, char *err, size_t errlen)
{
	struct raw r = { .text = text, .len = len };
	struct ifstack st = { .on = { true } };
	struct sbuf cur = { 0 };
	unsigned cur_line = 0;
	bool have = false;	/* cur holds a line not yet pushed */
	const char *s;
	size_t n;

	memset(ls, 0, sizeof(*ls));
	if (memchr(text, '\0', len) != NULL)
		return slines_fail(err, errlen, path, 1 + (unsigned)0,
				   "the file contains a NUL octet");
	while (raw_next(&r, &s, &n)) {
		bool cont = n > 0 && (s[0] == ' ' || s[0] == '\t') &&
			    !blank(s, n);

		if (!cont && have) {
			slines_push(ls, sbuf_take(&cur), cur_line);
			have = false;
		}
		if (n > 0 && s[0] == '!') {
			if (preproc(&st, s, n, r.line, path, err, errlen) < 0)
				goto fail;
			continue;
		}
		if (!st.on[st.depth])
			continue;
		if (blank(s, n)) {
			slines_push(ls, NULL, r.line);
			continue;
		}
		if (s[0] == '#')
			continue;
		if (cont) {
			if (!have) {
				slines_fail(err, errlen, path, r.line,
					    "a continuation line (it begins with a "
					    "space) with no line before it to continue");
				goto fail;
			}
			while (n > 0 && (s[0] == ' ' || s[0] == '\t')) {
				s++;
				n--;
			}
			sbuf_add(&cur, " ", 1);
		} else {
			cur_line = r.line;
			have = true;
		}
		sbuf_add(&cur, s, n);
		if (take_literals(&r, &cur, path, err, errlen) < 0)
			goto fail;
	}
	if (have)
		slines_push(ls, sbuf_take(&cur), cur_line);
	if (st.depth > 0) {
		slines_fail(err, errlen, path, st.line[st.depth],
			    "this !if has no !endif");
		goto fail;
	}
	return 0;
fail:
	sbuf_reset(&cur);
	slines_free(ls);
	return -1;
}
