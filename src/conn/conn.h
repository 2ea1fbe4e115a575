/* conn.h: one IMAP client connection over a bufferevent, the engine every
 * driver (the stress mix today) runs its sessions on.  It walks connect ->
 * (TLS) -> greeting -> login -> plan commands -> logout, keeps its
 * commands in flight in a small table keyed by tag, and counts each
 * tagged reply in the stats shard it was given.
 *
 * A connection knows only its `struct conn_env`: the config, the shared
 * read-only pieces, its event base and stats shard, and the driver's
 * hooks.  It never calls its worker, the checkpoint or the open loop; the
 * driver learns what happened through the hooks and decides what comes
 * next (conn_restart, conn_finish, conn_send_more).
 *
 * The object lives for the whole run (one per client slot); only its
 * bufferevent comes and goes, so nothing is ever freed inside its own
 * callback.  The struct is private (conn_int.h). */
#ifndef IMAPSTRESS_CONN_H
#define IMAPSTRESS_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

struct bufferevent;
struct config;
struct conn;
struct event_base;
struct mbox_view;
struct rng;
struct shared;
struct store_map;

/* Plain sockets are read by the connection itself (conn_sock_read_cb),
 * up to this much per read(): libevent 2.1's bufferevent reads 4 KiB at a
 * time whatever bufferevent_set_max_single_read() says, each read after a
 * FIONREAD ioctl, so a 40 KB FETCH answer cost 20 system calls.  The
 * buffer (conn_env.rbuf) is the thread's, shared by its connections. */
#define CONN_MAX_READ (128 * 1024)

/* How a session ended, for the closed hook. */
enum conn_end {
	CONN_END_LOGOUT,	/* LOGOUT answered with BYE */
	CONN_END_PLANNED,	/* imaptest's DISCONNECT state dropped it */
	CONN_END_FAILED,	/* the server, the network or a check: see err */
	CONN_END_STOPPED	/* conn_drain/conn_halt ended it */
};

/* What the driver implements.  Hooks run inside the connection's own
 * callbacks: they may act on this connection, and must defer (an
 * event_active) anything that acts on other connections. */
struct conn_hooks {
	/* LOGIN or AUTHENTICATE succeeded. */
	void (*logged_in)(void *arg, struct conn *c);
	/* A tagged reply to one of our commands, its effects applied. */
	void (*replied)(void *arg, struct conn *c);
	/* Logged in and free to send: may the next plan commands go now?
	 * False when the driver holds them back; it then calls
	 * conn_send_more() or conn_send_scheduled() when they may. */
	bool (*ready)(void *arg, struct conn *c);
	/* The session is over (its socket, if any, is closed; `err` says
	 * why when end is CONN_END_FAILED).  The driver answers with
	 * conn_restart() or conn_finish(); after CONN_END_STOPPED it must
	 * finish. */
	void (*closed)(void *arg, struct conn *c, enum conn_end end,
		       enum err_kind err);
};

struct conn_env {
	const struct config *cfg;
	const struct shared *sh;	/* pool, TLS, addresses, run id */
	struct event_base *base;
	struct stats *stats;		/* the shard this thread writes */
	char *rbuf;			/* CONN_MAX_READ octets (see above) */
	struct store_map *stores;	/* mailbox models; NULL: no checks */
	uint32_t *msg_seq;		/* Message-ID counter of the thread */
	unsigned worker_id;		/* Message-IDs: seq * workers + id */
	const struct conn_hooks *hooks;
	void *hook_arg;
};

/* A connection for client slot `slot` (0 .. clients-1), not started. */
struct conn *conn_new(const struct conn_env *env, unsigned slot);
void conn_free(struct conn *c);			/* NULL is a no-op */

unsigned conn_slot(const struct conn *c);
/* The connection's random stream (seeded from seed= and the slot), for
 * a driver's choices that must repeat with the same seed. */
struct rng *conn_rng(struct conn *c);
/* Who the next session logs in as; `pass` must outlive the session. */
void conn_set_user(struct conn *c, const char *user, const char *pass);

/* Start connecting now (not started, or after the closed hook). */
void conn_start(struct conn *c);
/* Run the next session over `bev`, connected already by someone else (a
 * test's bufferevent pair, no socket; plain IMAP, no TLS): as conn_start
 * from the moment TCP is up.  The connection owns bev from here. */
void conn_attach(struct conn *c, struct bufferevent *bev);
/* From the closed hook: connect again after `us` microseconds. */
void conn_restart(struct conn *c, uint64_t us);
/* From the closed hook (or before a start): the slot is done for good. */
void conn_finish(struct conn *c);
bool conn_finished(const struct conn *c);

/* What a tick saw, summed over a worker's connections. */
struct conn_gauges {
	uint64_t clients;	/* not finished: imaptest's client objects
				 * (a slot between two sessions, which
				 * reconnects at once, still is one) */
	uint64_t session;	/* greeting seen */
	uint64_t stalled3;	/* a command waiting > 3 s with no byte */
};
/* The worker's 100 ms tick: timeouts, stall accounting and the
 * imaptest-style "stalled for N secs" line (once per 15 s). */
void conn_tick(struct conn *c, uint64_t now, struct conn_gauges *g);

/* The run is ending: stop sending plan commands; log out once nothing is
 * in flight (drain), or close at once (halt, which returns how many
 * commands were left unanswered: reported as unfinished, not failed,
 * because the server may still complete them). */
void conn_drain(struct conn *c);
unsigned conn_halt(struct conn *c);

/* Send what the plan allows now (after a hold by the ready hook). */
void conn_send_more(struct conn *c);
/* --rate: send the next plan command now, timed from `due`.  False when
 * the connection had nothing it could send. */
bool conn_send_scheduled(struct conn *c, uint64_t due);
/* Commands sent and not yet answered. */
unsigned conn_in_flight(const struct conn *c);

/* Greeting seen and logged in. */
bool conn_is_logged_in(const struct conn *c);

/* Checkpoints.  conn_quiesce ends an IDLE and says whether the session
 * has nothing in flight (true when there is no session).  conn_send_check
 * sends CHECK on a session with a selected, modelled mailbox and says
 * whether it did; conn_check_pending: that CHECK is unanswered.
 * conn_checked_view: the view that took part (NULL if none) until
 * conn_check_done. */
bool conn_quiesce(struct conn *c);
bool conn_send_check(struct conn *c);
bool conn_check_pending(const struct conn *c);
struct mbox_view *conn_checked_view(const struct conn *c);
void conn_check_done(struct conn *c);

#endif
