/* stress_int.h: the inside of the stress driver, for src/drivers/stress/
 * only.  It owns what the engine leaves to its driver: which user a slot
 * logs in as, the backoff after a failure, when a slot is finished (drain
 * accounting), the gates on plan commands (a checkpoint holding them,
 * the open loop's schedule) and the plan itself (stress_plan.h).  One struct stress per worker thread; it
 * knows its worker only through run/driver.h. */
#ifndef IMAPSTRESS_STRESS_INT_H
#define IMAPSTRESS_STRESS_INT_H

#include <stdbool.h>

#include "conn/conn.h"
#include "drivers/stress/stress_plan.h"

struct checkpoint;
struct openloop;
struct userfile;
struct worker;

/* One worker's share of the stress mix.  The plans come first: the
 * ready hook of a run without checkpoint or open loop is the plan's own
 * (stress_plan_ready), and its argument, this struct, points to them. */
struct stress {
	struct stress_plans plans;	/* each connection's walk */
	const struct config *cfg;
	const struct userfile *users;	/* userfile=, or NULL */
	unsigned worker_id, n_workers;	/* this worker owns slots id + k*n */
	unsigned *fail_streak;	/* per slot of this worker: failures in a row */
	struct checkpoint *cp;	/* checkpoint=, else NULL */
	struct openloop *openloop;	/* --rate, else NULL */
	struct worker *w;	/* reached through run/driver.h */
};

/* The hooks; their argument is the struct stress.  stress_hooks_direct:
 * the same but for the ready hook, the plan's batch without the gates
 * (no checkpoint, no open loop in the run). */
extern const struct conn_hooks stress_hooks;
extern const struct conn_hooks stress_hooks_direct;

/* Choose who slot c's next session logs in as (user= template with the
 * worker's share of the user range, or a userfile= line). */
void stress_pick_user(struct stress *s, struct conn *c);

#endif
