/* users_session.c: one IMAP connection of a profile user, as the
 * connection's hooks see it.  The connection logs in by itself (an engine
 * step); from then on this driver sends every command: the set-up job (folders, SELECT INBOX), then jobs as
 * they fall due, IDLE (or NOOP polling) in between, LOGOUT when
 * mail_session_length is over; the slot then serves the next user, and
 * this one may log in again after login_interval (users_slots.c). */
#include <event2/event.h>

#include "stats/actions.h"
#include "util/clock.h"
#include "config/config.h"
#include "imap/imap.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_count.h"
#include "users/users_job.h"
#include "users/users_loadsim.h"
#include "users/users_notify.h"
#include "users/users_resp.h"
#include "users/users_session.h"
#include "users/users_slots.h"
#include "run/worker.h"

/* A client without imap_idle polls this often (imaptest's clients check
 * for new mail with NOOP; it has no key for the period). */
#define POLL_US 5000000u
/* After a failed session: reconnect after a pause, not in a tight loop. */
#define RETRY_US 1000000u

static struct uconn *
uconn_of(void *arg, struct conn *c)
{
	return ubase_uconn(arg, c);
}

static void
usess_logged_in(void *arg, struct conn *c)
{
	struct uconn *uc = uconn_of(arg, c);
	const struct profile_user_block *ub = uc->u->ub;

	uc->in_session = false;
	uc->logout_due = false;
	uc->job = UJ_NONE;
	uc->sel = UF_COUNT;
	uc->cache_phase = UCP_COMPRESS;
	uc->qresync_on = uc->qresync_select = false;
	uc->t_poll = 0;
	uc->notify = UNOTIFY_NONE;
	uc->t_session_end = ub->session_length_us ?
	    clock_us() + profile_jitter_us(&uc->u->rng, ub->session_length_us) :
	    0;
}

static void usess_pump(struct uconn *uc);

static void
usess_idle_done(void *arg, struct conn *c, enum conn_reply st,
		const char *text, size_t len)
{
	if (st != CONN_REPLY_FAILED)
		usess_pump(arg);
}

static void
usess_noop_done(void *arg, struct conn *c, enum conn_reply st,
		const char *text, size_t len)
{
	struct uconn *uc = arg;
	if (st != CONN_REPLY_FAILED)
		ubase_timer(uc->ev, POLL_US);
}

/* Is anything due on this connection now (so an IDLE should end)? */
static bool
usess_due(const struct uconn *uc, uint64_t now)
{
	if (uc->t_session_end != 0 && now >= uc->t_session_end)
		return true;
	if (uc->k != 0)
		return false;
	return ujob_next_due(uc->u) <= now;
}

/* When this connection has something to do next (UINT64_MAX: never). */
static uint64_t
usess_next(const struct uconn *uc)
{
	uint64_t next = uc->k == 0 ? ujob_next_due(uc->u) : UINT64_MAX;
	if (uc->t_session_end != 0 && uc->t_session_end < next)
		next = uc->t_session_end;
	return next;
}

/* The connection is free or something fell due: run the next job, or
 * wait (IDLE, a poll, a timer for the next due work). */
static void
usess_pump(struct uconn *uc)
{
	struct conn *c = uc->c;
	uint64_t now = clock_us();
	/* The push's settle (users_settle.c): no work, only the wait. */
	bool settle = uc->u->uw->settling;

	if (!conn_is_logged_in(c) || uc->job != UJ_NONE ||
	    (uc->u->uw->stopping && !settle))
		return;
	if (conn_idling(c)) {
		if (!settle && usess_due(uc, now)) {
			(void)conn_idle_end(c);	/* its OK pumps again */
			return;
		}
		/* The timer can fire a little before clock_us() says the
		 * work is due (libevent's cached time): without a new one
		 * the IDLE would last until the next mail. */
		uint64_t next = settle ? UINT64_MAX : usess_next(uc);
		if (next != UINT64_MAX)
			ubase_timer(uc->ev, next > now ? next - now : 0);
		return;
	}
	if (!conn_can_command(c) || conn_in_flight(c) > 0)
		return;
	if (!settle && uc->in_session && uc->t_session_end != 0 &&
	    now >= uc->t_session_end) {
		uc->job = UJ_LOGOUT;
		uc->t_job = now;
		(void)conn_logout(c, NULL, NULL);
		return;
	}
	if (!settle && ujob_next(uc))
		return;
	/* Nothing due: wait for mail, and for the next due work: under
	 * NOTIFY with no command, else in IDLE or polling. */
	uint64_t next = settle ? UINT64_MAX : usess_next(uc);
	bool notify = unotify_wait(uc);
	/* A NOTIFY client the server refused waits in IDLE (counted). */
	if (notify || uc->u->cb->imap_idle || unotify_wanted(uc)) {
		if (!notify)
			(void)conn_idle_begin(c, usess_idle_done, uc);
		if (next != UINT64_MAX)
			ubase_timer(uc->ev, next > now ? next - now : 0);
		return;
	}
	/* One NOOP per POLL_US: the connection is free again at each one's
	 * OK (usess_ready pumps), and without this the next went out at
	 * once, a NOOP per round trip: 13,400 an hour per user instead of
	 * 720 (strace, 1,000 users), 0.2 of a core and most of it system
	 * time. */
	if (now < uc->t_poll) {
		if (uc->t_poll < next)
			next = uc->t_poll;
		ubase_timer(uc->ev, next > now ? next - now : 0);
		return;
	}
	uc->t_poll = now + POLL_US;
	(void)conn_command(c, OP_NOOP, "NOOP", NULL, usess_noop_done, uc);
	if (next != UINT64_MAX && next - now < POLL_US)
		ubase_timer(uc->ev, next > now ? next - now : 0);
}

void
usess_kick(struct user *u)
{
	struct uconn *next;

	/* A pump may end a session, never the list: a closed slot leaves it
	 * in its closed hook, later.  Woken by a timer or another
	 * connection, what the pump sends goes out here, in one batch (a
	 * due one, conn.h), not through the write event: that armed and
	 * disarmed it, two epoll_ctl() per poll (strace: 1,785 an hour per
	 * user of a client without IDLE, 851 writev). */
	uint64_t now = clock_us();
	for (struct uconn *uc = u->on; uc != NULL; uc = next) {
		next = uc->next_on;
		conn_batch_begin(uc->c, now);
		usess_pump(uc);
		conn_batch_end(uc->c, now);
	}
}

static void
usess_ready(void *arg, struct conn *c)
{
	struct uconn *uc = uconn_of(arg, c);

	/* A step held for the foreign-mail check: its answer is in. */
	if (uc->guard_held && conn_in_flight(c) == 0) {
		ujob_resume(uc);
		return;
	}
	/* Right after login, and whenever the connection is free (a job
	 * step's callback ran already: after set-up or a poll, what is
	 * next is decided here). */
	if (uc->job == UJ_NONE && conn_in_flight(c) == 0)
		usess_pump(uc);
}

static void
usess_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	struct uworker *uw = arg;
	struct uconn *uc = uconn_of(arg, c);
	struct user *u = uc->u;

	if (u == NULL) {	/* a free slot, stopped */
		uslot_release(uw, uc, 0, true);
		worker_driver_conn_finished(uw->w);
		return;
	}
	if (uc->in_session) {
		if (uw->logged_in > 0)
			uw->logged_in--;
		ucount_users_in(u, -1);
	}
	/* Not connected: no push to miss.  At the run's end what waits
	 * stays so, counted as unannounced (--profile-counts), not dropped. */
	if (uc->k == 0 && !uw->stopping && end != CONN_END_STOPPED)
		ucount_push_reset(u);
	if (uc->job == UJ_LOGOUT)
		ucount_action(u, ACT_LOGOUT, end == CONN_END_LOGOUT,
			      uc->t_job);
	bool logoff = uc->job == UJ_LOADSIM &&
	    uls_closed(uc, end == CONN_END_LOGOUT);
	uc->in_session = false;
	uc->guard_held = false;
	uc->job = UJ_NONE;
	uc->fetching_new = false;
	uc->sel = UF_COUNT;
	evtimer_del(uc->ev);
	if (uw->stopping || end == CONN_END_STOPPED) {
		uslot_release(uw, uc, 0, true);
		worker_driver_conn_finished(uw->w);
		return;
	}
	uint64_t wait = logoff ? 0 : end == CONN_END_LOGOUT ?
	    /* The next login of this client after login_interval. */
	    profile_jitter_us(&u->rng, u->cb->login_interval_us) : RETRY_US;
	/* The slot serves the next user that may connect (clients=). */
	uslot_release(uw, uc, wait, false);
}

static void
usess_untagged(void *arg, struct conn *c, const struct imap_resp *r)
{
	uresp_untagged(uconn_of(arg, c), r);
}

/* The "+" of our IDLE.  Work that fell due while the IDLE was on its way
 * (its timer fired, but the connection had a command in flight) would
 * otherwise wait for the next mail: look again now. */
static void
usess_idle_started(void *arg, struct conn *c)
{
	usess_pump(uconn_of(arg, c));
}

const struct conn_hooks usess_hooks = {
	.logged_in = usess_logged_in,
	.ready = usess_ready,
	.closed = usess_closed,
	.untagged = usess_untagged,
	.idle_started = usess_idle_started,
};
