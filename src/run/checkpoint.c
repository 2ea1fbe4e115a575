/* checkpoint.c: see checkpoint.h. */
#include <stdlib.h>

#include <event2/event.h>

#include "checkpoint.h"
#include "clock.h"
#include "conn.h"
#include "log.h"
#include "mbox_model.h"
#include "worker.h"
#include "xmalloc.h"

enum cp_phase {
	CP_NONE,
	CP_DRAIN,	/* waiting for in-flight commands to finish */
	CP_CHECK	/* CHECK sent, waiting for every reply */
};

struct checkpoint {
	struct worker *w;
	struct event *ev;
	struct event *resume_ev;	/* sends again once a checkpoint is over */
	struct event *progress_ev;	/* checkpoint_progress, deferred */
	enum cp_phase phase;
	uint64_t t_start;
};


static void
checkpoint_err(void *arg, enum mbox_err kind, const char *msg)
{
	struct checkpoint *cp = arg;
	stats_err(cp->w->stats, ERR_MBOXSTATE);
	log_error("Checkpoint: %s (%s)", msg, mbox_err_name(kind));
}

static int
cmp_store(const void *a, const void *b)
{
	const struct mbox_store *x = mbox_view_store(*(struct mbox_view *const *)a);
	const struct mbox_store *y = mbox_view_store(*(struct mbox_view *const *)b);
	return x < y ? -1 : x > y;
}

/* Every CHECK answered: compare the views of each mailbox. */
static void
checkpoint_compare(struct checkpoint *cp)
{
	struct worker *w = cp->w;
	struct mbox_view **v = xcalloc(w->n_conns ? w->n_conns : 1, sizeof(*v));
	unsigned n = 0;

	for (unsigned i = 0; i < w->n_conns; i++) {
		struct mbox_view *cv = conn_take_checked_view(w->conns[i]);
		if (cv != NULL)
			v[n++] = cv;
	}
	qsort(v, n, sizeof(*v), cmp_store);
	for (unsigned i = 0; i < n;) {
		unsigned j = i + 1;
		while (j < n && mbox_view_store(v[j]) == mbox_view_store(v[i]))
			j++;
		/* RECENT sums are only meaningful when every session of
		 * the mailbox is in this process's one worker. */
		mbox_view_checkpoint_compare(v + i, j - i, w->sh->n_workers == 1,
					     checkpoint_err, cp);
		i = j;
	}
	free(v);
}

static void
checkpoint_finish(struct checkpoint *cp)
{
	struct worker *w = cp->w;

	checkpoint_compare(cp);
	stats_cmd(w->stats, OP_CHECKPOINT, STATS_OK, clock_us() - cp->t_start);
	cp->phase = CP_NONE;
	/* Resume from the loop, not from inside whichever connection's
	 * callback finished the checkpoint. */
	event_active(cp->resume_ev, EV_TIMEOUT, 0);
}

static void
checkpoint_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *cp = arg;
	for (unsigned i = 0; i < cp->w->n_conns; i++)
		conn_send_more(cp->w->conns[i]);
}

static void
checkpoint_advance(struct checkpoint *cp)
{
	struct worker *w = cp->w;

	if (cp->phase == CP_NONE)
		return;
	if (cp->phase == CP_DRAIN) {
		for (unsigned i = 0; i < w->n_conns; i++)
			if (!conn_quiesce(w->conns[i]))
				return;		/* still draining */
		cp->phase = CP_CHECK;
		for (unsigned i = 0; i < w->n_conns; i++)
			conn_send_check(w->conns[i]);
	}
	for (unsigned i = 0; i < w->n_conns; i++)
		if (conn_check_pending(w->conns[i]))
			return;
	checkpoint_finish(cp);
}

static void
checkpoint_progress_cb(evutil_socket_t fd, short what, void *arg)
{
	checkpoint_advance(arg);
}

void
checkpoint_progress(struct checkpoint *cp)
{
	if (cp != NULL && cp->phase != CP_NONE)
		event_active(cp->progress_ev, EV_TIMEOUT, 0);
}

static void
checkpoint_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct checkpoint *cp = arg;

	if (cp->phase != CP_NONE || cp->w->draining)
		return;
	cp->phase = CP_DRAIN;
	cp->t_start = clock_us();
	checkpoint_advance(cp);
}

struct checkpoint *
checkpoint_new(struct worker *w, unsigned secs)
{
	struct checkpoint *cp = xcalloc(1, sizeof(*cp));
	struct timeval tv = { (time_t)secs, 0 };
	cp->w = w;
	cp->ev = event_new(w->base, -1, EV_PERSIST, checkpoint_timer_cb, cp);
	cp->resume_ev = event_new(w->base, -1, 0, checkpoint_resume_cb, cp);
	cp->progress_ev = event_new(w->base, -1, 0, checkpoint_progress_cb, cp);
	event_add(cp->ev, &tv);
	return cp;
}

void
checkpoint_free(struct checkpoint *cp)
{
	if (cp == NULL)
		return;
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
