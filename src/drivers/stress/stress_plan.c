/* stress_plan.c: see stress_plan.h.  The batch: what the walk allows
 * behind what is in flight, until the pipeline is full, sent under one
 * latency clock (conn_batch_begin). */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "conn/shared.h"
#include "drivers/stress/stress_plan.h"
#include "util/rng.h"
#include "util/xmalloc.h"

/* A plan that keeps choosing commands that cannot run (say, FETCH in an
 * empty mailbox) gives up after this many and retries a little later. */
#define SKIP_LIMIT 64
#define RETRY_US 10000

void
stress_plan_init(struct stress_plans *sp, const struct config *cfg,
		 const struct shared *sh, struct stats *stats,
		 unsigned worker_id, unsigned n_conns)
{
	*sp = (struct stress_plans){
		.cfg = cfg,
		.sh = sh,
		.stats = stats,
		.worker_id = worker_id,
		.n_workers = sh->n_workers ? sh->n_workers : 1,
		.plan = xcalloc(n_conns ? n_conns : 1, sizeof(*sp->plan)),
		.n_plans = n_conns,
		.disconnect_pct = cfg->states[OP_DISCONNECT].prob,
		.box_len = cfg->box != NULL ? strlen(cfg->box) : 0,
	};
	for (unsigned i = 0; i < n_conns; i++)
		plan_init(&sp->plan[i]);
	for (unsigned op = 0; op < OP_COUNT; op++)
		sp->ref[op] = (struct stress_ref){ sp, (enum op)op };
}

void
stress_plan_free(struct stress_plans *sp)
{
	free(sp->plan);
	sp->plan = NULL;
}

struct plan *
stress_plan_of(struct stress_plans *sp, const struct conn *c)
{
	return &sp->plan[conn_slot(c) / sp->n_workers];
}

void
stress_plan_logged_in(struct stress_plans *sp, struct conn *c)
{
	const struct config *cfg = sp->cfg;

	plan_logged_in_as(stress_plan_of(sp, c), conn_login_op(c));
	/* The LOGIN's OK is a plan command's OK to imaptest. */
	if (cfg->states[OP_DISCONNECT].prob > 0 && conn_may_disconnect(c) &&
	    rng_pct(conn_rng(c), cfg->states[OP_DISCONNECT].prob))
		stress_disconnect(sp, c);
}

void
stress_plan_closed(struct stress_plans *sp, struct conn *c)
{
	plan_restart(stress_plan_of(sp, c));	/* keeps the walk built */
}

/* One more command of state op in flight, as the pipelining rules
 * (plan_may_send) see what is pending. */
static void
pending_add(struct plan_pending *p, uint8_t *ops, enum op op)
{
	unsigned fl = op_table[op].flags;

	if (fl & OPF_STATECHANGE) {
		p->statechange = true;
		p->new_lstate = plan_target_lstate(op);
	}
	p->flags |= fl;
	ops[p->n_ops++] = (uint8_t)op;
}

/* What the driver has in flight on c (the engine's set-up commands left
 * out), from scratch. */
static void
pending(struct conn *c, struct plan_pending *p, uint8_t *ops)
{
	uint8_t now[CONN_MAX_INFLIGHT];
	unsigned n = conn_inflight_ops(c, 0, now);

	p->flags = 0;
	p->statechange = false;
	p->new_lstate = conn_lstate(c);
	p->n_ops = 0;
	p->ops = ops;
	for (unsigned i = 0; i < n; i++)
		pending_add(p, ops, (enum op)now[i]);
}

/* Put op back at the head of the plan. */
static void
plan_push_front(struct plan *p, enum op op)
{
	memmove(p->q + 1, p->q, p->n);
	p->q[0] = (uint8_t)op;
	p->n++;
}

/* Each state's command; false when it was skipped (e.g. FETCH in an
 * empty mailbox).  A look-up in the builders' table, here beside the
 * batch, which asks once per state it walks, sent or skipped: the
 * builder is the one call between the batch and the engine (callgrind:
 * two calls and a switch before, 50 instructions of a pipelined FETCH;
 * and a file fewer between a reply and the next command). */
static inline bool
stress_op_send(struct stress_plans *sp, struct conn *c, enum op op,
	       struct plan *p, const struct plan_pending *pend)
{
	if (op_table[op].need == OP_NEED_SELECTED &&
	    (conn_lstate(c) != LSTATE_SELECTED || conn_exists(c) == 0))
		return false;	/* nothing to work on */
	return stress_builders[op](sp, c, op, p, pend);
}

static unsigned
stress_plan_batch(struct stress_plans *sp, struct conn *c, unsigned max)
{
	const struct config *cfg = sp->cfg;
	struct plan *p = stress_plan_of(sp, c);
	struct rng *rng = conn_rng(c);
	uint8_t ops[CONN_MAX_INFLIGHT];
	struct plan_pending pend;
	unsigned skips = 0, sent = 0;
	/* What is in flight: from the engine once per batch, then what the
	 * batch adds (no reply is read meanwhile), not a walk over every
	 * command in flight per command. */
	enum lstate cur = conn_lstate(c);
	bool have = false;
	/* Only this batch's commands change it (asked once per command). */
	unsigned n_fl = conn_in_flight(c);

	while (conn_can_pipeline(c, max)) {
		if (!have)
			pending(c, &pend, ops);
		have = true;
		enum op head = plan_update(p, cfg, rng, cur, &pend);
		if (!plan_may_send(head, cur, &pend))
			break;
		enum op op = plan_take(p);
		bool names = op == OP_MCREATE || op == OP_MDELETE ||
		    op == OP_MRENAME || op == OP_MSUBS;
		if (((op == OP_IDLE || op == OP_DISCONNECT || op == OP_COMPRESS) &&
		     n_fl > 0) || (names && conn_sep_pending(c))) {
			/* These need the connection to themselves. */
			plan_push_front(p, op);
			break;
		}
		if (op == OP_LOGOUT) {
			if (n_fl > 0) {
				/* LOGOUT goes last: put it back. */
				p->q[p->n++] = OP_LOGOUT;
				break;
			}
			(void)conn_logout(c, stress_reply, &sp->ref[OP_LOGOUT]);
			return sent + 1;
		}
		bool went = stress_op_send(sp, c, op, p, &pend);
		unsigned now = conn_in_flight(c);
		bool added = now > n_fl;
		n_fl = now;
		if (went) {
			/* An IDLE, a DISCONNECT, a COMPRESS, a synchronizing
			 * literal or a DELAY ends the batch (the loop's
			 * conn_can_pipeline). */
			sent++;
			if (added)
				pending_add(&pend, ops, op);
			continue;
		}
		if (++skips >= SKIP_LIMIT) {
			if (n_fl == 0)
				conn_pause(c, RETRY_US);
			break;
		}
	}
	if (sent > 0 && !conn_paused(c) && conn_lstate(c) != LSTATE_NONAUTH &&
	    rng_pct(rng, cfg->states[OP_DELAY].prob))
		stress_delay(sp, c);
	return sent;
}

void
stress_plan_send(struct stress_plans *sp, struct conn *c)
{
	const struct config *cfg = sp->cfg;
	unsigned max = cfg->no_pipelining ? 1 : cfg->pipeline_max;

	if (max > CONN_MAX_INFLIGHT - 2)
		max = CONN_MAX_INFLIGHT - 2;
	conn_batch_begin(c, 0);
	(void)stress_plan_batch(sp, c, max);
	conn_batch_end(c, 0);
}

void
stress_plan_ready(void *arg, struct conn *c)
{
	stress_plan_send(arg, c);
}

bool
stress_plan_send_scheduled(struct stress_plans *sp, struct conn *c,
			   uint64_t due)
{
	if (!conn_can_command(c) || conn_in_flight(c) > 0)
		return false;
	conn_batch_begin(c, due);
	unsigned n = stress_plan_batch(sp, c, 1);
	conn_batch_end(c, due);
	return n > 0;
}
