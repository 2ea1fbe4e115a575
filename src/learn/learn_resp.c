/* learn_resp.c: the server's side of a session: tagged answers matched
 * to their commands (status, time), EXISTS followed to count new mail
 * (growth that the session's own APPENDs do not explain), and message
 * sizes from RFC822.SIZE and BODY[] literals.  Text is never kept. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn/learn_int.h"
#include "util/xmalloc.h"

static struct lcmd *
find_tag(struct lsession *s, const char *tag, size_t len)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = pass ? 0 : s->cursor; i < s->n; i++) {
			struct lcmd *c = &s->c[i];
			if (c->status == 0 && strlen(c->tag) == len &&
			    memcmp(c->tag, tag, len) == 0)
				return c;
		}
	return NULL;
}

static void
advance_cursor(struct lsession *s)
{
	while (s->cursor < s->n && s->c[s->cursor].status != 0)
		s->cursor++;
}

/* Messages being appended to the selected mailbox when `t` came: the
 * unanswered APPENDs sent by then (without times: the oldest one). */
static uint64_t
pending_appends(const struct lsession *s, double t)
{
	uint64_t n = 0;
	for (size_t i = s->cursor; i < s->n; i++) {
		const struct lcmd *c = &s->c[i];
		if (t >= 0 && c->t_sent > t)
			break;
		if (c->status == 0 && c->op == OP_APPEND &&
		    c->box == s->selected_box)
			n += c->n_msgs;
		if (t < 0)
			break;
	}
	return n;
}

static void
on_exists(struct lsession *s, long n, double t)
{
	const struct lcmd *head = s->cursor < s->n ? &s->c[s->cursor] : NULL;
	if (s->exists < 0 || (head != NULL && head->op == OP_SELECT &&
			      head->status == 0)) {
		s->exists = n;		/* SELECT's count: nothing new */
		return;
	}
	if (n > s->exists) {
		uint64_t grow = (uint64_t)(n - s->exists);
		uint64_t own = pending_appends(s, t) + s->own_appends;
		uint64_t mine = own < grow ? own : grow;
		s->own_appends -= mine < s->own_appends ? mine : s->own_appends;
		if (grow > mine) {
			s->exists_grown += grow - mine;
			for (uint64_t k = 0; t >= 0 && k < grow - mine &&
			     s->n_grow < LEARN_GROW_MAX; k++) {
				if (s->n_grow == s->cap_grow) {
					s->cap_grow = s->cap_grow ? s->cap_grow * 2 : 16;
					s->grow_t = xrealloc(s->grow_t, s->cap_grow *
							     sizeof(*s->grow_t));
				}
				s->grow_t[s->n_grow++] = t;
			}
		}
	}
	s->exists = n;
}

static void
on_tagged(struct lsession *s, const char *tag, size_t tl, const char *rest,
	  size_t rl, double t)
{
	struct lcmd *c = find_tag(s, tag, tl);
	if (c == NULL)
		return;		/* LOGIN's answer in a post-login log */
	char st = rl >= 2 && strncasecmp(rest, "OK", 2) == 0 ? 'O' :
	    rl >= 2 && strncasecmp(rest, "NO", 2) == 0 ? 'N' : 'B';
	c->status = st;
	c->t_done = t;
	if (st == 'N' && rl > 3 && memmem(rest, rl, "[TRYCREATE]", 11) != NULL)
		c->trycreate = true;
	if (c->op == OP_SELECT) {
		s->selected_box = st == 'O' ? c->box : -1;
		s->own_appends = 0;
	}
	if (c->unselect)
		s->selected_box = -1;
	if (c->op == OP_IDLE)
		s->pending_idle = false;
	if (c->op == OP_AUTHENTICATE || c->op == OP_LOGIN)
		s->pending_auth = false;
	advance_cursor(s);
}

void
learn_resp(struct learn *l, struct lsession *s, const char *text,
	   size_t len, double t, const uint64_t *lit_sizes, size_t n_lits)
{
	const char *sp = memchr(text, ' ', len);
	if (sp == NULL)
		return;
	size_t tl = (size_t)(sp - text);
	const char *rest = sp + 1;
	size_t rl = len - tl - 1;
	if (tl == 1 && text[0] == '+')
		return;
	if (tl != 1 || text[0] != '*') {
		on_tagged(s, text, tl, rest, rl, t);
		return;
	}
	char *e;
	long n = strtol(rest, &e, 10);
	if (e == rest || *e != ' ')
		return;
	size_t left = rl - (size_t)(e + 1 - rest);
	if (left >= 6 && strncasecmp(e + 1, "EXISTS", 6) == 0) {
		on_exists(s, n, t);
	} else if (left >= 7 && strncasecmp(e + 1, "EXPUNGE", 7) == 0) {
		if (s->exists > 0)
			s->exists--;
	} else if (left >= 5 && strncasecmp(e + 1, "FETCH", 5) == 0) {
		const char *z = memmem(e, left, "RFC822.SIZE ", 12);
		if (z != NULL)
			learn_size_add(&l->fetch_sizes, &l->fetch_sz,
				       strtoull(z + 12, NULL, 10));
		else if (n_lits == 1 && memmem(e, left, "BODY[] {", 8) != NULL)
			learn_size_add(&l->fetch_sizes, &l->fetch_sz,
				       lit_sizes[0]);
	}
}
