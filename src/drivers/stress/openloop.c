/* openloop.c: see openloop.h. */
#include <math.h>
#include <stdlib.h>

#include <event2/event.h>

#include "util/clock.h"
#include "conn/conn.h"
#include "drivers/stress/openloop.h"
#include "drivers/stress/stress_plan.h"
#include "conn/shared.h"
#include "run/driver.h"
#include "util/xmalloc.h"

#define LATE_US 1000

struct openloop {
	struct worker *w;
	struct stress_plans *plans;	/* what a due command is */
	struct event *ev;
	uint64_t t0;		/* when the schedule started */
	double interval_us;	/* between two due commands */
	uint64_t k_sent;	/* due commands sent so far */
	struct event *kick;	/* dispatch from the loop (openloop_conn_idle) */
	struct conn **idle;	/* connections ready for a command */
	int *pos;		/* per worker slot: its index in idle, or -1 */
	unsigned n_idle, cap_idle;
};

static void openloop_dispatch(struct openloop *o);

static void
openloop_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	openloop_dispatch(arg);
}

/* Where the worker keeps slot c: it owns slots id, id+W, id+2W, ... */
static int *
openloop_pos(struct openloop *o, const struct conn *c)
{
	return &o->pos[conn_slot(c) / worker_shared(o->w)->n_workers];
}

struct openloop *
openloop_new(struct worker *w, struct stress_plans *plans, double rate)
{
	struct openloop *o = xcalloc(1, sizeof(*o));
	o->w = w;
	o->plans = plans;
	o->interval_us = 1e6 / rate;
	o->t0 = clock_us();
	o->cap_idle = worker_n_conns(w) ? worker_n_conns(w) : 1;
	o->idle = xcalloc(o->cap_idle, sizeof(*o->idle));
	o->pos = xcalloc(o->cap_idle, sizeof(*o->pos));
	for (unsigned i = 0; i < o->cap_idle; i++)
		o->pos[i] = -1;
	o->ev = evtimer_new(worker_base(w), openloop_timer_cb, o);
	o->kick = event_new(worker_base(w), -1, 0, openloop_timer_cb, o);
	return o;
}

void
openloop_free(struct openloop *o)
{
	if (o == NULL)
		return;
	event_free(o->ev);
	event_free(o->kick);
	free(o->idle);
	free(o->pos);
	free(o);
}

/* Arm the timer for the next due command. */
static void
openloop_arm(struct openloop *o, uint64_t now)
{
	uint64_t due = o->t0 + (uint64_t)llround((double)o->k_sent * o->interval_us);
	uint64_t wait = due > now ? due - now : 0;
	struct timeval tv = { (time_t)(wait / 1000000), (suseconds_t)(wait % 1000000) };
	evtimer_add(o->ev, &tv);
}

static void
openloop_dispatch(struct openloop *o)
{
	uint64_t now = clock_us();
	/* Commands whose time has come: k_sent .. due_upto-1. */
	uint64_t due_upto = (uint64_t)floor((double)(now - o->t0) /
					    o->interval_us) + 1;

	while (o->k_sent < due_upto && o->n_idle > 0 && !worker_draining(o->w)) {
		struct conn *c = o->idle[--o->n_idle];
		*openloop_pos(o, c) = -1;
		uint64_t due = o->t0 +
		    (uint64_t)llround((double)o->k_sent * o->interval_us);
		if (!stress_plan_send_scheduled(o->plans, c, due))
			continue;	/* it had nothing it could send */
		if (now > due + LATE_US)
			ctr_add(&worker_stats(o->w)->rate_missed, 1);
		o->k_sent++;
	}
	if (!worker_draining(o->w) && o->k_sent >= due_upto)
		openloop_arm(o, now);
	/* Otherwise commands are overdue and wait for a connection to come
	 * free: openloop_conn_idle() calls us again. */
}

void
openloop_conn_idle(struct openloop *o, struct conn *c)
{
	int *pos = openloop_pos(o, c);
	if (*pos >= 0)
		return;
	*pos = (int)o->n_idle;
	o->idle[o->n_idle++] = c;
	event_active(o->kick, EV_TIMEOUT, 0);
}

void
openloop_conn_gone(struct openloop *o, struct conn *c)
{
	int *pos = openloop_pos(o, c);
	if (*pos < 0)
		return;
	unsigned i = (unsigned)*pos;
	o->idle[i] = o->idle[--o->n_idle];
	*openloop_pos(o, o->idle[i]) = (int)i;
	*pos = -1;
}
