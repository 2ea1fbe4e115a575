/* driver.h: THE contract between a worker and what its connections do.
 * Every mode is a driver: the stress mix (src/drivers/stress/), the
 * profile and LoadSim users (src/users/), `imapstress init`
 * (src/drivers/init/), the scripted tests (src/drivers/script/).  A
 * worker always has one; it
 * makes the connections the driver asks for, runs the loop, the 100 ms
 * tick and the ramp, and calls the driver only through this table, so
 * the run folder never names a driver's code.  The driver reaches the
 * worker only through the functions below, and its connections through
 * the hooks (conn.h), which the worker hands to each connection.
 *
 * Lifecycle, all in the worker's thread except attach and detach (the
 * main thread's, before the thread starts and after it is joined):
 *   attach -> start -> (tick | wake)* -> stop -> [settle] -> busy* ->
 *   detach. */
#ifndef IMAPSTRESS_DRIVER_H
#define IMAPSTRESS_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

struct conn;
struct conn_hooks;
struct event_base;
struct shared;
struct stats;
struct worker;

struct driver {
	const struct conn_hooks *hooks;	/* every connection's */
	/* Connections of worker `id` and the global slot of its i-th. */
	unsigned (*n_conns)(void *arg, unsigned id);
	unsigned (*slot)(void *arg, unsigned id, unsigned i);
	/* The worker's connections exist: its state, the hooks' argument. */
	void *(*attach)(void *arg, struct worker *w);
	void (*start)(void *state);		/* the thread runs */
	/* Optional (NULL: nothing to do).  tick: the worker's 100 ms tick;
	 * wake: another thread wrote the worker's wake-up pipe
	 * (worker_wake). */
	void (*tick)(void *state, uint64_t now);
	void (*wake)(void *state);
	void (*stop)(void *state, bool halt);	/* the run is ending */
	/* Draining: work left besides connections (NULL: none). */
	bool (*busy)(void *state);
	/* Optional, right after a stop that drains: true holds the drain
	 * (the connections stay as they are) until the driver calls
	 * worker_driver_settled, which it must within a bound of its own;
	 * a halt ends the hold at once.  The profile users wait so for
	 * the push of what was delivered last (users_settle.c). */
	bool (*settle)(void *state);
	void (*detach)(void *state);		/* before the worker is freed */
	void *arg;
	/* The worker starts the connections itself, imaptest's way (100 at
	 * once, then 3 after each login: worker_driver_logged_in) or at
	 * --connect-rate; false: the driver starts them when it wants. */
	bool ramp;
	/* The driver's work ends (init: its users are done): once every
	 * connection has finished and busy says nothing is left, the worker
	 * is done without being stopped, and a run whose workers are all
	 * done ends (run.c).  false: only a stop ends the worker. */
	bool finite;
};

/* What a driver may ask of its worker. */
unsigned worker_id(const struct worker *w);
const struct shared *worker_shared(const struct worker *w);
struct event_base *worker_base(const struct worker *w);
struct stats *worker_stats(const struct worker *w);
unsigned worker_n_conns(const struct worker *w);
struct conn *worker_conn(const struct worker *w, unsigned i);
/* The run is ending: the worker is stopping its connections. */
bool worker_draining(const struct worker *w);
/* From any thread: have the worker call the driver's wake. */
void worker_wake(struct worker *w);
/* A connection logged in (the ramp starts more, for a ramping driver). */
void worker_driver_logged_in(struct worker *w);
/* One of the driver's connections is done for good. */
void worker_driver_conn_finished(struct worker *w);
/* The driver's other work (busy) may have ended. */
void worker_driver_idle(struct worker *w);
/* The settle is over: the drain goes on (its connections drained). */
void worker_driver_settled(struct worker *w);

#endif
