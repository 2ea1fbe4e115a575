/* users.c: the user table, which worker each user and slot lives on, and
 * the end of the run (see users.h).  The slots are in users_slots.c, the
 * timed mail in users_due.c, the hooks and jobs in users_session.c and
 * users_job.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "config/config.h"
#include "config/derived.h"
#include "lmtp/lmtp.h"
#include "stats/actions.h"
#include "util/clock.h"
#include "util/log.h"
#include "stats/push_track.h"
#include "users/users_int.h"
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
	uls_detach(uw);
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

/* Has any user timed mail or POP3 visits (an LMTP-only run has no
 * slot)? */
static bool
users_any_mail(const struct profile *p)
{
	for (unsigned b = 0; b < p->n_client_blocks; b++)
		if (p->clients[b].n_users > 0 &&
		    p->clients[b].protocol == PROFILE_PROTO_POP3)
			return true;
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
	for (unsigned i = 0; i < r->n_u; i++)
		if (!ubase_is_pop3(r, i))	/* POP3 users take no IMAP slot */
			want += p->clients[p->u[r->first + i].client].connection_max;
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
	r->pop3_visit = upop3_visit;
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

/* A JSON string: user names come from files, so escape what needs it. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
counts_json(FILE *f, const struct ucounts *c)
{
	fprintf(f, "\"delivered\":{\"INBOX\":%llu,\"Spam\":%llu},"
		"\"appended\":{\"Drafts\":%llu,\"Sent\":%llu,\"Calendar\":%llu},"
		"\"expunged\":{\"INBOX\":%llu,\"Spam\":%llu,\"Drafts\":%llu,"
		"\"Sent\":%llu,\"Deleted\":%llu},\"moved_to_spam\":%llu,"
		"\"moved_to_deleted\":%llu,\"read\":%llu,"
		"\"replied\":%llu,\"sent\":%llu,\"deliver_failed\":%llu,"
		"\"pop3\":{\"sessions\":%llu,\"retrieved\":%llu,"
		"\"deleted\":%llu,\"delete_lost\":%llu}",
		(unsigned long long)c->delivered[UF_INBOX],
		(unsigned long long)c->delivered[UF_SPAM],
		(unsigned long long)c->appended[UF_DRAFTS],
		(unsigned long long)c->appended[UF_SENT],
		(unsigned long long)c->appended[UF_CALENDAR],
		(unsigned long long)c->expunged[UF_INBOX],
		(unsigned long long)c->expunged[UF_SPAM],
		(unsigned long long)c->expunged[UF_DRAFTS],
		(unsigned long long)c->expunged[UF_SENT],
		(unsigned long long)c->expunged[UF_DELETED],
		(unsigned long long)c->moved_to_spam,
		(unsigned long long)c->moved_to_deleted,
		(unsigned long long)c->read, (unsigned long long)c->replied,
		(unsigned long long)c->sent,
		(unsigned long long)c->deliver_failed,
		(unsigned long long)c->pop3_sessions,
		(unsigned long long)c->pop3_retrieved,
		(unsigned long long)c->pop3_deleted,
		(unsigned long long)c->pop3_delete_lost);
	fprintf(f, ",\"cached\":{\"compressed\":%llu,\"qresync_selects\":%llu,"
		"\"sync_fetches\":%llu,\"header_fetches\":%llu,"
		"\"vanished\":%llu}",
		(unsigned long long)c->cache.compressed,
		(unsigned long long)c->cache.qresync_selects,
		(unsigned long long)c->cache.sync_fetches,
		(unsigned long long)c->cache.header_fetches,
		(unsigned long long)c->cache.vanished);
	fprintf(f, ",\"loadsim\":{\"schedule_s\":%.3f",
		(double)c->ls.schedule_us / 1e6);
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		if (uls_stat(a) < 0)
			continue;
		fprintf(f, ",\"%s\":{\"started\":%llu,\"missed\":%llu,"
			"\"ok\":%llu,\"failed\":%llu}",
			action_name[uls_stat(a)],
			(unsigned long long)c->ls.started[a],
			(unsigned long long)c->ls.missed[a],
			(unsigned long long)c->ls.ok[a],
			(unsigned long long)c->ls.failed[a]);
	}
	fputc('}', f);
}

static void
counts_add(struct ucounts *a, const struct ucounts *b)
{
	for (unsigned f = 0; f < UF_COUNT; f++) {
		a->delivered[f] += b->delivered[f];
		a->appended[f] += b->appended[f];
		a->expunged[f] += b->expunged[f];
	}
	a->moved_to_spam += b->moved_to_spam;
	a->moved_to_deleted += b->moved_to_deleted;
	a->read += b->read;
	a->replied += b->replied;
	a->sent += b->sent;
	a->deliver_failed += b->deliver_failed;
	a->deliver_unready += b->deliver_unready;
	a->pop3_sessions += b->pop3_sessions;
	a->pop3_retrieved += b->pop3_retrieved;
	a->pop3_deleted += b->pop3_deleted;
	a->pop3_delete_lost += b->pop3_delete_lost;
	a->cache.compressed += b->cache.compressed;
	a->cache.qresync_selects += b->cache.qresync_selects;
	a->cache.sync_fetches += b->cache.sync_fetches;
	a->cache.header_fetches += b->cache.header_fetches;
	a->cache.vanished += b->cache.vanished;
	for (unsigned i = 0; i < LS_N_ACTIONS; i++) {
		a->ls.started[i] += b->ls.started[i];
		a->ls.missed[i] += b->ls.missed[i];
		a->ls.ok[i] += b->ls.ok[i];
		a->ls.failed[i] += b->ls.failed[i];
	}
	a->ls.schedule_us += b->ls.schedule_us;
}

int
users_write_counts(const struct users *r, const char *path, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "w");
	struct ucounts tot;
	struct upush_counts push_tot[PUSH_MECHS];

	if (f == NULL) {
		snprintf(err, errlen, "--profile-counts %s: %s", path,
			 strerror(errno));
		return -1;
	}
	memset(&tot, 0, sizeof(tot));
	memset(push_tot, 0, sizeof(push_tot));
	fprintf(f, "{\"users\":[");
	/* Only the users the run touched: the others have nothing. */
	bool first = true;
	for (unsigned i = 0; i < r->n_u; i++) {
		const struct user *u = r->users[i];
		if (u == NULL)
			continue;
		fprintf(f, "%s\n{\"user\":", first ? "" : ",");
		first = false;
		json_str(f, u->pu->name);
		fputc(',', f);
		counts_json(f, &u->cnt);
		upush_sum(f, &u->push_end, push_tot);
		fprintf(f, "}");
		counts_add(&tot, &u->cnt);
	}
	fprintf(f, "],\n\"deleted_folder\":");
	json_str(f, r->folder[UF_DELETED]);
	fprintf(f, ",\n\"totals\":{");
	counts_json(f, &tot);
	fprintf(f, ",\"push\":{");
	for (int m = 0; m < PUSH_MECHS; m++)
		fprintf(f, "%s\"%s\":{\"delivered\":%llu,\"announced\":%llu,"
			"\"unannounced\":%llu,\"dropped\":%llu,\"missed\":%llu}",
			m ? "," : "", push_mech_name[m],
			(unsigned long long)push_tot[m].delivered,
			(unsigned long long)push_tot[m].announced,
			(unsigned long long)push_tot[m].unannounced,
			(unsigned long long)push_tot[m].dropped,
			(unsigned long long)push_tot[m].missed);
	fprintf(f, "}}}\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "--profile-counts %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Sessions the server never greeted in time: with no limit each delivery
 * that finds no idle session opens one, and a server that starts one
 * process per session falls behind (Dovecot at load 20: 50 sessions
 * opened at once were greeted after 5.2 s at the median, 6.8 s at most),
 * so more are opened while they wait.  Said once, with the way out. */
static void
users_warn_unready(const struct users *r, uint64_t n)
{
	char limit[64];

	if (n == 0)
		return;
	if (r->p->lmtp_max_parallel == 0)
		snprintf(limit, sizeof(limit), "is unlimited");
	else
		snprintf(limit, sizeof(limit), "is %u", r->p->lmtp_max_parallel);
	log_warn("LMTP: %llu deliveries failed waiting for a new session's "
		 "greeting or LHLO reply (%d s): the server did not start "
		 "sessions as fast as they were opened; lmtp_max_parallel_count "
		 "%s (Dovecot's imaptest guide: about half the deliveries per "
		 "second)", (unsigned long long)n, LMTP_TIMEOUT_DEFAULT_S, limit);
}

void
users_log_totals(const struct users *r)
{
	struct ucounts t;

	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < r->n_u; i++)
		if (r->users[i] != NULL)
			counts_add(&t, &r->users[i]->cnt);
	log_info("profile: delivered INBOX %llu Spam %llu (%llu failed), "
		 "appended Drafts %llu Sent %llu, moved to Spam %llu, moved to "
		 "%s %llu, expunged INBOX %llu Drafts %llu %s %llu; read %llu "
		 "replied %llu sent %llu",
		 (unsigned long long)t.delivered[UF_INBOX],
		 (unsigned long long)t.delivered[UF_SPAM],
		 (unsigned long long)t.deliver_failed,
		 (unsigned long long)t.appended[UF_DRAFTS],
		 (unsigned long long)t.appended[UF_SENT],
		 (unsigned long long)t.moved_to_spam, r->folder[UF_DELETED],
		 (unsigned long long)t.moved_to_deleted,
		 (unsigned long long)t.expunged[UF_INBOX],
		 (unsigned long long)t.expunged[UF_DRAFTS], r->folder[UF_DELETED],
		 (unsigned long long)t.expunged[UF_DELETED],
		 (unsigned long long)t.read, (unsigned long long)t.replied,
		 (unsigned long long)t.sent);
	uint64_t due = 0, missed = 0;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		due += t.ls.started[a] + t.ls.missed[a];
		missed += t.ls.missed[a];
	}
	/* Counts that came out low because the client fell behind must say
	 * so, not pass for the schedule's rate. */
	if (missed > 0)
		log_warn("LoadSim: %llu of %llu scheduled actions were still due "
			 "at the end (the client fell behind; --profile-counts "
			 "has them per action as \"missed\")",
			 (unsigned long long)missed, (unsigned long long)due);
	users_warn_unready(r, t.deliver_unready);
	upush_log(r);
}
