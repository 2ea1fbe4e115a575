/* users_slots.c: clients= as imaptest reads it in profile mode: a fixed
 * number of connection slots, each serving one user at a time, IMAP and
 * POP3 users alike (imaptest counts both kinds of client in its one
 * clients budget).  A user may connect once its ramp-up time has come
 * (user i at rampup * (i+1) / n), and again `wait` after one of its
 * sessions ended (login_interval after a logout, a second after a
 * failure); an IMAP user takes at most connection_max_count slots at once
 * (0: none, an LMTP-only user), a POP3 user one, for its visit on the
 * worker's POP3 client (users_pop3.c; the slot's own IMAP connection
 * stays unconnected meanwhile, and the slot is free again once the
 * visit's socket is closed).  A free slot serves the user of either kind
 * that has waited longest (imaptest picks one at random among those that
 * may connect; the longest wait keeps a run with a seed repeatable and
 * serves every user in turn).  Without clients= there are as many slots
 * as connections of all users, so every user is connected whenever it
 * may be.
 *
 * A user's memory (struct user) is made when it is first needed, by its
 * first connection or delivery (uslot_user): a 4,000,000-user profile
 * with clients=500 holds the plan and the users it has touched. */
#include <stdlib.h>

#include <event2/event.h>

#include "config/config.h"
#include "stats/push_track.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_heap.h"
#include "users/users_loadsim.h"
#include "users/users_pop3.h"
#include "users/users_slots.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static void uslot_fill_cb(evutil_socket_t fd, short what, void *arg);

void
uslot_user_init(const struct users *r, unsigned tbl, struct user *u)
{
	u->tbl = tbl;
	/* Its number in the plan: its ramp-up start and its draws are the
	 * same whichever shard plays it. */
	u->idx = r->first + tbl;
	u->pu = &r->p->u[u->idx];
	u->ub = &r->p->users[u->pu->block];
	u->cb = &r->p->clients[u->pu->client];
	u->n_uc = u->cb->connection_max;
	rng_seed(&u->rng, r->cfg->have_seed ? r->cfg->seed : 0x5eed, u->idx);
	u->dest[0] = (struct udest){ u, UF_INBOX };
	u->dest[1] = (struct udest){ u, UF_SPAM };
	uls_user_init(u, r->p);
}

struct user *
uslot_user(struct uworker *uw, unsigned tbl)
{
	struct users *r = uw->run;
	struct user *u = r->users[tbl];

	if (u != NULL)
		return u;
	u = xcalloc(1, sizeof(*u));
	u->uw = uw;
	uslot_user_init(r, tbl, u);
	u->push = push_track_new();
	/* A NOTIFY client's deliveries are NOTIFY's from the first one; a
	 * session the server refuses NOTIFY turns it to IDLE (counted). */
	if (u->cb->push == PROFILE_PUSH_NOTIFY)
		push_track_set_mech(u->push, PUSH_M_NOTIFY);
	if (uw->n_u == uw->cap_u) {
		uw->cap_u = uw->cap_u ? uw->cap_u * 2 : 64;
		uw->u = xrealloc(uw->u, uw->cap_u * sizeof(*uw->u));
	}
	uw->u[uw->n_u++] = u;
	r->users[tbl] = u;
	return u;
}

/* The connections a user of the plan may hold, without making it. */
static unsigned
uslot_max(const struct users *r, unsigned tbl)
{
	const struct profile_user *pu = &r->p->u[r->first + tbl];
	/* A POP3 user visits once at a time (users_pop3.c). */
	if (ubase_is_pop3(r, tbl))
		return 1;
	return r->p->clients[pu->client].connection_max;
}

/* When uw's next new user may first connect (UINT64_MAX: none left). */
static uint64_t
uslot_new_at(const struct uworker *uw)
{
	const struct users *r = uw->run;

	if (uw->next_new >= uw->n_mine)
		return UINT64_MAX;
	unsigned tbl = uw->id + uw->next_new * r->n_workers;
	return uw->t0 + profile_start_offset_us(r->p, r->first + tbl,
						 r->p->n_u);
}

/* The user a free slot serves now, or NULL: the earlier of the next new
 * user (ramp-up) and the longest waiting one. */
static struct user *
uslot_pick(struct uworker *uw, uint64_t now)
{
	struct users *r = uw->run;
	struct uheap_ent e;

	for (;;) {
		uint64_t tn = uslot_new_at(uw);
		if (tn <= uheap_next(&uw->ready)) {
			if (tn > now)
				return NULL;
			unsigned tbl = uw->id + uw->next_new++ * r->n_workers;
			if (uslot_max(r, tbl) > 0)
				return uslot_user(uw, tbl);
			continue;	/* connection_max_count = 0 */
		}
		if (!uheap_pop(&uw->ready, now, &e))
			return NULL;
		struct user *u = r->users[e.user];
		if (ubase_is_pop3(r, e.user) ? !u->p3_on : u->n_on < u->n_uc)
			return u;
		/* A stale entry: the user filled its slots since. */
	}
}

static void
uslot_bind(struct uconn *uc, struct user *u, uint64_t now)
{
	struct uworker *uw = u->uw;
	unsigned k = 0;

	/* The lowest connection number free: 0 is the working one. */
	for (bool taken = true; taken; k += taken) {
		taken = false;
		for (const struct uconn *o = u->on; o != NULL; o = o->next_on)
			taken |= o->k == k;
	}
	uc->u = u;
	uc->k = k;
	uc->next_on = u->on;
	u->on = uc;
	u->n_on++;
	uc->t_connect = now;
	conn_set_user(uc->c, u->pu->name,
		      u->pu->pass != NULL ? u->pu->pass : uw->run->cfg->pass);
	conn_restart(uc->c, 0);
	/* It may take another slot at once (connection_max_count). */
	if (u->n_on < u->n_uc)
		uheap_push(&uw->ready, now, u->tbl, 0);
}

/* Slot uc serves u: its IMAP connection, or its POP3 visit; false when
 * the visit could not begin (the slot is still free). */
static bool
uslot_take(struct uconn *uc, struct user *u, uint64_t now)
{
	if (!ubase_is_pop3(u->uw->run, u->tbl)) {
		uslot_bind(uc, u, now);
		return true;
	}
	uc->p3 = u;
	uc->p3_again = UINT64_MAX;
	if (upop3_visit(u->uw, uc))
		return true;
	uc->p3 = NULL;
	return false;
}

static void
uslot_unbind(struct uconn *uc)
{
	struct user *u = uc->u;

	for (struct uconn **p = &u->on; *p != NULL; p = &(*p)->next_on)
		if (*p == uc) {
			*p = uc->next_on;
			break;
		}
	uc->next_on = NULL;
	uc->u = NULL;
	u->n_on--;
}

/* The free slots wait for the next user that may connect. */
static void
uslot_arm(struct uworker *uw, uint64_t now)
{
	uint64_t next = uslot_new_at(uw), h = uheap_next(&uw->ready);

	if (h < next)
		next = h;
	if (uw->n_idle == 0 || next == UINT64_MAX || uw->stopping)
		return;
	ubase_timer(uw->ev_fill, next > now ? next - now : 0);
}

/* The free slot uc serves the next user that may connect, or waits. */
static void
uslot_next(struct uworker *uw, struct uconn *uc, uint64_t now)
{
	struct user *next;

	while ((next = uslot_pick(uw, now)) != NULL)
		if (uslot_take(uc, next, now))
			return;
	uw->idle[uw->n_idle++] = uc;
	uslot_arm(uw, now);
}

static void
uslot_fill(struct uworker *uw)
{
	uint64_t now = clock_us();

	while (uw->n_idle > 0 && !uw->stopping) {
		struct user *u = uslot_pick(uw, now);
		if (u == NULL)
			break;
		if (uslot_take(uw->idle[uw->n_idle - 1], u, now))
			uw->n_idle--;
	}
	uslot_arm(uw, now);
}

static void
uslot_fill_cb(evutil_socket_t fd, short what, void *arg)
{
	uslot_fill(arg);
}

void
uslot_attach(struct uworker *uw)
{
	struct users *r = uw->run;

	uw->n_mine = uw->id < r->n_u ?
	    (r->n_u - uw->id + r->n_workers - 1) / r->n_workers : 0;
	uw->idle = xcalloc(uw->w->n_conns ? uw->w->n_conns : 1,
			   sizeof(*uw->idle));
	uw->ev_fill = evtimer_new(uw->w->base, uslot_fill_cb, uw);
	/* LoadSim users send each other mail (users_loadsim.c): all made. */
	if (r->p->loadsim.any)
		for (unsigned j = 0; j < uw->n_mine; j++)
			uslot_user(uw, uw->id + j * r->n_workers);
}

void
uslot_start(struct uworker *uw)
{
	/* Slot order: the first user gets the worker's first slot. */
	for (unsigned i = uw->w->n_conns; i-- > 0;)
		uw->idle[uw->n_idle++] = ubase_uconn(uw, uw->w->conns[i]);
	uslot_fill(uw);
}

void
uslot_release(struct uworker *uw, struct uconn *uc, uint64_t wait,
	      bool finish)
{
	struct user *u = uc->u;
	uint64_t now = clock_us();

	if (u != NULL) {
		uslot_unbind(uc);
		if (!finish)
			uheap_push(&uw->ready, now + wait, u->tbl, 0);
	}
	if (finish) {
		/* (A POP3 visit on it still ends, and is counted, with
		 * uc->p3 set: the drain QUITs it.) */
		conn_finish(uc->c);
		return;
	}
	uslot_next(uw, uc, now);
}

void
uslot_pop3_done(struct uworker *uw, struct uconn *uc)
{
	struct user *u = uc->p3;
	uint64_t now = clock_us();

	/* Stopping: the drain finishes the slot (usess_closed). */
	if (u == NULL || uw->stopping || conn_finished(uc->c))
		return;
	uc->p3 = NULL;
	if (uc->p3_again != UINT64_MAX)
		uheap_push(&uw->ready, uc->p3_again, u->tbl, 0);
	uslot_next(uw, uc, now);
}

void
uslot_detach(struct uworker *uw)
{
	if (uw->ev_fill != NULL)
		event_free(uw->ev_fill);
	uw->ev_fill = NULL;
	uheap_free(&uw->ready);
	free(uw->idle);
	uw->idle = NULL;
}
