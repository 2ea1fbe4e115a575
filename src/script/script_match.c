/* script_match.c: see script_match.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_match.h"
#include "util/xmalloc.h"

/* --- variables --------------------------------------------------------- */

struct svar {
	char *name;
	char *val;
};

struct svars {
	struct svar *v;
	unsigned n, cap;
};

struct svars *
svars_new(void)
{
	return xcalloc(1, sizeof(struct svars));
}

static void
svars_undo(struct svars *v, unsigned mark)
{
	while (v->n > mark) {
		v->n--;
		free(v->v[v->n].name);
		free(v->v[v->n].val);
	}
}

void
svars_free(struct svars *v)
{
	if (v == NULL)
		return;
	svars_undo(v, 0);
	free(v->v);
	free(v);
}

static struct svar *
svars_find(const struct svars *v, const char *name, size_t n)
{
	for (unsigned i = 0; i < v->n; i++)
		if (strlen(v->v[i].name) == n && memcmp(v->v[i].name, name, n) == 0)
			return &v->v[i];
	return NULL;
}

static void
svars_put(struct svars *v, const char *name, size_t n, const char *val,
	  size_t vlen)
{
	struct svar *o = svars_find(v, name, n);

	if (o != NULL) {
		free(o->val);
		o->val = xstrndup(val, vlen);
		return;
	}
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->v = xrealloc(v->v, v->cap * sizeof(*v->v));
	}
	v->v[v->n].name = xstrndup(name, n);
	v->v[v->n].val = xstrndup(val, vlen);
	v->n++;
}

void
svars_set(struct svars *v, const char *name, const char *val)
{
	svars_put(v, name, strlen(name), val, strlen(val));
}

const char *
svars_get(const struct svars *v, const char *name, size_t n)
{
	const struct svar *o = svars_find(v, name, n);
	return o ? o->val : NULL;
}

/* --- $N and EXPUNGE ------------------------------------------------------ */

void
smatch_init(struct smatch *m)
{
	memset(m, 0, sizeof(*m));
	m->vars = svars_new();
	m->args = imap_args_new(0);
}

void
smatch_free(struct smatch *m)
{
	svars_free(m->vars);
	imap_args_free(m->args);
	free(m->expunged);
	memset(m, 0, sizeof(*m));
}

void
smatch_step_begin(struct smatch *m)
{
	m->n_expunged = 0;
}

void
smatch_note_expunge(struct smatch *m, unsigned seq)
{
	if (m->n_expunged == m->cap_expunged) {
		m->cap_expunged = m->cap_expunged ? m->cap_expunged * 2 : 16;
		m->expunged = xrealloc(m->expunged,
				       m->cap_expunged * sizeof(unsigned));
	}
	m->expunged[m->n_expunged++] = seq;
}

unsigned
smatch_seq(const struct smatch *m, unsigned n)
{
	for (unsigned i = 0; i < m->n_expunged && n > 0; i++) {
		if (m->expunged[i] < n)
			n--;
		else if (m->expunged[i] == n)
			n = 0;
	}
	return n;
}

/* --- text ---------------------------------------------------------------- */

static void
why_got(struct sbuf *why, const char *what, const char *s, size_t n)
{
	sbuf_adds(why, what);
	sbuf_adds(why, ", the server sent '");
	sbuf_add_escaped(why, s, n > 200 ? 200 : n);
	sbuf_adds(why, n > 200 ? "...'" : "'");
}

/* Append the value of part k to out; false when it has none. */
static bool
part_value(const struct smatch *m, const struct spat_part *pt, struct sbuf *out)
{
	if (pt->kind == SPART_TEXT) {
		sbuf_add(out, pt->s, pt->n);
		return true;
	}
	if (pt->kind == SPART_SEQ) {
		unsigned v = smatch_seq(m, pt->seq);
		if (v == 0)
			return false;
		sbuf_addf(out, "%u", v);
		return true;
	}
	const char *val = svars_get(m->vars, pt->s, pt->n);
	if (val == NULL)
		return false;
	sbuf_adds(out, val);
	return true;
}

static bool
text_eq(const char *a, const char *b, size_t n, bool cs)
{
	return cs ? memcmp(a, b, n) == 0 : strncasecmp(a, b, n) == 0;
}

/* $modseqN: a captured value must be a number of at least N. */
static bool
modseq_ok(const char *name, size_t n,
	  const char *val, size_t vlen, struct sbuf *why)
{
	uint64_t v;
	unsigned long idx;

	if (n <= 6 || strncmp(name, "modseq", 6) != 0)
		return true;
	for (size_t i = 6; i < n; i++)
		if (!isdigit((unsigned char)name[i]))
			return true;
	idx = strtoul(name + 6, NULL, 10);
	if (imap_parse_u64(val, vlen, &v) < 0 || v < idx) {
		sbuf_addf(why, "$%.*s must be a number of at least %lu", (int)n,
			  name, idx);
		return false;
	}
	/* No order between the $modseqN: imaptest's suite (924f619)
	 * captures $modseq3 before $modseq2 (esearch-condstore), and the
	 * gap rule of later imaptest versions refuses it. */
	return true;
}

/* Why the text did not match: the pattern with its values, "<$name>"
 * for a variable without one. */
static void
text_mismatch(const struct smatch *m, const struct spat *p, const char *a,
	      size_t an, struct sbuf *why)
{
	struct sbuf e = { 0 }, v = { 0 };

	sbuf_adds(&e, "expected '");
	for (unsigned i = 0; i < p->n_parts; i++) {
		if (part_value(m, &p->parts[i], &v)) {
			sbuf_add_escaped(&e, v.s, v.len);
		} else {
			sbuf_adds(&e, "<$");
			sbuf_add(&e, p->parts[i].s, p->parts[i].n);
			sbuf_adds(&e, ">");
		}
		sbuf_reset(&v);
	}
	sbuf_adds(&e, "'");
	why_got(why, e.s, a, an);
	sbuf_reset(&e);
}

/* Parts from i on that have a value, as one run of text in k; returns
 * the index of the first that has none (n_parts at the end). */
static unsigned
known_run(const struct smatch *m, const struct spat *p, unsigned i,
	  struct sbuf *k)
{
	sbuf_reset(k);
	sbuf_add(k, "", 0);
	while (i < p->n_parts && part_value(m, &p->parts[i], k))
		i++;
	return i;
}

static const char *
find_text(const char *a, size_t an, const char *k, size_t kn, bool cs)
{
	for (size_t i = 0; kn <= an && i <= an - kn; i++)
		if (text_eq(k, a + i, kn, cs))
			return a + i;
	return NULL;
}

/* Text parts against one argument, left to right.  A variable without a
 * value takes what comes before the text that follows it: up to the end
 * when that text ends the pattern ("[uidvalidity $v]"), else up to its
 * first occurrence ("[copyuid $v $src $dst]", as imaptest does). */
static bool
match_text(struct smatch *m, const struct spat *p, const char *a, size_t an,
	   struct sbuf *why)
{
	struct sbuf k = { 0 };
	unsigned mark = m->vars->n;
	bool cs = p->case_sensitive, ok = false;
	size_t pos = 0;

	for (unsigned i = 0, j; i < p->n_parts; i = j) {
		j = known_run(m, p, i, &k);
		if (j < p->n_parts && p->parts[j].kind == SPART_SEQ) {
			sbuf_addf(why, "$%u: that message was expunged during the "
				  "command", p->parts[j].seq);
			goto out;
		}
		if (j > i) {
			if (an - pos < k.len || !text_eq(k.s, a + pos, k.len, cs))
				goto mismatch;
			pos += k.len;
			continue;
		}
		const struct spat_part *v = &p->parts[i];
		j = known_run(m, p, i + 1, &k);
		const char *end;
		if (j == p->n_parts) {
			if (an - pos < k.len)
				goto mismatch;
			end = a + an - k.len;
		} else if (k.len == 0) {
			sbuf_adds(why, "two variables without a value next to each "
				  "other in one argument");
			goto out;
		} else if ((end = find_text(a + pos, an - pos, k.s, k.len, cs)) == NULL) {
			goto mismatch;
		}
		size_t vlen = (size_t)(end - (a + pos));
		if (!modseq_ok(v->s, v->n, a + pos, vlen, why))
			goto out;
		svars_put(m->vars, v->s, v->n, a + pos, vlen);
		pos += vlen;
		j = i + 1;
	}
	if (pos == an) {
		ok = true;
		goto out;
	}
mismatch:
	svars_undo(m->vars, mark);
	text_mismatch(m, p, a, an, why);
out:
	if (!ok)
		svars_undo(m->vars, mark);
	sbuf_reset(&k);
	return ok;
}

/* --- trees -------------------------------------------------------------- */

static bool match_list(struct smatch *m, const struct spat *p,
		       const struct imap_arg *a, bool top_extra, struct sbuf *why);

static bool
match_node(struct smatch *m, const struct spat *p, const struct imap_arg *a,
	   struct sbuf *why)
{
	if (p->type == SPAT_ANY)
		return true;
	if (p->type == SPAT_LIST) {
		if (p->dirs.nil && a->type == IMAP_ARG_ATOM && a->len == 3 &&
		    strncasecmp(a->str, "NIL", 3) == 0)
			return true;
		if (a->type != IMAP_ARG_LIST) {
			why_got(why, "expected a list", a->str, a->len);
			return false;
		}
		return match_list(m, p, a, false, why);
	}
	if (a->type == IMAP_ARG_LIST) {
		why_got(why, p->n_parts == 1 && p->parts[0].kind == SPART_VAR
			? "expected a value (a named variable never matches a list; "
			  "use $)" : "expected a value", a->str, a->len);
		return false;
	}
	if (a->type == IMAP_ARG_LITERAL_SKIPPED) {
		sbuf_addf(why, "the server's literal of %llu octets is too large "
			  "to compare", (unsigned long long)a->size);
		return false;
	}
	struct sbuf canon = { 0 };
	if (a->type == IMAP_ARG_ATOM && spat_section_canon(a->str, a->len, &canon)) {
		bool ok = match_text(m, p, canon.s, canon.len, why);
		sbuf_reset(&canon);
		return ok;
	}
	return match_text(m, p, a->str, a->len, why);
}

/* May the actual element a be left over in list p? */
static bool
extra_ok(const struct spat *p, const struct imap_arg *a, struct sbuf *why)
{
	char *const *v = p->dirs.extra ? p->dirs.ban : p->dirs.ignore;
	unsigned n = p->dirs.extra ? p->dirs.n_ban : p->dirs.n_ignore;
	bool listed = false;

	for (unsigned i = 0; i < n; i++)
		if (a->type != IMAP_ARG_LIST && strlen(v[i]) == a->len &&
		    strncasecmp(v[i], a->str, a->len) == 0)
			listed = true;
	if (listed != p->dirs.extra)
		return true;
	why_got(why, p->dirs.extra ? "a banned element ($!ban)"
				   : "an element the pattern does not list ($!noextra)",
		a->str, a->len);
	return false;
}

static bool
match_list(struct smatch *m, const struct spat *p, const struct imap_arg *a,
	   bool top_extra, struct sbuf *why)
{
	unsigned n = a->count, c = p->dirs.unordered ? p->dirs.chain : 1;
	const struct imap_arg **act = xcalloc(n + 1, sizeof(*act));
	bool *used = xcalloc(n + 1, sizeof(*used));
	bool ok = false;
	unsigned i = 0;

	for (const struct imap_arg *x = imap_arg_child(a); x; x = imap_arg_next(x))
		act[i++] = x;
	if (!p->dirs.unordered) {
		for (i = 0; i < p->n_kids; i++) {
			if (i >= n && p->dirs.has_min && i >= p->dirs.min)
				break;	/* $!min: the rest is optional */
			if (i >= n) {
				sbuf_addf(why, "expected %s%u elements, the server's "
					  "list has %u: ", p->dirs.has_min ? "at least "
					  : "", p->dirs.has_min ? p->dirs.min
					  : p->n_kids, n);
				why_got(why, "", a->str, a->len);
				goto out;
			}
			if (!match_node(m, p->kids[i], act[i], why))
				goto out;
			used[i] = true;
		}
	} else if (n % c != 0) {
		sbuf_addf(why, "the server's list does not come in chains of %u: ", c);
		why_got(why, "", a->str, a->len);
		goto out;
	} else {
		for (i = 0; i < p->n_kids; i += c) {
			bool found = false;
			/* Why the chain that came closest failed: a FETCH
			 * item whose name matched but not its value. */
			struct sbuf best = { 0 };
			unsigned best_got = 0;
			for (unsigned j = 0; j < n && !found; j += c) {
				if (used[j])
					continue;
				unsigned mark = m->vars->n, got = 0;
				struct sbuf tmp = { 0 };
				while (got < c && match_node(m, p->kids[i + got],
							     act[j + got], &tmp))
					got++;
				found = got == c;
				if (found) {
					used[j] = true;
				} else {
					svars_undo(m->vars, mark);
					if (got > best_got || best.s == NULL) {
						sbuf_reset(&best);
						best = tmp;
						tmp = (struct sbuf){ 0 };
						best_got = got;
					}
				}
				sbuf_reset(&tmp);
			}
			if (!found) {
				if (best_got > 0 || (c == 1 && n == 1)) {
					sbuf_adds(why, best.s ? best.s : "");
				} else {
					sbuf_addf(why, "no element of the server's list "
						  "matches element %u of the pattern", i / c + 1);
					why_got(why, "", a->str, a->len);
				}
				sbuf_reset(&best);
				goto out;
			}
			sbuf_reset(&best);
		}
	}
	for (i = 0; i < n; i += c)
		if (!used[i] && !top_extra && !extra_ok(p, act[i], why))
			goto out;
	ok = true;
out:
	free(act);
	free(used);
	return ok;
}

static bool
status_word(const struct spat *p)
{
	static const char *const w[] = { "OK", "NO", "BAD", "BYE", "PREAUTH" };

	if (p->type != SPAT_TEXT || p->n_parts != 1 ||
	    p->parts[0].kind != SPART_TEXT)
		return false;
	for (unsigned i = 0; i < 5; i++)
		if (strlen(w[i]) == p->parts[0].n &&
		    strncasecmp(w[i], p->parts[0].s, p->parts[0].n) == 0)
			return true;
	return false;
}

bool
smatch_untagged(struct smatch *m, const struct spat *p,
		const struct imap_resp *r, struct sbuf *why)
{
	const char *t = r->line + 2;
	size_t n = r->line_len >= 2 ? r->line_len - 2 : 0;
	bool is_status = r->cond != IMAP_COND_NONE;
	const struct imap_arg *root = imap_args_parse(m->args, t, n);

	/* A status reply's human text need not tokenize: then only its
	 * keyword and response code are compared. */
	if (root == NULL && is_status) {
		const char *end = r->text;
		if (r->text_len > 0 && r->text[0] == '[') {
			const char *close = memchr(r->text, ']', r->text_len);
			end = close ? close + 1 : r->text;
		}
		root = imap_args_parse(m->args, t, (size_t)(end - t));
	}
	if (root == NULL) {
		sbuf_adds(why, "the server's reply does not tokenize: ");
		sbuf_adds(why, imap_args_error(m->args));
		return false;
	}
	unsigned mark = m->vars->n;
	struct spat top = *p;
	top.dirs.extra = is_status && p->n_kids > 0 && status_word(p->kids[0]);
	bool ok = match_list(m, &top, root, top.dirs.extra, why);
	if (!ok)
		svars_undo(m->vars, mark);
	return ok;
}

bool
smatch_tagged(struct smatch *m, const struct script_cmd *c,
	      const struct imap_resp *r, struct sbuf *why)
{
	static const enum imap_cond want[] = { IMAP_COND_OK, IMAP_COND_NO,
					       IMAP_COND_BAD };

	if (c->result != SCRIPT_R_ANY && r->cond != want[c->result]) {
		sbuf_addf(why, "expected %s", script_result_name(c->result));
		why_got(why, "", r->line, r->line_len);
		return false;
	}
	if (c->prefix == NULL)
		return true;
	/* The prefix is a pattern over the result text's first arguments
	 * (a response code up to its ']', so the human text need not
	 * tokenize); variables in it are captured like anywhere else. */
	size_t cut = r->text_len;
	if (cut > 0 && r->text[0] == '[') {
		const char *close = memchr(r->text, ']', r->text_len);
		if (close != NULL)
			cut = (size_t)(close + 1 - r->text);
	}
	char err[160];
	struct spat *pat = spat_compile(c->prefix, strlen(c->prefix), err,
					sizeof(err));
	const struct imap_arg *root = imap_args_parse(m->args, r->text, cut);
	unsigned mark = m->vars->n;
	bool ok = pat != NULL && root != NULL &&
		  match_list(m, pat, root, true, why);
	if (!ok) {
		svars_undo(m->vars, mark);
		sbuf_adds(why, why->len ? "; " : "");
		sbuf_adds(why, "expected the result text to begin with '");
		sbuf_add_escaped(why, c->prefix, strlen(c->prefix));
		sbuf_adds(why, "'");
		why_got(why, "", r->line, r->line_len);
	}
	spat_free(pat);
	return ok;
}

int
smatch_expand(struct smatch *m, const char *text, struct sbuf *out,
	      struct sbuf *why)
{
	struct spat_part *parts;
	bool cs;
	char err[128];
	int n = spat_parts(text, strlen(text), &parts, &cs, err, sizeof(err));

	if (n < 0) {
		sbuf_adds(why, err);
		return -1;
	}
	int rc = 0;
	sbuf_add(out, "", 0);
	for (int i = 0; i < n && rc == 0; i++) {
		if (part_value(m, &parts[i], out))
			continue;
		if (parts[i].kind == SPART_SEQ)
			sbuf_addf(why, "$%u: that message was expunged", parts[i].seq);
		else
			sbuf_addf(why, "the variable $%s has no value yet", parts[i].s);
		rc = -1;
	}
	spat_parts_free(parts, (unsigned)n);
	return rc;
}
