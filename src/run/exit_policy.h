/* exit_policy.h: when a run stops and which exit status each outcome
 * gets, for every mode (see exit_policy.c's table). */
#ifndef IMAPSTRESS_EXIT_POLICY_H
#define IMAPSTRESS_EXIT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

enum exit_status {
	EXIT_OK = 0,		/* ran, nothing failed */
	EXIT_FAILED = 1,	/* ran, but something failed (table below) */
	EXIT_USAGE = 2,		/* bad options or input: nothing ran */
	EXIT_UNUSABLE = 3	/* nobody got in: the server is unusable */
};

/* What a finished run found, as each mode counts it; zero is "fine". */
struct run_outcome {
	bool unusable;		/* nobody got in (merge: in every shard) */
	bool quit;		/* error_quit/disconnect_quit stopped it
				 * (merge: some shard) */
	bool some_unusable;	/* merge: some shard, not all, was unusable */
	uint64_t hard_errors;	/* errors a healthy server does not cause */
	unsigned sla_failed;	/* --sla bounds missed */
	uint64_t unfinished;	/* commands cut off at the end */
	unsigned failed;	/* init: users left unfilled; test=: tests
				 * that failed */
	bool output_failed;	/* an output could not be written */
	bool foreign;		/* the foreign-mail guard refused a mailbox */
};

int exit_policy_status(const struct run_outcome *o);
/* status once one more thing failed (a late output error): 1 unless the
 * status already says worse. */
int exit_policy_fail(int status);

/* What the stop checks of a running run see (run.c fills it every turn
 * of its loop). */
struct stop_view {
	uint64_t elapsed_us;
	uint64_t errors;		/* every error so far */
	uint64_t disconnects;		/* disconnected, BYE, timed out */
	uint64_t logins, oks;		/* logins and OK replies so far */
	uint64_t conns_open;
	uint64_t since_connect_us;	/* since the first session was
					 * begun; 0: none yet */
	uint64_t refused_logins;	/* NO to LOGIN/AUTHENTICATE */
	bool tls_refused;		/* a certificate was refused */
	bool login_disabled;		/* LOGINDISABLED in clear */
	bool no_clients;		/* a run of no IMAP connection (a
					 * profile's LMTP-only users): nobody
					 * is meant to get in */
	bool foreign_refused;		/* the foreign-mail guard refused */
	bool finite;			/* the driver's work ends (init):
					 * only it or a signal stops the run */
};

/* The stop check's verdict: stop (and why), and whether at once (no
 * grace for the commands in flight). */
struct stop_verdict {
	bool stop;
	bool quit;		/* error_quit/disconnect_quit: exit 1 */
	bool unusable;		/* nobody got in */
	bool at_once;
	int why;		/* enum stop_reason (report.h) */
};

/* SIGINT or SIGTERM: while the run runs, it drains (no new commands,
 * those in flight answered within --grace); while it drains, it halts
 * at once, unless the signal came within EXIT_POLICY_SAME_STOP_US of
 * the one that began the drain: that is the same stop (timeout(1)
 * signals its child, then its own process group, which holds the
 * child: two TERMs microseconds apart).  since_signal_us: how long ago
 * the signal that began the drain came, UINT64_MAX if none did.  run.c
 * asks this, for every mode it runs. */
#define EXIT_POLICY_SAME_STOP_US 100000u
enum stop_signal { STOP_SIG_DRAIN, STOP_SIG_HALT, STOP_SIG_SAME };
enum stop_signal exit_policy_signal(bool draining, uint64_t since_signal_us);

/* When a signal the loop's wait just took came, as near as the loop can
 * tell: one that was already pending as the wait began came while the
 * loop was busy elsewhere (a tick waits up to 250 ms for the workers'
 * histograms on a loaded machine), so at the earliest when the loop last
 * stopped waiting (listen_end_us); one that came during the wait, now.
 * The earliest reading keeps timeout(1)'s second TERM the same stop
 * however late a busy loop takes it. */
uint64_t exit_policy_arrival(bool was_pending, uint64_t listen_end_us,
			     uint64_t now_us);
/* A SIGINT or SIGTERM is pending (blocked, not yet taken). */
bool exit_policy_stop_pending(void);

/* Nobody got in for this long (with no connection up or logins
 * refused): the server is unusable. */
#define EXIT_POLICY_UNUSABLE_AFTER_US 5000000

struct stop_verdict exit_policy_stop(const struct config *cfg,
				     const struct stop_view *v);
/* Whether a stop check can come true before the next tick (so the main
 * loop must poll): only error_quit, disconnect_quit and "unusable". */
bool exit_policy_needs_poll(const struct config *cfg,
			    const struct stop_view *v);
/* When a drain that begins at now_us gives up on what is in flight and
 * halts: after --grace, or never for finite work (see exit_policy.c);
 * in profile mode after the push's settle and then --grace. */
uint64_t exit_policy_drain_deadline(const struct config *cfg, bool finite,
				    uint64_t now_us);
/* A run too short for the 5 s rule in which nobody ever got in is just
 * as unusable (judged on the totals at the end). */
bool exit_policy_unusable_at_end(uint64_t logins, uint64_t oks,
				 uint64_t connects);

#endif
