/* stress_driver.c: the stress mix's side of run/driver.h.  A worker owns
 * global slots id, id+W, id+2W, ... of clients=; the worker ramps them up
 * (imaptest's way, or --connect-rate), and this driver picks each slot's
 * user and holds the checkpoint and open loop of the worker. */
#include <stdlib.h>

#include "config/config.h"
#include "conn/conn.h"
#include "conn/shared.h"
#include "drivers/stress/checkpoint.h"
#include "drivers/stress/openloop.h"
#include "drivers/stress/stress.h"
#include "drivers/stress/stress_int.h"
#include "run/driver.h"
#include "util/xmalloc.h"

struct stress_run {
	const struct config *cfg;
	unsigned n_workers;
	struct cp_coord *cp_coord;	/* checkpoint=: the workers' meeting
					 * point (checkpoint.c), else NULL */
	struct driver drv;
};

static unsigned
stress_n_conns(void *arg, unsigned id)
{
	struct stress_run *r = arg;
	unsigned n = 0;

	for (unsigned s = id; s < r->cfg->clients; s += r->n_workers)
		n++;
	return n;
}

static unsigned
stress_slot(void *arg, unsigned id, unsigned i)
{
	struct stress_run *r = arg;
	return id + i * r->n_workers;
}

static void *
stress_attach(void *arg, struct worker *w)
{
	struct stress_run *r = arg;
	const struct config *cfg = r->cfg;
	struct stress *s = xcalloc(1, sizeof(*s));
	unsigned n = worker_n_conns(w);

	*s = (struct stress){
		.cfg = cfg,
		.users = worker_shared(w)->users,
		.worker_id = worker_id(w),
		.n_workers = r->n_workers,
		.fail_streak = xcalloc(n ? n : 1, sizeof(*s->fail_streak)),
		.w = w,
	};
	stress_plan_init(&s->plans, cfg, worker_shared(w), worker_stats(w),
			 worker_id(w), n);
	for (unsigned i = 0; i < n; i++)
		stress_pick_user(s, worker_conn(w, i));
	if (cfg->checkpoint_secs > 0 && r->cp_coord != NULL)
		s->cp = checkpoint_new(w, r->cp_coord, cfg->checkpoint_secs);
	if (cfg->rate > 0)
		s->openloop = openloop_new(w, &s->plans,
					   cfg->rate / r->n_workers);
	return s;
}

/* The worker ramps the connections up (driver.ramp). */
static void
stress_start(void *state)
{
	(void)state;
}

/* A checkpoint waits for replies to come in; a connection that is not
 * free when they do (in a DELAY pause) is not seen by the ready hook
 * until its pause ends: look each tick. */
static void
stress_tick(void *state, uint64_t now)
{
	struct stress *s = state;

	if (checkpoint_holding(s->cp))
		checkpoint_progress(s->cp);
}

/* Another worker moved the checkpoint on. */
static void
stress_wake(void *state)
{
	struct stress *s = state;
	checkpoint_poll(s->cp);
}

/* Each connection drains itself; the closed hook finishes its slot. */
static void
stress_stop(void *state, bool halt)
{
	(void)state;
	(void)halt;
}

static void
stress_detach(void *state)
{
	struct stress *s = state;

	openloop_free(s->openloop);
	checkpoint_free(s->cp);
	stress_plan_free(&s->plans);
	free(s->fail_streak);
	free(s);
}

struct stress_run *
stress_run_new(const struct config *cfg, unsigned n_workers)
{
	struct stress_run *r = xcalloc(1, sizeof(*r));

	r->cfg = cfg;
	r->n_workers = n_workers ? n_workers : 1;
	/* One checkpoint for all workers: a mailbox's sessions may live in
	 * several (a user= without %d is one mailbox for everyone). */
	if (cfg->checkpoint_secs > 0 && !cfg->no_tracking)
		r->cp_coord = cp_coord_new(r->n_workers);
	/* The gates of stress_ready (a checkpoint, the open loop) exist in
	 * every worker or in none (stress_attach). */
	bool gated = r->cp_coord != NULL || cfg->rate > 0;
	r->drv = (struct driver){
		.hooks = gated ? &stress_hooks : &stress_hooks_direct,
		.n_conns = stress_n_conns,
		.slot = stress_slot,
		.attach = stress_attach,
		.start = stress_start,
		.tick = stress_tick,
		.wake = stress_wake,
		.stop = stress_stop,
		.detach = stress_detach,
		.arg = r,
		.ramp = true,
	};
	return r;
}

void
stress_run_free(struct stress_run *r)
{
	if (r == NULL)
		return;
	cp_coord_free(r->cp_coord);
	free(r);
}

const struct driver *
stress_driver(struct stress_run *r)
{
	return &r->drv;
}
