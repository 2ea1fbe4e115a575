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

/* The next physical line without its LF (and CR unless keep_cr: the
 * octets of a "{{{" block are the file's); false at the end. */
static bool
raw_line(struct raw *r, const char **s, size_t *n, bool keep_cr)
{
	if (r->pos >= r->len)
		return false;
	const char *start = r->text + r->pos;
	const char *nl = memchr(start, '\n', r->len - r->pos);
	size_t l = nl ? (size_t)(nl - start) : r->len - r->pos;

	r->pos += l + (nl != NULL);
	if (!keep_cr && l > 0 && start[l - 1] == '\r')
		l--;
	*s = start;
	*n = l;
	r->line++;
	return true;
}

static bool
raw_next(struct raw *r, const char **s, size_t *n)
{
	return raw_line(r, s, n, false);
}

/* Outside a literal's octets a NUL has no meaning: refuse it. */
static int
no_nul(const char *s, size_t n, const char *path, unsigned line, char *err,
       size_t errlen)
{
	if (memchr(s, '\0', n) == NULL)
		return 0;
	return slines_fail(err, errlen, path, line, "a NUL octet outside a "
			   "literal (only a {{{ block's lines or a {N} literal's "
			   "octets may hold one)");
}

static void
slines_push(struct slines *ls, char *text, size_t len, unsigned line)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? ls->cap * 2 : 32;
		ls->v = xrealloc(ls->v, ls->cap * sizeof(*ls->v));
	}
	ls->v[ls->n].text = text;
	ls->v[ls->n].len = len;
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

/* Does b end in imaptest's "{{{" (*bin: "~{{{")? */
static bool
ends_in_block(const struct sbuf *b, bool *bin)
{
	if (b->len < 3 || memcmp(b->s + b->len - 3, "{{{", 3) != 0)
		return false;
	*bin = b->len >= 4 && b->s[b->len - 4] == '~';
	return true;
}

/* b ends in "{{{": the lines up to one that begins with "}}}" replace
 * it as a literal, then the rest of that line follows (script.h).  1
 * when that rest is empty: b then ends in the literal's octets, which
 * must not be read as another marker. */
static int
take_block(struct raw *r, struct sbuf *b, bool bin, const char *path,
	   char *err, size_t errlen)
{
	unsigned at = r->line;
	struct sbuf lit = { 0 };
	const char *s;
	size_t n;
	bool first = true;

	b->len -= bin ? 4 : 3;
	for (;;) {
		if (!raw_line(r, &s, &n, true)) {
			sbuf_reset(&lit);
			return slines_fail(err, errlen, path, at, "this {{{ block "
					   "has no line beginning with }}} to end it");
		}
		if (n >= 3 && memcmp(s, "}}}", 3) == 0)
			break;
		if (!first)
			sbuf_add(&lit, bin ? "\n" : "\r\n", bin ? 1 : 2);
		sbuf_add(&lit, s, n);
		first = false;
	}
	if (lit.len > LITERAL_MAX) {
		sbuf_reset(&lit);
		return slines_fail(err, errlen, path, at, "a {{{ block of more "
				   "than %u octets", LITERAL_MAX);
	}
	sbuf_addf(b, "%s{%zu}\r\n", bin ? "~" : "", lit.len);
	sbuf_add(b, lit.s ? lit.s : "", lit.len);
	sbuf_reset(&lit);
	s += 3;
	n -= 3;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (no_nul(s, n, path, r->line, err, errlen) < 0)
		return -1;
	sbuf_add(b, s, n);
	return n == 0;
}

/* After a line ending in a literal marker: its octets, then the line
 * that continues the command; again while that one ends in a marker.
 * A "{{{" block likewise. */
static int
take_literals(struct raw *r, struct sbuf *b, const char *path, char *err,
	      size_t errlen)
{
	size_t size;
	const char *s;
	size_t n;
	bool bin;

	for (;;) {
		if (ends_in_block(b, &bin)) {
			int rc = take_block(r, b, bin, path, err, errlen);
			if (rc != 0)
				return rc < 0 ? -1 : 0;
			continue;
		}
		if (!ends_in_literal(b, &size))
			return 0;
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
		if (no_nul(s, n, path, r->line, err, errlen) < 0)
			return -1;
		sbuf_add(b, s, n);
	}
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

bool
slines_group_directive(const char *s, size_t n)
{
	static const char *const words[] = { "!sleep", "!output", "!ordered" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t w = strlen(words[i]);
		if (n >= w && strncmp(s, words[i], w) == 0 &&
		    (n == w || s[w] == ' '))
			return true;
	}
	return false;
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
		    "unknown directive '%s' (known: !ifenv, !ifnenv, !else, !endif, "
		    "!sleep, !output, !ordered)",
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
	while (raw_next(&r, &s, &n)) {
		bool cont = n > 0 && (s[0] == ' ' || s[0] == '\t') &&
			    !blank(s, n);

		if (!cont && have) {
			size_t l = cur.len;
			slines_push(ls, sbuf_take(&cur), l, cur_line);
			have = false;
		}
		if (no_nul(s, n, path, r.line, err, errlen) < 0)
			goto fail;
		/* "! " is an untagged line that must not come (script.h);
		 * a group directive is the step parser's */
		if (n > 0 && s[0] == '!' && !(n > 1 && s[1] == ' ') &&
		    !slines_group_directive(s, n)) {
			if (preproc(&st, s, n, r.line, path, err, errlen) < 0)
				goto fail;
			continue;
		}
		if (!st.on[st.depth])
			continue;
		if (blank(s, n)) {
			slines_push(ls, NULL, 0, r.line);
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
	if (have) {
		size_t l = cur.len;
		slines_push(ls, sbuf_take(&cur), l, cur_line);
	}
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
