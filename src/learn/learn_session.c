/* learn_session.c: a finished session folded into what is learned: its
 * walk (learn_walk.c), and the tallies the profile and the summary need
 * (mailboxes per user, think times, IDLE, new mail and what became of
 * it).  Then it is freed: nothing of a session outlives it but counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn_int.h"
#include "util/xmalloc.h"

struct lcmd *
lsession_add(struct lsession *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->c = xrealloc(s->c, s->cap * sizeof(*s->c));
	}
	struct lcmd *c = &s->c[s->n++];
	memset(c, 0, sizeof(*c));
	c->t_sent = c->t_done = -1;
	return c;
}

void
lsession_free(struct lsession *s)
{
	free(s->c);
	free(s->grow_t);
	s->c = NULL;
	s->grow_t = NULL;
	s->n = s->cap = s->n_grow = s->cap_grow = 0;
}

/* imapstress (as imaptest) CREATEs a mailbox that SELECT, APPEND, COPY
 * or MOVE found missing: that CREATE is no MCREATE of the mix. */
static void
mark_recovery_creates(struct lsession *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct lcmd *c = &s->c[i];
		if (c->op != OP_MCREATE || c->box < 0)
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct lcmd *p = &s->c[j];
			if (p->box == c->box && p->status == 'N' &&
			    (p->trycreate || p->op == OP_SELECT ||
			     p->op == OP_APPEND)) {
				c->op = LOP_IGNORED;
				break;
			}
		}
	}
}

static void
user_seen(struct learn *l, int u, double t0, double t1)
{
	if ((size_t)u >= l->user_cap) {
		size_t n = (size_t)u * 2 + 16;
		l->user_first = xrealloc(l->user_first, n * sizeof(double));
		l->user_last = xrealloc(l->user_last, n * sizeof(double));
		l->user_sessions = xrealloc(l->user_sessions, n * sizeof(uint64_t));
		for (size_t i = l->user_cap; i < n; i++) {
			l->user_first[i] = l->user_last[i] = -1;
			l->user_sessions[i] = 0;
		}
		l->user_cap = n;
	}
	l->user_sessions[u]++;
	if (t0 < 0)
		return;
	if (l->user_first[u] >= 0 && t0 > l->user_first[u]) {
		/* one gap per session after the user's first, averaged */
		l->login_gaps++;
		l->login_gap_sum += t0 - l->user_last[u] > 0 ?
		    t0 - l->user_last[u] : 0;
	}
	if (l->user_first[u] < 0 || t0 < l->user_first[u])
		l->user_first[u] = t0;
	if (t1 > l->user_last[u])
		l->user_last[u] = t1;
}

static void
tally(struct learn *l, const struct lsession *s)
{
	char key[64];
	double last_done = -1;
	size_t grow = 0;	/* the oldest new mail not yet read */
	bool in_inbox = true;	/* unknown counts as INBOX */
	for (size_t i = 0; i < s->n; i++) {
		const struct lcmd *c = &s->c[i];
		if (c->op == OP_SELECT && c->status == 'O' && c->box >= 0) {
			const char *role = learn_box_role(l->boxes.v[c->box]);
			in_inbox = role != NULL && strcmp(role, "INBOX") == 0;
		}
		if (c->op == LOP_UNMAPPED)
			lnames_add(&l->unmapped, c->verb, strlen(c->verb));
		else if (c->op == LOP_IGNORED)
			lnames_add(&l->ignored, c->verb, strlen(c->verb));
		if (c->box >= 0 && s->user >= 0) {
			int n = snprintf(key, sizeof(key), "%d/%d", s->user, c->box);
			lnames_add(&l->user_boxes, key, (size_t)n);
		}
		/* Think time: from the previous answer to this command, when
		 * the client waited for it (not pipelined behind it). */
		if (c->t_sent >= 0 && last_done >= 0 && c->t_sent >= last_done)
			lhist_add(&l->think_us, (c->t_sent - last_done) * 1e6);
		if (c->t_done >= 0 && c->op != OP_IDLE)
			last_done = c->t_done;
		else if (c->op == OP_IDLE)
			last_done = -1;
		if (c->op == OP_FETCH || c->op == OP_FETCH2 || c->op == OP_UIDFETCH) {
			if (c->body && c->status == 'O') {
				l->read += c->n_msgs;
				/* Mail is read in the order it came: the
				 * oldest unread announcement is this one's. */
				if (c->t_sent >= 0 && grow < s->n_grow &&
				    s->grow_t[grow] <= c->t_sent)
					lhist_add(&l->action_delay_us,
						  (c->t_sent - s->grow_t[grow++]) * 1e6);
				lnames_add(&l->read_items, l->items.v[c->items],
					   strlen(l->items.v[c->items]));
			} else if (c->range_to_end && c->items >= 0) {
				lnames_add(&l->new_items, l->items.v[c->items],
					   strlen(l->items.v[c->items]));
			}
		}
		/* What became of new mail, as the server confirmed it:
		 * flags on INBOX's messages (a draft deleted after its
		 * reply was sent is not). */
		bool ok = c->status == 'O';
		if (c->op == OP_STORE && (c->flags_add & LFL_ANSWERED) &&
		    in_inbox && ok)
			l->replied += c->n_msgs;
		if (c->op == OP_DELETE && in_inbox && ok)
			l->deleted += c->n_msgs;
		if (c->op == OP_MOVE && ok)
			l->moved += c->n_msgs;
		if ((c->op == OP_MOVE || c->op == OP_COPY) && c->box >= 0) {
			int n = snprintf(key, sizeof(key), "%d", c->box);
			lnames_add(&l->copy_boxes, key, (size_t)n);
		}
		if (c->op == OP_APPEND && c->box >= 0) {
			const char *role = learn_box_role(l->boxes.v[c->box]);
			if (role != NULL && strcmp(role, "Sent") == 0)
				l->sent += c->n_msgs;
		}
	}
	l->new_mail += s->exists_grown;
	if (s->idle)
		l->idle_sessions++;
	if (s->timed) {
		l->timed_sessions++;
		lhist_add(&l->session_us, (s->t_last - s->t_first) * 1e6);
	} else {
		l->untimed_sessions++;
	}
	if (s->user >= 0)
		user_seen(l, s->user, s->timed ? s->t_first : -1,
			  s->timed ? s->t_last : -1);
}

void
learn_session_end(struct learn *l, struct lsession *s)
{
	mark_recovery_creates(s);
	l->sessions++;
	l->commands += s->n;
	learn_walk(&l->mix, s);
	tally(l, s);
	lsession_free(s);
}

void
learn_free(struct learn *l)
{
	struct lnames *t[] = { &l->users, &l->boxes, &l->items, &l->unmapped,
			       &l->ignored, &l->user_boxes, &l->new_items,
			       &l->read_items, &l->copy_boxes };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		lnames_free(t[i]);
	free(l->user_first);
	free(l->user_last);
	free(l->user_sessions);
}
