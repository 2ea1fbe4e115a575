/* script_pat.c: expected replies into pattern trees (script_pat.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_buf.h"
#include "script/script_pat.h"
#include "util/xmalloc.h"

#define PAT_MAX_DEPTH 64
#define PAT_MAX_CHAIN 64

struct pctx {
	const char *t;
	size_t n, p;
	char *err;
	size_t errlen;
	unsigned depth;
};

static int
pat_fail(struct pctx *c, const char *why)
{
	snprintf(c->err, c->errlen, "%s (at column %zu of the reply)", why,
		 c->p + 1);
	return -1;
}

/* --- parts: text, $var, ${var}, ${case:text}, $N ---------------------- */

static void
part_add(struct spat_part **v, unsigned *n, enum spat_part_kind k,
	 const char *s, size_t len, unsigned seq)
{
	/* Adjacent text merges, so "a$" + "b" compares as one run. */
	if (k == SPART_TEXT && *n > 0 && (*v)[*n - 1].kind == SPART_TEXT) {
		struct spat_part *l = &(*v)[*n - 1];
		l->s = xrealloc(l->s, l->n + len + 1);
		memcpy(l->s + l->n, s, len);
		l->n += len;
		l->s[l->n] = '\0';
		return;
	}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].kind = k;
	(*v)[*n].s = xstrndup(s, len);
	(*v)[*n].n = len;
	(*v)[*n].seq = seq;
	(*n)++;
}

void
spat_parts_free(struct spat_part *parts, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(parts[i].s);
	free(parts);
}

static bool
name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' ||
	       (!first && isdigit((unsigned char)c));
}

int
spat_parts(const char *t, size_t n, struct spat_part **out, bool *cs,
	   char *err, size_t errlen)
{
	struct spat_part *v = NULL;
	unsigned k = 0;
	size_t i = 0;

	*cs = false;
	while (i < n) {
		if (t[i] != '$' || i + 1 >= n) {
			part_add(&v, &k, SPART_TEXT, t + i, 1, 0);
			i++;
			continue;
		}
		char c = t[i + 1];
		if (c == '$') {		/* "$$": a '$' (imaptest's escape) */
			part_add(&v, &k, SPART_TEXT, t + i, 1, 0);
			i += 2;
		} else if (c == '{') {
			const char *close = memchr(t + i + 2, '}', n - i - 2);
			if (close == NULL) {
				snprintf(err, errlen, "'${' without its '}'");
				spat_parts_free(v, k);
				return -1;
			}
			const char *in = t + i + 2;
			size_t len = (size_t)(close - in);
			if (len >= 5 && strncmp(in, "case:", 5) == 0) {
				part_add(&v, &k, SPART_TEXT, in + 5, len - 5, 0);
				*cs = true;
			} else if (len == 0) {
				snprintf(err, errlen, "'${}' names no variable");
				spat_parts_free(v, k);
				return -1;
			} else {
				part_add(&v, &k, SPART_VAR, in, len, 0);
			}
			i = (size_t)(close - t) + 1;
		} else if (isdigit((unsigned char)c)) {
			size_t j = i + 1;
			unsigned long seq = 0;
			while (j < n && isdigit((unsigned char)t[j]) && seq < 1000000000)
				seq = seq * 10 + (unsigned)(t[j++] - '0');
			if (seq == 0 || seq >= 1000000000) {
				snprintf(err, errlen, "'$N' needs N in 1..999999999");
				spat_parts_free(v, k);
				return -1;
			}
			part_add(&v, &k, SPART_SEQ, t + i, j - i, (unsigned)seq);
			i = j;
		} else if (name_char(c, true)) {
			size_t j = i + 1;
			while (j < n && name_char(t[j], false))
				j++;
			part_add(&v, &k, SPART_VAR, t + i + 1, j - i - 1, 0);
			i = j;
		} else {
			part_add(&v, &k, SPART_TEXT, t + i, 1, 0);
			i++;
		}
	}
	*out = v;
	return (int)k;
}

bool
spat_literal_marker(const char *start, const char *q, size_t *size)
{
	const char *o = q;

	if (o > start && o[-1] == '+')
		o--;
	const char *end = o;
	while (o > start && isdigit((unsigned char)o[-1]))
		o--;
	if (o == end || o == start || o[-1] != '{' || end - o > 9)
		return false;
	*size = (size_t)strtoul(o, NULL, 10);
	return true;
}

/* --- tokens -------------------------------------------------------------- */

static struct spat *
pat_new(enum spat_type type)
{
	struct spat *p = xcalloc(1, sizeof(*p));

	p->type = type;
	p->dirs.chain = 1;
	return p;
}

void
spat_free(struct spat *p)
{
	if (p == NULL)
		return;
	spat_parts_free(p->parts, p->n_parts);
	for (unsigned i = 0; i < p->n_kids; i++)
		spat_free(p->kids[i]);
	free(p->kids);
	for (unsigned i = 0; i < p->dirs.n_ignore; i++)
		free(p->dirs.ignore[i]);
	for (unsigned i = 0; i < p->dirs.n_ban; i++)
		free(p->dirs.ban[i]);
	free(p->dirs.ignore);
	free(p->dirs.ban);
	free(p);
}

static void
kid_add(struct spat *l, struct spat *k)
{
	l->kids = xrealloc(l->kids, (l->n_kids + 1) * sizeof(*l->kids));
	l->kids[l->n_kids++] = k;
}

static void
str_add(char ***v, unsigned *n, const char *s, size_t len)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrndup(s, len);
}

/* One "$!..." word at the start of a list. */
static int
directive(struct pctx *c, struct spat *l, const char *w, size_t n,
	  bool *noextra_set)
{
	if (n == 7 && strncmp(w, "ordered", 7) == 0) {
		l->dirs.unordered = false;
	} else if (n >= 9 && strncmp(w, "unordered", 9) == 0) {
		l->dirs.unordered = true;
		l->dirs.chain = 1;
		if (n > 9) {
			char num[8];
			if (w[9] != '=' || n - 10 == 0 || n - 10 > 2)
				return pat_fail(c, "$!unordered takes '=N' with N in 1..64");
			memcpy(num, w + 10, n - 10);
			num[n - 10] = '\0';
			char *end;
			long v = strtol(num, &end, 10);
			if (*end != '\0' || v < 1 || v > PAT_MAX_CHAIN)
				return pat_fail(c, "$!unordered takes '=N' with N in 1..64");
			l->dirs.chain = (unsigned)v;
		}
		if (!*noextra_set)
			l->dirs.extra = true;
	} else if (n == 7 && strncmp(w, "noextra", 7) == 0) {
		l->dirs.extra = false;
		*noextra_set = true;
	} else if (n == 5 && strncmp(w, "extra", 5) == 0) {
		l->dirs.extra = true;
	} else if (n > 7 && strncmp(w, "ignore=", 7) == 0) {
		str_add(&l->dirs.ignore, &l->dirs.n_ignore, w + 7, n - 7);
	} else if (n > 4 && strncmp(w, "ban=", 4) == 0) {
		str_add(&l->dirs.ban, &l->dirs.n_ban, w + 4, n - 4);
	} else if (n == 3 && strncmp(w, "nil", 3) == 0) {
		l->dirs.nil = true;
	} else if (n >= 4 && strncmp(w, "min=", 4) == 0) {
		char num[8];
		char *end;
		if (n - 4 == 0 || n - 4 > 3)
			return pat_fail(c, "$!min takes '=N' with N in 0..999");
		memcpy(num, w + 4, n - 4);
		num[n - 4] = '\0';
		long v = strtol(num, &end, 10);
		if (*end != '\0' || v < 0)
			return pat_fail(c, "$!min takes '=N' with N in 0..999");
		l->dirs.has_min = true;
		l->dirs.min = (unsigned)v;
	} else {
		return pat_fail(c, "unknown list directive (known: $!ordered, "
				"$!unordered[=N], $!noextra, $!extra, $!ignore=E, "
				"$!ban=E, $!nil, $!min=N)");
	}
	return 0;
}

/* The end of an atom from c->p: up to a space or parenthesis, a "[...]"
 * section and a "${...}" variable taken whole. */
static size_t
atom_end(struct pctx *c)
{
	size_t i = c->p;
	unsigned br = 0;

	while (i < c->n) {
		char ch = c->t[i];
		if (ch == '$' && i + 1 < c->n && c->t[i + 1] == '{') {
			const char *close = memchr(c->t + i, '}', c->n - i);
			if (close == NULL)
				return c->n;
			i = (size_t)(close - c->t) + 1;
			continue;
		}
		if (ch == '[')
			br++;
		else if (ch == ']' && br > 0)
			br--;
		else if (br == 0 && (ch == ' ' || ch == '(' || ch == ')'))
			break;
		i++;
	}
	return i;
}

bool
spat_section_canon(const char *s, size_t n, struct sbuf *out)
{
	unsigned br = 0;
	bool changed = false;

	if (memchr(s, '[', n) == NULL || memchr(s, '"', n) == NULL)
		return false;
	sbuf_add(out, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '[')
			br++;
		else if (s[i] == ']' && br > 0)
			br--;
		if (s[i] != '"' || br == 0) {
			sbuf_add(out, s + i, 1);
			continue;
		}
		/* a quoted string inside brackets: its content */
		changed = true;
		for (i++; i < n && s[i] != '"'; i++) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			sbuf_add(out, s + i, 1);
		}
	}
	return changed;
}

static struct spat *
text_pat(struct pctx *c, const char *s, size_t n, bool quoted)
{
	struct spat *p = pat_new(SPAT_TEXT);
	struct sbuf canon = { 0 };

	/* body[header.fields ("subject")] compares as the server may
	 * write it, quoted or not (the match does the same to the reply) */
	if (!quoted && spat_section_canon(s, n, &canon)) {
		s = canon.s;
		n = canon.len;
	}
	int k = spat_parts(s, n, &p->parts, &p->case_sensitive, c->err,
			   c->errlen);

	sbuf_reset(&canon);
	p->quoted = quoted;
	if (k < 0) {
		spat_free(p);
		return NULL;
	}
	p->n_parts = (unsigned)k;
	return p;
}

static int parse_list(struct pctx *c, struct spat *l, bool top);

static struct spat *
parse_quoted(struct pctx *c)
{
	struct sbuf b = { 0 };
	size_t i = c->p + 1;

	for (; i < c->n && c->t[i] != '"'; i++) {
		if (c->t[i] == '\\' && i + 1 < c->n)
			i++;
		sbuf_add(&b, c->t + i, 1);
	}
	if (i >= c->n) {
		sbuf_reset(&b);
		pat_fail(c, "a quoted string without its closing '\"'");
		return NULL;
	}
	c->p = i + 1;
	struct spat *p = text_pat(c, b.s ? b.s : "", b.len, true);
	sbuf_reset(&b);
	return p;
}

static struct spat *
parse_literal(struct pctx *c)
{
	size_t i = c->p + 1, size = 0;

	while (i < c->n && isdigit((unsigned char)c->t[i]) && size < (1u << 24))
		size = size * 10 + (size_t)(c->t[i++] - '0');
	if (i < c->n && c->t[i] == '+')
		i++;
	if (i + 3 > c->n || c->t[i] != '}' || c->t[i + 1] != '\r' ||
	    c->t[i + 2] != '\n' || i == c->p + 1 || c->n - (i + 3) < size) {
		pat_fail(c, "a malformed literal");
		return NULL;
	}
	struct spat *p = pat_new(SPAT_TEXT);
	/* Literal content is compared as written: no variables in it. */
	p->parts = xcalloc(1, sizeof(*p->parts));
	p->parts[0].kind = SPART_TEXT;
	p->parts[0].s = xstrndup(c->t + i + 3, size);
	p->parts[0].n = size;
	p->n_parts = 1;
	p->quoted = true;
	c->p = i + 3 + size;
	return p;
}

/* Arguments up to ')' (or the end when top), into l. */
static int
parse_list(struct pctx *c, struct spat *l, bool top)
{
	bool dirs_allowed = true, noextra_set = false;

	for (;;) {
		while (c->p < c->n && c->t[c->p] == ' ')
			c->p++;
		if (c->p >= c->n) {
			if (!top)
				return pat_fail(c, "a list without its closing ')'");
			return 0;
		}
		char ch = c->t[c->p];
		struct spat *k = NULL;
		if (ch == ')') {
			if (top)
				return pat_fail(c, "a ')' with no '(' before it");
			c->p++;
			return 0;
		}
		if (ch == '$' && c->p + 1 < c->n && c->t[c->p + 1] == '!') {
			size_t e = atom_end(c);
			if (!dirs_allowed || top)
				return pat_fail(c, "a $! directive must come first in a list");
			if (directive(c, l, c->t + c->p + 2, e - c->p - 2,
				      &noextra_set) < 0)
				return -1;
			/* The defaults are not used for this list. */
			l->dirs.explicit = true;
			c->p = e;
			continue;
		}
		dirs_allowed = false;
		if (ch == '(') {
			if (++c->depth > PAT_MAX_DEPTH)
				return pat_fail(c, "lists nested too deep");
			c->p++;
			k = pat_new(SPAT_LIST);
			kid_add(l, k);
			if (parse_list(c, k, false) < 0)
				return -1;
			if (k->dirs.has_min && (k->dirs.unordered ||
						k->dirs.min > k->n_kids))
				return pat_fail(c, "$!min=N needs an ordered list of "
						"at least N elements");
			c->depth--;
			continue;
		}
		if (ch == '"')
			k = parse_quoted(c);
		else if (ch == '{')
			k = parse_literal(c);
		else if (ch == '~' && c->p + 1 < c->n && c->t[c->p + 1] == '{') {
			c->p++;		/* a literal8 (RFC 3516) */
			k = parse_literal(c);
		}
		else {
			size_t e = atom_end(c);
			if (e - c->p == 1 && ch == '$')
				k = pat_new(SPAT_ANY);
			else
				k = text_pat(c, c->t + c->p, e - c->p, false);
			c->p = e;
		}
		if (k == NULL)
			return -1;
		kid_add(l, k);
		if (c->p < c->n && c->t[c->p] != ' ' && c->t[c->p] != ')')
			return pat_fail(c, "no space between two arguments");
	}
}

/* --- imaptest's per-list defaults ---------------------------------------- */

static bool
is_word(const struct spat *p, const char *w)
{
	return p->type == SPAT_TEXT && p->n_parts == 1 &&
	       p->parts[0].kind == SPART_TEXT && p->parts[0].n == strlen(w) &&
	       strncasecmp(p->parts[0].s, w, p->parts[0].n) == 0;
}

/* A list with no directive of its own. */
static bool
plain_list(const struct spat *p)
{
	return p->type == SPAT_LIST && !p->dirs.explicit;
}

static void
set_unordered(struct spat *l, unsigned chain, bool extra)
{
	l->dirs.unordered = true;
	l->dirs.chain = chain;
	l->dirs.extra = extra;
}

static void
apply_defaults(struct spat *root)
{
	struct spat **k = root->kids;
	unsigned n = root->n_kids;

	if (n >= 3 && is_word(k[1], "FETCH") && k[2]->type == SPAT_LIST) {
		struct spat *f = k[2];
		if (plain_list(f))
			set_unordered(f, 2, true);
		for (unsigned i = 0; i + 1 < f->n_kids; i += 2) {
			struct spat *v = f->kids[i + 1];
			if (is_word(f->kids[i], "FLAGS") && plain_list(v)) {
				set_unordered(v, 1, false);
				str_add(&v->dirs.ignore, &v->dirs.n_ignore,
					"\\recent", 7);
			}
		}
	}
	if (n >= 2 && (is_word(k[0], "LIST") || is_word(k[0], "LSUB")) &&
	    plain_list(k[1]))
		set_unordered(k[1], 1, true);
	if (n >= 3 && is_word(k[0], "STATUS") && plain_list(k[2]))
		set_unordered(k[2], 2, true);
	/* Ours, not imaptest's: RFC 3501 and 9051 put the numbers of a
	 * SEARCH reply in no order.  "SEARCH" matches only itself. */
	if (n >= 1 && is_word(k[0], "SEARCH"))
		set_unordered(root, 1, false);
}

bool
spat_names(const struct spat *p, const char *kw, size_t n)
{
	for (unsigned i = 0; i < p->n_kids && i < 2; i++) {
		const struct spat *k = p->kids[i];
		if (k->type == SPAT_TEXT && k->n_parts == 1 &&
		    k->parts[0].kind == SPART_TEXT && k->parts[0].n == n &&
		    strncasecmp(k->parts[0].s, kw, n) == 0)
			return true;
	}
	return false;
}

static bool
chains_fit(const struct spat *p)
{
	if (p->type != SPAT_LIST)
		return true;
	if (p->dirs.unordered && p->n_kids % p->dirs.chain != 0)
		return false;
	for (unsigned i = 0; i < p->n_kids; i++)
		if (!chains_fit(p->kids[i]))
			return false;
	return true;
}

struct spat *
spat_compile(const char *text, size_t n, char *err, size_t errlen)
{
	struct pctx c = { .t = text, .n = n, .err = err, .errlen = errlen };
	struct spat *root = pat_new(SPAT_LIST);

	if (parse_list(&c, root, true) < 0) {
		spat_free(root);
		return NULL;
	}
	if (root->n_kids == 0) {
		snprintf(err, errlen, "an empty reply");
		spat_free(root);
		return NULL;
	}
	apply_defaults(root);
	if (!chains_fit(root)) {
		snprintf(err, errlen, "a list with $!unordered=N holds a number of "
			 "elements that is not a multiple of N");
		spat_free(root);
		return NULL;
	}
	return root;
}
