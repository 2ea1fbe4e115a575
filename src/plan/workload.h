/* workload.h: which command a connection sends next.  This is imaptest's
 * "plan": a queue of upcoming states filled by walking the state list in
 * order (or at random with `random`), each state taken with its percent
 * chance and repeated with its repeat chance, and the rules that decide
 * what may be pipelined behind what.  Pure: no sockets, no clocks. */
#ifndef IMAPSTRESS_WORKLOAD_H
#define IMAPSTRESS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "plan/ops.h"
#include "util/rng.h"

/* imaptest sizes its plan by its state count; a MULTIAPPEND carries as
 * many messages as there are APPENDs at the head of the plan, which is
 * why its APPENDs carry ~28 messages when only APPEND is enabled. */
#define PLAN_LEN OP_COUNT

/* The in-order walk's jumps over states at 0%, which draw nothing and
 * are never taken: from each state, the next one the walk would take a
 * chance on (PLAN_WALK_NONE: none) and how many states that step passes,
 * the draws imaptest's walk counts towards its limit.  Built from one
 * config's percentages, read-only after. */
#define PLAN_WALK_NONE OP_COUNT
struct plan_walk {
	uint8_t next[OP_COUNT];
	uint8_t steps[OP_COUNT];
};

struct plan {
	uint8_t q[PLAN_LEN];
	unsigned n;
	enum op last;		/* the last state taken from the plan */
	/* plan_update builds walk from the config it is first given and
	 * again whenever it is given another one; plan_init forgets it. */
	const struct config *walk_of;
	struct plan_walk walk;
};

/* What is in flight, as the pipelining rules need it. */
struct plan_pending {
	unsigned flags;		/* OR of op_table[op].flags in flight */
	bool statechange;	/* a state-changing command is in flight */
	enum lstate new_lstate;	/* login state after the pending ones */
	const uint8_t *ops;	/* the ops in flight */
	unsigned n_ops;
};

void plan_init(struct plan *p);

/* A new session on the same connection: an empty plan, as plan_init, but
 * the walk built for the connection's config is kept. */
void plan_restart(struct plan *p);

/* The session logged in with `op` (LOGIN or AUTHENTICATE), a step of the
 * engine, not of the plan: the walk goes on from that state. */
void plan_logged_in_as(struct plan *p, enum op op);

/* The walk's jumps for cfg's percentages (what plan_update uses). */
void plan_walk_build(struct plan_walk *w, const struct config *cfg);

/* Fill the plan (imaptest's client_update_plan) and return its head, the
 * state that would be sent next.  cur is the session's current state. */
enum op plan_update(struct plan *p, const struct config *cfg, struct rng *r,
		    enum lstate cur, const struct plan_pending *pend);

/* Take the head of the plan. */
enum op plan_take(struct plan *p);

/* May the head state h be sent now, behind what is pending? (imaptest's
 * client_plan_send_more_commands checks.) */
bool plan_may_send(enum op h, enum lstate cur, const struct plan_pending *pend);

/* The login state a successful `op` leads to. */
enum lstate plan_target_lstate(enum op op);

/* imaptest's message_count_threshold: APPEND stops when the mailbox holds
 * this many, and DELETE grows past it + 5. */
unsigned plan_msgs_threshold(const struct config *cfg);

/* Is there any state a logged-in session could run?  (Guards against a
 * plan that would spin for ever, which imaptest does.) */
bool plan_has_work(const struct config *cfg);

#endif
