/* openloop.c: see openloop.h. */
#include <math.h>
#include <stdlib.h>

#include <event2/event.h>

#include "clock.h"
#include "conn.h"
#include "openloop.h"
#include "worker.h"
#include "xmalloc.h"

#define LATE_US 1000

static void openloop_dispatch(struct openloop *o);

static void
openloop_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	openloop_dispatch(arg);
}

struct openloop *
openloop_new(struct worker *w, double rate)
{
	struct openloop *o = xcalloc(1, sizeof(*o));
	o->w = w;
	o->interval_us = 1e6 / rate;
	o->t0 = clock_us();
	o->cap_idle = w->n_conns ? w->n_conns : 1;
	o->idle = xcalloc(o->cap_idle, sizeof(*o->idle));
	o->ev = evtimer_new(w->base, openloop_timer_cb, o);
	return o;
}

void
openloop_free(struct openloop *o)
{
	if (o == NULL)
		return;
	event_free(o->ev);
	free(o->idle);
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

	while (o->k_sent < due_upto && o->n_idle > 0 && !o->w->draining) {
		struct conn *c = o->idle[--o->n_idle];
		c->idle_slot = -1;
		uint64_t due = o->t0 +
		    (uint64_t)llround((double)o->k_sent * o->interval_us);
		if (!conn_send_scheduled(c, due))
			continue;	/* it had nothing it could send */
		if (now > due + LATE_US)
			ctr_add(&o->w->stats->rate_missed, 1);
		o->k_sent++;
	}
	if (!o->w->draining && o->k_sent >= due_upto)
		openloop_arm(o, now);
	/* Otherwise commands are overdue and wait for a connection to come
	 * free: openloop_conn_idle() calls us again. */
}

void
openloop_conn_idle(struct openloop *o, struct conn *c)
{
	if (c->idle_slot >= 0)
		return;
	c->idle_slot = (int)o->n_idle;
	o->idle[o->n_idle++] = c;
	openloop_dispatch(o);
}

void
openloop_conn_gone(struct openloop *o, struct conn *c)
{
	if (c->idle_slot < 0)
		return;
	unsigned i = (unsigned)c->idle_slot;
	o->idle[i] = o->idle[--o->n_idle];
	o->idle[i]->idle_slot = (int)i;
	c->idle_slot = -1;
}
