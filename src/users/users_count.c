/* users_count.c: what the run claims, in one place.  Every count here is
 * something the server confirmed (an LMTP 250, a tagged OK), so that a
 * test can say exactly what each folder of each user must hold:
 *
 *   INBOX  = delivered.INBOX - expunged.INBOX   (UID EXPUNGE and MOVE)
 *   Spam   = delivered.Spam + moved_to_spam - expunged.Spam
 *   Drafts = appended.Drafts - expunged.Drafts
 *   Sent   = appended.Sent - expunged.Sent
 *   Deleted Items = what it held + moved_to_deleted - expunged.Deleted
 *                   (LoadSim's clean inbox and its emptying)
 *
 * Counts are kept per user and summed per worker (one writer: the user's
 * worker thread).  Actions, push latency and users logged in go to the
 * worker's stats shard (actions.h, push_track.h), which the report shows. */
#include "stats/actions.h"
#include "util/clock.h"
#include "config/config.h"
#include "stats/push_track.h"
#include "users/users_int.h"
#include "users/users_count.h"
#include "users/users_settle.h"
#include "util/xmalloc.h"

void
ucount(struct user *u, enum ucount_kind k, enum ufolder f)
{
	struct ucounts *c[2] = { &u->cnt, &u->uw->tot };

	for (unsigned i = 0; i < 2; i++) {
		switch (k) {
		case UC_DELIVERED:
			c[i]->delivered[f]++;
			break;
		case UC_APPENDED:
			c[i]->appended[f]++;
			break;
		case UC_EXPUNGED:
			c[i]->expunged[f]++;
			break;
		case UC_MOVED_TO_SPAM:
			c[i]->moved_to_spam++;
			break;
		case UC_MOVED_TO_DELETED:
			c[i]->moved_to_deleted++;
			break;
		case UC_READ:
			c[i]->read++;
			break;
		case UC_REPLIED:
			c[i]->replied++;
			break;
		case UC_SENT:
			c[i]->sent++;
			break;
		case UC_DELIVER_FAILED:
			c[i]->deliver_failed++;
			break;
		case UC_DELIVER_UNREADY:
			c[i]->deliver_unready++;
			break;
		}
	}
}

void
ucount_action(struct user *u, int action, bool ok, uint64_t t0)
{
	if (ok)
		act_ok(u->uw->act, (enum action)action, clock_us() - t0);
	else
		act_failed(u->uw->act, (enum action)action);
}

/* One connection of u set up (+1) or gone (-1).  The gauge counts users
 * with at least one session, not sessions: a user of a client with
 * connection_max_count = 2 is one user logged in. */
void
ucount_users_in(struct user *u, int delta)
{
	if (delta > 0 && !u->started) {
		u->started = true;
		act_users_started(u->uw->act);
	}
	if (delta > 0 && u->sessions_in++ == 0)
		act_users_add(u->uw->act, 1);
	else if (delta < 0 && u->sessions_in > 0 && --u->sessions_in == 0)
		act_users_add(u->uw->act, -1);
}

/* A session of u would see a delivery to INBOX: it has INBOX selected,
 * or it waits under NOTIFY (STATUS of INBOX from any folder). */
bool
ucount_push_watching(const struct user *u)
{
	for (const struct uconn *uc = u->on; uc != NULL; uc = uc->next_on)
		if (conn_is_logged_in(uc->c) && (uc->sel == UF_INBOX ||
		    push_track_mech(u->push) == PUSH_M_NOTIFY))
			return true;
	return false;
}

void
ucount_push_delivered(struct user *u, uint64_t t, bool submitted)
{
	struct uworker *uw = u->uw;

	push_track_delivered_via(u->push, uw->act, t, submitted);
	/* After the push's end (users_settle.c): unseen at the end; while
	 * it settles, for no session that would see it: dropped. */
	if (uw->push_frozen)
		act_push_unseen_end(uw->act, 1);
	else if (uw->settling && !ucount_push_watching(u))
		push_track_reset(u->push);
	if (u->push_listed)
		return;
	if (uw->n_push_users == uw->cap_push_users) {
		uw->cap_push_users = uw->cap_push_users ?
		    uw->cap_push_users * 2 : 64;
		uw->push_users = xrealloc(uw->push_users, uw->cap_push_users *
					  sizeof(*uw->push_users));
	}
	uw->push_users[uw->n_push_users++] = u;
	u->push_listed = true;
}

void
ucount_push_exists(struct user *u, unsigned n)
{
	if (u->uw->push_frozen)	/* counted as unseen at the end */
		return;
	push_track_exists(u->push, u->uw->act, n, clock_us());
}

void
ucount_push_fetched(struct user *u, unsigned n)
{
	push_track_fetched(u->push, u->uw->act, n, clock_us());
}

void
ucount_push_mech(struct user *u, enum push_mech m)
{
	push_track_set_mech(u->push, m);
}

void
ucount_push_reset(struct user *u)
{
	if (u->uw->push_frozen)	/* counted as unseen at the end */
		return;
	push_track_reset(u->push);
}

void
ucount_push_expire(struct uworker *uw)
{
	uint64_t now = clock_us();
	uint64_t timeout = (uint64_t)(uw->run->cfg->push_timeout_s * 1e6);

	for (unsigned k = 0; k < uw->n_push_users;) {
		struct user *u = uw->push_users[k];
		push_track_expire(u->push, uw->act, now, timeout);
		if (push_track_waiting(u->push) > 0) {
			k++;
			continue;
		}
		u->push_listed = false;
		uw->push_users[k] = uw->push_users[--uw->n_push_users];
	}
}
