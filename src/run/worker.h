/* worker.h: one thread, one event_base, its share of the connections and
 * its own stats shard.  The main thread only starts it, asks it to stop
 * (through a pipe, so event bases need no locking) and reads the copies
 * of its shard it publishes each tick (pub). */
#ifndef IMAPSTRESS_WORKER_H
#define IMAPSTRESS_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config/config.h"
#include "conn/conn.h"
#include "conn/shared.h"
#include "stats/stats.h"
#include "stats/stats_pub.h"
#include "run/driver.h"

struct event_base;
struct event;
struct worker;

/* What the workers share that connections never see (setup.c builds it
 * for main). */
struct worker_group {
	int latency_log_fd;		/* --latency-log, else -1: the stats
					 * shards write it */
};

enum worker_stop {
	WORKER_RUN,
	WORKER_DRAIN,		/* finish in-flight commands, log out */
	WORKER_HALT		/* close everything now */
};

struct worker {
	unsigned id;
	const struct shared *sh;
	const struct config *cfg;
	struct event_base *base;
	struct stats *stats;	/* live: written and read by this thread */
	struct stats_pub *pub;	/* its copies, for the main thread */

	struct conn_env env;	/* what its connections are given */
	struct conn **conns;	/* the slots this worker owns */
	unsigned n_conns;
	unsigned n_started;	/* slots started so far (ramp-up) */
	unsigned n_active;	/* slots not finished */

	pthread_t thread;
	int wake_fd[2];		/* main -> worker: "look at stop" */
	struct event *wake_ev, *tick_ev, *ramp_ev;
	_Atomic int stop;	/* enum worker_stop, set by main */
	int stop_applied;	/* the level worker_apply_stop acted on */
	_Atomic bool done;	/* set by the worker when it has finished */
	/* worker -> main: "the histograms you asked for are published" */
	pthread_mutex_t pub_mu;
	pthread_cond_t pub_cv;	/* on CLOCK_MONOTONIC */
	bool draining;
	/* A drain held: the driver's settle said wait (driver.h), its
	 * connections not drained yet. */
	bool settling;

	uint64_t t_last_tick;
	/* The tick's walk over the connections (worker_tick_conns): where
	 * the next tick starts, and what this round has seen so far. */
	unsigned tick_next;
	struct conn_gauges tick_round;
	uint64_t t_last_pub;	/* the counters' last copy (worker_tick_cb) */
	double ramp_tokens;	/* --connect-rate token bucket */
	uint64_t t_last_ramp;
	uint64_t unfinished;	/* in flight at a hard stop (read after join) */
	uint32_t msg_seq;	/* Message-ID counter */
	struct guard *guard;	/* foreign-mail memory (NULL: allowed) */
	struct store_map *stores;	/* mailbox models; NULL with no_tracking */
	char *rbuf;		/* CONN_MAX_READ octets: plain sockets read here */
	const struct driver *drv;	/* always one (driver.h) */
	void *drv_state;
};

/* Worker `id` of a run, for driver `drv` (which outlives it). */
struct worker *worker_new(unsigned id, const struct shared *sh,
			  const struct worker_group *g,
			  const struct driver *drv);
void worker_free(struct worker *w);		/* NULL is a no-op */
int worker_start(struct worker *w);		/* spawn the thread */
void worker_request_stop(struct worker *w, enum worker_stop how);
void worker_join(struct worker *w);
/* Main: ask for a copy of the counters with `what` of the histograms
 * (stats_pub_ask) and wake the worker, which makes it between two of its
 * callbacks; then wait for it until deadline_us (clock_us()), or until
 * the worker has ended.  True when the copy is there to take. */
void worker_want_hists(struct worker *w, enum stats_pub_hists what);
bool worker_wait_hists(struct worker *w, uint64_t deadline_us);
/* Main, after worker_join: the histograms' last copy, exact, made as the
 * worker would (take what it had answered first). */
void worker_last_hists(struct worker *w, enum stats_pub_hists what);

#endif
