/* conn_guard.c: the engine's side of the foreign-mail guard (guard.h,
 * issue 31): every destructive command a driver sends goes through
 * conn_guard_clear first, and conn_cmd_send's gate (conn_guard_gate)
 * aborts on one that did not.
 *
 * The check runs in the session that first needs it, on the mailbox it
 * has selected: GUARD_SEARCH, sent once nothing else is in flight (so
 * every untagged SEARCH before its tagged reply is its own: a server
 * answers in order what it may not run side by side, RFC 3501 5.5), and
 * no further driver command goes out until it is sent.  Other sessions
 * of the worker that want the same mailbox wait for that answer (the
 * entry's waiters), and hear it through the ready hook, from a zero
 * timeout of their own (conn.c's conn_guard_wake_cb): never from inside
 * this connection's callback.  The gate every driver command passes is
 * conn_guard_gate.c. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "config/config.h"
#include "conn/conn_int.h"
#include "imap/guard.h"
#include "conn/shared.h"
#include "util/log.h"

/* Tell e's waiters the answer is in (or that the search died and one of
 * them must ask again).  Each hears it from an event of its own, which
 * conn_free takes with it: a stop at once halts every session (the
 * search fails here) and frees them before the loop runs again
 * (worker_free), and an event_base_once left behind then ran on a freed
 * connection (SIGSEGV after the refusal line, t_hostile). */
static void
guard_wake(struct conn *c, uint32_t e)
{
	static const struct timeval now = { 0, 0 };
	unsigned n;
	void **w = guard_take_waiters(c->env->guard, e, &n);

	for (unsigned i = 0; i < n; i++) {
		struct conn *o = w[i];
		o->mbox.guard = CONN_G_NONE;
		/* Every waiter has its event (conn_guard_clear made it). */
		if (o == c || o->mbox.guard_ev == NULL)
			continue;
		evtimer_add(o->mbox.guard_ev, &now);
	}
	free(w);
}

static void
guard_refuse(struct conn *c, uint32_t e, uint32_t foreign, const char *why)
{
	struct guard *g = c->env->guard;
	char line[1024];

	guard_set(g, e, GUARD_REFUSED);
	if (atomic_exchange(&c->env->sh->live->foreign_refused, true))
		return;		/* one line per run */
	guard_refusal(line, sizeof(line), guard_user(g, e), guard_box(g, e),
		      foreign, why);
	log_error("%s", line);
}

/* The tagged reply to GUARD_SEARCH. */
static void
guard_done(void *arg, struct conn *c, enum conn_reply st, const char *text,
	   size_t len)
{
	struct guard *g = c->env->guard;
	uint32_t e = c->mbox.guard_e;
	uint32_t foreign;
	const char *why;
	char reason[300];

	(void)arg;
	c->mbox.guard = CONN_G_NONE;
	if (st == CONN_REPLY_FAILED) {
		/* The session died first: unknown again, and a waiter
		 * (or this slot's next session) asks. */
		(void)guard_judge(g, e, &foreign, &why);
		guard_set(g, e, GUARD_UNKNOWN);
	} else if (st != CONN_REPLY_OK) {
		(void)guard_judge(g, e, &foreign, &why);
		snprintf(reason, sizeof(reason), "the server answered %s to "
			 GUARD_SEARCH ": %.*s", st == CONN_REPLY_NO ? "NO" : "BAD",
			 (int)(len < 200 ? len : 200), text);
		guard_refuse(c, e, 0, reason);
	} else if (guard_judge(g, e, &foreign, &why) == GUARD_SAFE) {
		guard_set(g, e, GUARD_SAFE);
		c->mbox.guard = CONN_G_OK;
	} else {
		guard_refuse(c, e, foreign, why);
	}
	guard_wake(c, e);
}

static void
guard_send(struct conn *c)
{
	c->mbox.guard = CONN_G_SENT;
	conn_send_internal(c, CONN_I_GUARD, GUARD_SEARCH);
	struct inflight *f = &c->cmd.fl[c->n_fl - 1];
	f->done = guard_done;
	f->done_arg = NULL;
}

struct guard *
conn_guard_new(const struct config *cfg)
{
	return cfg->allow_foreign_mail ? NULL : guard_new();
}

void
conn_guard_free(struct guard *g)
{
	guard_free(g);
}

bool
conn_guard_untagged(struct conn *c, const struct imap_resp *r)
{
	if (c->mbox.guard != CONN_G_SENT)
		return false;
	enum imap_kw kw = imap_resp_kw(r);
	if (kw == IMAP_KW_SEARCH)
		guard_tally(c->env->guard, c->mbox.guard_e,
			    guard_count_search(r->text, r->text_len));
	else if (kw == IMAP_KW_ESEARCH)
		guard_tally(c->env->guard, c->mbox.guard_e,
			    guard_count_esearch(r->text, r->text_len));
	else
		return false;
	return true;
}

void
conn_guard_send_due(struct conn *c)
{
	if (c->mbox.guard == CONN_G_DRAIN && c->n_fl == 0 && conn_may_send(c))
		guard_send(c);
}

bool
conn_guard_ask(struct conn *c, const char *box)
{
	struct guard *g = c->env->guard;

	if (g == NULL) {	/* --allow-foreign-mail */
		c->mbox.guard = CONN_G_OK;
		return true;
	}
	uint32_t e = guard_entry(g, c->login.user, box, strlen(box));
	if (c->mbox.guard == CONN_G_OK && c->mbox.guard_e == e)
		return true;
	if (c->mbox.guard == CONN_G_DRAIN || c->mbox.guard == CONN_G_SENT ||
	    c->mbox.guard == CONN_G_WAIT)
		return false;	/* asked already */
	switch (guard_verdict(g, e)) {
	case GUARD_SAFE:
		c->mbox.guard = CONN_G_OK;
		c->mbox.guard_e = e;
		return true;
	case GUARD_PENDING:
		c->mbox.guard = CONN_G_WAIT;
		c->mbox.guard_e = e;
		guard_wait(g, e, c);
		return false;
	case GUARD_UNKNOWN:
		guard_set(g, e, GUARD_PENDING);
		c->mbox.guard = CONN_G_DRAIN;
		c->mbox.guard_e = e;
		conn_guard_send_due(c);
		return false;
	default:		/* refused: the run is stopping */
		return false;
	}
}

void
conn_guard_selected(struct conn *c, const char *box)
{
	struct guard *g = c->env->guard;

	/* Empty when this run first saw it: whatever comes later is ours,
	 * or mail from elsewhere during the run (guard.h). */
	if (g == NULL || c->mbox.exists != 0)
		return;
	uint32_t e = guard_entry(g, c->login.user, box, strlen(box));
	if (guard_verdict(g, e) == GUARD_UNKNOWN)
		guard_set(g, e, GUARD_SAFE);
}

bool
conn_guard_ours(struct conn *c, const char *box, size_t len)
{
	struct guard *g = c->env->guard;
	return g == NULL ||
	    guard_verdict(g, guard_entry(g, c->login.user, box, len)) == GUARD_SAFE;
}

void
conn_guard_closed(struct conn *c)
{
	struct guard *g = c->env->guard;

	switch (c->mbox.guard) {
	case CONN_G_WAIT:
		guard_unwait(g, c->mbox.guard_e, c);
		break;
	case CONN_G_DRAIN:
		/* It never asked: unknown again; a waiter asks instead. */
		guard_set(g, c->mbox.guard_e, GUARD_UNKNOWN);
		guard_wake(c, c->mbox.guard_e);
		break;
	default:	/* SENT: guard_done heard FAILED already */
		break;
	}
	c->mbox.guard = CONN_G_NONE;
}

