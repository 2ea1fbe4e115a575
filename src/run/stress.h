/* stress.h: the stress mix, imaptest's behaviour, as the first driver of
 * the connection engine (conn.h).  It owns what the engine leaves to its
 * driver: which user a slot logs in as, the backoff after a failure, when
 * a slot is finished (drain accounting), and the gates on plan commands
 * (a checkpoint holding them, the open loop's schedule).  Its state is
 * the worker's: one driver per worker thread. */
#ifndef IMAPSTRESS_STRESS_H
#define IMAPSTRESS_STRESS_H

#include "conn.h"

struct worker;

/* The hooks; their argument is the struct worker. */
extern const struct conn_hooks stress_hooks;

/* Choose who slot c's next session logs in as (user= template with the
 * worker's share of the user range, or a userfile= line). */
void stress_pick_user(struct worker *w, struct conn *c);

#endif
