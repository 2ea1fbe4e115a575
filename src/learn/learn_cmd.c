/* learn_cmd.c: one client command, classified as the imaptest state that
 * sends its like (the man page's table in `imapstress learn`).  Only the
 * shape is kept: the verb, the mailbox as a number, FETCH items, flags a
 * STORE adds, how many messages; never a quoted string or a literal's
 * text beyond a user or mailbox name, which go to the name tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn/learn_int.h"
#include "util/b64.h"

enum ltok_kind { LT_END, LT_ATOM, LT_QUOTED, LT_LITERAL, LT_LIST };

struct ltok {
	enum ltok_kind kind;
	const char *p;		/* ATOM, LIST: the text; QUOTED: value */
	size_t len;
	char val[LEARN_NAME_MAX];	/* QUOTED, LITERAL: the value */
	bool have_val;
	size_t lit;		/* LITERAL: its index */
};

struct lscan {
	const char *p, *end;
	const struct llit *lits;
	size_t n_lits, next_lit;
};

/* A parenthesised list (with [] inside), quotes respected, as raw text. */
static const char *
skip_group(const char *p, const char *end)
{
	int depth = 0;
	bool q = false;
	for (; p < end; p++) {
		if (q) {
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				q = false;
		} else if (*p == '"') {
			q = true;
		} else if (*p == '(' || *p == '[') {
			depth++;
		} else if (*p == ')' || *p == ']') {
			if (--depth == 0)
				return p + 1;
		}
	}
	return end;
}

static void
tok_next(struct lscan *s, struct ltok *t)
{
	while (s->p < s->end && *s->p == ' ')
		s->p++;
	t->have_val = false;
	t->p = s->p;
	t->len = 0;
	if (s->p >= s->end) {
		t->kind = LT_END;
		return;
	}
	const char *p = s->p;
	if (*p == '"') {
		size_t n = 0;
		for (p++; p < s->end && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < s->end)
				p++;
			if (n + 1 < sizeof(t->val))
				t->val[n++] = *p;
		}
		t->val[n] = '\0';
		t->have_val = true;
		t->kind = LT_QUOTED;
		s->p = p < s->end ? p + 1 : p;
		return;
	}
	if (*p == '(') {
		t->kind = LT_LIST;
		s->p = skip_group(p, s->end);
		t->len = (size_t)(s->p - p);
		return;
	}
	if ((*p == '{' || (*p == '~' && p + 1 < s->end && p[1] == '{'))) {
		const char *c = memchr(p, '}', (size_t)(s->end - p));
		if (c != NULL) {
			t->kind = LT_LITERAL;
			t->lit = s->next_lit++;
			if (t->lit < s->n_lits && s->lits[t->lit].have_text) {
				snprintf(t->val, sizeof(t->val), "%s",
					 s->lits[t->lit].text);
				t->have_val = true;
			}
			s->p = c + 1;
			return;
		}
	}
	/* An atom, with [...] sections (BODY[HEADER.FIELDS (A B)]) whole. */
	while (p < s->end && *p != ' ' && *p != '(' && *p != ')') {
		if (*p == '[')
			p = skip_group(p, s->end);
		else
			p++;
	}
	if (p == s->p)
		p++;		/* a lone ')' */
	t->kind = LT_ATOM;
	t->len = (size_t)(p - s->p);
	s->p = p;
}

/* A mailbox or user name argument, into the table; -1 when none. */
static int
tok_name(struct lnames *t, const struct ltok *k)
{
	if (k->kind == LT_ATOM && k->len > 0 && k->len < LEARN_NAME_MAX) {
		/* INBOX is case-insensitive (RFC 3501 5.1). */
		if (k->len == 5 && strncasecmp(k->p, "INBOX", 5) == 0)
			return lnames_add(t, "INBOX", 5);
		return lnames_add(t, k->p, k->len);
	}
	if (k->have_val) {
		if (strcasecmp(k->val, "INBOX") == 0)
			return lnames_add(t, "INBOX", 5);
		return lnames_add(t, k->val, strlen(k->val));
	}
	return -1;
}

static bool
tok_is(const struct ltok *k, const char *word)
{
	return k->kind == LT_ATOM && strlen(word) == k->len &&
	    strncasecmp(k->p, word, k->len) == 0;
}

/* Messages a sequence set names: ranges counted, "*" as one. */
static unsigned
set_size(const struct ltok *k)
{
	if (k->kind != LT_ATOM)
		return 1;
	unsigned n = 0;
	const char *p = k->p, *end = k->p + k->len;
	while (p < end) {
		char *e;
		unsigned long a = strtoul(p, &e, 10), b = a;
		if (e == p && *p == '*')
			e = (char *)p + 1;
		if (e < end && *e == ':') {
			const char *q = e + 1;
			b = strtoul(q, &e, 10);
			if (e == q && q < end && *q == '*') {
				e = (char *)q + 1;
				b = a;
			}
		}
		n += (unsigned)(b >= a ? (b - a > 10000 ? 10001 : b - a + 1) :
				(a - b > 10000 ? 10001 : a - b + 1));
		p = e;
		if (p < end && *p == ',')
			p++;
		else if (p < end)
			break;
	}
	return n ? n : 1;
}

static bool
set_to_end(const struct ltok *k)
{
	return k->kind == LT_ATOM && k->len >= 2 &&
	    memcmp(k->p + k->len - 2, ":*", 2) == 0;
}

/* FETCH items, normalized: upper case, sorted, one space between, only
 * the characters an item list is made of.  Also: does it fetch a body
 * (a section other than HEADER.FIELDS, RFC822, RFC822.TEXT)? */
static int
item_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
fetch_items(struct learn *l, const struct ltok *k, bool *body)
{
	char buf[1024], *items[64];
	size_t n = 0, len = k->len;
	const char *p = k->p;
	if (k->kind == LT_LIST && len >= 2) {
		p++;
		len -= 2;
	} else if (k->kind != LT_ATOM) {
		return -1;
	}
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)toupper((unsigned char)p[i]);
		buf[i] = isalnum(ch) || (ch != 0 && strchr(".[]()<> -:$", ch)) ? (char)ch : '?';
	}
	buf[len] = '\0';
	/* Split at blanks outside [] and (). */
	char *s = buf;
	while (*s != '\0' && n < 64) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		items[n++] = s;
		int depth = 0;
		while (*s != '\0' && (depth > 0 || *s != ' ')) {
			if (*s == '[' || *s == '(')
				depth++;
			else if ((*s == ']' || *s == ')') && depth > 0)
				depth--;
			s++;
		}
		if (*s != '\0')
			*s++ = '\0';
	}
	*body = false;
	for (size_t i = 0; i < n; i++) {
		const char *it = items[i];
		const char *br = strchr(it, '[');
		if (br != NULL && strstr(br, "HEADER.FIELDS") == NULL &&
		    strncmp(br, "[HEADER]", 8) != 0)
			*body = true;
		if (strcmp(it, "RFC822") == 0 || strcmp(it, "RFC822.TEXT") == 0)
			*body = true;
	}
	qsort(items, n, sizeof(items[0]), item_cmp);
	char out[1024];
	size_t o = 0;
	for (size_t i = 0; i < n && o < sizeof(out) - 1; i++)
		if (i == 0 || strcmp(items[i], items[i - 1]) != 0)	/* UID UID */
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
					      o ? " " : "", items[i]);
	if (o >= sizeof(out))
		o = sizeof(out) - 1;
	return lnames_add(&l->items, out, o);
}

/* The header-only FETCH2 items (RFC822.HEADER, BODY.PEEK[HEADER]) are
 * FETCH2 too: one message, one section. */
static bool
fetch_is_fetch2(const struct ltok *set, const char *items, bool body)
{
	if (set->kind != LT_ATOM || memchr(set->p, ':', set->len) != NULL ||
	    memchr(set->p, ',', set->len) != NULL)
		return false;
	return body || strstr(items, "RFC822.HEADER") != NULL ||
	    strstr(items, "[HEADER]") != NULL;
}

static unsigned
store_flags(const char *p, size_t len)
{
	unsigned f = 0;
	char buf[512];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)toupper((unsigned char)p[i]);
	buf[n] = '\0';
	if (strstr(buf, "\\SEEN"))
		f |= LFL_SEEN;
	if (strstr(buf, "\\ANSWERED"))
		f |= LFL_ANSWERED;
	if (strstr(buf, "\\DELETED"))
		f |= LFL_DELETED;
	return f;
}

/* AUTHENTICATE PLAIN's initial response: the authentication identity
 * only; the password in it is never kept. */
static int
plain_user(struct learn *l, const struct ltok *k)
{
	unsigned char dec[768];
	if (k->kind != LT_ATOM || k->len >= 1024)
		return -1;
	int n = b64_decode(k->p, k->len, dec, sizeof(dec));
	if (n <= 0)
		return -1;
	unsigned char *z = memchr(dec, '\0', (size_t)n);
	if (z == NULL)
		return -1;
	unsigned char *a = z + 1, *z2 = memchr(a, '\0', (size_t)(dec + n - a));
	int r = z2 != NULL && z2 > a ? lnames_add(&l->users, (char *)a,
						 (size_t)(z2 - a)) : -1;
	memset(dec, 0, sizeof(dec));
	return r;
}

/* Commands imapstress sends on its own in every session: not states. */
static const char *const own_verbs[] = {
	"CAPABILITY", "ID", "ENABLE", "NAMESPACE", "STARTTLS"
};

static void
classify(struct learn *l, struct lsession *s, struct lcmd *c,
	 struct lscan *sc)
{
	const char *v = c->verb;
	struct ltok a, b, k;
	tok_next(sc, &a);
	c->op = LOP_UNMAPPED;
	if (strcmp(v, "LOGIN") == 0) {
		c->op = OP_LOGIN;
		int u = tok_name(&l->users, &a);
		if (u >= 0 && s->user < 0)
			s->user = u;
		s->pending_auth = false;
	} else if (strcmp(v, "AUTHENTICATE") == 0) {
		c->op = OP_AUTHENTICATE;
		s->login_auth = true;
		tok_next(sc, &b);
		int u = tok_is(&a, "PLAIN") ? plain_user(l, &b) : -1;
		if (u >= 0 && s->user < 0)
			s->user = u;
		s->pending_auth = true;
	} else if (strcmp(v, "COMPRESS") == 0) {
		c->op = OP_COMPRESS;
	} else if (strcmp(v, "LIST") == 0 || strcmp(v, "LSUB") == 0) {
		c->op = OP_LIST;
		for (k = a; k.kind != LT_END; tok_next(sc, &k))
			if ((k.kind == LT_ATOM && k.len == 1 && *k.p == '%') ||
			    (k.kind == LT_QUOTED && strcmp(k.val, "%") == 0))
				c->op = OP_LISTROOT;
	} else if (strcmp(v, "CREATE") == 0) {
		c->op = OP_MCREATE;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "DELETE") == 0) {
		c->op = OP_MDELETE;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "RENAME") == 0) {
		c->op = OP_MRENAME;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "SUBSCRIBE") == 0 || strcmp(v, "UNSUBSCRIBE") == 0) {
		c->op = OP_MSUBS;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "STATUS") == 0) {
		c->op = OP_STATUS;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "SELECT") == 0 || strcmp(v, "EXAMINE") == 0) {
		c->op = OP_SELECT;
		c->box = tok_name(&l->boxes, &a);
	} else if (strcmp(v, "FETCH") == 0 || strcmp(v, "UID FETCH") == 0) {
		bool uid = v[0] == 'U';
		tok_next(sc, &b);
		c->items = fetch_items(l, &b, &c->body);
		c->n_msgs = set_size(&a);
		c->range_to_end = set_to_end(&a);
		const char *it = c->items >= 0 ? l->items.v[c->items] : "";
		if (uid && !c->body && !strstr(it, "[") &&
		    (strcmp(it, "FLAGS") == 0 || strcmp(it, "FLAGS UID") == 0))
			c->op = OP_UIDFETCH;
		else if (fetch_is_fetch2(&a, it, c->body))
			c->op = OP_FETCH2;
		else
			c->op = OP_FETCH;
	} else if (strcmp(v, "SEARCH") == 0 || strcmp(v, "UID SEARCH") == 0) {
		c->op = OP_SEARCH;
	} else if (strcmp(v, "SORT") == 0 || strcmp(v, "UID SORT") == 0) {
		c->op = OP_SORT;
	} else if (strcmp(v, "THREAD") == 0 || strcmp(v, "UID THREAD") == 0) {
		c->op = OP_THREAD;
	} else if (strcmp(v, "COPY") == 0 || strcmp(v, "UID COPY") == 0 ||
		   strcmp(v, "MOVE") == 0 || strcmp(v, "UID MOVE") == 0) {
		c->op = strstr(v, "MOVE") ? OP_MOVE : OP_COPY;
		c->n_msgs = set_size(&a);
		tok_next(sc, &b);
		c->box = tok_name(&l->boxes, &b);
	} else if (strcmp(v, "STORE") == 0 || strcmp(v, "UID STORE") == 0) {
		tok_next(sc, &b);
		c->n_msgs = set_size(&a);
		bool adds = b.kind == LT_ATOM && b.len > 0 && *b.p != '-';
		c->flags_add = adds ? store_flags(sc->p, (size_t)(sc->end - sc->p)) : 0;
		c->op = c->flags_add & LFL_DELETED ? OP_DELETE : OP_STORE;
	} else if (strcmp(v, "EXPUNGE") == 0 || strcmp(v, "UID EXPUNGE") == 0) {
		c->op = OP_EXPUNGE;
	} else if (strcmp(v, "APPEND") == 0) {
		c->op = OP_APPEND;
		c->box = tok_name(&l->boxes, &a);
		c->n_msgs = 0;
		for (tok_next(sc, &k); k.kind != LT_END; tok_next(sc, &k))
			if (k.kind == LT_LITERAL) {
				c->n_msgs++;
				if (k.lit < sc->n_lits)
					learn_size_add(&l->append_sizes,
						       &l->append_sz,
						       sc->lits[k.lit].size);
			}
	} else if (strcmp(v, "NOOP") == 0) {
		c->op = OP_NOOP;
	} else if (strcmp(v, "IDLE") == 0) {
		c->op = OP_IDLE;
		s->idle = true;
		s->pending_idle = true;
	} else if (strcmp(v, "CHECK") == 0) {
		c->op = OP_CHECK;
	} else if (strcmp(v, "LOGOUT") == 0) {
		c->op = OP_LOGOUT;
	} else if (strcmp(v, "CLOSE") == 0 || strcmp(v, "UNSELECT") == 0) {
		c->unselect = true;
	} else {
		for (size_t i = 0; i < sizeof(own_verbs) / sizeof(own_verbs[0]); i++)
			if (strcmp(v, own_verbs[i]) == 0)
				c->op = LOP_IGNORED;
	}
}

/* The verb: an atom of letters, digits and a few marks, upper case. */
static void
take_verb(struct lscan *sc, char *out, size_t len)
{
	struct ltok k;
	tok_next(sc, &k);
	size_t n = 0;
	for (size_t i = 0; k.kind == LT_ATOM && i < k.len && n + 1 < len; i++) {
		unsigned char ch = (unsigned char)k.p[i];
		if (!isalnum(ch) && ch != '-' && ch != '_' && ch != '.') {
			n = 0;
			break;
		}
		out[n++] = (char)toupper(ch);
	}
	if (n == 0 || (k.kind == LT_ATOM && k.len >= len))
		snprintf(out, len, "%s", "(not an atom)");
	else
		out[n] = '\0';
}

void
learn_cmd_classify(struct learn *l, struct lsession *s, struct lcmd *c,
		   const char *text, size_t len, const struct llit *lits,
		   size_t n_lits)
{
	struct lscan sc = { text, text + len, lits, n_lits, 0 };
	struct ltok t;
	tok_next(&sc, &t);
	size_t tl = t.kind == LT_ATOM ? t.len : 0;
	if (tl >= sizeof(c->tag))
		tl = sizeof(c->tag) - 1;
	memcpy(c->tag, t.p, tl);
	c->tag[tl] = '\0';
	take_verb(&sc, c->verb, sizeof(c->verb));
	if (strcmp(c->verb, "UID") == 0) {
		char sub[LEARN_VERB_MAX];
		take_verb(&sc, sub, sizeof(sub));
		snprintf(c->verb, sizeof(c->verb), "UID %.19s", sub);
	}
	c->box = c->items = -1;
	c->n_msgs = 1;
	classify(l, s, c, &sc);
}
