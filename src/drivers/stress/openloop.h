/* openloop.h: --rate N.  Commands are due at fixed times (rate/workers per
 * worker, evenly spaced from the start), not when the previous reply came
 * back.  A due command goes to an idle logged-in connection; when none is
 * idle it waits, and its latency is still measured from the time it was
 * due, so a server that stalls is charged for every command that should
 * have gone out during the stall (no coordinated omission).  A command
 * sent more than 1 ms after it was due counts as a schedule miss. */
#ifndef IMAPSTRESS_OPENLOOP_H
#define IMAPSTRESS_OPENLOOP_H

#include <stdint.h>

struct worker;
struct conn;
struct stress_plans;

struct openloop;

/* Due commands are the plans' next (stress_plan_send_scheduled). */
struct openloop *openloop_new(struct worker *w, struct stress_plans *plans,
			      double rate_per_worker);
void openloop_free(struct openloop *o);		/* NULL is a no-op */

/* A logged-in connection has nothing in flight: it can take a command.
 * Due commands go out from the loop (deferred), not inside the caller's
 * callback, since they may go to other connections. */
void openloop_conn_idle(struct openloop *o, struct conn *c);
/* The connection went away (closed): forget it. */
void openloop_conn_gone(struct openloop *o, struct conn *c);

#endif
