/* imap_args.c: IMAP response argument tokenizer (see imap_args.h).
 *
 * One pass, no recursion: a stack of open lists (bounded by
 * IMAP_ARGS_MAX_DEPTH) remembers where each list started and which child
 * was added last, so siblings are linked as they are emitted. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap_args.h"
#include "xmalloc.h"

#define IMAP_ARGS_INITIAL	64u

struct imap_args {
	struct imap_arg *tok;
	unsigned n, cap, max;
	char *scratch;		/* unescaped quoted strings */
	size_t scratch_cap, scratch_used;
	/* open lists: token index and index of the last child (0 = none) */
	uint32_t open[IMAP_ARGS_MAX_DEPTH + 1];
	uint32_t last[IMAP_ARGS_MAX_DEPTH + 1];
	unsigned depth;
	char err[160];
};

struct imap_args *
imap_args_new(unsigned max_tokens)
{
	struct imap_args *a = xcalloc(1, sizeof(*a));

	a->max = max_tokens ? max_tokens : IMAP_ARGS_DEFAULT_MAX;
	if (a->max < 1)
		a->max = 1;
	return a;
}

void
imap_args_free(struct imap_args *a)
{
	if (a == NULL)
		return;
	free(a->tok);
	free(a->scratch);
	free(a);
}

const char *
imap_args_error(const struct imap_args *a)
{
	return a->err;
}

unsigned
imap_args_count(const struct imap_args *a)
{
	return a->n;
}

static int
args_fail(struct imap_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Append a token, linked as the last child of the innermost open list.
 * Returns its index, or -1 at the token limit. */
static long
args_emit(struct imap_args *a, enum imap_arg_type type, const char *str,
	  size_t len)
{
	if (a->n >= a->max)
		return args_fail(a, "too many tokens (limit %u)", a->max);
	if (a->n == a->cap) {
		unsigned ncap = a->cap ? a->cap * 2 : IMAP_ARGS_INITIAL;
		if (ncap > a->max)
			ncap = a->max;
		a->tok = xrealloc(a->tok, ncap * sizeof(*a->tok));
		a->cap = ncap;
	}
	uint32_t i = a->n++;
	struct imap_arg *t = &a->tok[i];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->str = str;
	t->len = len;
	if (i == 0)
		return 0;	/* the root */

	uint32_t parent = a->open[a->depth];
	uint32_t prev = a->last[a->depth];
	if (prev != 0)
		a->tok[prev].next_off = (int32_t)(i - prev);
	a->last[a->depth] = i;
	a->tok[parent].count++;
	return i;
}

static bool
is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* p points after the opening quote. */
static int
args_quoted(struct imap_args *a, const char *text, size_t len, size_t *pos)
{
	size_t start = *pos, p = start;
	bool escaped = false;

	for (; p < len && text[p] != '"'; p++) {
		if (text[p] == '\r' || text[p] == '\n')
			return args_fail(a, "line break in quoted string "
					 "at offset %zu", p);
		if (text[p] == '\\') {
			if (p + 1 >= len)
				break;
			if (text[p + 1] != '"' && text[p + 1] != '\\')
				return args_fail(a, "bad escape '\\%c' in "
						 "quoted string at offset %zu",
						 text[p + 1], p);
			escaped = true;
			p++;
		}
	}
	if (p >= len)
		return args_fail(a, "unterminated quoted string at offset %zu",
				 start - 1);

	const char *s = text + start;
	size_t n = p - start;
	if (escaped) {
		/* scratch was sized to the whole text before parsing, so the
		 * pointers already handed out never move. */
		char *d = a->scratch + a->scratch_used;
		size_t k = 0;
		for (size_t i = start; i < p; i++) {
			if (text[i] == '\\')
				i++;
			d[k++] = text[i];
		}
		a->scratch_used += k;
		s = d;
		n = k;
	}
	if (args_emit(a, IMAP_ARG_QUOTED, s, n) < 0)
		return -1;
	*pos = p + 1;
	return 0;
}

/* p points at '{' (literal8's '~' already skipped). */
static int
args_literal(struct imap_args *a, const char *text, size_t len, size_t *pos,
	     size_t start)
{
	size_t p = *pos + 1, d0 = p;
	uint64_t size = 0;

	while (p < len && text[p] >= '0' && text[p] <= '9') {
		unsigned dig = (unsigned)(text[p] - '0');
		if (size > (UINT64_MAX - dig) / 10)
			return args_fail(a, "literal size too large at "
					 "offset %zu", start);
		size = size * 10 + dig;
		p++;
	}
	if (p == d0)
		return args_fail(a, "malformed literal at offset %zu", start);
	bool skipped = false;
	if (p < len && (text[p] == '+' || text[p] == '!')) {
		skipped = text[p] == '!';
		p++;
	}
	if (p >= len || text[p] != '}')
		return args_fail(a, "malformed literal at offset %zu", start);
	p++;
	if (skipped) {
		long i = args_emit(a, IMAP_ARG_LITERAL_SKIPPED, text + start,
				   p - start);
		if (i < 0)
			return -1;
		a->tok[i].size = size;
		*pos = p;
		return 0;
	}
	if (len - p < 2 || text[p] != '\r' || text[p + 1] != '\n')
		return args_fail(a, "literal at offset %zu not followed by "
				 "CRLF", start);
	p += 2;
	if (size > len - p)
		return args_fail(a, "literal of %llu octets at offset %zu "
				 "truncated (%zu present)",
				 (unsigned long long)size, start, len - p);
	long i = args_emit(a, IMAP_ARG_LITERAL, text + p, (size_t)size);
	if (i < 0)
		return -1;
	a->tok[i].size = size;
	*pos = p + (size_t)size;
	return 0;
}

/* A '[' inside an atom runs to its matching ']' (section specs hold
 * spaces, parentheses and possibly quoted header names). */
static int
args_bracket(struct imap_args *a, const char *text, size_t len, size_t *pos)
{
	size_t p = *pos, open = p;
	unsigned depth = 0;

	for (; p < len; p++) {
		unsigned char c = (unsigned char)text[p];
		if (is_ctl(c))
			return args_fail(a, "control character 0x%02x in "
					 "section at offset %zu", c, p);
		if (c == '"') {
			for (p++; p < len && text[p] != '"'; p++)
				if (text[p] == '\\')
					p++;
			if (p >= len)
				break;
		} else if (c == '[') {
			depth++;
		} else if (c == ']' && --depth == 0) {
			*pos = p + 1;
			return 0;
		}
	}
	return args_fail(a, "unterminated '[' in atom at offset %zu", open);
}

static int
args_atom(struct imap_args *a, const char *text, size_t len, size_t *pos)
{
	size_t start = *pos, p = start;

	while (p < len) {
		unsigned char c = (unsigned char)text[p];
		if (c == ' ' || c == '(' || c == ')' || is_ctl(c))
			break;
		if (c == '[') {
			if (args_bracket(a, text, len, &p) < 0)
				return -1;
			continue;
		}
		p++;
	}
	if (args_emit(a, IMAP_ARG_ATOM, text + start, p - start) < 0)
		return -1;
	*pos = p;
	return 0;
}

static int
args_run(struct imap_args *a, const char *text, size_t len)
{
	size_t p = 0;
	bool need_sep = false;
	bool after_list = false;	/* the last token closed a list */

	a->depth = 0;
	a->open[0] = 0;
	a->last[0] = 0;
	if (args_emit(a, IMAP_ARG_LIST, text, len) < 0)
		return -1;

	while (p < len) {
		unsigned char c = (unsigned char)text[p];
		size_t start = p;

		if (c == ' ') {
			p++;
			need_sep = after_list = false;
			continue;
		}
		if (c == ')') {
			if (a->depth == 0)
				return args_fail(a, "unexpected ')' at offset "
						 "%zu", p);
			struct imap_arg *l = &a->tok[a->open[a->depth]];
			l->len = (size_t)(text + p + 1 - l->str);
			a->depth--;
			p++;
			need_sep = after_list = true;
			continue;
		}
		if (is_ctl(c))
			return args_fail(a, "unexpected control character "
					 "0x%02x at offset %zu", c, p);
		/* body-type-mpart is "1*body SP media-subtype": the bodies
		 * of a multipart follow each other with no space. */
		if (need_sep && !(c == '(' && after_list))
			return args_fail(a, "missing space before '%c' at "
					 "offset %zu", c, p);
		if (c == '(') {
			if (a->depth == IMAP_ARGS_MAX_DEPTH)
				return args_fail(a, "lists nested too deep "
						 "(limit %u) at offset %zu",
						 IMAP_ARGS_MAX_DEPTH, p);
			long i = args_emit(a, IMAP_ARG_LIST, text + p, 1);
			if (i < 0)
				return -1;
			a->depth++;
			a->open[a->depth] = (uint32_t)i;
			a->last[a->depth] = 0;
			p++;
			need_sep = after_list = false;
			continue;
		}
		int r;
		if (c == '"') {
			p++;
			r = args_quoted(a, text, len, &p);
		} else if (c == '{') {
			r = args_literal(a, text, len, &p, start);
		} else if (c == '~' && p + 1 < len && text[p + 1] == '{') {
			p++;
			r = args_literal(a, text, len, &p, start);
		} else {
			r = args_atom(a, text, len, &p);
		}
		if (r < 0)
			return -1;
		need_sep = true;
		after_list = false;
	}
	if (a->depth > 0)
		return args_fail(a, "unterminated list opened at offset %zu",
				 (size_t)(a->tok[a->open[a->depth]].str - text));
	return 0;
}

const struct imap_arg *
imap_args_parse(struct imap_args *a, const char *text, size_t len)
{
	a->n = 0;
	a->err[0] = '\0';
	a->scratch_used = 0;
	if (text == NULL)
		len = 0;
	if (len > 0 && memchr(text, '\\', len) != NULL &&
	    a->scratch_cap < len) {
		free(a->scratch);
		a->scratch = xmalloc(len);
		a->scratch_cap = len;
	}
	if (args_run(a, text ? text : "", len) < 0) {
		a->n = 0;
		return NULL;
	}
	return &a->tok[0];
}

const struct imap_arg *
imap_arg_next(const struct imap_arg *arg)
{
	return arg->next_off ? arg + arg->next_off : NULL;
}

const struct imap_arg *
imap_arg_child(const struct imap_arg *list)
{
	if (list == NULL || list->type != IMAP_ARG_LIST || list->count == 0)
		return NULL;
	return list + 1;
}

const struct imap_arg *
imap_arg_nth(const struct imap_arg *list, unsigned i)
{
	const struct imap_arg *c = imap_arg_child(list);

	while (c != NULL && i-- > 0)
		c = imap_arg_next(c);
	return c;
}

bool
imap_arg_is_string(const struct imap_arg *arg)
{
	return arg != NULL && (arg->type == IMAP_ARG_QUOTED ||
			       arg->type == IMAP_ARG_LITERAL);
}

bool
imap_arg_is_nil(const struct imap_arg *arg)
{
	return imap_arg_atom_eq(arg, "NIL");
}

bool
imap_arg_atom_eq(const struct imap_arg *arg, const char *s)
{
	if (arg == NULL || arg->type != IMAP_ARG_ATOM)
		return false;
	return imap_arg_text_eq(arg, s, strlen(s));
}

bool
imap_arg_text_eq(const struct imap_arg *arg, const char *s, size_t n)
{
	if (arg == NULL || (arg->type != IMAP_ARG_ATOM &&
			    !imap_arg_is_string(arg)))
		return false;
	return arg->len == n && strncasecmp(arg->str, s, n) == 0;
}

int
imap_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int
imap_arg_u64(const struct imap_arg *arg, uint64_t *out)
{
	if (arg == NULL || arg->type != IMAP_ARG_ATOM)
		return -1;
	return imap_parse_u64(arg->str, arg->len, out);
}
