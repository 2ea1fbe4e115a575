/* script_parse_step.c: the commands part of a test file as steps
 * (script.h): imaptest's three command forms (1: "OK|NO|BAD command";
 * 2: a command whose result line comes later; 3: tagged commands,
 * pipelined, each with its "tag OK|NO|BAD" line), connection numbers,
 * and the untagged lines between (script_parse_untagged.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_parse_int.h"
#include "util/xmalloc.h"

struct rkey {
	unsigned conn;
	const char *w;
	size_t n;
	unsigned last;		/* index into the logical lines */
};

static int
line_head(struct pstate *p, const struct sline *l, struct head *h)
{
	const char *t = l->text;

	h->conn = 0;
	if (isdigit((unsigned char)t[0])) {
		unsigned long n;
		size_t w = sparse_word_len(t);
		char *num = xstrndup(t, w);
		int bad = sparse_num(num, SCRIPT_MAX_CONNS, &n) < 0 || n == 0 ||
			  n > p->s->connections;
		free(num);
		if (bad)
			return sparse_fail(p, l->line, "connection number "
					   "out of range (this test has %s)",
					   p->s->connections == 1 ? "1 connection"
					   : "more connections; see connections:");
		if (t[w] != ' ')
			return sparse_fail(p, l->line, "a connection number "
					   "with nothing after it%s", "");
		h->conn = (unsigned)n - 1;
		t = sparse_skip_sp(t + w);
	} else if (sparse_untagged_mark(t) >= 0) {
		/* an untagged line: no number */
	} else if (p->open > 0 && p->cur->cmds[p->cur->n_cmds - 1].tag == NULL &&
		   sparse_result_word(t, sparse_word_len(t)) >= 0) {
		/* the result of a form-2 command: its connection (script.h) */
		h->conn = p->cur->conn;
	} else if (p->s->connections > 1) {
		return sparse_fail(p, l->line, "with connections: above 1 "
				   "every command and result line begins "
				   "with its connection number%s", "");
	}
	h->rest = t;
	h->w1 = sparse_word_len(t);
	const char *w2 = sparse_skip_sp(t + h->w1);
	h->w2_result = sparse_result_word(w2, sparse_word_len(w2));
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
	c->text = xstrndup(text, text_len);
	c->text_len = text_len;
	c->line = line;
	return c;
}

static void
set_result(struct script_cmd *c, int kind, const char *prefix, unsigned line)
{
	prefix = sparse_skip_sp(prefix);
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

int
sparse_body_line(struct pstate *p, unsigned i)
{
	const struct sline *l = &p->ls->v[i];
	struct head h;
	struct script_cmd *c;

	/* before the connection number: imaptest's directives have none */
	if (slines_group_directive(l->text, l->len))
		return sparse_directive(p, l);
	if (line_head(p, l, &h) < 0)
		return -1;
	if (sparse_untagged_mark(h.rest) >= 0)
		return sparse_untagged(p, l, h.rest);
	int r1 = sparse_result_word(h.rest, h.w1);
	if (r1 >= 0) {
		const char *after = h.rest + h.w1;
		/* The result of an open form-2 command, or a form-1 command. */
		if (p->open > 0 && p->cur->cmds[p->cur->n_cmds - 1].tag == NULL) {
			if (h.conn != p->cur->conn)
				return sparse_fail(p, l->line, "this result "
						   "line names another "
						   "connection than its "
						   "command%s", "");
			set_result(&p->cur->cmds[0], r1, after, l->line);
			p->open = 0;
			p->sealed = true;
			return 0;
		}
		if (p->open > 0)
			goto unfinished;
		if (*sparse_skip_sp(after) == '\0')
			return sparse_fail(p, l->line, "'%s' with no command "
					   "after it (and no command waiting "
					   "for a result)",
					   script_result_name(r1));
		const char *t = sparse_skip_sp(after);
		c = add_cmd(new_step(p, h.conn), NULL, 0, t,
			    l->len - (size_t)(t - l->text), l->line);
		set_result(c, r1, "", l->line);
		return 0;
	}
	if (h.w2_result >= 0 && (c = open_tagged(p, &h)) != NULL) {
		const char *after = sparse_skip_sp(h.rest + h.w1);
		set_result(c, h.w2_result, after + sparse_word_len(after),
			   l->line);
		if (--p->open == 0)
			p->sealed = true;
		return 0;
	}
	if (h.w2_result >= 0) {
		char tag[64];
		snprintf(tag, sizeof(tag), "%.*s", (int)(h.w1 < 60 ? h.w1 : 60),
			 h.rest);
		return sparse_fail(p, l->line, "a result line for tag '%s', "
				   "which has no command waiting on this "
				   "connection", tag);
	}
	bool tagged = tag_has_result(p, i, &h);
	const char *cmd = sparse_skip_sp(h.rest + (tagged ? h.w1 : 0));
	if (*cmd == '\0')
		return sparse_fail(p, l->line, "the tag '%s' has no command "
				   "after it", h.rest);
	if (p->open > 0) {
		bool joins = tagged && p->cur->cmds[0].tag != NULL;
		if (joins && h.conn != p->cur->conn)
			return sparse_fail(p, l->line, "all commands of a "
					   "pipelined group must use the "
					   "same connection%s", "");
		if (!joins)
			goto unfinished;
		for (unsigned k = 0; k < p->cur->n_cmds; k++)
			if (strlen(p->cur->cmds[k].tag) == h.w1 &&
			    strncmp(p->cur->cmds[k].tag, h.rest, h.w1) == 0)
				return sparse_fail(p, l->line, "tag '%s' "
						   "used twice in one "
						   "pipelined group",
						   p->cur->cmds[k].tag);
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
	return sparse_fail(p, l->line, "a new command while the one on line "
			   "%s has no result line yet", at);
	}
}

void
sparse_rkeys_free(struct pstate *p)
{
	free(p->rkeys);
	p->rkeys = NULL;
}
