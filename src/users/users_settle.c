/* users_settle.c: the push's end (--push-settle).  When the run's time is
 * up, the mail delivered in its last seconds (an LMTP or submission 250,
 * and then the MTA's queue) has not been announced yet: drained at once,
 * the IDLE and NOTIFY sessions would log out before the EXISTS came, and
 * those deliveries were neither seen nor missed, just gone from the
 * report.  So the drain is held (driver.h, settle): no new work starts,
 * the deliveries in flight get their replies, every user logged in waits
 * for its mail as during the run, until each delivery to a user logged
 * in has been announced, or the bound has passed.  Then the push ends:
 * what is still unannounced is counted (push_unseen_end), and later
 * EXISTS are not taken, so that announced + dropped + unseen at the end
 * = delivered, for each user (--profile-counts) and in the totals. */
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "config/config.h"
#include "run/driver.h"
#include "stats/actions.h"
#include "stats/push_track.h"
#include "users/users_int.h"
#include "users/users_lmtp.h"
#include "users/users_session.h"
#include "users/users_submit.h"
#include "users/users_settle.h"
#include "util/clock.h"
#include "util/log.h"

#define SETTLE_POLL_US 50000	/* how often the end is looked for */

/* Nothing in flight, nothing a user watching INBOX still waits to see. */
static bool
usettle_done(const struct uworker *uw)
{
	if (ulmtp_busy(uw) || usubmit_busy(uw))
		return false;
	for (unsigned k = 0; k < uw->n_push_users; k++) {
		const struct user *u = uw->push_users[k];
		if (push_track_unannounced(u->push) > 0 && ucount_push_watching(u))
			return false;
	}
	return true;
}

/* The push ends here: what waits unannounced is counted, once. */
static void
usettle_freeze(struct uworker *uw)
{
	uint64_t n = 0;

	if (uw->push_frozen)
		return;
	uw->push_frozen = true;
	for (unsigned k = 0; k < uw->n_push_users; k++)
		n += push_track_unannounced(uw->push_users[k]->push);
	if (n > 0)
		act_push_unseen_end(uw->act, n);
}

static void
usettle_end(struct uworker *uw)
{
	if (uw->ev_settle != NULL)
		event_free(uw->ev_settle);
	uw->ev_settle = NULL;
	uw->settling = false;
	usettle_freeze(uw);
}

static void
usettle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct uworker *uw = arg;

	(void)fd;
	(void)what;
	if (!usettle_done(uw) && clock_us() < uw->settle_end)
		return;
	usettle_end(uw);
	worker_driver_settled(uw->w);
}

bool
usettle_begin(void *state)
{
	struct uworker *uw = state;
	double s = config_push_settle_s(uw->run->cfg);

	if (s <= 0 || usettle_done(uw)) {
		usettle_freeze(uw);
		return false;
	}
	uw->settle_end = clock_us() + (uint64_t)(s * 1e6);
	uw->ev_settle = event_new(worker_base(uw->w), -1, EV_PERSIST,
				  usettle_cb, uw);
	struct timeval poll = { 0, SETTLE_POLL_US };
	event_add(uw->ev_settle, &poll);
	uw->settling = true;
	/* A session between commands goes back to its wait (usess_pump).
	 * One in another folder would have its INBOX's news only at its
	 * next SELECT INBOX, which a settle does not send: as then, what
	 * waits for it is dropped (no session there for it), not left to
	 * become push missed. */
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		if (u->sessions_in > 0)
			usess_kick(u);
		if (!ucount_push_watching(u))
			push_track_reset(u->push);
	}
	return true;
}

void
usettle_halt(struct uworker *uw)
{
	usettle_end(uw);
}

/* What became of a user's INBOX deliveries as push (push_track.h):
 * ,"push":{"mech":"notify","delivered":N,"announced":N,"unannounced":N,
 * "dropped":N,"missed":N}, and the same summed per mechanism in tot
 * (f NULL: only that). */
void
upush_sum(FILE *f, const struct upush_counts *n, struct upush_counts *tot)
{
	struct upush_counts *t = &tot[n->mech];

	if (f != NULL)	/* NULL: only the sum (upush_log) */
		fprintf(f, ",\"push\":{\"mech\":\"%s\",\"delivered\":%llu,"
			"\"announced\":%llu,\"unannounced\":%llu,\"dropped\":%llu,"
			"\"missed\":%llu}", push_mech_name[n->mech],
			(unsigned long long)n->delivered,
			(unsigned long long)n->announced,
			(unsigned long long)n->unannounced,
			(unsigned long long)n->dropped,
			(unsigned long long)n->missed);
	t->delivered += n->delivered;
	t->announced += n->announced;
	t->unannounced += n->unannounced;
	t->dropped += n->dropped;
	t->missed += n->missed;
}

/* Each mechanism's INBOX deliveries as push, when a NOTIFY client took
 * part: what was announced, what the run ended before seeing (NOTIFY on
 * Dovecot 2.3 leaves a delivery unannounced until the next change when
 * it lands within its re-arm delay after a command), what no session was
 * there for. */
void
upush_log(const struct users *r)
{
	struct upush_counts t[PUSH_MECHS];

	memset(t, 0, sizeof(t));
	for (unsigned i = 0; i < r->n_u; i++)
		if (r->users[i] != NULL)
			upush_sum(NULL, &r->users[i]->push_end, t);
	if (t[PUSH_M_NOTIFY].delivered == 0)
		return;
	for (int m = 0; m < PUSH_MECHS; m++)
		log_info("push %s: %llu INBOX deliveries, %llu announced, %llu "
			 "not announced by the end, %llu while no session was "
			 "up, %llu missed (not within --push-timeout)",
			 push_mech_name[m], (unsigned long long)t[m].delivered,
			 (unsigned long long)t[m].announced,
			 (unsigned long long)t[m].unannounced,
			 (unsigned long long)t[m].dropped,
			 (unsigned long long)t[m].missed);
}
