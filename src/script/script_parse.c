/* script_parse.c: a test file's logical lines (script_lines.c) into a
 * struct script: the header keys, then the commands in imaptest's three
 * forms grouped into steps, and script_free.  See script.h for the format. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script.h"
#include "script/script_lines.h"
#include "script/script_pat.h"
#include "util/xmalloc.h"

#define MAX_MESSAGES 100000
#define MAX_CAPS 64

struct pstate {
	struct script *s;
	const struct slines *ls;
	char *err;
	size_t errlen;
	struct script_step *cur;	/* the step lines attach to */
	unsigned open;			/* its commands still without a result */
	bool sealed;			/* its last result line has been read */
	/* "conn word OK|NO|BAD" lines by (conn, word), with the last line
	 * each pair has: tells a tag from a command in one lookup. */
	struct rkey *rkeys;
	unsigned n_rkeys;
	bool rkeys_built;
};

struct rkey {
	unsigned conn;
	const char *w;
	size_t n;
	unsigned last;		/* index into the logical lines */
};

static const char *const state_names[] = {
	"nonauth", "auth", "created", "appended", "selected"
};

const char *
script_state_name(enum script_state st)
{
	return state_names[st];
}

const char *
script_result_name(enum script_result_kind r)
{
	static const char *const names[] = { "OK", "NO", "BAD", "\"\"" };
	return names[r];
}

static int
pfail(struct pstate *p, unsigned line, const char *fmt, const char *a)
{
	return slines_fail(p->err, p->errlen, p->s->path, line, fmt, a);
}

/* A word of s: its length (up to a space or the end). */
static size_t
word_len(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0' && s[n] != ' ')
		n++;
	return n;
}

static const char *
skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* OK, NO, BAD (any case) or "": the result kind, or -1. */
static int
result_word(const char *s, size_t n)
{
	if (n == 2 && strncasecmp(s, "ok", 2) == 0)
		return SCRIPT_R_OK;
	if (n == 2 && strncasecmp(s, "no", 2) == 0)
		return SCRIPT_R_NO;
	if (n == 3 && strncasecmp(s, "bad", 3) == 0)
		return SCRIPT_R_BAD;
	if (n == 2 && s[0] == '"' && s[1] == '"')
		return SCRIPT_R_ANY;
	return -1;
}

/* --- the header ------------------------------------------------------ */

/* n octets of s and a NUL after them (s may hold NUL: xstrndup stops). */
static char *
dup_len(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static int
header_caps(struct pstate *p, const char *v, unsigned line)
{
	while (*(v = skip_sp(v)) != '\0') {
		size_t n = word_len(v);
		if (p->s->n_caps == MAX_CAPS)
			return pfail(p, line, "more than %s capabilities", "64");
		char *c = xstrndup(v, n);
		for (char *q = c; *q; q++)
			*q = (char)toupper((unsigned char)*q);
		p->s->caps = xrealloc(p->s->caps,
				      (p->s->n_caps + 1) * sizeof(char *));
		p->s->caps[p->s->n_caps++] = c;
		v += n;
	}
	return 0;
}

static int
parse_num(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	*out = strtoul(v, &end, 10);
	return *end != '\0' || errno != 0 || *out > max ? -1 : 0;
}

/* "user N: NAME": connection N logs in as NAME (script.h). */
static int
header_user(struct pstate *p, const char *text, size_t klen, unsigned line)
{
	unsigned long n;
	char *num = xstrndup(text + 5, klen - 5);
	int bad = parse_num(num, SCRIPT_MAX_CONNS, &n) < 0 || n == 0;

	free(num);
	if (bad)
		return pfail(p, line, "'user N:' needs N in 1..16 (the connection "
			     "that logs in as the user): '%s'", text);
	const char *v = skip_sp(text + klen + 1);
	size_t vl = strlen(v);
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (vl == 0)
		return pfail(p, line, "'%s' names no user", text);
	if (p->s->users[n - 1] != NULL)
		return pfail(p, line, "a second user for one connection: '%s'", text);
	p->s->users[n - 1] = xstrndup(v, vl);
	return 0;
}

static bool
is_user_key(const char *text, size_t klen)
{
	return klen > 5 && strncasecmp(text, "user ", 5) == 0;
}

static int
header_line(struct pstate *p, const char *text, unsigned line, unsigned *seen)
{
	static const char *const keys[] = {
		"capabilities", "connections", "messages", "state",
		"ignore_extra_untagged"
	};
	const char *colon = strchr(text, ':');
	size_t klen = colon ? (size_t)(colon - text) : 0;
	unsigned k;
	unsigned long n;

	if (colon != NULL && is_user_key(text, klen))
		return header_user(p, text, klen, line);
	for (k = 0; k < 5; k++)
		if (klen == strlen(keys[k]) && strncasecmp(text, keys[k], klen) == 0)
			break;
	if (colon == NULL || k == 5)
		return pfail(p, line, "unknown header line '%s' (keys: capabilities, "
			     "connections, messages, state, ignore_extra_untagged, "
			     "user N; an empty line ends the header)", text);
	if (*seen & (1u << k))
		return pfail(p, line, "header key '%s' given twice", keys[k]);
	*seen |= 1u << k;
	char *v = xstrdup(skip_sp(colon + 1));
	for (size_t e = strlen(v); e > 0 && (v[e - 1] == ' ' || v[e - 1] == '\t');)
		v[--e] = '\0';
	int r = 0;
	switch (k) {
	case 0:
		r = header_caps(p, v, line);
		break;
	case 1:
		if (parse_num(v, SCRIPT_MAX_CONNS, &n) < 0 || n == 0)
			r = pfail(p, line, "connections: '%s' is not a number in 1..16", v);
		else
			p->s->connections = (unsigned)n;
		break;
	case 2:
		p->s->messages_given = true;
		if (strcasecmp(v, "all") == 0)
			p->s->messages = -1;
		else if (parse_num(v, MAX_MESSAGES, &n) < 0)
			r = pfail(p, line, "messages: '%s' is neither 'all' nor a number "
				  "in 0..100000", v);
		else
			p->s->messages = (long)n;
		break;
	case 3:
		for (n = 0; n < 5; n++)
			if (strcasecmp(v, state_names[n]) == 0)
				break;
		if (n == 5)
			r = pfail(p, line, "state: '%s' is not one of nonauth, auth, "
				  "created, appended, selected", v);
		else
			p->s->state = (enum script_state)n;
		break;
	default:
		if (strcasecmp(v, "yes") == 0)
			p->s->ignore_extra_untagged = true;
		else if (strcasecmp(v, "no") == 0)
			p->s->ignore_extra_untagged = false;
		else
			r = pfail(p, line, "ignore_extra_untagged: '%s' is not yes or no", v);
		break;
	}
	free(v);
	return r;
}

/* The header is there when the first line looks like "key:". */
static bool
looks_like_header(const char *text)
{
	size_t i = 0;

	while (isalpha((unsigned char)text[i]) || text[i] == '_')
		i++;
	if (i == 4 && text[i] == ' ' && strncasecmp(text, "user", 4) == 0)
		while (isdigit((unsigned char)text[++i]))
			;
	return i > 0 && text[i] == ':';
}

/* --- the commands ---------------------------------------------------- */

/* "* ", "! " or "? " (or the mark alone): the kind, else -1. */
static int
untagged_mark(const char *t)
{
	static const char marks[] = "*!?";
	const char *m = t[0] ? strchr(marks, t[0]) : NULL;

	if (m == NULL || (t[1] != ' ' && t[1] != '\0'))
		return -1;
	return (int)(m - marks);	/* the order of enum script_exist */
}

struct head {
	unsigned conn;		/* 0-based */
	const char *rest;	/* after the connection number */
	size_t w1;		/* length of the first word of rest */
	int w2_result;		/* result kind of the second word, or -1 */
};

static int
line_head(struct pstate *p, const struct sline *l, struct head *h)
{
	const char *t = l->text;

	h->conn = 0;
	if (isdigit((unsigned char)t[0])) {
		unsigned long n;
		size_t w = word_len(t);
		char *num = xstrndup(t, w);
		int bad = parse_num(num, SCRIPT_MAX_CONNS, &n) < 0 || n == 0 ||
			  n > p->s->connections;
		free(num);
		if (bad)
			return pfail(p, l->line, "connection number out of range "
				     "(this test has %s)", p->s->connections == 1
				     ? "1 connection" : "more connections; see connections:");
		if (t[w] != ' ')
			return pfail(p, l->line, "a connection number with nothing "
				     "after it%s", "");
		h->conn = (unsigned)n - 1;
		t = skip_sp(t + w);
	} else if (untagged_mark(t) >= 0) {
		/* an untagged line: no number */
	} else if (p->open > 0 && p->cur->cmds[p->cur->n_cmds - 1].tag == NULL &&
		   result_word(t, word_len(t)) >= 0) {
		/* the result of a form-2 command: its connection (script.h) */
		h->conn = p->cur->conn;
	} else if (p->s->connections > 1) {
		return pfail(p, l->line, "with connections: above 1 every command and "
			     "result line begins with its connection number%s", "");
	}
	h->rest = t;
	h->w1 = word_len(t);
	const char *w2 = skip_sp(t + h->w1);
	h->w2_result = result_word(w2, word_len(w2));
	return 0;
}

static struct script_step *
new_step(struct pstate *p, unsigned conn)
{
	struct script *s = p->s;

	s->steps = xrealloc(s->steps, (s->n_steps + 1) * sizeof(*s->steps));
	p->cur = &s->steps[s->n_steps++];
	memset(p->cur, 0, sizeof(*p->cur));
	p->cur->conn = conn;
	p->open = 0;
	p->sealed = false;
	return p->cur;
}

static struct script_cmd *
add_cmd(struct script_step *st, const char *tag, size_t tag_len,
	const char *text, size_t text_len, unsigned line)
{
	st->cmds = xrealloc(st->cmds, (st->n_cmds + 1) * sizeof(*st->cmds));
	struct script_cmd *c = &st->cmds[st->n_cmds++];
	memset(c, 0, sizeof(*c));
	c->tag = tag ? xstrndup(tag, tag_len) : NULL;
	c->text = dup_len(text, text_len);
	c->text_len = text_len;
	c->line = line;
	return c;
}

static void
set_result(struct script_cmd *c, int kind, const char *prefix, unsigned line)
{
	prefix = skip_sp(prefix);
	c->result = (enum script_result_kind)kind;
	c->prefix = *prefix ? xstrdup(prefix) : NULL;
	c->result_line = line;
}

static int
rkey_cmp(const void *x, const void *y)
{
	const struct rkey *a = x, *b = y;

	if (a->conn != b->conn)
		return a->conn < b->conn ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return memcmp(a->w, b->w, a->n);
}

static void
rkeys_build(struct pstate *p)
{
	p->rkeys = xcalloc(p->ls->n + 1, sizeof(*p->rkeys));
	for (unsigned j = 0; j < p->ls->n; j++) {
		const struct sline *l = &p->ls->v[j];
		struct head o;

		if (l->text == NULL)
			continue;
		/* Lines are checked for real when their turn comes. */
		if (line_head(p, l, &o) < 0) {
			if (p->errlen > 0)
				p->err[0] = '\0';
			continue;
		}
		if (o.w2_result >= 0)
			p->rkeys[p->n_rkeys++] = (struct rkey){ o.conn, o.rest, o.w1, j };
	}
	qsort(p->rkeys, p->n_rkeys, sizeof(*p->rkeys), rkey_cmp);
	/* keep the last line of each (conn, word) */
	unsigned k = 0;
	for (unsigned j = 0; j < p->n_rkeys; j++) {
		if (k > 0 && rkey_cmp(&p->rkeys[k - 1], &p->rkeys[j]) == 0) {
			if (p->rkeys[j].last > p->rkeys[k - 1].last)
				p->rkeys[k - 1].last = p->rkeys[j].last;
			continue;
		}
		p->rkeys[k++] = p->rkeys[j];
	}
	p->n_rkeys = k;
	p->rkeys_built = true;
}

/* Is there, after line i, a result line "<conn> <tag> OK|NO|BAD|\"\""? */
static bool
tag_has_result(struct pstate *p, unsigned i, const struct head *h)
{
	struct rkey key = { h->conn, h->rest, h->w1, 0 };

	if (!p->rkeys_built)
		rkeys_build(p);
	const struct rkey *f = p->n_rkeys == 0 ? NULL :
		bsearch(&key, p->rkeys, p->n_rkeys, sizeof(key), rkey_cmp);
	return f != NULL && f->last > i;
}

static struct script_cmd *
open_tagged(struct pstate *p, const struct head *h)
{
	if (p->cur == NULL || p->open == 0 || h->conn != p->cur->conn)
		return NULL;
	for (unsigned i = 0; i < p->cur->n_cmds; i++) {
		struct script_cmd *c = &p->cur->cmds[i];
		if (c->tag && c->result_line == 0 && strlen(c->tag) == h->w1 &&
		    strncmp(c->tag, h->rest, h->w1) == 0)
			return c;
	}
	return NULL;
}

static int
body_line(struct pstate *p, unsigned i)
{
	const struct sline *l = &p->ls->v[i];
	struct head h;
	struct script_cmd *c;

	if (line_head(p, l, &h) < 0)
		return -1;
	int mark = untagged_mark(h.rest);
	if (mark >= 0) {
		char m[2] = { h.rest[0], '\0' };
		if (p->cur == NULL)
			return pfail(p, l->line, "an untagged reply before any command%s", "");
		if (p->sealed)
			return pfail(p, l->line, "an untagged reply after its command's "
				     "result line%s", "");
		if (h.rest[1] != ' ' || *skip_sp(h.rest + 1) == '\0')
			return pfail(p, l->line, "'%s' must be followed by a space and "
				     "the reply", m);
		struct script_step *st = p->cur;
		const char *u = skip_sp(h.rest + 1);
		size_t ul = l->len - (size_t)(u - l->text);
		st->untagged = xrealloc(st->untagged,
					(st->n_untagged + 1) * sizeof(*st->untagged));
		struct script_line *sl = &st->untagged[st->n_untagged++];
		sl->text = dup_len(u, ul);
		sl->len = ul;
		sl->line = l->line;
		sl->exist = (enum script_exist)mark;
		return 0;
	}
	int r1 = result_word(h.rest, h.w1);
	if (r1 >= 0) {
		const char *after = h.rest + h.w1;
		/* The result of an open form-2 command, or a form-1 command. */
		if (p->open > 0 && p->cur->cmds[p->cur->n_cmds - 1].tag == NULL) {
			if (h.conn != p->cur->conn)
				return pfail(p, l->line, "this result line names another "
					     "connection than its command%s", "");
			set_result(&p->cur->cmds[0], r1, after, l->line);
			p->open = 0;
			p->sealed = true;
			return 0;
		}
		if (p->open > 0)
			goto unfinished;
		if (*skip_sp(after) == '\0')
			return pfail(p, l->line, "'%s' with no command after it (and no "
				     "command waiting for a result)", script_result_name(r1));
		const char *t = skip_sp(after);
		c = add_cmd(new_step(p, h.conn), NULL, 0, t,
			    l->len - (size_t)(t - l->text), l->line);
		set_result(c, r1, "", l->line);
		return 0;
	}
	if (h.w2_result >= 0 && (c = open_tagged(p, &h)) != NULL) {
		const char *after = skip_sp(h.rest + h.w1);
		set_result(c, h.w2_result, after + word_len(after), l->line);
		if (--p->open == 0)
			p->sealed = true;
		return 0;
	}
	if (h.w2_result >= 0) {
		char tag[64];
		snprintf(tag, sizeof(tag), "%.*s", (int)(h.w1 < 60 ? h.w1 : 60),
			 h.rest);
		return pfail(p, l->line, "a result line for tag '%s', which has no "
			     "command waiting on this connection", tag);
	}
	bool tagged = tag_has_result(p, i, &h);
	const char *cmd = skip_sp(h.rest + (tagged ? h.w1 : 0));
	if (*cmd == '\0')
		return pfail(p, l->line, "the tag '%s' has no command after it",
			     h.rest);
	if (p->open > 0) {
		bool joins = tagged && p->cur->cmds[0].tag != NULL;
		if (joins && h.conn != p->cur->conn)
			return pfail(p, l->line, "all commands of a pipelined group must "
				     "use the same connection%s", "");
		if (!joins)
			goto unfinished;
		for (unsigned k = 0; k < p->cur->n_cmds; k++)
			if (strlen(p->cur->cmds[k].tag) == h.w1 &&
			    strncmp(p->cur->cmds[k].tag, h.rest, h.w1) == 0)
				return pfail(p, l->line, "tag '%s' used twice in one "
					     "pipelined group", p->cur->cmds[k].tag);
	} else {
		new_step(p, h.conn);
	}
	add_cmd(p->cur, tagged ? h.rest : NULL, h.w1, cmd,
		l->len - (size_t)(cmd - l->text), l->line);
	p->open++;
	return 0;
unfinished: {
	char at[32];
	const struct script_cmd *o = &p->cur->cmds[p->cur->n_cmds - 1];
	for (unsigned k = 0; k < p->cur->n_cmds; k++)
		if (p->cur->cmds[k].result_line == 0) {
			o = &p->cur->cmds[k];
			break;
		}
	snprintf(at, sizeof(at), "%u", o->line);
	return pfail(p, l->line, "a new command while the one on line %s has "
		     "no result line yet", at);
	}
}

/* Every reply pattern compiles and every command's and prefix's
 * variables are well-formed: a malformed file fails at load time, not
 * halfway through a run. */
static int
check_text(struct pstate *p, const char *text, unsigned line)
{
	struct spat_part *parts;
	bool cs;
	char err[160];
	int n = spat_parts(text, strlen(text), &parts, &cs, err, sizeof(err));

	if (n < 0)
		return pfail(p, line, "%s", err);
	spat_parts_free(parts, (unsigned)n);
	return 0;
}

static int
check_patterns(struct pstate *p)
{
	char err[200];

	for (unsigned i = 0; i < p->s->n_steps; i++) {
		const struct script_step *st = &p->s->steps[i];
		for (unsigned k = 0; k < st->n_untagged; k++) {
			const struct script_line *l = &st->untagged[k];
			struct spat *pat = spat_compile(l->text, l->len, err,
							sizeof(err));
			if (pat == NULL)
				return pfail(p, l->line, "%s", err);
			spat_free(pat);
		}
		for (unsigned k = 0; k < st->n_cmds; k++) {
			const struct script_cmd *c = &st->cmds[k];
			if (check_text(p, c->text, c->line) < 0 ||
			    (c->prefix && check_text(p, c->prefix, c->result_line) < 0))
				return -1;
		}
	}
	return 0;
}

struct script *
script_parse(const char *path, const char *text, size_t len, char *err,
	     size_t errlen)
{
	struct script *s = xcalloc(1, sizeof(*s));
	struct slines ls;
	struct pstate p = { .s = s, .ls = &ls, .err = err, .errlen = errlen };
	unsigned i = 0, seen = 0;
	const char *slash = strrchr(path, '/');

	s->path = xstrdup(path);
	s->name = xstrdup(slash ? slash + 1 : path);
	s->connections = 1;
	s->messages = -1;
	s->state = SCRIPT_ST_SELECTED;
	s->ignore_extra_untagged = true;
	if (slines_read(&ls, path, text, len, err, errlen) < 0) {
		script_free(s);
		return NULL;
	}
	while (i < ls.n && ls.v[i].text == NULL)
		i++;
	if (i < ls.n && looks_like_header(ls.v[i].text)) {
		for (; i < ls.n && ls.v[i].text != NULL; i++)
			if (header_line(&p, ls.v[i].text, ls.v[i].line, &seen) < 0)
				goto fail;
		for (unsigned c = s->connections; c < SCRIPT_MAX_CONNS; c++)
			if (s->users[c] != NULL) {
				char n[16];
				snprintf(n, sizeof(n), "%u", c + 1);
				pfail(&p, ls.v[i > 0 ? i - 1 : 0].line, "'user %s:' "
				      "names a connection this test does not have "
				      "(see connections:)", n);
				goto fail;
			}
	}
	for (; i < ls.n; i++)
		if (ls.v[i].text != NULL && body_line(&p, i) < 0)
			goto fail;
	if (p.open > 0) {
		for (unsigned k = 0; k < p.cur->n_cmds; k++)
			if (p.cur->cmds[k].result_line == 0) {
				pfail(&p, p.cur->cmds[k].line, "this command has no result "
				      "line (OK, NO, BAD or \"\")%s", "");
				goto fail;
			}
	}
	if (check_patterns(&p) < 0)
		goto fail;
	free(p.rkeys);
	slines_free(&ls);
	return s;
fail:
	free(p.rkeys);
	slines_free(&ls);
	script_free(s);
	return NULL;
}

bool
script_user_is_user2(const char *v)
{
	return strcmp(v, "$user2") == 0 || strcmp(v, "${user2}") == 0;
}

bool
script_needs_user2(const struct script *s)
{
	for (unsigned i = 0; i < s->connections; i++)
		if (s->users[i] != NULL && script_user_is_user2(s->users[i]))
			return true;
	return false;
}

/* The inverse of script_parse (and of script_load's mbox_path). */
void
script_free(struct script *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < s->n_steps; i++) {
		struct script_step *st = &s->steps[i];
		for (unsigned k = 0; k < st->n_cmds; k++) {
			free(st->cmds[k].tag);
			free(st->cmds[k].text);
			free(st->cmds[k].prefix);
		}
		for (unsigned k = 0; k < st->n_untagged; k++)
			free(st->untagged[k].text);
		free(st->cmds);
		free(st->untagged);
	}
	for (unsigned i = 0; i < s->n_caps; i++)
		free(s->caps[i]);
	for (unsigned i = 0; i < SCRIPT_MAX_CONNS; i++)
		free(s->users[i]);
	for (unsigned i = 0; i < s->n_idates; i++)
		free(s->idates[i]);
	free(s->idates);
	free(s->caps);
	free(s->steps);
	free(s->path);
	free(s->name);
	free(s->mbox_path);
	free(s);
}
