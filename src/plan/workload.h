/* workload.h: which command a connection sends next.  This is imaptest's
 * "plan": a queue of upcoming states filled by walking the state list in
 * order (or at random with `random`), each state taken with its percent
 * chance and repeated with its repeat chance, and the rules that decide
 * what may be pipelined behind what.  Pure: no sockets, no clocks. */
#ifndef IMAPSTRESS_WORKLOAD_H
#define IMAPSTRESS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "ops.h"
#include "rng.h"

/* The IMAP session state, ordered like enum op_need. */
enum lstate {
	LSTATE_NONAUTH = OP_NEED_NONAUTH,
	LSTATE_AUTH = OP_NEED_AUTH,
	LSTATE_SELECTED = OP_NEED_SELECTED
};

/* imaptest sizes its plan by its state count; a MULTIAPPEND carries as
 * many messages as there are APPENDs at the head of the plan, which is
 * why its APPENDs carry ~28 messages when only APPEND is enabled. */
#define PLAN_LEN OP_COUNT

struct plan {
	uint8_t q[PLAN_LEN];
	unsigned n;
	enum op last;		/* the last state taken from the plan */
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
