/* stress.h: the stress mix, imaptest's behaviour, as the first driver of
 * the connection engine (conn.h).  It owns what the engine leaves to its
 * driver: which user a slot logs in as, the backoff after a failure, when
 * a slot is finished (drain accounting), and the gates on plan commands
 * (a checkpoint holding them, the open loop's schedule).  One driver per
 * worker thread; it knows its worker only through struct stress, which
 * the worker fills in, so the calls go one way (worker -> stress). */
#ifndef IMAPSTRESS_STRESS_H
#define IMAPSTRESS_STRESS_H

#include <stdbool.h>

#include "conn/conn.h"

struct checkpoint;
struct openloop;
struct userfile;

/* What the driver needs of the loop that runs its connections. */
struct stress {
	const struct config *cfg;
	const struct userfile *users;	/* userfile=, or NULL */
	unsigned worker_id, n_workers;	/* this worker owns slots id + k*n */
	unsigned *fail_streak;	/* per slot of this worker: failures in a row */
	struct checkpoint *cp;	/* checkpoint=, else NULL */
	struct openloop *openloop;	/* --rate, else NULL */
	const bool *draining;	/* the worker is stopping its slots */
	/* A login succeeded / a slot is finished for good (the worker's
	 * ramp and drain accounting). */
	void (*logged_in)(void *arg);
	void (*finished)(void *arg);
	void *arg;
};

/* The hooks; their argument is the struct stress. */
extern const struct conn_hooks stress_hooks;

/* Choose who slot c's next session logs in as (user= template with the
 * worker's share of the user range, or a userfile= line). */
void stress_pick_user(struct stress *s, struct conn *c);

#endif
