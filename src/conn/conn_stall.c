/* conn_stall.c: the stall bound at the end of a run (--stall-timeout).
 * When the run's time is up, the grace is for a server still making
 * progress.  A connection waiting on a server that has sent nothing, on
 * this or any other connection, for the bound is cut there and then and
 * counted as a timeout: a stalled server must not hold every run for the
 * whole grace (a secs=4 run took 34 s).  The server's silence, not one
 * connection's: a busy server answers each connection in turn (Dovecot's
 * mdbox APPENDs queue on one lock, and under load one waited 5 s while
 * the others were answered), and cutting that wait at the end would call
 * a latency a timeout that mid-run counts as an answer.  Decided on the
 * worker's 100 ms tick and when the drain begins, from the last byte read
 * anywhere (workers publish theirs each tick), so a loaded machine cannot
 * stretch it by more than a tick. */
#include <stdatomic.h>

#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "config/config.h"
#include "util/log.h"
#include "conn/shared.h"

bool
conn_stall_stale(uint64_t now, uint64_t t_heard, uint64_t t_asked,
		 uint64_t bound_us)
{
	/* Silence only counts from when the server owed us something: a
	 * DONE or LOGOUT just sent after a long IDLE is not stale. */
	uint64_t since = t_heard > t_asked ? t_heard : t_asked;

	return now > since && now - since > bound_us;
}

void
conn_stall_heard(const struct shared *sh, uint64_t heard)
{
	_Atomic uint64_t *at = &sh->live->heard_us;
	uint64_t was = atomic_load_explicit(at, memory_order_relaxed);

	while (heard > was &&
	       !atomic_compare_exchange_weak_explicit(at, &was, heard,
						      memory_order_relaxed,
						      memory_order_relaxed))
		;
}

void
conn_stall_said(const struct shared *sh)
{
	unsigned stalls = atomic_load(&sh->live->stalls_said);
	if (stalls > CONN_LOG_MAX_PER_KIND)
		log_warn("stall warnings: %u in all, %u shown", stalls,
			 CONN_LOG_MAX_PER_KIND);
	unsigned cuts = atomic_load(&sh->live->stall_cuts);
	if (cuts > 0)
		log_warn("%u connection%s cut as the run ended: nothing from "
			 "the server on any connection for %g s "
			 "(--stall-timeout), counted as timeouts", cuts,
			 cuts == 1 ? "" : "s", sh->cfg->stall_timeout);
}

bool
conn_stall_cut(struct conn *c, uint64_t now)
{
	const struct config *cfg = c->env->cfg;

	/* Only while stopping (conn_drain), in a session where the server
	 * owes a reply; a connection idling or pausing owes nothing. */
	if (!c->stopping || c->st != CONN_S_SESSION || c->n_fl == 0 ||
	    c->idle == CONN_IDLE_ACTIVE)
		return false;
	uint64_t heard = atomic_load_explicit(&c->env->sh->live->heard_us,
					      memory_order_relaxed);
	if (c->t_last_io > heard)
		heard = c->t_last_io;
	if (!conn_stall_stale(now, heard, c->t_asked,
			      (uint64_t)(cfg->stall_timeout * 1e6)))
		return false;
	if (c->login.lstate == LSTATE_NONAUTH) {
		/* Not logged in yet: simply closed, as at the start of the
		 * drain without a LOGIN in flight (a server slow to let a
		 * session in is not a fault of the workload's commands). */
		conn_quit(c, CONN_END_STOPPED, ERR_DISCONNECT);
		return true;
	}
	uint64_t since = heard > c->t_asked ? heard : c->t_asked;
	atomic_fetch_add_explicit(&c->env->sh->live->stall_cuts, 1,
				  memory_order_relaxed);
	conn_fail(c, ERR_TIMEOUT, "%s: nothing from the server on any "
		  "connection for %.1f s as the run ends: cut (--stall-timeout)",
		  conn_inflight_name(&c->cmd.fl[0]), (double)(now - since) / 1e6);
	return true;
}
