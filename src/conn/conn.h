/* conn.h: one IMAP client connection over a bufferevent, the engine every
 * driver (the stress mix, profile users, init, the scripted tests) runs
 * its sessions on.  It
 * walks connect -> (TLS) -> greeting -> login -> the driver's commands ->
 * logout, keeps its
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
#include <stddef.h>
#include <stdint.h>

#include "plan/ops.h"
#include "stats/stats.h"

struct bufferevent;
struct config;
struct conn;
struct event_base;
struct imap_cmd;
struct imap_resp;
struct msg;
struct mbox_view;
struct rng;
struct shared;
struct store_map;
struct guard;

/* Plain sockets are read by the connection itself (conn_sock_read_cb),
 * up to this much per read(): libevent 2.1's bufferevent reads 4 KiB at a
 * time whatever bufferevent_set_max_single_read() says, each read after a
 * FIONREAD ioctl, so a 40 KB FETCH answer cost 20 system calls.  The
 * buffer (conn_env.rbuf) is the thread's, shared by its connections. */
#define CONN_MAX_READ (128 * 1024)

/* Commands in flight on one connection at most (a driver's: two less,
 * room for the session's set-up). */
#define CONN_MAX_INFLIGHT 64

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
	/* LOGIN or AUTHENTICATE succeeded (conn_login_op says which); the
	 * session's set-up after login (CAPABILITY, LIST, ENABLE) is not
	 * sent yet. */
	void (*logged_in)(void *arg, struct conn *c);
	/* THE "connection is free" notification: logged in, and nothing on
	 * the wire forbids a command (conn_can_command's rules but room in
	 * flight).  It comes once per read that carried replies (their
	 * effects applied), and when a layer, a pause or the output's room
	 * frees it again.  The driver sends its commands here, or later
	 * (then conn_send_more() asks for this hook again). */
	void (*ready)(void *arg, struct conn *c);
	/* The session is over (its socket, if any, is closed; `err` says
	 * why when end is CONN_END_FAILED).  The driver answers with
	 * conn_restart() or conn_finish(); after CONN_END_STOPPED it must
	 * finish. */
	void (*closed)(void *arg, struct conn *c, enum conn_end end,
		       enum err_kind err);
	/* Optional, for drivers that own the session (conn_driver.c): every
	 * untagged response of a logged-in session (EXISTS, EXPUNGE, FETCH,
	 * STATUS, LIST, ...) after the connection's own bookkeeping, and the
	 * "+" that starts an IDLE of conn_idle_begin(). */
	void (*untagged)(void *arg, struct conn *c, const struct imap_resp *r);
	void (*idle_started)(void *arg, struct conn *c);
	/* Optional, for a driver that speaks IMAP itself once the session
	 * is up (the scripted tests: their own tags, CAPABILITY, LOGIN and
	 * LOGOUT).  With it the engine sends nothing of its own but, with
	 * --starttls, CAPABILITY (if the greeting had none) and STARTTLS
	 * before the driver hears anything; every response after that
	 * comes here as parsed, with no effect on the engine; the ready
	 * hook says the session is up (once per read, as for any driver);
	 * the driver writes with conn_raw_write and ends a session with
	 * conn_disconnect.  At a stop the engine closes (no LOGOUT).  The
	 * engine keeps the rest: TCP, TLS, the rawlog, the parser's limits,
	 * the connect and greeting timeouts, the error kinds. */
	void (*raw)(void *arg, struct conn *c, const struct imap_resp *r);
	/* Optional: an error line of this connection goes here instead of
	 * standard error (a driver that reports failures itself, as the
	 * scripted tests do in their verdict); it is counted all the same,
	 * and the closed hook follows when the error closed the session. */
	void (*error)(void *arg, struct conn *c, enum err_kind kind,
		      const char *line);
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
	struct guard *guard;		/* the worker's foreign-mail memory;
					 * NULL: --allow-foreign-mail */
	const struct conn_hooks *hooks;
	void *hook_arg;
};

/* A connection for client slot `slot` (0 .. clients-1), not started. */
struct conn *conn_new(const struct conn_env *env, unsigned slot);
void conn_free(struct conn *c);			/* NULL is a no-op */
/* Heap octets the connection holds in its own pieces (the struct, the
 * in-flight slots, login name, continuation, COMPRESS counts); not the
 * parser's nor libevent's.  What an idle connection costs is mostly
 * this: the tests hold it to a budget. */
size_t conn_footprint(const struct conn *c);

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
	uint64_t in;		/* slots that have logged in at least once */
	uint64_t heard;		/* the latest byte from the server */
};
/* The worker's 100 ms tick: timeouts, stall accounting and the
 * imaptest-style "stalled for N secs" line (once per 15 s). */
void conn_tick(struct conn *c, uint64_t now, struct conn_gauges *g);
/* After a tick over its connections, a worker tells the run when it last
 * heard from the server (g.heard): the stall bound is the server's
 * silence on every connection, not one connection's wait. */
void conn_stall_heard(const struct shared *sh, uint64_t heard);
/* Once the workers are joined: how many stall lines there were in all,
 * and how many connections the stall bound cut (their own lines share the
 * timeout lines' cap, so the count is said here). */
void conn_stall_said(const struct shared *sh);

/* The run is ending: no new driver command; log out once nothing is
 * in flight (drain), or close at once (halt, which returns how many
 * commands were left unanswered: reported as unfinished, not failed,
 * because the server may still complete them). */
void conn_drain(struct conn *c);
unsigned conn_halt(struct conn *c);

/* Go on now: the session's set-up and login if due, then the ready hook
 * if the connection is free (a driver that held back calls this). */
void conn_send_more(struct conn *c);
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

/* A driver's commands (conn_driver.c): after login every command is a
 * driver's.  Each is counted in the stats shard under its op (latency,
 * OK/NO/BAD, failed), so the per-second command table is the same for
 * every mode; then `done` hears how it ended.  A BAD ends the session
 * once nothing else is in flight (imaptest's habit) and changes no state
 * (the command was not run). */
enum conn_reply {
	CONN_REPLY_OK,
	CONN_REPLY_NO,
	CONN_REPLY_BAD,
	CONN_REPLY_FAILED	/* the session ended before the reply */
};

/* text/len: the tagged reply's resp-text ("[APPENDUID 7 12] done"), empty
 * for CONN_REPLY_FAILED; conn_reply() has the whole reply meanwhile.
 * Runs inside the connection's callbacks; it may send the next command
 * on c (not while the reply is FAILED). */
typedef void (*conn_done_fn)(void *arg, struct conn *c, enum conn_reply st,
			     const char *text, size_t len);

/* May a driver command go out now?  Logged in, not idling, no literal
 * waiting for "+", not logging out or stopping, not paused, room in
 * flight. */
bool conn_can_command(const struct conn *c);
/* A driver that pipelines: may one more command go, with fewer than max
 * in flight?  conn_can_command, and room in the output (below its
 * high-water mark; the ready hook comes again once it has drained). */
bool conn_can_pipeline(const struct conn *c, unsigned max);
/* A command the driver builds itself (the stress mix's state builders;
 * conn_command is this with a text).  conn_cmd_begin starts it in cmd
 * (the tag written, literals as the server allows) and returns the tag;
 * the driver adds its text with imap_cmd_* and bodies with conn_cmd_body
 * (the octets it carries; 0: too many literals), then conn_cmd_send puts
 * it in flight under `op`, carrying msgs messages of `bytes` octets
 * (APPEND), `done` hearing its end (NULL: nobody listens).  Only when
 * conn_can_command() is true. */
uint32_t conn_cmd_begin(struct conn *c, struct imap_cmd *cmd);
uint64_t conn_cmd_body(struct conn *c, struct imap_cmd *cmd,
		       const struct msg *m);
void conn_cmd_send(struct conn *c, struct imap_cmd *cmd, uint32_t tag,
		   enum op op, uint32_t msgs, uint64_t bytes, conn_done_fn done,
		   void *arg);
/* Commands sent between these two leave in one write: they share one
 * latency clock, read when the first is queued (one clock read per
 * pipelined batch, not per command).  due != 0 (an open loop's schedule):
 * the batch's first command is timed from due, and conn_batch_end puts
 * the batch on the wire at once, not a loop turn later. */
void conn_batch_begin(struct conn *c, uint64_t due);
void conn_batch_end(struct conn *c, uint64_t due);
/* Send nothing for `us` microseconds, then the ready hook again
 * (imaptest's DELAY, a driver's retry). */
void conn_pause(struct conn *c, uint64_t us);
bool conn_paused(const struct conn *c);
/* Drop the session without LOGOUT, from a timer (not inside the caller's
 * callback): the closed hook hears CONN_END_PLANNED (imaptest's
 * DISCONNECT).  conn_may_disconnect: nothing in flight, not logging out,
 * no such drop pending. */
void conn_disconnect(struct conn *c);
bool conn_may_disconnect(const struct conn *c);
/* CREATE box as a set-up command of the session (not a row of the
 * command table; its NO, the box exists already, is no error). */
void conn_create(struct conn *c, const char *box);
/* Inside a done callback: the tagged reply (its whole line, its codes);
 * NULL elsewhere.  conn_benign: the benign code (enum benign_code) of a
 * NO to op, or -1; conn_log_error: an error line for this connection,
 * "user[slot]: ...", capped per kind like the engine's own. */
const struct imap_resp *conn_reply(const struct conn *c);
int conn_benign(enum op op, const struct imap_resp *r);
void conn_log_error(struct conn *c, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The session's state: NONAUTH, AUTH or SELECTED; the login state its
 * LOGIN or AUTHENTICATE was (OP_LOGIN before one); the ops of the
 * driver's commands c's in-flight slots [from, conn_in_flight(c)) hold,
 * into ops (set-up commands left out), how many. */
enum lstate conn_lstate(const struct conn *c);
enum op conn_login_op(const struct conn *c);
unsigned conn_inflight_ops(const struct conn *c, unsigned from, uint8_t *ops);
/* The hierarchy separator (0 until known), and whether the LIST that
 * asks for it is unanswered. */
char conn_sep(const struct conn *c);
bool conn_sep_pending(const struct conn *c);
/* A SELECT is going out: model the mailbox (with --track, else nothing);
 * conn_view: that model, or NULL. */
void conn_view_begin(struct conn *c);
struct mbox_view *conn_view(const struct conn *c);
/* A raw driver's octets (conn_hooks.raw), as they are: rawlogged and
 * counted; nothing when the session is not up or is ending. */
void conn_raw_write(struct conn *c, const char *data, size_t len);
/* From the raw hook, on the tagged OK of the driver's COMPRESS DEFLATE:
 * the deflate layer goes in after it, then the ready hook (false: not a
 * raw session, or a layer asked already). */
bool conn_raw_compress(struct conn *c);
/* Send "<tag> <text>\r\n", or with a body "<tag> <text> {N+}\r\n<body>\r\n"
 * (APPEND; body->data is sent by reference and must outlive the command,
 * as pool messages do; msg_head's marker and Message-ID lines go before
 * it).  `done` may be NULL.  False (nothing sent, nothing counted) when
 * conn_can_command() is false. */
bool conn_command(struct conn *c, enum op op, const char *text,
		  const struct msg *body, conn_done_fn done, void *arg);
/* "<tag> <text> {N1+}\r\n<body 1> {N2+}\r\n<body 2> ...\r\n": an APPEND
 * of n messages (MULTIAPPEND, RFC 3502, when n > 1: false without the
 * capability), counted as one APPEND command of n messages.  Literals as
 * for conn_command (synchronizing without LITERAL+). */
bool conn_append_n(struct conn *c, const char *text,
		   const struct msg *const *bodies, unsigned n,
		   conn_done_fn done, void *arg);
/* IDLE, counted as OP_IDLE from DONE to its tagged OK: needs the
 * connection to itself (false otherwise).  The "+" calls the
 * idle_started hook; the IDLE lasts until conn_idle_end() (or a drain).
 * conn_idle_timed: the engine says DONE itself after a random while of up
 * to 2 s (imaptest's IDLE state). */
bool conn_idle_begin(struct conn *c, conn_done_fn done, void *arg);
bool conn_idle_timed(struct conn *c, conn_done_fn done, void *arg);
/* Send DONE if idling (after "+"); true when it did. */
bool conn_idle_end(struct conn *c);
bool conn_idling(const struct conn *c);		/* "+" seen, no DONE yet */
/* After LOGOUT is answered the session ends as CONN_END_LOGOUT. */
bool conn_logout(struct conn *c, conn_done_fn done, void *arg);
/* The server offers MOVE / UIDPLUS (as the last capability list said). */
bool conn_has_move(const struct conn *c);
bool conn_has_uidplus(const struct conn *c);
bool conn_has_multiappend(const struct conn *c);	/* RFC 3502 */
bool conn_has_condstore(const struct conn *c);	/* LoadSim's cached mode */
bool conn_has_idle(const struct conn *c);
bool conn_has_sort(const struct conn *c);
bool conn_has_thread(const struct conn *c);	/* THREAD=REFERENCES */
/* QRESYNC with ENABLE (RFC 7162), and COMPRESS=DEFLATE (RFC 4978). */
bool conn_has_qresync(const struct conn *c);
bool conn_has_compress(const struct conn *c);
/* NOTIFY (RFC 5465). */
bool conn_has_notify(const struct conn *c);
/* ENABLE `what` (e.g. "QRESYNC"): sent like the connection's own
 * set-up ENABLE (errors counted, not a row of the command table); done
 * hears its reply.  False when conn_can_command() is. */
bool conn_enable(struct conn *c, const char *what, conn_done_fn done,
		 void *arg);
/* NOTIFY `args` ("SET (selected ...)"), a set-up command like
 * conn_enable's (a NO or BAD counted as an error and shown, not a row of
 * the command table); done hears its reply.  False when conn_can_command()
 * is, or without the NOTIFY capability. */
bool conn_notify(struct conn *c, const char *args, conn_done_fn done,
		 void *arg);
/* COMPRESS DEFLATE, counted under COMPRESS.  On its OK the
 * connection puts the deflate layer in (as for stress mode's COMPRESS)
 * and only then calls done, so what done sends goes compressed.  Needs
 * the capability, the connection to itself and no layer yet (false
 * otherwise). */
bool conn_compress_begin(struct conn *c, conn_done_fn done, void *arg);
bool conn_compressed(const struct conn *c);	/* the layer is on */
/* Messages in the selected mailbox (EXISTS, less EXPUNGEs since). */
uint32_t conn_exists(const struct conn *c);
const char *conn_user(const struct conn *c);

/* The foreign-mail guard (imap/guard.h, issue 31).  conn_guard_clear:
 * may a destructive command (guard_destructive) go into box, the mailbox
 * this session has selected?  True: now.  False: not yet (the search is
 * asked or awaited; the ready hook comes again once the answer is in) or
 * never (refused: the run is stopping).  A driver calls it before every
 * such command; the engine aborts on one sent without.  A SELECT sent
 * un-clears the session.
 * conn_guard_selected: a SELECT of box was answered OK (an empty mailbox
 * needs no search).  conn_guard_ours: may a mailbox DELETE or RENAME
 * name box (it is known to hold only our mail: this worker's CREATE or
 * RENAME made it, or it was checked; the engine forgets it when it is
 * deleted or renamed away). */
bool conn_guard_clear(struct conn *c, const char *box);
/* Does this command destroy mail (imap/guard.h's rule; the states that
 * always do, OP_EXPUNGE, OP_MOVE, OP_DELETE and OP_MDELETE, whatever
 * their text)?  conn_guard_new: a worker's memory for its conn_env, NULL
 * with --allow-foreign-mail. */
bool conn_guard_destructive(enum op op, const char *text, size_t len);
struct guard *conn_guard_new(const struct config *cfg);
void conn_guard_free(struct guard *g);	/* NULL is a no-op */
void conn_guard_selected(struct conn *c, const char *box);
bool conn_guard_ours(struct conn *c, const char *box, size_t len);

#endif
