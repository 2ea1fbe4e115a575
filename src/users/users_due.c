/* users_due.c: every user's timed mail, connected or not, as imaptest
 * times it (its profile.c): the first INBOX delivery, Spam delivery and
 * send uniform in [0, interval) after the user's ramp-up start, each next
 * one jittered around the interval from the last (profile_jitter_us).
 * One heap per worker holds them all, 16 bytes per user and interval, so
 * users who are not connected cost no timer and no struct user until
 * their first mail (uslot_user makes it then).  LoadSim's mail from
 * outside the run is there too, from each user's first login
 * (uls_logged_in), at the gaps users_loadsim.c draws.
 *
 * A send that falls due while the user is not connected is skipped, as
 * imaptest skips it; one that falls due between two of its sessions waits
 * for the next (users_job.c writes it). */
#include <event2/event.h>

#include "config/config.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_due.h"
#include "users/users_heap.h"
#include "users/users_lmtp.h"
#include "users/users_loadsim.h"
#include "users/users_slots.h"
#include "util/clock.h"

/* Stream of the worker's delivery draws: no connection's or user's. */
#define UDUE_RNG_STREAM 0x6475650000ULL

static uint64_t
udue_interval(const struct profile_user_block *ub, unsigned kind)
{
	return kind == UDUE_INBOX ? ub->inbox_delivery_us :
	    kind == UDUE_SPAM ? ub->spam_delivery_us : ub->send_interval_us;
}

static void
udue_arm(struct uworker *uw, uint64_t now)
{
	uint64_t next = uheap_next(&uw->due);

	if (next != UINT64_MAX && !uw->stopping)
		ubase_timer(uw->ev_due, next > now ? next - now : 0);
}

static void
udue_fire(struct uworker *uw, const struct uheap_ent *e)
{
	struct users *r = uw->run;
	struct user *u;

	switch (e->kind) {
	case UDUE_INBOX:
	case UDUE_SPAM:
		u = uslot_user(uw, e->user);
		ulmtp_deliver_own(u, e->kind == UDUE_INBOX ? UF_INBOX : UF_SPAM);
		return;
	default:
		u = r->users[e->user];
		if (u == NULL)
			return;		/* never connected: nobody writes */
		u->sends_due++;
		ubase_wake(u);
		return;
	}
}

static void
udue_cb(evutil_socket_t fd, short what, void *arg)
{
	struct uworker *uw = arg;
	const struct users *r = uw->run;
	uint64_t now = clock_us();
	struct uheap_ent e;

	while (!uw->stopping && uheap_pop(&uw->due, now, &e)) {
		if (e.kind == UDUE_LS_RECV) {	/* made at its login */
			uheap_push(&uw->due, now + uls_received(r->users[e.user]),
				   e.user, e.kind);
			continue;
		}
		const struct profile_user *pu = &r->p->u[r->first + e.user];
		uint64_t n = udue_interval(&r->p->users[pu->block], e.kind);
		udue_fire(uw, &e);
		uheap_push(&uw->due, now + profile_jitter_us(&uw->rng, n),
			   e.user, e.kind);
	}
	udue_arm(uw, now);
}

void
udue_attach(struct uworker *uw)
{
	const struct config *cfg = uw->run->cfg;

	rng_seed(&uw->rng, cfg->have_seed ? cfg->seed : 0x5eed,
		 UDUE_RNG_STREAM + uw->id);
	uw->ev_due = evtimer_new(uw->w->base, udue_cb, uw);
}

void
udue_start(struct uworker *uw)
{
	const struct users *r = uw->run;

	for (unsigned j = 0; j < uw->n_mine; j++) {
		unsigned tbl = uw->id + j * r->n_workers;
		const struct profile_user *pu = &r->p->u[r->first + tbl];
		const struct profile_user_block *ub = &r->p->users[pu->block];
		uint64_t at = uw->t0 + profile_start_offset_us(r->p,
		    r->first + tbl, r->p->n_u);
		for (unsigned k = UDUE_INBOX; k <= UDUE_SEND; k++) {
			uint64_t n = udue_interval(ub, k);
			if (n > 0)
				uheap_push(&uw->due, at + (uint64_t)(rng_unit(
				    &uw->rng) * (double)n), tbl, k);
		}
	}
	udue_arm(uw, clock_us());
}

void
udue_push(struct uworker *uw, uint64_t t, unsigned tbl, enum udue_kind kind)
{
	uheap_push(&uw->due, t, tbl, kind);
	udue_arm(uw, clock_us());
}

void
udue_stop(struct uworker *uw)
{
	if (uw->ev_due != NULL)
		evtimer_del(uw->ev_due);
}

void
udue_detach(struct uworker *uw)
{
	if (uw->ev_due != NULL)
		event_free(uw->ev_due);
	uw->ev_due = NULL;
	uheap_free(&uw->due);
}
