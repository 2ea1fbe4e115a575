/* exit_policy.c: when a run stops, and the exit status of each outcome,
 * in one place for every mode: stress, profile and LoadSim (run.c),
 * init (init_run.c, through run.c), scripted tests (script_report.c), merge (merge.c).
 *
 * When a run stops (exit_policy_stop, checked by run.c every loop turn):
 *
 *   condition                                   reason            grace
 *   secs= ran out                               duration          yes
 *   SIGINT/SIGTERM (exit_policy_signal; a
 *     second one while draining: at once, but
 *     not within 100 ms of the first: the same
 *     stop, as timeout(1) sends it twice)        signal            yes
 *   error_quit and any error                    error_quit        no
 *   disconnect_quit and a disconnect/BYE/timeout disconnect_quit  yes
 *   nobody logged in and no OK: 5 s after the
 *     first session was begun, no connection up
 *     or a login refused, or
 *     at once on a refused certificate or
 *     LOGINDISABLED (not in a run of no IMAP
 *     connection: a profile's LMTP-only users)  server unusable   no
 *   the foreign-mail guard refused a mailbox
 *     (imap/guard.h: its line is said)          foreign mail      no
 *
 * Later rows win the reason when several hold in the same turn; "no
 * grace" means the commands in flight are not waited for.  A run whose
 * driver's work ends (init: stop_view.finite) stops when the work is done
 * or on a signal, the same two steps, none of the other rows, and its
 * drain waits for every command in flight however long (--grace is not
 * init's: the server may store what is in flight either way, and the
 * rerun's check must see it); the scripted tests when their tests are
 * done.
 *
 * Exit status (exit_policy_status), the first row that holds:
 *
 *   outcome                                            status
 *   bad option, file or input at start-up; the foreign-
 *     mail guard refused a mailbox (nothing was deleted)  2 (fatal/usage)
 *   nobody got in (merge: in every shard); a run with
 *     connects but no login and no OK counts too         3
 *   error_quit/disconnect_quit stopped it, errors a
 *     healthy server does not cause (not NO, not a
 *     refused login), a push = notify session that could
 *     not have NOTIFY, an --sla missed, commands cut off
 *     at the end, some shard unusable (merge), users
 *     left unfilled (init), tests failed (test=), an
 *     output that could not be written                   1
 *   otherwise                                            0
 */
#include <signal.h>

#include "report/report.h"
#include "run/exit_policy.h"

int
exit_policy_status(const struct run_outcome *o)
{
	if (o->foreign)
		return EXIT_USAGE;
	if (o->unusable)
		return EXIT_UNUSABLE;
	if (o->quit || o->some_unusable || o->hard_errors > 0 ||
	    o->sla_failed > 0 || o->unfinished > 0 || o->failed > 0 ||
	    o->output_failed)
		return EXIT_FAILED;
	return EXIT_OK;
}

int
exit_policy_fail(int status)
{
	return status == EXIT_OK ? EXIT_FAILED : status;
}

enum stop_signal
exit_policy_signal(bool draining, uint64_t since_signal_us)
{
	if (!draining)
		return STOP_SIG_DRAIN;
	return since_signal_us < EXIT_POLICY_SAME_STOP_US ? STOP_SIG_SAME :
	    STOP_SIG_HALT;
}

static bool
nobody_in(const struct stop_view *v)
{
	return v->logins == 0 && v->oks == 0 && !v->no_clients;
}

/* The stops of a run that works until told: its time, the quit words,
 * a server nobody could use.  Finite work (init) has none of them: it
 * ends with its work or a signal. */
static void
workload_stop(const struct config *cfg, const struct stop_view *v,
	      struct stop_verdict *s)
{
	if (cfg->secs > 0 && v->elapsed_us >= (uint64_t)(cfg->secs * 1e6))
		s->stop = true;
	if (cfg->error_quit && v->errors > 0) {
		s->why = STOP_ERROR_QUIT;
		s->quit = s->stop = true;
	}
	if (cfg->disconnect_quit && v->disconnects > 0) {
		s->why = STOP_DISCONNECT_QUIT;
		s->quit = s->stop = true;
	}
	/* The 5 s count from the first session begun, not from the run's
	 * start: a profile's first login may come later (its ramp-up, or
	 * the set-up of 4,000,000 users on a loaded machine), and the time
	 * before it says nothing of the server. */
	if (nobody_in(v) &&
	    ((v->since_connect_us >= EXIT_POLICY_UNUSABLE_AFTER_US &&
	      (v->conns_open == 0 || v->refused_logins > 0)) ||
	     v->tls_refused || v->login_disabled)) {
		s->why = STOP_UNUSABLE;
		s->unusable = s->stop = true;
	}
}

struct stop_verdict
exit_policy_stop(const struct config *cfg, const struct stop_view *v)
{
	struct stop_verdict s = { .why = STOP_DURATION };

	if (!v->finite)
		workload_stop(cfg, v, &s);
	/* Finite work too: init --trim would wait for a command that never
	 * goes. */
	if (v->foreign_refused) {
		s.why = STOP_FOREIGN;
		s.stop = true;
	}
	s.at_once = s.unusable || s.why == STOP_ERROR_QUIT ||
	    s.why == STOP_FOREIGN;
	return s;
}

bool
exit_policy_needs_poll(const struct config *cfg, const struct stop_view *v)
{
	/* Finite work: its end is seen between ticks, as soon as it comes. */
	if (v->finite || cfg->error_quit || cfg->disconnect_quit)
		return true;
	/* "server unusable" can still come true */
	return nobody_in(v);
}

uint64_t
exit_policy_drain_deadline(const struct config *cfg, bool finite,
			   uint64_t now_us)
{
	/* The profile users' settle (users_settle.c) holds the drain
	 * first: --grace is for what is in flight after it. */
	double settle = cfg->profile_path != NULL ? config_push_settle_s(cfg) : 0;
	return finite ? UINT64_MAX :
	    now_us + (uint64_t)((cfg->grace_secs + settle) * 1e6);
}

bool
exit_policy_unusable_at_end(uint64_t logins, uint64_t oks, uint64_t connects)
{
	return logins == 0 && oks == 0 && connects > 0;
}

uint64_t
exit_policy_arrival(bool was_pending, uint64_t listen_end_us, uint64_t now_us)
{
	return was_pending && listen_end_us < now_us ? listen_end_us : now_us;
}

bool
exit_policy_stop_pending(void)
{
	sigset_t pend;

	return sigpending(&pend) == 0 && (sigismember(&pend, SIGINT) == 1 ||
					  sigismember(&pend, SIGTERM) == 1);
}
