/* stress_plan.h: imaptest's plan on one worker's connections, the stress
 * mix's command choice.  Each connection walks the states of the config
 * (plan/workload.c) and pipelines what the walk allows, as imaptest does;
 * each state's command is built here (stress_ops.c and its neighbours)
 * and goes out through the engine's one command call (conn_cmd_send),
 * whose done callback brings the reply back to the plan (stress_reply.c).
 * Everything runs inside the connection's hooks, in the worker's thread;
 * no worker is needed (a test gives the pieces by hand). */
#ifndef IMAPSTRESS_STRESS_PLAN_H
#define IMAPSTRESS_STRESS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "conn/conn.h"
#include "plan/workload.h"

struct config;
struct shared;
struct stats;
struct stress_plans;

/* A command's done argument: whose plan, which state it was. */
struct stress_ref {
	struct stress_plans *sp;
	enum op op;
};

struct stress_plans {
	const struct config *cfg;
	const struct shared *sh;	/* the pool, live warnings, workers */
	struct stats *stats;		/* DELAY and DISCONNECT are counted here */
	unsigned worker_id, n_workers;	/* this worker owns slots id + k*n */
	struct plan *plan;		/* per connection: slot / n_workers */
	unsigned n_plans;
	struct stress_ref ref[OP_COUNT];
	int disconnect_pct;		/* cfg's DISCONNECT chance, at hand */
	size_t box_len;			/* strlen(cfg->box): every APPEND names it */
};

/* The plans of n_conns connections (slots worker_id + k * n_workers). */
void stress_plan_init(struct stress_plans *sp, const struct config *cfg,
		      const struct shared *sh, struct stats *stats,
		      unsigned worker_id, unsigned n_conns);
void stress_plan_free(struct stress_plans *sp);
struct plan *stress_plan_of(struct stress_plans *sp, const struct conn *c);

/* From the hooks: a session logged in (the walk goes on from its login
 * state; imaptest's DISCONNECT chance after the LOGIN's OK), a session
 * ended (the next one plans afresh). */
void stress_plan_logged_in(struct stress_plans *sp, struct conn *c);
void stress_plan_closed(struct stress_plans *sp, struct conn *c);
/* The connection is free: send what the plan allows, up to the pipeline,
 * as one batch.  The open loop's: one command (or MULTIAPPEND) on a
 * connection with nothing in flight, timed from due; false when it had
 * nothing it could send. */
void stress_plan_send(struct stress_plans *sp, struct conn *c);
/* stress_plan_send as a ready hook (conn.h), arg a struct whose first
 * member is the struct stress_plans (the driver's struct stress). */
void stress_plan_ready(void *arg, struct conn *c);
bool stress_plan_send_scheduled(struct stress_plans *sp, struct conn *c,
				uint64_t due);

/* Each state's builder (the table in stress_ops.c): sends its command,
 * or returns false when it was skipped (nothing to do in this state).
 * p, the connection's plan, and pend, what it has in flight, are
 * MULTIAPPEND's (stress_append takes more APPENDs from the walk). */
typedef bool (*stress_builder)(struct stress_plans *sp, struct conn *c,
			       enum op op, struct plan *p,
			       const struct plan_pending *pend);
extern const stress_builder stress_builders[OP_COUNT];

/* A state the server lacks the capability `cap` for: said once a run. */
void stress_op_unsupported(struct stress_plans *sp, enum op op,
			   const char *cap);
/* APPEND, MULTIAPPEND (stress_append.c: p, the connection's plan, may
 * give more messages); STORE and DELETE's flag changes (stress_store.c). */
bool stress_append(struct stress_plans *sp, struct conn *c, enum op op,
		   struct plan *p, const struct plan_pending *pend);
bool stress_store(struct stress_plans *sp, struct conn *c, enum op op);

/* The done callback of every plan command, arg a struct stress_ref: the
 * plan's habits on a reply (stress_reply.c; stress_reply_send in
 * stress_ops.h sends with it). */
void stress_reply(void *arg, struct conn *c, enum conn_reply st,
		  const char *text, size_t len);
/* imaptest's DELAY (send nothing for a random while up to 1 s) and
 * DISCONNECT (drop the session), counted as done when they start
 * (stress_delay.c). */
void stress_delay(struct stress_plans *sp, struct conn *c);
void stress_disconnect(struct stress_plans *sp, struct conn *c);

#endif
