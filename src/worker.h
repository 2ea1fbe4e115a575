/* worker.h: one thread, one event_base, its share of the connections and
 * its own stats shard.  The main thread only starts it, asks it to stop
 * (through a pipe, so event bases need no locking) and reads its shard. */
#ifndef IMAPSTRESS_WORKER_H
#define IMAPSTRESS_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "msg.h"
#include "stats.h"

struct conn;
struct event_base;
struct event;
struct tls_ctx;
struct cp_coord;

/* What the main thread builds once and every worker shares read-only. */
struct shared {
	const struct config *cfg;
	const struct msg_pool *pool;
	struct tls_ctx *tls;		/* NULL without TLS */
	struct sockaddr_storage addrs[16];	/* resolved server addresses */
	socklen_t addr_lens[16];
	unsigned n_addrs;
	struct sockaddr_storage sources[64];	/* --source addresses */
	socklen_t source_lens[64];
	unsigned n_sources;
	const struct userfile *users;	/* userfile=, or NULL */
	uint64_t run_id;		/* for Message-IDs */
	_Atomic unsigned err_logged[ERR_COUNT];	/* full error lines printed */
	_Atomic bool tls_verify_failed;	/* a certificate was refused */
	_Atomic unsigned warned_ops;	/* bit per op: "not advertised" said */
	_Atomic bool warned_qresync;	/* "runs without QRESYNC" said */
	_Atomic bool login_disabled;	/* LOGINDISABLED in clear: not sent */
	_Atomic unsigned rawlog_failures;	/* rawlog files that failed */
	_Atomic unsigned stalls_said;	/* "stalled for" lines, shown or not */
	unsigned n_workers;
	struct cp_coord *cp_coord;	/* checkpoint=: the workers' meeting
					 * point (checkpoint.c), else NULL */
	int latency_log_fd;		/* --latency-log (only when cfg has it) */
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
	struct stats *stats;

	struct conn **conns;	/* the slots this worker owns */
	unsigned n_conns;
	unsigned n_started;	/* slots started so far (ramp-up) */
	unsigned n_active;	/* slots not finished */

	pthread_t thread;
	int wake_fd[2];		/* main -> worker: "look at stop" */
	struct event *wake_ev, *tick_ev, *ramp_ev;
	_Atomic int stop;	/* enum worker_stop, set by main */
	_Atomic bool done;	/* set by the worker when it has finished */
	bool draining;

	uint64_t t_last_tick;
	double ramp_tokens;	/* --connect-rate token bucket */
	uint64_t t_last_ramp;
	uint64_t unfinished;	/* in flight at a hard stop (read after join) */
	uint32_t msg_seq;	/* Message-ID counter */
	struct openloop *openloop;	/* --rate, else NULL */
	struct store_map *stores;	/* mailbox models; NULL with no_tracking */
	struct checkpoint *cp;		/* checkpoint=, else NULL */
	char *rbuf;		/* CONN_MAX_READ octets: plain sockets read here */
};

/* Build a worker owning global client slots {id, id+W, id+2W, ...}. */
struct worker *worker_new(unsigned id, const struct shared *sh);
void worker_free(struct worker *w);		/* NULL is a no-op */
int worker_start(struct worker *w);		/* spawn the thread */
void worker_request_stop(struct worker *w, enum worker_stop how);
void worker_join(struct worker *w);

/* Called by connections. */
void worker_conn_logged_in(struct worker *w);
void worker_conn_finished(struct worker *w);

#endif
