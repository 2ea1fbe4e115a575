/* users.c: the user table, which worker each user and slot lives on, and
 * the end of the run (see users.h).  The slots are in users_slots.c, the
 * timed mail in users_due.c, the hooks and jobs in users_session.c and
 * users_job.c, what the run claims at its end in users_report.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "config/config.h"
#include "config/derived.h"
#include "stats/actions.h"
#include "util/clock.h"
#include "util/log.h"
#include "stats/push_track.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_count.h"
#include "users/users_due.h"
#include "users/users_lmtp.h"
#include "users/users_loadsim.h"
#include "users/users_pop3.h"
#include "users/users_session.h"
#include "users/users_slots.h"
#include "users/users_submit.h"
#include "users/users_settle.h"
#include "run/worker.h"
#include "util/xmalloc.h"

/* Without clients=, one slot per connection of every user; past this
 * (clients='s own limit) the run must say how many at once. */
#define USERS_MAX_SLOTS 1000000u

/* Worker id's slots are s = id, id + workers, ...: n_slots of them in
 * all (users_slots.c). */
static unsigned
users_n_conns(void *arg, unsigned id)
{
	struct users *r = arg;

	return id < r->n_slots ?
	    (r->n_slots - id + r->n_workers - 1) / r->n_workers : 0;
}

static unsigned
users_slot(void *arg, unsigned id, unsigned i)
{
	struct users *r = arg;
	return id + i * r->n_workers;
}

static void user_timer_cb(evutil_socket_t fd, short what, void *arg);

/* Deliveries no IDLE connection announced in time: push missed. */
static void
users_expire_cb(evutil_socket_t fd, short what, void *arg)
{
	ucount_push_expire(arg);
}

static void *
users_attach(void *arg, struct worker *w)
{
	struct users *r = arg;
	struct uworker *uw = xcalloc(1, sizeof(*uw));

	uw->run = r;
	uw->w = w;
	uw->id = w->id;
	uw->user_at = uslot_user;
	uw->act = &w->stats->act;
	act_profile_on(uw->act);
	for (unsigned i = 0; i < w->n_conns; i++) {
		struct uconn *uc = &r->slots[conn_slot(w->conns[i])];
		uc->c = w->conns[i];
		uc->ev = evtimer_new(w->base, user_timer_cb, uc);
	}
	uw->ev_expire = event_new(w->base, -1, EV_PERSIST, users_expire_cb, uw);
	struct timeval sec = { 1, 0 };
	event_add(uw->ev_expire, &sec);
	r->uw[w->id] = uw;
	ulmtp_attach(uw);
	usubmit_attach(uw);
	udue_attach(uw);
	uslot_attach(uw);
	upop3_attach(uw);	/* (after uslot_attach: n_mine) */
	return uw;
}

/* A slot's timer: its session ends, polls or has work. */
static void
user_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct uconn *uc = arg;

	if (uc->u != NULL && conn_is_logged_in(uc->c))
		usess_kick(uc->u);
}

static void
users_start(void *state)
{
	struct uworker *uw = state;

	/* imaptest's ramp-up: user i starts at rampup * (i+1) / n. */
	uw->t0 = clock_us();
	udue_start(uw);
	uslot_start(uw);
}

static void
users_stop(void *state, bool halt)
{
	struct uworker *uw = state;

	uw->stopping = true;
	udue_stop(uw);
	upop3_stop(uw);
	for (unsigned k = 0; k < uw->n_u; k++)
		uls_stop(uw->u[k]);
	if (halt) {
		usettle_halt(uw);
		ulmtp_detach(uw);	/* what is in flight is not claimed */
		usubmit_detach(uw);
		upop3_detach(uw);
	}
}

static bool
users_busy(void *state)
{
	return ulmtp_busy(state) || usubmit_busy(state) || upop3_busy(state);
}

static void
users_detach(void *state)
{
	struct uworker *uw = state;
	struct users *r = uw->run;

	ulmtp_detach(uw);
	usubmit_detach(uw);
	upop3_detach(uw);
	udue_detach(uw);
	uslot_detach(uw);
	if (uw->ev_expire != NULL)
		event_free(uw->ev_expire);
	uw->ev_expire = NULL;
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		const struct push_track_counts *n = push_track_counts(u->push);
		u->push_end = (struct upush_counts){
			push_track_mech(u->push), n->delivered, n->announced,
			push_track_unannounced(u->push), n->dropped, n->missed,
		};
		push_track_free(u->push);
		u->push = NULL;
	}
	for (unsigned i = 0; i < uw->w->n_conns; i++) {
		struct uconn *uc = &r->slots[conn_slot(uw->w->conns[i])];
		if (uc->ev != NULL)
			event_free(uc->ev);
		uc->ev = NULL;
	}
}

/* Has any user timed mail (an LMTP-only run has no slot; a POP3 user
 * has one)? */
static bool
users_any_mail(const struct profile *p)
{
	for (unsigned b = 0; b < p->n_user_blocks; b++)
		if (p->users[b].n_users > 0 &&
		    (p->users[b].inbox_delivery_us > 0 ||
		     p->users[b].spam_delivery_us > 0))
			return true;
	return false;
}

/* A profile's msg_sizes gives the run's sizes unless the command line
 * chose them or another source of messages (--msg-sizes, mbox=,
 * random_msg_size=). */
static bool
users_sizes_apply(const struct config *cfg, const struct profile *p)
{
	return p->msg_sizes.n > 0 && cfg->msg_sizes.n == 0 &&
	    cfg->mbox_path == NULL && cfg->random_msg_size == 0;
}

struct users *
users_new(const struct config *cfg, const struct profile *p,
	  char *err, size_t errlen)
{
	struct users *r = xcalloc(1, sizeof(*r));

	r->cfg = cfg;
	r->p = p;
	r->n_workers = 1;
	for (unsigned f = 0; f < UF_COUNT; f++)
		r->folder[f] = ubase_folder_name[f];
	if (p->loadsim.init.has & (1u << LS_INIT_DELETED_FOLDER))
		r->folder[UF_DELETED] = p->loadsim.init.deleted_folder;
	unsigned hi;
	if (profile_shard(p, cfg->shard_index, cfg->shard_count, &r->first,
			  &hi, err, errlen) < 0) {
		free(r);
		return NULL;
	}
	r->n_u = hi - r->first;
	if (users_sizes_apply(cfg, p) &&
	    config_msg_sizes_fit(cfg, &p->msg_sizes, "profile msg_sizes", err,
				 errlen) < 0) {
		free(r);
		return NULL;
	}
	r->shards = cfg->shard_count ? cfg->shard_count : 1;
	r->users = xcalloc(r->n_u ? r->n_u : 1, sizeof(*r->users));
	/* Every user's connections, or clients= (this shard's part). */
	uint64_t want = 0;
	for (unsigned i = 0; i < r->n_u; i++)	/* a POP3 user's visit: one */
		want += ubase_is_pop3(r, i) ? 1 :
		    p->clients[p->u[r->first + i].client].connection_max;
	uint64_t cap = want;
	if (cfg->clients_given) {
		unsigned n = r->shards, k = cfg->shard_count ? cfg->shard_index : 0;
		cap = (uint64_t)cfg->clients * (k + 1) / n -
		    (uint64_t)cfg->clients * k / n;
		if (cap == 0)
			cap = 1;
	}
	if (want > USERS_MAX_SLOTS && cap > USERS_MAX_SLOTS) {
		snprintf(err, errlen, "profile %s: its users would hold %llu "
			 "connections at once (connection_max_count of each): "
			 "give clients=N, the most at once, as imaptest does",
			 p->path, (unsigned long long)want);
		users_free(r);
		return NULL;
	}
	r->n_slots = (unsigned)(want < cap ? want : cap);
	if (r->n_slots == 0 && !users_any_mail(p)) {
		snprintf(err, errlen, "profile %s: no IMAP client "
			 "(connection_max_count = 0) and no delivery: nothing "
			 "to do", p->path);
		users_free(r);
		return NULL;
	}
	if (usubmit_tls_new(r, err, errlen) < 0) {
		users_free(r);
		return NULL;
	}
	r->slots = xcalloc(r->n_slots ? r->n_slots : 1, sizeof(*r->slots));
	for (unsigned s = 0; s < r->n_slots; s++)
		r->slots[s].slot = s;
	r->wake = usess_kick;
	r->pop3_done = uslot_pop3_done;
	r->due_push = udue_push;
	r->drv = (struct driver){
		.hooks = &usess_hooks,
		.n_conns = users_n_conns,
		.slot = users_slot,
		.attach = users_attach,
		.start = users_start,
		.stop = users_stop,
		.busy = users_busy,
		.settle = usettle_begin,
		.detach = users_detach,
		.arg = r,
	};
	return r;
}

void
users_set_workers(struct users *r, unsigned n_workers)
{
	free(r->uw);
	r->n_workers = n_workers ? n_workers : 1;
	r->uw = xcalloc(r->n_workers, sizeof(*r->uw));
}

void
users_derive(const struct users *r, struct derived *d)
{
	d->clients = users_conn_count(r);
	if (users_sizes_apply(r->cfg, r->p))
		d->msg_sizes = r->p->msg_sizes;
	uls_derive(r, d);
}

void
users_free(struct users *r)
{
	if (r == NULL)
		return;
	for (unsigned i = 0; i < r->n_workers && r->uw != NULL; i++) {
		struct uworker *uw = r->uw[i];
		if (uw == NULL)
			continue;
		for (unsigned k = 0; k < uw->n_u; k++)
			ubase_user_free(uw->u[k]);
		free(uw->u);
		free(uw->push_users);
		free(uw);
	}
	free(r->uw);
	free(r->users);
	free(r->slots);
	usubmit_tls_free(r);
	free(r);
}

const struct driver *
users_driver(struct users *r)
{
	return &r->drv;
}

unsigned
users_conn_count(const struct users *r)
{
	return r->n_slots;
}

unsigned
users_first(const struct users *r)
{
	return r->first;
}

unsigned
users_count(const struct users *r)
{
	return r->n_u;
}
