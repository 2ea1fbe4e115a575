/* imap_args.c: IMAP response argument tokenizer (see imap_args.h): the
 * tree building and the accessors.  Where each token ends is found by
 * imap_scan.h / imap_scan.c.
 *
 * One pass, no recursion: a stack of open lists (bounded by
 * IMAP_ARGS_MAX_DEPTH) remembers where each list started and which child
 * was added last, so siblings are linked as they are emitted.  FETCH
 * responses are mostly quoted strings and short atoms, and this is the
 * client's busiest loop. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imap/imap_args.h"
#include "imap/imap_scan.h"
#include "util/xmalloc.h"

#define IMAP_ARGS_INITIAL	64u

/* One open list while parsing: its token, its last child so far (0 =
 * none: the root is never anyone's sibling) and its number of children. */
struct args_frame {
	uint32_t list, last, count;
};

struct imap_args {
	struct imap_arg *tok;
	unsigned n, cap, max;
	char *scratch;		/* unescaped quoted strings */
	size_t scratch_cap, scratch_used;
	struct args_frame open[IMAP_ARGS_MAX_DEPTH + 1];	/* enclosing lists */
	bool fetch;		/* imap_args_parse_fetch: leave ENVELOPE etc. raw */
	char err[IMAP_SCAN_ERR_SIZE];
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

/* Always -1.  The helpers that return an offset return 0 on error (no
 * token ends at offset 0), as "return args_fail(...), 0". */
static int
args_fail(struct imap_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
args_fail(struct imap_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* The array is full: grow it, or fail at the token limit.  The array is
 * kept between parses, so this runs only when a response bigger than any
 * before arrives. */
static int
args_grow(struct imap_args *a)
{
	if (a->n >= a->max)
		return args_fail(a, "too many tokens (limit %u)", a->max);
	unsigned ncap = a->cap ? a->cap * 2 : IMAP_ARGS_INITIAL;
	if (ncap > a->max || ncap < a->cap)
		ncap = a->max;
	a->tok = xrealloc(a->tok, ncap * sizeof(*a->tok));
	a->cap = ncap;
	return 0;
}

/* The parse in progress, in locals of args_run (a struct only so that
 * args_emit can reach them; after inlining they live in registers). */
struct args_state {
	struct imap_arg *tok;
	uint32_t n, cap;
	struct args_frame f;	/* the innermost open list */
};

/* Append a token as the last child of the innermost open list.  Returns
 * its index, or -1 at the token limit. */
static inline __attribute__((always_inline)) long
args_emit(struct imap_args *a, struct args_state *st, enum imap_arg_type type,
	  const char *str, size_t len, uint64_t size)
{
	if (st->n == st->cap) {
		a->n = st->n;
		if (args_grow(a) < 0)
			return -1;
		st->tok = a->tok;
		st->cap = a->cap;
	}
	uint32_t i = st->n++;
	struct imap_arg *t = &st->tok[i];
	t->type = type;
	t->next_off = 0;
	t->count = 0;
	t->str = str;
	t->len = len;
	t->size = size;
	/* Without a previous sibling (last 0) this writes the root's
	 * next_off, which args_run clears at the end: no branch. */
	st->tok[st->f.last].next_off = (int32_t)(i - st->f.last);
	st->f.last = i;
	st->f.count++;
	return i;
}

/* The slow path of a quoted string (p points after the opening quote):
 * imap_scan_quoted checks it whole, and escapes are undone here.  Sets
 * *s, *n to the (unescaped) content and returns the offset after the
 * closing quote, or 0 on error. */
static __attribute__((noinline)) size_t
args_quoted(struct imap_args *a, const char *text, size_t len, size_t p,
	    const char **s, size_t *n)
{
	size_t start = p;
	bool escaped;

	p = imap_scan_quoted(text, len, start, &escaped, a->err);
	if (p == 0)
		return 0;
	p--;	/* the closing quote */
	*s = text + start;
	*n = p - start;
	if (escaped) {
		/* Sized to the whole text at the first escape of a parse, so
		 * the pointers already handed out never move. */
		if (a->scratch_cap < len) {
			free(a->scratch);
			a->scratch = xmalloc(len);
			a->scratch_cap = len;
		}
		char *d = a->scratch + a->scratch_used;
		size_t k = 0;
		for (size_t i = start; i < p; i++) {
			if (text[i] == '\\')
				i++;
			d[k++] = text[i];
		}
		a->scratch_used += k;
		*s = d;
		*n = k;
	}
	return p + 1;
}

/* How args_run treats a first octet. */
enum args_class {
	AC_ATOM,
	AC_SP,
	AC_OPEN,
	AC_CLOSE,
	AC_CTL,
	AC_QUOTE,
	AC_BRACE,
	AC_TILDE
};

static const unsigned char args_class[256] = {
	[0x00 ... 0x1f] = AC_CTL, [0x7f] = AC_CTL, [' '] = AC_SP,
	['('] = AC_OPEN, [')'] = AC_CLOSE, ['"'] = AC_QUOTE,
	['{'] = AC_BRACE, ['~'] = AC_TILDE,
};

/* imap_args_parse_fetch: is `name` an item whose list value stays raw? */
static bool
args_raw_item(const struct imap_arg *name)
{
	if (name->type != IMAP_ARG_ATOM)
		return false;
	switch (name->len) {
	case 4:
		return imap_ci_eq_lit(name->str, "BODY", 4);
	case 8:
		return imap_ci_eq_lit(name->str, "ENVELOPE", 8);
	case 13:
		return imap_ci_eq_lit(name->str, "BODYSTRUCTURE", 13);
	default:
		return false;
	}
}

static int
args_run(struct imap_args *a, const char *text, size_t len)
{
	struct args_state st = { a->tok, 0, a->cap, { 0, 0, 0 } };
	unsigned depth = 0;
	size_t p = 0;
	bool need_sep = false;
	bool after_list = false;	/* the last token closed a list */

	if (args_emit(a, &st, IMAP_ARG_LIST, text, len, 0) < 0)
		return -1;
	st.f.count = 0;

	while (p < len) {
		unsigned char c = (unsigned char)text[p];
		size_t start = p;
		enum args_class cls = args_class[c];

		if (cls == AC_SP) {
			p++;
			need_sep = after_list = false;
			continue;
		}
		if (cls == AC_CLOSE) {
			if (depth == 0)
				return args_fail(a, "unexpected ')' at offset "
						 "%zu", p);
			struct imap_arg *l = &st.tok[st.f.list];
			l->len = (size_t)(text + p + 1 - l->str);
			l->count = st.f.count;
			st.f = a->open[--depth];
			p++;
			need_sep = after_list = true;
			continue;
		}
		if (cls == AC_CTL)
			return args_fail(a, "unexpected control character "
					 "0x%02x at offset %zu", c, p);
		/* body-type-mpart is "1*body SP media-subtype": the bodies
		 * of a multipart follow each other with no space. */
		if (need_sep && !(cls == AC_OPEN && after_list))
			return args_fail(a, "missing space before '%c' at "
					 "offset %zu", c, p);
		need_sep = true;
		after_list = false;

		enum imap_arg_type type;
		const char *s;
		size_t n;
		uint64_t size = 0;
		switch (cls) {
		case AC_OPEN: {
			if (depth == 1 && a->fetch && st.f.last != 0 &&
			    args_raw_item(&st.tok[st.f.last])) {
				size_t e = imap_scan_list_end(text, len, p);
				if (e != 0) {
					if (args_emit(a, &st, IMAP_ARG_LIST_RAW,
						      text + p, e - p, 0) < 0)
						return -1;
					p = e;
					after_list = true;
					continue;
				}
			}
			if (depth == IMAP_ARGS_MAX_DEPTH)
				return args_fail(a, "lists nested too deep "
						 "(limit %u) at offset %zu",
						 IMAP_ARGS_MAX_DEPTH, p);
			long i = args_emit(a, &st, IMAP_ARG_LIST, text + p, 1,
					   0);
			if (i < 0)
				return -1;
			a->open[depth++] = st.f;
			st.f.list = (uint32_t)i;
			st.f.last = 0;
			st.f.count = 0;
			p++;
			need_sep = false;
			continue;
		}
		case AC_QUOTE: {
			/* the common case inline: no escape, no line break */
			bool quote;
			size_t e = imap_scan_quoted_end(text, len, p + 1,
						       &quote);
			type = IMAP_ARG_QUOTED;
			if (quote) {
				s = text + p + 1;
				n = e - p - 1;
				p = e + 1;
			} else {
				p = args_quoted(a, text, len, p + 1, &s, &n);
			}
			break;
		}
		case AC_BRACE:
			p = imap_scan_literal(text, len, p, start, &type, &s,
					      &n, &size, a->err);
			break;
		case AC_TILDE:
			if (p + 1 < len && text[p + 1] == '{') {
				p = imap_scan_literal(text, len, p + 1, start,
						      &type, &s, &n, &size,
						      a->err);
				break;
			}
			/* fall through */
		default:	/* an atom ('~' not before '{' included) */
			type = IMAP_ARG_ATOM;
			p = imap_scan_atom(text, len, p, a->err);
			s = text + start;
			n = p - start;
			break;
		}
		if (p == 0 || args_emit(a, &st, type, s, n, size) < 0)
			return -1;
	}
	if (depth > 0)
		return args_fail(a, "unterminated list opened at offset %zu",
				 (size_t)(st.tok[st.f.list].str - text));
	st.tok[0].count = st.f.count;
	st.tok[0].next_off = 0;
	a->n = st.n;
	return 0;
}

const struct imap_arg *
imap_args_parse_fetch(struct imap_args *a, const char *text, size_t len)
{
	a->fetch = true;
	const struct imap_arg *root = imap_args_parse(a, text, len);
	a->fetch = false;
	return root;
}

const struct imap_arg *
imap_args_parse(struct imap_args *a, const char *text, size_t len)
{
	a->n = 0;
	a->err[0] = '\0';
	a->scratch_used = 0;
	if (text == NULL)
		len = 0;
	if (args_run(a, text ? text : "", len) < 0) {
		a->n = 0;
		return NULL;
	}
	return &a->tok[0];
}

const struct imap_arg *
imap_arg_nth(const struct imap_arg *list, unsigned i)
{
	const struct imap_arg *c = imap_arg_child(list);

	while (c != NULL && i-- > 0)
		c = imap_arg_next(c);
	return c;
}

int
imap_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	bool over = false;

	if (n == 0)
		return -1;
	/* one pass; "not a number" wins over "too big" */
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9)
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			over = true;
		v = v * 10 + d;
	}
	if (over)
		return -2;
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
