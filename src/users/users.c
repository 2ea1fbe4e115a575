/* users.c: the user table, which worker each user lives on, ramp-up, and
 * the end of the run (see users.h).  The hooks and jobs are in
 * users_session.c and users_job.c. */
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

static unsigned
users_n_conns(void *arg, unsigned id)
{
	struct users *r = arg;
	unsigned n = 0;

	for (unsigned i = id; i < r->n_u; i += r->n_workers)
		n += r->users[i].n_uc;
	return n;
}

/* The i-th connection of worker id: its users in order, each user's
 * connections in order. */
static struct uconn *
users_nth(struct users *r, unsigned id, unsigned i)
{
	for (unsigned u = id; u < r->n_u; u += r->n_workers) {
		if (i < r->users[u].n_uc)
			return &r->users[u].uc[i];
		i -= r->users[u].n_uc;
	}
	return NULL;
}

/* Global slots: user u's connections are consecutive. */
static unsigned
users_slot(void *arg, unsigned id, unsigned i)
{
	struct uconn *uc = users_nth(arg, id, i);
	return uc != NULL ? uc->slot : 0;	/* n_conns counted these */
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
	uw->act = &w->stats->act;
	act_profile_on(uw->act);
	for (unsigned u = w->id; u < r->n_u; u += r->n_workers)
		uw->n_u++;
	uw->u = xcalloc(uw->n_u ? uw->n_u : 1, sizeof(*uw->u));
	unsigned j = 0;
	for (unsigned u = w->id; u < r->n_u; u += r->n_workers)
		uw->u[j++] = &r->users[u];
	for (unsigned i = 0; i < w->n_conns; i++) {
		struct uconn *uc = r->by_slot[conn_slot(w->conns[i])];
		struct user *u = uc->u;
		uc->c = w->conns[i];
		uc->t_connect = clock_us();
		conn_set_user(uc->c, u->pu->name,
			      u->pu->pass != NULL ? u->pu->pass : r->cfg->pass);
		uc->ev = evtimer_new(w->base, user_timer_cb, uc);
	}
	for (unsigned k = 0; k < uw->n_u; k++) {
		uw->u[k]->uw = uw;
		uw->u[k]->push = push_track_new();
	}
	uw->ev_expire = event_new(w->base, -1, EV_PERSIST, users_expire_cb, uw);
	struct timeval sec = { 1, 0 };
	event_add(uw->ev_expire, &sec);
	r->uw[w->id] = uw;
	ulmtp_attach(uw);
	usubmit_attach(uw);
	uls_attach(uw);
	return uw;
}

/* A connection's timer: its session starts, ends, polls or has work. */
static void
user_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct uconn *uc = arg;

	if (!uc->started) {
		/* Its ramp-up time has come (later sessions are the
		 * connection's own restarts). */
		uc->started = true;
		uc->t_connect = clock_us();
		if (!uc->u->uw->stopping)
			conn_start(uc->c);
		return;
	}
	if (conn_is_logged_in(uc->c))
		usess_kick(uc->u);
}

static void
users_start(void *state)
{
	struct uworker *uw = state;
	struct users *r = uw->run;

	r->t_start = 0;
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		/* imaptest's ramp-up: user i starts at rampup * (i+1) / n. */
		uint64_t at = profile_start_offset_us(r->p, u->idx, r->p->n_u);
		for (unsigned i = 0; i < u->n_uc; i++)
			usess_start(&u->uc[i], at);
		ulmtp_user_start(u);
	}
}

static void
users_stop(void *state, bool halt)
{
	struct uworker *uw = state;

	uw->stopping = true;
	for (unsigned k = 0; k < uw->n_u; k++) {
		ulmtp_user_stop(uw->u[k]);
		uls_stop(uw->u[k]);
	}
	if (halt) {
		ulmtp_detach(uw);	/* what is in flight is not claimed */
		usubmit_detach(uw);
	}
}

static bool
users_busy(void *state)
{
	return ulmtp_busy(state) || usubmit_busy(state);
}

static void
users_detach(void *state)
{
	struct uworker *uw = state;

	ulmtp_detach(uw);
	usubmit_detach(uw);
	uls_detach(uw);
	if (uw->ev_expire != NULL)
		event_free(uw->ev_expire);
	uw->ev_expire = NULL;
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		push_track_free(u->push);
		u->push = NULL;
		for (unsigned i = 0; i < u->n_uc; i++) {
			if (u->uc[i].ev != NULL)
				event_free(u->uc[i].ev);
			u->uc[i].ev = NULL;
		}
	}
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
	r->shards = cfg->shard_count ? cfg->shard_count : 1;
	r->users = xcalloc(r->n_u ? r->n_u : 1, sizeof(*r->users));
	for (unsigned i = 0; i < r->n_u; i++) {
		struct user *u = &r->users[i];
		/* Its number in the plan: its ramp-up start and its draws
		 * are the same whichever shard plays it. */
		u->idx = r->first + i;
		u->pu = &p->u[u->idx];
		u->ub = &p->users[u->pu->block];
		u->cb = &p->clients[u->pu->client];
		u->n_uc = u->cb->connection_max ? u->cb->connection_max : 1;
		r->n_slots += u->n_uc;
		rng_seed(&u->rng, cfg->have_seed ? cfg->seed : 0x5eed, u->idx);
		uls_user_init(u, p);
	}
	if (r->n_slots == 0) {
		snprintf(err, errlen, "profile %s has no users", p->path);
		users_free(r);
		return NULL;
	}
	r->by_slot = xcalloc(r->n_slots, sizeof(*r->by_slot));
	unsigned s = 0;
	for (unsigned i = 0; i < r->n_u; i++) {
		struct user *u = &r->users[i];
		u->uc = xcalloc(u->n_uc, sizeof(*u->uc));
		for (unsigned k = 0; k < u->n_uc; k++) {
			u->uc[k].u = u;
			u->uc[k].k = k;
			u->uc[k].slot = s;
			r->by_slot[s++] = &u->uc[k];
		}
	}
	r->wake = usess_kick;
	r->drv = (struct driver){
		.hooks = &usess_hooks,
		.n_conns = users_n_conns,
		.slot = users_slot,
		.attach = users_attach,
		.start = users_start,
		.stop = users_stop,
		.busy = users_busy,
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
		free(uw->u);
		free(uw);
	}
	for (unsigned i = 0; i < r->n_u; i++)
		free(r->users[i].uc);
	free(r->uw);
	free(r->users);
	free(r->by_slot);
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
		"\"replied\":%llu,\"sent\":%llu,\"deliver_failed\":%llu",
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
		(unsigned long long)c->deliver_failed);
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

	if (f == NULL) {
		snprintf(err, errlen, "--profile-counts %s: %s", path,
			 strerror(errno));
		return -1;
	}
	memset(&tot, 0, sizeof(tot));
	fprintf(f, "{\"users\":[");
	for (unsigned i = 0; i < r->n_u; i++) {
		const struct user *u = &r->users[i];
		fprintf(f, "%s\n{\"user\":", i ? "," : "");
		json_str(f, u->pu->name);
		fputc(',', f);
		counts_json(f, &u->cnt);
		fprintf(f, "}");
		counts_add(&tot, &u->cnt);
	}
	fprintf(f, "],\n\"deleted_folder\":");
	json_str(f, r->folder[UF_DELETED]);
	fprintf(f, ",\n\"totals\":{");
	counts_json(f, &tot);
	fprintf(f, "}}\n");
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
		counts_add(&t, &r->users[i].cnt);
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
}
