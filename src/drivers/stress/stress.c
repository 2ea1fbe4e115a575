/* stress.c: the stress driver's connection hooks (stress_int.h): who
 * logs in, the backoff, the gates; the plan's commands go out from the
 * ready hook (stress_plan.c).
 * Everything here runs in the worker's thread, inside the callbacks of
 * the connection it is about. */
#include <stddef.h>

#include "drivers/stress/checkpoint.h"
#include "config/config.h"
#include "conn/conn.h"
#include "drivers/stress/openloop.h"
#include "util/rng.h"
#include "run/driver.h"
#include "drivers/stress/stress_int.h"
#include "config/user_template.h"
#include "config/userfile.h"

/* Backoff after a failure: 20 ms doubling to 5 s, with jitter, so a dead
 * server is probed a few times a second, not hammered in a tight loop. */
#define BACKOFF_MIN_US 20000u
#define BACKOFF_MAX_US 5000000u

/* The worker's index of slot c (it owns slots id, id+W, id+2W, ...). */
static unsigned *
stress_streak(struct stress *s, const struct conn *c)
{
	return &s->fail_streak[conn_slot(c) / s->n_workers];
}

/* Pick a user: from userfile=, or a number for the user= template. */
void
stress_pick_user(struct stress *s, struct conn *c)
{
	const struct config *cfg = s->cfg;
	struct rng *rng = conn_rng(c);
	char user[256];

	const struct userfile *uf = s->users;
	if (uf != NULL) {
		const struct userfile_entry *e = &uf->e[rng_below(rng, uf->n)];
		conn_set_user(c, e->user, e->pass != NULL ? e->pass : cfg->pass);
		return;
	}
	unsigned span = cfg->users_max - cfg->users_min + 1;
	unsigned nw = s->n_workers, id = s->worker_id;
	unsigned user_no, domain_no;
	if (span >= nw && nw > 1) {
		/* Users are partitioned: worker k takes users k, k+W, ...
		 * so one mailbox's sessions all live in one worker and its
		 * model needs no locks. */
		unsigned mine = (span - id + nw - 1) / nw;
		user_no = cfg->users_min + id + nw * rng_below(rng, mine);
	} else {
		user_no = cfg->users_min + rng_below(rng, span);
	}
	domain_no = cfg->domains_min +
	    rng_below(rng, cfg->domains_max - cfg->domains_min + 1);
	user_template_fill(cfg->user_template, user_no, domain_no, user,
			   sizeof(user));
	conn_set_user(c, user, cfg->pass);
}

/* Time to wait before the next attempt after `streak` failures in a row. */
static uint64_t
stress_backoff_us(struct conn *c, unsigned streak)
{
	uint64_t d;
	unsigned s = streak > 12 ? 12 : streak;

	if (s == 0)
		return 0;
	d = (uint64_t)BACKOFF_MIN_US << (s - 1);
	if (d > BACKOFF_MAX_US)
		d = BACKOFF_MAX_US;
	return d / 2 + rng_below(conn_rng(c), (uint32_t)(d / 2 + 1));
}

static void
stress_logged_in(void *arg, struct conn *c)
{
	struct stress *s = arg;

	*stress_streak(s, c) = 0;
	stress_plan_logged_in(&s->plans, c);
	worker_driver_logged_in(s->w);
}

static void
stress_ready(void *arg, struct conn *c)
{
	struct stress *s = arg;

	if (s->cp != NULL && checkpoint_holding(s->cp)) {
		/* A checkpoint is draining: this connection may be the last
		 * it waits for (a connection in a DELAY pause is seen from
		 * the tick, stress_driver.c). */
		checkpoint_progress(s->cp);
		return;
	}
	if (s->openloop != NULL) {
		/* Open loop: commands go out when the schedule says. */
		if (conn_in_flight(c) == 0)
			openloop_conn_idle(s->openloop, c);
		return;
	}
	stress_plan_send(&s->plans, c);
}

static void
stress_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	struct stress *s = arg;
	unsigned *streak = stress_streak(s, c);

	stress_plan_closed(&s->plans, c);
	if (s->openloop != NULL)
		openloop_conn_gone(s->openloop, c);
	if (checkpoint_holding(s->cp))
		checkpoint_progress(s->cp);
	if (worker_draining(s->w) || end == CONN_END_STOPPED) {
		conn_finish(c);
		worker_driver_conn_finished(s->w);
		return;
	}
	if (end == CONN_END_LOGOUT || end == CONN_END_PLANNED) {
		/* After a LOGOUT (or imaptest's DISCONNECT state) the slot
		 * logs in again as a new user. */
		stress_pick_user(s, c);
		*streak = 0;
		conn_restart(c, 0);
		return;
	}
	/* The server dropped us: the same user reconnects, after a pause
	 * that grows while failures repeat. */
	(*streak)++;
	conn_restart(c, stress_backoff_us(c, *streak));
}

const struct conn_hooks stress_hooks = {
	.logged_in = stress_logged_in,
	.ready = stress_ready,
	.closed = stress_closed,
};

/* Without gates the ready hook is the plan's send itself: one file fewer
 * between a reply and the next command (issue 28). */
_Static_assert(offsetof(struct stress, plans) == 0,
	       "a struct stress points to its plans");
const struct conn_hooks stress_hooks_direct = {
	.logged_in = stress_logged_in,
	.ready = stress_plan_ready,
	.closed = stress_closed,
};
