/* stress_delay.c: imaptest's DELAY and DISCONNECT.  They are chances the
 * plan takes after sending and after a reply, not states of the walk
 * (they come after LOGOUT, where the walk wraps); the engine holds the
 * connection (conn_pause, conn_disconnect), the plan counts them. */
#include "drivers/stress/stress_plan.h"
#include "util/rng.h"

#define DELAY_MAX_MS 1000

void
stress_delay(struct stress_plans *sp, struct conn *c)
{
	uint32_t ms = rng_below(conn_rng(c), DELAY_MAX_MS);

	/* imaptest counts a DELAY as done when it starts. */
	stats_cmd(sp->stats, OP_DELAY, STATS_OK, 0);
	conn_pause(c, (uint64_t)ms * 1000);
}

/* The timer closes the session outside any callback, and the slot logs
 * in again (the closed hook hears CONN_END_PLANNED). */
void
stress_disconnect(struct stress_plans *sp, struct conn *c)
{
	stats_cmd(sp->stats, OP_DISCONNECT, STATS_OK, 0);
	conn_disconnect(c);
}
