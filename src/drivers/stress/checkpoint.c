/* checkpoint.c: see checkpoint.h. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "drivers/stress/checkpoint.h"
#include "util/clock.h"
#include "conn/conn.h"
#include "util/log.h"
#include "model/mbox_model.h"
#include "model/store_map.h"
#include "run/driver.h"
#include "util/xmalloc.h"

enum cp_phase {
	CP_NONE,
	CP_DRAIN,	/* waiting for in-flight commands to finish */
	CP_CHECK,	/* CHECK sent, waiting for every reply */
	CP_COMPARE	/* coordinator only: the last worker is comparing */
};

struct checkpoint {
	struct worker *w;
	struct cp_coord *co;
	struct event *ev;		/* worker 0: starts each checkpoint */
	struct event *resume_ev;	/* sends again once a checkpoint is over */
	struct event *progress_ev;	/* checkpoint_progress, deferred */
	enum cp_phase phase;		/* this worker's */
	bool arrived;			/* at the current barrier */
	unsigned gen;			/* the checkpoint taken part in */
	unsigned checked;		/* sessions checked in it */
	uint64_t t_start;
};

static void checkpoint_advance(struct checkpoint *cp);

struct cp_coord {
	pthread_mutex_t mu;
	unsigned n;			/* workers */
	struct checkpoint **members;	/* by worker id, NULL until joined */
	unsigned gen;			/* checkpoints started */
	enum cp_phase phase;
	unsigned arrived;		/* workers at the current barrier */
	bool failed;			/* the last comparison found errors */
	/* imaptest's rules for RECENT: its sums only hold while no session
	 * has ever ended (each takes its \Recent flags with it), and after
	 * the first RECENT error they are not checked again. */
	bool session_ended, recent_off;
	/* A worker came to a barrier with the run ending (stopping its
	 * connections): it brings no views and its sessions may still be
	 * running commands, so a comparison sees only some sessions of a
	 * mailbox (RECENT summed over half of them) at moments that differ.
	 * From then on nothing is compared or counted: the run is over. */
	bool ending;
	/* CP_CHECK: every worker's views, copied into one store per
	 * mailbox (named after the worker's store). */
	struct store_map *copies;
	struct mbox_view **views;
	unsigned n_views, cap_views;
	struct mbox_store **stores;	/* distinct stores of copies */
	unsigned n_stores;
};

struct cp_coord *
cp_coord_new(unsigned n_workers)
{
	struct cp_coord *co = xcalloc(1, sizeof(*co));
	pthread_mutex_init(&co->mu, NULL);
	co->n = n_workers;
	co->members = xcalloc(n_workers, sizeof(*co->members));
	return co;
}

static void
coord_clear_copies(struct cp_coord *co)
{
	for (unsigned i = 0; i < co->n_views; i++)
		mbox_view_free(co->views[i]);
	co->n_views = 0;
	co->n_stores = 0;
	store_map_free(co->copies);	/* after the views */
	co->copies = NULL;
}

void
cp_coord_free(struct cp_coord *co)
{
	if (co == NULL)
		return;
	coord_clear_copies(co);
	free(co->views);
	free(co->stores);
	free(co->members);
	pthread_mutex_destroy(&co->mu);
	free(co);
}

/* Another worker's loop looks at the coordinator when woken. */
static void
coord_wake_others(struct cp_coord *co, const struct checkpoint *self)
{
	for (unsigned i = 0; i < co->n; i++) {
		struct checkpoint *m = co->members[i];
		if (m != NULL && m != self)
			worker_wake(m->w);
	}
}

static void
checkpoint_err(void *arg, enum mbox_err kind, const char *msg)
{
	struct checkpoint *cp = arg;
	if (kind == MBOX_ERR_RECENT && !cp->co->recent_off) {
		cp->co->recent_off = true;	/* comparing: no lock needed */
		log_warn("Disabling \\Recent flag tracking");
	}
	stats_state_err(worker_stats(cp->w), kind);
	/* msg already starts "Checkpoint: ", imaptest's prefix */
	log_error("%s (%s)", msg, mbox_err_name(kind));
}

static int
cmp_store(const void *a, const void *b)
{
	const struct mbox_store *x = mbox_view_store(*(struct mbox_view *const *)a);
	const struct mbox_store *y = mbox_view_store(*(struct mbox_view *const *)b);
	return x < y ? -1 : x > y;
}

/* The last worker at the CHECK barrier, without the lock: nobody else
 * touches the copies until the phase goes back to CP_NONE. */
static unsigned
coord_compare(struct cp_coord *co, struct checkpoint *cp)
{
	unsigned errs = 0;

	/* No session may be at the barrier with a mailbox (views is NULL
	 * then): qsort's base must not be NULL, even for 0 items. */
	if (co->n_views > 1)
		qsort(co->views, co->n_views, sizeof(*co->views), cmp_store);
	for (unsigned i = 0; i < co->n_views;) {
		unsigned j = i + 1;
		while (j < co->n_views && mbox_view_store(co->views[j]) ==
		       mbox_view_store(co->views[i]))
			j++;
		/* Every session of the mailbox, of every worker, is here. */
		errs += mbox_view_checkpoint_compare(co->views + i, j - i,
						     !co->session_ended &&
						     !co->recent_off,
						     checkpoint_err, cp);
		i = j;
	}
	return errs;
}

/* This worker's views that take part, into the coordinator (locked). */
static void
coord_add_views(struct cp_coord *co, struct checkpoint *cp)
{
	struct worker *w = cp->w;
	uint64_t live = 0;

	if (co->copies == NULL)
		/* copies of views already bounded, fed no FETCH: no bound */
		co->copies = store_map_new(0);
	/* Every login still in session: fewer than this worker's logins
	 * ever means one has ended. */
	for (unsigned i = 0; i < worker_n_conns(w); i++)
		if (conn_is_logged_in(worker_conn(w, i)))
			live++;
	if (ctr_get(&worker_stats(w)->logins) > live)
		co->session_ended = true;
	for (unsigned i = 0; i < worker_n_conns(w); i++) {
		struct mbox_view *v = conn_checked_view(worker_conn(w, i));
		if (v == NULL)
			continue;
		const struct mbox_store *src = mbox_view_store(v);
		struct mbox_store *dst = store_map_get(co->copies,
						       mbox_store_name(src), "");
		unsigned k = 0;
		while (k < co->n_stores && co->stores[k] != dst)
			k++;
		if (k == co->n_stores) {
			co->stores = xrealloc(co->stores, (k + 1) *
					      sizeof(*co->stores));
			co->stores[co->n_stores++] = dst;
			mbox_store_set_seen_all_recent(dst, true);
		}
		/* RECENT is checked when every worker's model of it did. */
		if (!mbox_store_seen_all_recent(src))
			mbox_store_set_seen_all_recent(dst, false);
		if (co->n_views == co->cap_views) {
			co->cap_views = co->cap_views ? co->cap_views * 2 : 64;
			co->views = xrealloc(co->views, co->cap_views *
					     sizeof(*co->views));
		}
		co->views[co->n_views++] = mbox_view_checkpoint_copy(v, dst);
		cp->checked++;
	}
}

/* This worker reached the barrier of its phase.  The last one moves the
 * coordinator on (comparing first, at the CHECK barrier). */
static void
checkpoint_arrive(struct checkpoint *cp)
{
	struct cp_coord *co = cp->co;
	bool last, compare = false;

	cp->arrived = true;
	pthread_mutex_lock(&co->mu);
	if (worker_draining(cp->w))
		co->ending = true;
	if (cp->phase == CP_CHECK && !co->ending)
		coord_add_views(co, cp);
	last = ++co->arrived == co->n;
	if (last) {
		co->arrived = 0;
		if (co->phase == CP_DRAIN) {
			co->phase = CP_CHECK;
		} else {
			co->phase = CP_COMPARE;
			compare = true;
		}
	}
	pthread_mutex_unlock(&co->mu);
	if (!last)
		return;
	if (compare) {
		/* A checkpoint with no session selected compared nothing:
		 * not one the summary's "checkpoints" can vouch for. */
		if (co->n_views > 0 && !co->ending)
			ctr_add(&worker_stats(cp->w)->checkpoints, 1);
		unsigned errs = co->ending ? 0 : coord_compare(co, cp);
		pthread_mutex_lock(&co->mu);
		coord_clear_copies(co);
		co->failed = errs > 0;
		co->phase = CP_NONE;
		pthread_mutex_unlock(&co->mu);
	}
	coord_wake_others(co, cp);
	checkpoint_poll(cp);
}

static void
checkpoint_finish(struct checkpoint *cp, bool failed)
{
	uint64_t us = clock_us() - cp->t_start;

	/* imaptest counts the sessions a clean checkpoint checked. */
	if (!failed)
		for (unsigned i = 0; i < cp->checked; i++)
			stats_cmd(worker_stats(cp->w), OP_CHECKPOINT, STATS_OK, us);
	for (unsigned i = 0; i < worker_n_conns(cp->w); i++)
		conn_check_done(worker_conn(cp->w, i));
	cp->phase = CP_NONE;
	cp->checked = 0;
	/* Resume from the loop, not from inside whichever connection's
	 * callback finished the checkpoint. */
	event_active(cp->resume_ev, EV_TIMEOUT, 0);
}

static void
checkpoint_send_checks(struct checkpoint *cp)
{
	struct worker *w = cp->w;

	if (worker_draining(w))
		return;
	for (unsigned i = 0; i < worker_n_conns(w); i++)
		conn_send_check(worker_conn(w, i));
}

void
checkpoint_poll(struct checkpoint *cp)
{
	if (cp == NULL)
		return;
	struct cp_coord *co = cp->co;
	pthread_mutex_lock(&co->mu);
	unsigned gen = co->gen;
	enum cp_phase phase = co->phase;
	bool failed = co->failed, ending = co->ending;
	pthread_mutex_unlock(&co->mu);

	/* The checkpoint this worker was in is over (the next may have
	 * begun already); one the run's end cut short checked nobody. */
	if (cp->phase != CP_NONE && (gen != cp->gen || phase == CP_NONE))
		checkpoint_finish(cp, (failed && gen == cp->gen) || ending);
	if (phase == CP_DRAIN && gen != cp->gen) {
		cp->gen = gen;
		cp->phase = CP_DRAIN;
		cp->arrived = false;
		cp->checked = 0;
		cp->t_start = clock_us();
	} else if (phase == CP_CHECK && gen == cp->gen &&
		   cp->phase == CP_DRAIN) {
		cp->phase = CP_CHECK;
		cp->arrived = false;
		checkpoint_send_checks(cp);
	}
	checkpoint_advance(cp);
}

/* From the loop (checkpoint_poll, or checkpoint_progress's event). */
static void
checkpoint_advance(struct checkpoint *cp)
{
	struct worker *w = cp->w;

	if (cp->phase == CP_NONE || cp->arrived)
		return;
	if (cp->phase == CP_DRAIN && !worker_draining(w))
		for (unsigned i = 0; i < worker_n_conns(w); i++)
			if (!conn_quiesce(worker_conn(w, i)))
				return;		/* still draining */
	if (cp->phase == CP_CHECK && !worker_draining(w))
		for (unsigned i = 0; i < worker_n_conns(w); i++)
			if (conn_check_pending(worker_conn(w, i)))
				return;
	checkpoint_arrive(cp);
}

static void
checkpoint_progress_cb(evutil_socket_t fd, short what, void *arg)
{
	checkpoint_advance(arg);
}

void
checkpoint_progress(struct checkpoint *cp)
{
	if (cp != NULL && cp->phase != CP_NONE && !cp->arrived)
		event_active(cp->progress_ev, EV_TIMEOUT, 0);
}

static void
checkpoint_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *cp = arg;
	for (unsigned i = 0; i < worker_n_conns(cp->w); i++)
		conn_send_more(worker_conn(cp->w, i));
}

/* Worker 0's clock starts each checkpoint for everyone. */
static void
checkpoint_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *cp = arg;
	struct cp_coord *co = cp->co;
	bool started = false;

	if (worker_draining(cp->w))
		return;
	pthread_mutex_lock(&co->mu);
	if (co->phase == CP_NONE) {
		co->gen++;
		co->phase = CP_DRAIN;
		co->arrived = 0;
		started = true;
	}
	pthread_mutex_unlock(&co->mu);
	if (!started)
		return;
	coord_wake_others(co, cp);
	checkpoint_poll(cp);
}

struct checkpoint *
checkpoint_new(struct worker *w, struct cp_coord *co, unsigned secs)
{
	struct checkpoint *cp = xcalloc(1, sizeof(*cp));
	struct timeval tv = { (time_t)secs, 0 };
	cp->w = w;
	cp->co = co;
	pthread_mutex_lock(&co->mu);
	if (worker_id(w) < co->n)
		co->members[worker_id(w)] = cp;
	pthread_mutex_unlock(&co->mu);
	cp->resume_ev = event_new(worker_base(w), -1, 0, checkpoint_resume_cb, cp);
	cp->progress_ev = event_new(worker_base(w), -1, 0, checkpoint_progress_cb, cp);
	if (worker_id(w) == 0) {
		cp->ev = event_new(worker_base(w), -1, EV_PERSIST, checkpoint_timer_cb,
				   cp);
		event_add(cp->ev, &tv);
	}
	return cp;
}

void
checkpoint_free(struct checkpoint *cp)
{
	if (cp == NULL)
		return;
	pthread_mutex_lock(&cp->co->mu);
	if (worker_id(cp->w) < cp->co->n)
		cp->co->members[worker_id(cp->w)] = NULL;
	pthread_mutex_unlock(&cp->co->mu);
	if (cp->ev != NULL)
		event_free(cp->ev);
	event_free(cp->resume_ev);
	event_free(cp->progress_ev);
	free(cp);
}

bool
checkpoint_holding(const struct checkpoint *cp)
{
	return cp != NULL && cp->phase != CP_NONE;
}
