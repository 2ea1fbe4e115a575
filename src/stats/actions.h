/* actions.h: what profile mode measures beyond commands.  A profile user
 * does actions (deliver a mail, notice it, read it, reply...), each made
 * of several commands; this counts each action ok/failed with its latency,
 * the push latency from LMTP's 250 to the EXISTS and to the FETCH of that
 * mail, deliveries never seen in IDLE ("push missed"), the users logged
 * in now, and the LMTP client's own figures (struct lmtp_stats lives here
 * so that a worker's stats shard carries it), twice: the LMTP deliveries
 * and the SMTP submissions (profile submission_port).
 *
 * Same contract as struct stats (stats.h): one writer per shard (its
 * worker's thread), relaxed single-writer counters, plain snapshots that
 * the main thread sums, subtracts and copies once a second.  struct stats
 * embeds a struct act_stats (stats->act) and struct stats_snap a struct
 * act_snap (snap->act); stats_new/stats_snap_* look after them.
 *
 * Stress mode never writes here; `profile` says whether a run (or a
 * shard, or a result file) did profile mode, and the report prints the
 * profile sections only then. */
#ifndef IMAPSTRESS_ACTIONS_H
#define IMAPSTRESS_ACTIONS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"
#include "stats/pop3_stats.h"

typedef _Atomic uint64_t ctr_t;	/* as in stats.h (C11 allows the repeat) */

/* The actions, in report order.  The first nine are imaptest's profile
 * user; the rest are LoadSim's (issue 17). */
enum action {
	ACT_DELIVER,	/* LMTP delivery: queued -> final reply */
	ACT_NOTICE,	/* new mail seen (EXISTS) -> its UID FETCH done */
	ACT_READ,	/* FETCH imap_fetch_manual + \Seen */
	ACT_REPLY,	/* draft APPEND ... Sent APPEND, draft deleted, \Answered */
	ACT_DELETE,	/* STORE \Deleted + UID EXPUNGE */
	ACT_MOVE,	/* to Spam: UID MOVE or COPY + delete */
	ACT_SEND,	/* a new mail sent (APPEND to Sent + delivery) */
	ACT_LOGIN,	/* connect -> logged in, folders made, INBOX selected */
	ACT_LOGOUT,
	ACT_BROWSE,	/* LoadSim */
	ACT_CLEAN,
	ACT_CALENDAR,
	ACT_FREEBUSY,
	ACT_MEETING,
	ACT_LOGOFF,
	ACT_APPOINTMENT,	/* LoadSim's make appointment (calendar is
				 * browse calendar) */
	ACT_SUBMIT,	/* SMTP submission: queued -> final reply */
	ACT_COUNT
};

extern const char *const action_name[ACT_COUNT];	/* "deliver", ... */
/* The action named name (exact, lower case), or -1. */
int action_from_name(const char *name);

/* How a client waits for new mail (profile key push): IDLE on INBOX, or
 * NOTIFY SET (RFC 5465), which also announces INBOX by STATUS while
 * another folder is selected. */
enum push_mech { PUSH_M_IDLE, PUSH_M_NOTIFY, PUSH_MECHS };

/* Push latency: from LMTP's 250 for a user's INBOX to ... per mechanism
 * (the kind of mechanism m and step s is m * 2 + s, push_kind_of) */
enum push_kind {
	PUSH_EXISTS,	/* ... the `* N EXISTS` on that user's IDLE connection */
	PUSH_FETCH,	/* ... the FETCH response for that message */
	PUSH_NOTIFY_EXISTS,	/* ... the EXISTS (or STATUS of INBOX) that
				 * NOTIFY brought */
	PUSH_NOTIFY_FETCH,	/* ... the FETCH, by a NOTIFY client */
	/* The EXISTS (of either mechanism) split by where the mail came
	 * from: from outside over LMTP, or from a user by SMTP submission
	 * (through the MTA). */
	PUSH_EXISTS_LMTP,
	PUSH_EXISTS_SUBMIT,
	PUSH_COUNT
};

/* PUSH_EXISTS or PUSH_FETCH as seen by a client of mechanism m (the
 * first four kinds are ordered for this). */
static inline enum push_kind
push_kind_of(enum push_mech m, enum push_kind step)	/* step: EXISTS, FETCH */
{
	return (enum push_kind)((unsigned)m * 2 + (unsigned)step);
}

/* "exists", "fetch", "notify_exists", "notify_fetch", "exists_lmtp",
 * "exists_submit" */
extern const char *const push_kind_name[PUSH_COUNT];
extern const char *const push_mech_name[PUSH_MECHS];	/* "idle", "notify" */

/* --push-timeout's default: a delivery not seen in IDLE within this long
 * is "push missed" (imaptest waits as long for a delivered mail). */
#define PUSH_TIMEOUT_DEFAULT_S 30

#define LMTP_CODES 600
#define LMTP_FAIL_SLOTS 6	/* LMTP_F_COUNT (lmtp.h asserts it) */
/* By enum lmtp_fail: "none", "connect", "timeout", "disconnect",
 * "protocol", "shutdown" (report keys and result files use them). */
extern const char *const lmtp_fail_name[LMTP_FAIL_SLOTS];

/* Enhanced status codes (RFC 3463) by slot: class 2, 4 or 5, subject
 * 0..7, detail 0..9; anything else (5.7.26...) in the last slot. */
#define LMTP_ESC_SLOTS (3 * 8 * 10 + 1)
int lmtp_esc_slot(int klass, int subject, int detail);
/* "5.7.1", or "other" for the last slot. */
void lmtp_esc_name(int slot, char *out, size_t n);

struct lmtp_snap;
/* head, then " 5.7.1=N" for each enhanced code seen, and a newline; nothing
 * when none was seen (the report and the result file both print them). */
#include <stdio.h>
void lmtp_snap_print_esc(FILE *f, const char *head, const struct lmtp_snap *b);

/* What the LMTP client (src/lmtp/) measured; its writer is the loop the
 * client runs on.  A worker's is stats->act.lmtp: give &shard->act.lmtp as
 * lmtp_env.stats.  Tools outside a run use lmtp_stats_new(). */
struct lmtp_stats {
	ctr_t deliveries;	/* lmtp_deliver calls */
	ctr_t rcpts;		/* recipients in them */
	ctr_t rcpt_ok;		/* final 2xx */
	ctr_t rcpt_tempfail;	/* final 4xx */
	ctr_t rcpt_permfail;	/* final 5xx */
	ctr_t rcpt_local;	/* no server reply (by kind in fails[]) */
	ctr_t fails[LMTP_FAIL_SLOTS];	/* by enum lmtp_fail (lmtp.h) */
	ctr_t codes[LMTP_CODES];	/* final replies by code */
	ctr_t esc[LMTP_ESC_SLOTS];	/* and by enhanced code, if any */
	ctr_t sessions;		/* sessions opened */
	ctr_t sessions_open;	/* gauge */
	ctr_t transactions;	/* MAIL FROM sent */
	ctr_t queued_max;	/* gauge: most deliveries ever waiting */
	ctr_t bytes_sent;	/* message bytes after dot-stuffing */
	struct hist *lat_total;	/* queued -> final 2xx, us */
	struct hist *lat_data;	/* final dot written -> 2xx, us */
};

/* The LMTP counters that only grow, and the gauges (sessions_open adds up
 * across shards, queued_max is a max). */
#define LMTP_COUNTERS(X)						\
	X(deliveries) X(rcpts) X(rcpt_ok) X(rcpt_tempfail)		\
	X(rcpt_permfail) X(rcpt_local) X(sessions) X(transactions)	\
	X(bytes_sent)

/* NOTIFY's counters (they only grow): deliveries a NOTIFY client did
 * not see within --push-timeout; sessions that could not set NOTIFY up
 * (no NOTIFY capability, or NO/BAD to NOTIFY SET: they waited in IDLE,
 * their pushes counted as IDLE's); * OK [NOTIFICATIONOVERFLOW] seen. */
#define ACT_NOTIFY_COUNTERS(X)						\
	X(push_missed_notify) X(notify_refused) X(notify_overflow)

/* Those, and deliveries to a user logged in that its IDLE or NOTIFY had
 * not announced when the run's push ended (after the settle,
 * --push-settle): counted, not lost, so that the pushes seen plus these
 * are every delivery (users_settle.c). */
#define ACT_LATE_COUNTERS(X) ACT_NOTIFY_COUNTERS(X) X(push_unseen_end)
/* The users gauges, summed over shards and taken whole in a window:
 * users_in, users logged in now; users_started, users logged in at least
 * once so far (the ramp is over when it reaches the users asked for,
 * whatever log-offs the users' own day has them in at that moment, which
 * users_in does not say). */
#define ACT_USER_GAUGES(X) X(users_in) X(users_started)

/* The live part of a shard. */
struct act_stats {
	ctr_t profile;		/* gauge: 1 once the shard runs profile mode */
	ctr_t ok[ACT_COUNT];
	ctr_t failed[ACT_COUNT];
	struct hist *lat[ACT_COUNT];	/* action start -> done, us (ok only) */
	struct hist *push[PUSH_COUNT];	/* 250 -> EXISTS / FETCH, us */
	ctr_t push_missed;	/* not seen in IDLE within --push-timeout */
#define X(f) ctr_t f;
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	struct lmtp_stats lmtp;
	struct lmtp_stats submit;	/* the same client, submitting */
	struct pop3_stats pop3;		/* profile users' POP3 sessions */
};

/* A struct lmtp_stats's plain copy. */
struct lmtp_snap {
#define X(f) uint64_t f;
	LMTP_COUNTERS(X)
#undef X
	uint64_t fails[LMTP_FAIL_SLOTS];
	uint64_t codes[LMTP_CODES];
	uint64_t esc[LMTP_ESC_SLOTS];
	uint64_t sessions_open, queued_max;
	struct hist *lat_total, *lat_data;
};

/* Its plain copy. */
struct act_snap {
	uint64_t profile;	/* shards that ran profile mode */
	uint64_t ok[ACT_COUNT], failed[ACT_COUNT];
	struct hist *lat[ACT_COUNT];
	struct hist *push[PUSH_COUNT];
	uint64_t push_missed;
#define X(f) uint64_t f;
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	struct lmtp_snap lmtp, submit;
	struct pop3_snap pop3;
};

/* ---- the writer's side (the profile driver, on its worker's thread) ---- */

/* This shard runs profile mode: the report shows its sections. */
void act_profile_on(struct act_stats *a);
/* One action finished: ok with its latency, or failed (no latency). */
void act_ok(struct act_stats *a, enum action act, uint64_t us);
void act_failed(struct act_stats *a, enum action act);
/* One push latency sample. */
void act_push(struct act_stats *a, enum push_kind k, uint64_t us);
void act_push_missed(struct act_stats *a, uint64_t n);	/* IDLE's */
void act_push_missed_by(struct act_stats *a, enum push_mech m, uint64_t n);
/* A NOTIFY session waited in IDLE instead; a NOTIFICATIONOVERFLOW. */
void act_notify_refused(struct act_stats *a);
void act_notify_overflow(struct act_stats *a);
/* n deliveries not yet announced when the run's push ended. */
void act_push_unseen_end(struct act_stats *a, uint64_t n);
/* Users logged in: +1 at login, -1 at logout or loss. */
void act_users_add(struct act_stats *a, int delta);
/* One more user logged in for the first time in the run. */
void act_users_started(struct act_stats *a);

/* ---- lifecycle and snapshots (stats.c calls these) ---- */
void act_stats_init(struct act_stats *a);	/* zeroed, hists allocated */
void act_stats_fini(struct act_stats *a);
void act_snap_init(struct act_snap *d);
void act_snap_free(struct act_snap *d);
void act_snap_clear(struct act_snap *d);
/* d's histograms += the live shard's (its counters: act_snap_add_live_counts). */
void act_snap_add_live_hists(struct act_snap *d, const struct act_stats *s);
void act_snap_add(struct act_snap *d, const struct act_snap *s);
/* d = a - b (counters, histograms); gauges from a.  d may be a or b. */
void act_snap_diff(struct act_snap *d, const struct act_snap *a,
		   const struct act_snap *b);
void act_snap_copy(struct act_snap *d, const struct act_snap *s);
/* The same four for the counters and gauges only: the histograms are left
 * as they are (stats_pub.c sums those by what changed). */
void act_snap_clear_counts(struct act_snap *d);
void act_snap_add_live_counts(struct act_snap *d, const struct act_stats *s);
void act_snap_diff_counts(struct act_snap *d, const struct act_snap *a,
			  const struct act_snap *b);
void act_snap_copy_counts(struct act_snap *d, const struct act_snap *s);
/* d = s for the counters and gauges (stats_pub.c's copy of a shard); the
 * histograms are the caller's, from act_stats_hists: all ACT_N_HISTS of
 * them, in one fixed order. */
void act_stats_copy_counts(struct act_stats *d, const struct act_stats *s);
#define ACT_N_HISTS (ACT_COUNT + PUSH_COUNT + 4 + P3_CMD_COUNT)
void act_stats_hists(const struct act_stats *a, struct hist *h[ACT_N_HISTS]);
void act_snap_hists(const struct act_snap *d, struct hist *h[ACT_N_HISTS]);

/* LMTP replies by code class in a snapshot: 2xx, 4xx, 5xx. */
uint64_t act_lmtp_codes(const struct act_snap *d, int klass);
uint64_t lmtp_snap_codes(const struct lmtp_snap *b, int klass);

/* The snapshot's histograms by the names result files give them:
 * "act.NAME" per action, "push.exists", "push.fetch",
 * "push.notify_exists", "push.notify_fetch", "push.exists_lmtp",
 * "push.exists_submit", "lmtp.total", "lmtp.data", "submit.total",
 * "submit.data", "pop3.CMD" (pop3_cmd_name).  act_snap_hist: the i-th (0, 1, ... until NULL), its name
 * in *name; act_snap_hist_named: by name, or NULL. */
#define ACT_HIST_NAME_MAX 24
struct hist *act_snap_hist(const struct act_snap *d, unsigned i,
			   char name[ACT_HIST_NAME_MAX]);
struct hist *act_snap_hist_named(const struct act_snap *d, const char *name);
/* Anything in it at all (a result file leaves an empty action out). */
bool act_activity(const struct act_snap *d, int act);

#endif
