/* workload.c: imaptest's plan, reimplemented from its documented
 * behaviour.  See workload.h. */
#include "plan/workload.h"

/* A walk that finds nothing to do gives up after this many draws and
 * plans LOGOUT instead of spinning (imaptest would hang). */
#define PLAN_MAX_DRAWS 10000

void
plan_restart(struct plan *p)
{
	p->n = 0;
	p->last = OP_LOGIN;
}

void
plan_logged_in_as(struct plan *p, enum op op)
{
	p->last = op;
}

void
plan_init(struct plan *p)
{
	plan_restart(p);
	p->walk_of = NULL;
}

enum lstate
plan_target_lstate(enum op op)
{
	switch (op) {
	case OP_LOGIN:
	case OP_AUTHENTICATE:
		return LSTATE_AUTH;
	case OP_SELECT:
		return LSTATE_SELECTED;
	default:
		return LSTATE_NONAUTH;	/* LOGOUT */
	}
}

unsigned
plan_msgs_threshold(const struct config *cfg)
{
	return cfg->msgs - cfg->msgs / 8;
}

bool
plan_has_work(const struct config *cfg)
{
	for (int i = OP_LOGIN + 1; i <= OP_LOGOUT; i++) {
		/* A state that needs a selected mailbox can only run when
		 * SELECT can. */
		if (op_table[i].need == OP_NEED_SELECTED &&
		    cfg->states[OP_SELECT].prob == 0)
			continue;
		if (cfg->states[i].prob > 0)
			return true;
	}
	return false;
}

static bool
is_login(enum op op)
{
	return op == OP_LOGIN || op == OP_AUTHENTICATE;
}

/* The in-order walk's step: LOGIN + 1 .. LOGOUT, wrapping (a state past
 * LOGOUT, never planned, also goes back to the start). */
static enum op
walk_succ(enum op state)
{
	return state + 1 <= OP_LOGOUT ? (enum op)(state + 1)
				      : (enum op)(OP_LOGIN + 1);
}

void
plan_walk_build(struct plan_walk *w, const struct config *cfg)
{
	for (int s = 0; s < OP_COUNT; s++) {
		enum op t = walk_succ((enum op)s);
		unsigned steps = 1;
		/* The cycle has fewer than OP_COUNT states: a walk that long
		 * has been round it and found none above 0%. */
		while (cfg->states[t].prob <= 0 && steps < OP_COUNT) {
			t = walk_succ(t);
			steps++;
		}
		w->next[s] = cfg->states[t].prob > 0 ? (uint8_t)t
						     : PLAN_WALK_NONE;
		w->steps[s] = (uint8_t)steps;
	}
}

/* imaptest's client_get_next_state: the next state after `state` whose
 * percent draw succeeds, wrapping from LOGOUT back to the start.  In
 * order, the states at 0% are jumped over (rng_pct draws nothing for
 * them) but still counted towards PLAN_MAX_DRAWS, so the draws, the
 * choices and the give-up point are the step-by-step walk's. */
static enum op
next_state(const struct plan_walk *w, const struct config *cfg,
	   struct rng *r, enum op state)
{
	if (!cfg->random_states) {
		for (unsigned passed = 0;;) {
			passed += w->steps[state];
			state = (enum op)w->next[state];
			if (state == PLAN_WALK_NONE || passed > PLAN_MAX_DRAWS)
				return OP_LOGOUT;
			if (rng_pct(r, cfg->states[state].prob))
				return state;
		}
	}
	for (int draws = 0; draws < PLAN_MAX_DRAWS; draws++) {
		state = (enum op)(OP_LIST + rng_below(r, OP_LOGOUT - OP_LIST + 1));
		if (rng_pct(r, cfg->states[state].prob))
			return state;
	}
	return OP_LOGOUT;
}

enum op
plan_update(struct plan *p, const struct config *cfg, struct rng *r,
	    enum lstate cur, const struct plan_pending *pend)
{
	enum op state = p->n > 0 ? (enum op)p->q[p->n - 1] : p->last;

	/* A planned state change must happen before planning past it. */
	if (p->n > 0 && (op_table[state].flags & OPF_STATECHANGE))
		return (enum op)p->q[0];
	if (pend->statechange)
		return p->n > 0 ? (enum op)p->q[0] : state;
	if (state == OP_LOGOUT && p->n > 0)
		return (enum op)p->q[0];
	if (p->walk_of != cfg) {
		plan_walk_build(&p->walk, cfg);
		p->walk_of = cfg;
	}

	for (int draws = 0; p->n < PLAN_LEN && draws < PLAN_MAX_DRAWS; draws++) {
		if (cur == LSTATE_NONAUTH) {
			state = rng_pct(r, cfg->states[OP_AUTHENTICATE].prob) ?
			    OP_AUTHENTICATE : OP_LOGIN;
		} else if (state == OP_LOGOUT ||
			   !rng_pct(r, cfg->states[state].again)) {
			state = next_state(&p->walk, cfg, r,
			    state == OP_LOGOUT ? OP_LOGIN : state);
		}
		if ((int)op_table[state].need > (int)cur ||
		    (cur != LSTATE_NONAUTH && is_login(state)))
			continue;	/* can't do this now */
		p->q[p->n++] = (uint8_t)state;
		if (op_table[state].flags & OPF_STATECHANGE)
			break;
	}
	if (p->n == 0) {
		/* Nothing this session may run: leave rather than spin. */
		p->q[p->n++] = cur == LSTATE_NONAUTH ? OP_LOGIN : OP_LOGOUT;
	}
	return (enum op)p->q[0];
}

enum op
plan_take(struct plan *p)
{
	if (p->n == 0)
		return p->last;		/* nothing planned: nothing taken */
	enum op head = (enum op)p->q[0];
	for (unsigned i = 1; i < p->n; i++)
		p->q[i - 1] = p->q[i];
	p->n--;
	p->last = head;
	return head;
}

/* imaptest's client_pending_cmds_allow_statechange. */
static bool
pending_allow_statechange(enum op h, const struct plan_pending *pend)
{
	enum lstate target = plan_target_lstate(h);
	for (unsigned i = 0; i < pend->n_ops; i++) {
		enum op o = (enum op)pend->ops[i];
		enum lstate need = (enum lstate)op_table[o].need;
		if (op_table[o].flags & OPF_STATECHANGE)
			return false;
		if (target < need)
			return false;
		if (target == need && target == LSTATE_SELECTED)
			return false;
	}
	return true;
}

bool
plan_may_send(enum op h, enum lstate cur, const struct plan_pending *pend)
{
	unsigned hf = op_table[h].flags;
	enum lstate need = (enum lstate)op_table[h].need;

	if ((hf & OPF_STATECHANGE) && !pending_allow_statechange(h, pend))
		return false;
	if (!(hf & OPF_STATECHANGE) && pend->statechange) {
		/* Changing state: only commands valid both before and
		 * after the change may go behind it. */
		if (pend->new_lstate <= need || cur < need)
			return false;
	}
	if ((hf & OPF_MSGSET) &&
	    (pend->flags & (OPF_EXPUNGES | OPF_STATECHANGE)))
		return false;	/* sequence numbers could shift under it */
	return true;
}
