/* users_int.h: the inside of the profile user driver, for src/users/ only.
 * One file, one function prefix; each file calls only those below it
 * (scripts/check-layers holds src/users/ to that):
 *
 *   users.c         users_   the driver table, the user table, who lives
 *                            on which worker, the end of the run
 *   users_report.c  users_   what the run claims at its end (--profile-
 *                            counts, the log's totals)
 *   users_due.c     udue_    every user's deliveries and sends, due or
 *                            not connected, on one heap per worker
 *   users_session.c usess_   one IMAP connection of a user: login, SELECT
 *                            INBOX, IDLE or NOOP polling, the jobs, logout
 *   users_slots.c   uslot_   clients=: the connection slots, and which
 *                            user each serves next (ramp-up, then the
 *                            one waiting longest), IMAP and POP3 alike;
 *                            a user's memory is made when it is first
 *                            needed
 *   users_resp.c    uresp_   what the untagged responses say (folders,
 *                            UIDNEXT, EXISTS, the UIDs of new mail)
 *   users_job.c     ujob_    the jobs: set-up, fetch new mail, read/reply/
 *                            delete/move it, send new mail
 *   users_loadsim.c uls_     LoadSim's actions (browse, clean, send,
 *                            calendar...) on their per-user Poisson
 *                            schedule (loadsim_sched.c: ls_, the draws)
 *   users_clean.c   uclean_  clean inbox: to the deleted folder, emptied
 *                            past a size
 *   users_cached.c  ucached_ a cached-mode client's COMPRESS, ENABLE
 *                            QRESYNC and SELECT (QRESYNC ...), and its
 *                            cache of INBOX
 *   users_lmtp.c    ulmtp_   deliveries to INBOX and Spam on the worker's
 *                            LMTP client
 *   users_submit.c  usubmit_ users' sends by SMTP submission
 *   users_notify.c  unotify_ push = notify: NOTIFY SET once a session,
 *                            INBOX's STATUS as a push, overflow
 *   users_pop3.c    upop3_   POP3 users' visits (protocol = pop3) on the
 *                            worker's POP3 client, each in a slot
 *   users_count.c   ucount_  what the run claims (per user and folder) and
 *                            the push latency samples, in one place
 *   users_heap.c    uheap_   the min-heap of (time, user, kind) both
 *                            schedules use
 *   users_base.c    ubase_   folder names, timers, response codes, and
 *                            waking a user's connections
 * Each job's steps are in users_steps.h.  This header holds the driver's
 * types; each file's functions are in its own header (users_due.h for
 * users_due.c, ...). */
#ifndef IMAPSTRESS_USERS_INT_H
#define IMAPSTRESS_USERS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conn/conn.h"
#include "profile/profile.h"
#include "profile/profile_loadsim.h"
#include "util/rng.h"
#include "users/users.h"
#include "run/worker.h"
#include "stats/actions.h"

struct act_stats;
struct event;
struct lmtp_client;
struct tls_ctx;
struct pop3_client;
struct push_track;
struct worker;
struct hist;

/* The folders a user's mail lives in; INBOX is selected, the rest are
 * created when missing.  Spam is also LMTP's +Spam detail mailbox.
 * Calendar and the deleted folder (init_deleted_folder, "Deleted Items")
 * only for LoadSim users (users_loadsim.c). */
enum ufolder { UF_INBOX, UF_SPAM, UF_DRAFTS, UF_SENT, UF_CALENDAR, UF_DELETED,
	       UF_COUNT };
extern const char *const ubase_folder_name[UF_COUNT];

/* What a cached-mode client fetched (users_cached.c). */
struct ucache_counts {
	uint64_t compressed;		/* sessions COMPRESS=DEFLATE went on */
	uint64_t qresync_selects;	/* SELECT INBOX (QRESYNC ...) OK */
	uint64_t sync_fetches;		/* FETCHes of changed known messages
					 * (QRESYNC SELECT, CHANGEDSINCE) */
	uint64_t header_fetches;	/* headers of UIDs new to the cache */
	uint64_t vanished;		/* VANISHED responses */
};

/* A LoadSim user's schedule against what it did (users_loadsim.c): each
 * action's due times up to the run's end are either started or missed
 * (still due when the run ended: the client fell behind), and a started
 * one ended ok, failed, or was cut off by the end.  schedule_us is how
 * long the schedule ran (first login to the end). */
struct uls_counts {
	/* 32 bits: a few dozen actions a user-day; summed (counts_add) over
	 * 100,000 users, 4e9 is years of 1x days.  64 bits were 176 octets
	 * more of every user (issue 35: 6 KB a user). */
	uint32_t started[LS_N_ACTIONS], missed[LS_N_ACTIONS];
	uint32_t ok[LS_N_ACTIONS], failed[LS_N_ACTIONS];
	uint64_t schedule_us;
};

/* What the server confirmed for one user (see users_count.c). */
struct ucounts {
	uint64_t delivered[UF_COUNT];	/* LMTP 250 (INBOX, Spam) */
	uint64_t appended[UF_COUNT];	/* APPEND OK (Drafts, Sent) */
	uint64_t expunged[UF_COUNT];	/* UID EXPUNGE OK of one message */
	uint64_t moved_to_spam;		/* UID MOVE (or COPY+expunge) OK */
	uint64_t moved_to_deleted;	/* clean inbox's MOVE (or COPY) OK */
	uint64_t read, replied, sent;	/* actions completed */
	uint64_t deliver_failed;	/* no 250 (4xx, 5xx, local) */
	uint64_t deliver_unready;	/* of those: the LMTP timeout ran out
					 * before the session was ready */
	struct ucache_counts cache;
	struct uls_counts ls;
	/* POP3 users (users_pop3.c): sessions that ended with QUIT's +OK,
	 * messages RETRieved whole, DELEs committed by QUIT (also counted
	 * in expunged[UF_INBOX]) and DELEs the server kept (no QUIT +OK). */
	uint64_t pop3_sessions, pop3_retrieved, pop3_deleted, pop3_delete_lost;
};

/* New INBOX mail the user has fetched and will act on. */
struct umail {
	uint32_t uid;
	bool filter;		/* mail_inbox_move_filter_percentage: moved
				 * to Spam when noticed, unread */
	uint64_t due;		/* clock_us() when the action starts */
};

/* A mail being written (a reply, or a new mail when inbox_uid is 0): its
 * draft's UID, due to be sent. */
struct ureply {
	uint32_t inbox_uid, draft_uid;
	uint64_t due;
	uint64_t t_draft;	/* when its action began (ACT_REPLY/ACT_SEND) */
};

#define UMAIL_MAX 256		/* mail waiting for action, per user */
#define UREPLY_MAX 32

enum ujob {
	UJ_NONE,
	UJ_SETUP,	/* LIST, CREATE what is missing, SELECT INBOX */
	UJ_FETCH_NEW,	/* UID FETCH uidnext:* */
	UJ_ACT,		/* read one mail, then reply/delete/move it */
	UJ_REPLY_SEND,	/* APPEND Sent, delete the draft, \Answered (a
			 * new mail: none; it is delivered to nobody) */
	UJ_SEND_NEW,	/* APPEND a new mail to Drafts */
	UJ_LOGOUT,
	UJ_LOADSIM	/* one LoadSim action (uc->ls_act) */
};

#include "users/users_steps.h"

struct user;

/* A heap entry (users_heap.c): when, the user (its index in the user
 * table), and what (enum udue_kind; 0 in the slot queue). */
struct uheap_ent {
	uint64_t t;
	uint32_t user, kind;
};
struct uheap {
	struct uheap_ent *e;
	size_t n, cap;
};

/* Where the NOTIFY of a push = notify session is (users_notify.c). */
enum unotify_state {
	UNOTIFY_NONE,		/* not asked yet this session */
	UNOTIFY_SENT,		/* NOTIFY SET in flight */
	UNOTIFY_ON,		/* OK: the session waits without IDLE */
	UNOTIFY_RESET,		/* NOTIFICATIONOVERFLOW: ask again */
	UNOTIFY_REFUSED		/* no NOTIFY, or NO/BAD: IDLE instead */
};

/* One connection slot (clients=), and the user it serves now: an IMAP
 * user on its connection c, or a POP3 user's visit on the worker's POP3
 * client (c then stays unconnected). */
struct uconn {
	struct user *u;		/* NULL: free, waiting for a user */
	struct user *p3;	/* a POP3 visit holds the slot (u is NULL) */
	uint64_t p3_again;	/* when that user may visit again (its
				 * result; UINT64_MAX: never) */
	struct uconn *next_on;	/* u's other slots (user.on) */
	struct conn *c;
	unsigned k;		/* 0 = the one that does the user's work */
	unsigned slot;		/* global connection number (conn_slot) */
	struct event *ev;	/* session end, NOOP poll, next due work */
	bool in_session;	/* logged in, set up */
	bool logout_due;	/* mail_session_length is over */
	uint64_t t_session_end;	/* 0 = never */
	uint64_t t_poll;	/* without IDLE: the next NOOP not before */
	uint32_t exists;	/* INBOX messages as this session saw them */
	/* The job running (one command in flight at a time). */
	enum ujob job;
	unsigned step;		/* enum ujob_*_step of job; UJ_LOADSIM's in
				 * users_loadsim.c, clean inbox's uclean_step */
	bool counting;		/* the job is an action (not a return to INBOX) */
	struct umail mail;	/* UJ_ACT */
	struct ureply reply;	/* UJ_REPLY_SEND */
	bool act_reply, act_delete, act_move;
	unsigned setup_missing;	/* UJ_SETUP: bit per folder not listed */
	bool fetching_new;	/* UJ_FETCH_NEW in flight: FETCHes are new */
	unsigned fetched_new;	/* new messages its FETCHes returned */
	uint64_t t_job;		/* when the job (the action) began */
	uint64_t t_connect;	/* when this session's connect began */
	enum ufolder sel;	/* selected folder; UF_COUNT: none or SELECT
				 * in flight (its EXISTS is no push) */
	/* The job's step waits for the foreign-mail check of the selected
	 * folder (ubase_guard); the ready hook runs it again. */
	bool guard_held;
	/* UJ_LOADSIM: the action, and what its SEARCH found. */
	int ls_act;		/* enum loadsim_action */
	uint32_t ls_msg;	/* the message it acts on (UID or seq) */
	uint32_t ls_found_min, ls_found_max;
	/* A cached-mode client's session (users_cached.c): COMPRESS, then
	 * ENABLE QRESYNC, then the set-up; what its SELECT INBOX said. */
	enum { UCP_COMPRESS, UCP_ENABLE, UCP_DONE } cache_phase;
	bool qresync_on;	/* ENABLE QRESYNC was OK'd this session */
	bool qresync_select;	/* the SELECT in flight carries QRESYNC */
	uint32_t sel_uidvalidity;
	uint64_t sel_highestmodseq;
	enum unotify_state notify;	/* push = notify clients */
};

struct uworker;

/* Where a delivery goes: lmtp_deliver's arg (no allocation per mail). */
struct udest {
	struct user *u;
	enum ufolder f;
};

/* A user's memory, made when it is first needed (uslot_user): its first
 * connection or delivery; until then it is the plan's entry alone. */
struct user {
	struct uworker *uw;
	struct udest dest[2];		/* INBOX, Spam */
	unsigned idx;			/* in the plan (p->u), every shard's */
	unsigned tbl;			/* in this shard's user table */
	const struct profile_user *pu;
	const struct profile_user_block *ub;
	const struct profile_client_block *cb;
	struct rng rng;
	struct uconn *on;		/* its slots now (uconn.next_on) */
	unsigned n_on;
	unsigned n_uc;			/* connection_max_count: at most */
	uint32_t uidnext;		/* first INBOX UID not fetched yet */
	bool need_fetch;		/* EXISTS grew: fetch uidnext:* */
	uint64_t t_exists;		/* when it grew (ACT_NOTICE) */
	uint64_t last_action;		/* for mail_action_repeat_delay */
	/* Grown as mail comes (ubase_todo_push, ubase_reply_push): most
	 * users hold none or a few, and inline at the bounds they cost 5 KB
	 * each (a third of a LoadSim user's memory at 10,000 users).  Freed
	 * again when emptied (ubase_todo_pop, ubase_reply_take). */
	struct umail *todo;		/* ring of todo_cap, up to UMAIL_MAX */
	unsigned todo_head, todo_n, todo_cap;
	struct ureply *replies;		/* n_replies of replies_cap */
	unsigned n_replies, replies_cap;
	unsigned sends_due;		/* mail_send_interval fired */
	/* Push latency: INBOX 250s matched to the EXISTS and FETCH the
	 * working connection sees (push_track.h). */
	struct push_track *push;
	bool push_listed;		/* in uw->push_users */
	/* What push_track said of its deliveries when the worker let the
	 * user go (users_detach), for --profile-counts. */
	struct upush_counts {
		enum push_mech mech;
		uint64_t delivered, announced, unannounced, dropped, missed;
	} push_end;
	struct ucounts cnt;
	/* LoadSim (users_loadsim.c): when each action is due next
	 * (UINT64_MAX: never), and a cached
	 * client's cache of INBOX (highest UID and MODSEQ seen).  The mean
	 * gaps are the profile block's (uls_gap), not copied per user; the
	 * received mail is timed on the worker's due heap (UDUE_LS_RECV). */
	bool ls_on, ls_cached, ls_started;
	bool ls_stopped;			/* the schedule's end is counted */
	uint64_t ls_t0;			/* when its schedule started */
	uint64_t ls_due[LS_N_ACTIONS];
	uint32_t ls_seen_uid;
	uint64_t ls_modseq;
	uint32_t ls_uidvalidity;	/* the cache's INBOX */
	/* What the deleted folder holds (clean inbox empties it past
	 * deleted_folder_max_messages); unknown until a STATUS says. */
	bool ls_deleted_known;
	uint32_t ls_deleted_held;
	unsigned sessions_in;		/* its connections set up now */
	bool started;			/* logged in once in this run */
	/* POP3 (users_pop3.c): a session is on (from its start to its
	 * result); a keeping user's UIDL hashes of what it retrieved. */
	bool p3_on;
	uint64_t *p3_seen;
	unsigned p3_n_seen;
};

/* A worker's share: users idx with idx % workers == worker id, and the
 * slots s with s % workers == worker id. */
struct uworker {
	struct users *run;
	struct worker *w;
	unsigned id;
	struct user **u;		/* the users made so far (uslot_user) */
	unsigned n_u, cap_u;
	/* uslot_user, handed down by users_attach to the senders below the
	 * slots (users_submit.c's distribution lists): making a user runs
	 * LoadSim's set-up, and LoadSim sends through users_submit.c. */
	struct user *(*user_at)(struct uworker *uw, unsigned tbl);
	unsigned n_mine;		/* its users in the table */
	uint64_t t0;			/* users_start: the ramp-up's zero */
	struct rng rng;			/* delivery times */
	struct uheap due;		/* deliveries and sends (users_due.c) */
	struct event *ev_due;
	struct uheap ready;		/* users who may connect from t */
	unsigned next_new;		/* its next user never connected */
	struct uconn **idle;		/* slots with no user */
	unsigned n_idle;
	struct event *ev_fill;
	struct lmtp_client *lmtp;
	struct lmtp_client *submit;	/* NULL: no submission_port */
	struct pop3_client *pop3;	/* NULL: no POP3 user here */
	unsigned pop3_logged;		/* failed POP3 visits logged */
	struct event *ev_idle;		/* draining: is LMTP done now? */
	bool stopping;
	/* The push's end (users_settle.c): sessions wait for their mail
	 * until settle_end; once frozen, what is unannounced stays so. */
	bool settling, push_frozen;
	uint64_t settle_end;
	struct event *ev_settle;
	struct ucounts tot;		/* summed over this worker's users */
	struct act_stats *act;		/* the worker's shard (actions.h) */
	struct event *ev_expire;	/* once a second: push missed */
	/* The users with deliveries not yet fetched: the only ones the
	 * once-a-second expiry looks at (all of them, 100,000 at 1x speed,
	 * would be 200,000 cache misses a second for nothing). */
	struct user **push_users;
	unsigned n_push_users, cap_push_users;
	uint64_t logged_in;		/* gauge: user sessions set up */
};

/* What a due heap entry is (users_due.c): a user's delivery, send, or
 * LoadSim mail from outside the run (users_loadsim.c).  POP3 visits wait
 * for a slot like IMAP sessions (users_slots.c). */
enum udue_kind { UDUE_INBOX, UDUE_SPAM, UDUE_SEND, UDUE_LS_RECV };

struct users {
	const struct config *cfg;
	const struct profile *p;
	/* This shard's users: the plan's p->u[first .. first + n_u)
	 * (profile_shard); user k of the table is the plan's first + k. */
	unsigned first, n_u;
	unsigned shards;		/* the run's, for shared limits */
	struct user **users;		/* n_u; NULL until made (uslot_user) */
	struct uconn *slots;		/* n_slots: clients=, or every user's
					 * connection_max_count (one a POP3
					 * user) without it */
	unsigned n_slots;
	unsigned n_workers;
	struct uworker **uw;		/* attached, per worker id */
	struct driver drv;
	void (*wake)(struct user *u);	/* usess_kick (ubase_wake) */
	/* uslot_pop3_done, handed down to users_pop3.c (below the
	 * slots): a visit's socket closed, its slot serves the next user. */
	void (*pop3_done)(struct uworker *uw, struct uconn *uc);
	/* udue_push, for users_loadsim.c (below users_due.c): a user's
	 * first received mail.  A timer per user was 144 octets of each
	 * (issue 35: 6 KB a user); a heap entry is 16. */
	void (*due_push)(struct uworker *uw, uint64_t t, unsigned tbl,
			 enum udue_kind kind);
	uint64_t t_start;
	/* Each folder's name: ubase_folder_name's, the profile's deleted folder. */
	const char *folder[UF_COUNT];
	/* submission_tls = starttls: the context every worker's submission
	 * client verifies with (made on the main thread, users.c). */
	struct tls_ctx *submit_tls;
};

#endif
