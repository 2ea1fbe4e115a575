/* conn_int.h: the inside of a connection, for src/conn/conn*.c only.
 * Everything else (drivers, the worker, checkpoint, open loop) sees the
 * opaque `struct conn` of conn.h and acts through its functions. */
#ifndef IMAPSTRESS_CONN_INT_H
#define IMAPSTRESS_CONN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "net/compress.h"
#include "conn/conn.h"
#include "imap/imap.h"
#include "imap/imap_cmd.h"
#include "model/mbox_model.h"
#include "util/rng.h"
#include "stats/stats.h"

struct bufferevent;
struct event;
struct evbuffer;


enum conn_state {
	CONN_S_WAIT,		/* not connected; a timer will start it */
	CONN_S_CONNECTING,
	CONN_S_GREETING,
	CONN_S_SESSION,		/* greeting seen: login, commands, logout */
	CONN_S_DONE		/* finished for good (run stopping) */
};

/* Set-up commands of the session, never counted as commands (their
 * failures still count as errors). */
enum conn_internal {
	CONN_I_NONE,
	CONN_I_CAPABILITY,
	CONN_I_ENABLE,
	CONN_I_STARTTLS,
	CONN_I_ID,
	CONN_I_CREATE,
	CONN_I_CHECK,		/* a checkpoint's CHECK */
	CONN_I_LIST,		/* LIST "" "": the hierarchy separator */
	CONN_I_GUARD,		/* the foreign-mail search (conn_guard.c) */
	CONN_I_NOTIFY		/* a driver's NOTIFY SET (conn_notify) */
};

/* A session and the foreign-mail guard (conn_guard.c). */
enum conn_guard {
	CONN_G_NONE,	/* the selected mailbox is not cleared */
	CONN_G_OK,	/* cleared: guard_e is the selected mailbox's entry */
	CONN_G_DRAIN,	/* to search guard_e once nothing is in flight; no
			 * driver command goes out meanwhile */
	CONN_G_SENT,	/* the search is out, and nothing follows it: it is
			 * a UID SEARCH, during which a server may send
			 * EXPUNGE (RFC 3501 7.4.1), so a command with
			 * sequence numbers behind it is ambiguous (5.5):
			 * Dovecot expunged 31 of 33 messages during it and
			 * answered the FETCH and STORE pipelined after it
			 * BAD "Invalid messageset" */
	CONN_G_WAIT	/* another session searches guard_e */
};

/* In-flight slots held in the conn itself.  An idle session has one or
 * two commands out (IDLE; a CHECK, the LOGIN with its ID): the first
 * CONN_FL_INLINE live inline, and only a session that pipelines deeper
 * takes CONN_MAX_INFLIGHT slots from the heap (conn_fl_push), until it
 * ends.  64 inline slots were 3 KB of every idle connection. */
#define CONN_FL_INLINE 4
/* A login name is cut at this many octets (the SASL PLAIN buffer is
 * sized for it); its buffer starts at CONN_USER_INIT and grows to fit. */
#define CONN_USER_MAX 255
#define CONN_USER_INIT 32
/* Under COMPRESS, inflate at most this far ahead of the parser: its
 * line and literal limits then hold for the inflated stream, and a bomb
 * costs each connection this much, not what it inflates to.  Any size
 * works (conn_close says why that needed care); CPPFLAGS=
 * -DCONN_INFLATE_AHEAD=N builds another, to run the shell tests with. */
#ifndef CONN_INFLATE_AHEAD
#define CONN_INFLATE_AHEAD (128 * 1024)
#endif
/* One writev() may carry this much (libevent's default is 16 KiB, five
 * rounds through the event loop for a 75 KB APPEND). */
#define CONN_MAX_WRITE CONN_OUT_HIGH
/* Output backpressure: no new command is queued while more than HIGH
 * octets wait to be written; the write callback resumes at LOW.  Keeps
 * memory per connection bounded (every evbuffer chain, even one that
 * only references a pooled message, costs 1 KiB) and starts latency
 * clocks near the wire rather than deep in our own queue. */
#define CONN_OUT_HIGH (256 * 1024)
#define CONN_OUT_LOW (64 * 1024)

/* IDLE (RFC 2177): sent, then "+" (idling until the timer sends DONE),
 * then the tagged OK. */
enum conn_idle {
	CONN_IDLE_NONE,
	CONN_IDLE_STARTING,	/* IDLE sent, waiting for "+" */
	CONN_IDLE_ACTIVE,	/* idling */
	CONN_IDLE_DONE_SENT	/* DONE sent, waiting for the tagged OK */
};

/* TLS on one connection.  Implicit TLS goes from NONE to DONE when the
 * handshake completes; STARTTLS walks every step. */
enum conn_tls {
	CONN_TLS_NONE,
	CONN_TLS_ASKED,		/* STARTTLS sent, reply pending */
	CONN_TLS_UPGRADE,	/* its OK seen: switch to TLS after parsing */
	CONN_TLS_HANDSHAKE,	/* the TLS layer is in place, handshaking */
	CONN_TLS_DONE		/* established */
};

/* COMPRESS=DEFLATE on one connection. */
enum conn_compress {
	CONN_Z_NONE,
	CONN_Z_ASKED,		/* COMPRESS sent, reply pending */
	CONN_Z_UPGRADE,		/* its OK seen: add the filter after parsing */
	CONN_Z_ON		/* the filter is in place */
};

/* One setup step of a session (CAPABILITY, ENABLE, ID, the LIST that
 * finds the hierarchy separator): where it is. */
enum conn_step {
	CONN_STEP_NONE,		/* not begun */
	CONN_STEP_DUE,		/* to go out once what it waits for is in */
	CONN_STEP_SENT,		/* sent, reply pending */
	CONN_STEP_DONE		/* answered, or given up on */
};

/* A close decided inside a callback, carried out when it returns. */
enum conn_quit {
	CONN_QUIT_NONE,
	CONN_QUIT_AFTER_INFLIGHT,	/* a BAD: once nothing is in flight */
	CONN_QUIT_NOW		/* once the parser callback returns */
};

/* How a session ends by our LOGOUT.  A BYE with no LOGOUT sent is an
 * error (conn_fail) and leaves this at NONE. */
enum conn_logout {
	CONN_LOGOUT_NONE,	/* no LOGOUT sent */
	CONN_LOGOUT_SENT,	/* sent, the server's BYE not yet seen */
	CONN_LOGOUT_BYE		/* sent and answered with BYE: logged out */
};

/* This connection in a checkpoint (drivers/stress/checkpoint.c): its
 * CHECK and whether its view is compared.  A checkpoint can end
 * (draining) before a CHECK is answered: that CHECK is still awaited,
 * its view not. */
enum conn_cp {
	CONN_CP_NONE,		/* not in a checkpoint */
	CONN_CP_SENT,		/* CHECK unanswered; the view takes part */
	CONN_CP_ANSWERED,	/* CHECK answered; the view takes part */
	CONN_CP_STALE		/* CHECK unanswered; the checkpoint is over */
};

/* A login that could not be built (no nonce) is tried again after this. */
#define CONN_RETRY_US 10000

/* How long an IDLE lasts before DONE: a random time up to this. */
#define CONN_IDLE_MAX_MS 2000

struct inflight {
	uint32_t tag;
	uint8_t op;		/* enum op */
	uint8_t internal;	/* enum conn_internal */
	uint32_t msgs;		/* APPEND: messages carried */
	uint64_t bytes;		/* APPEND: message octets carried */
	uint64_t t_sent;	/* us, monotonic */
	conn_done_fn done;	/* a driver's command (conn_driver.c); NULL:
				 * the engine's own (LOGIN, a drain's LOGOUT) */
	void *done_arg;
};

/* Capabilities we act on. */
enum conn_cap {
	CAP_LITERALPLUS = 1 << 0,
	CAP_LITERALMINUS = 1 << 1,
	CAP_MULTIAPPEND = 1 << 2,
	CAP_IDLE = 1 << 3,
	CAP_UIDPLUS = 1 << 4,
	CAP_CONDSTORE = 1 << 5,
	CAP_QRESYNC = 1 << 6,
	CAP_SORT = 1 << 7,
	CAP_THREAD = 1 << 8,
	CAP_MOVE = 1 << 9,
	CAP_STARTTLS = 1 << 10,
	CAP_SASL_IR = 1 << 11,
	CAP_AUTH_PLAIN = 1 << 12,
	CAP_ENABLE = 1 << 13,
	CAP_ID = 1 << 14,
	CAP_IMAP4REV2 = 1 << 15,
	CAP_COMPRESS = 1 << 16,
	CAP_LOGINDISABLED = 1 << 17,
	CAP_NOTIFY = 1 << 18,		/* RFC 5465 (profile push = notify) */
	CAP_KNOWN = 1u << 31	/* a capability list has been seen */
};
/* The CAP_ bits of a capability list (names separated by spaces;
 * conn_caps.c). */
unsigned conn_caps_parse(const char *s, size_t n);

/* Where a SCRAM exchange is (conn_sasl.c). */
enum conn_sasl_step {
	SASL_DONE,
	SASL_SEND_FIRST,	/* no SASL-IR: client-first after the "+" */
	SASL_SERVER_FIRST,	/* waiting for server-first-message */
	SASL_SERVER_FINAL	/* waiting for server-final-message */
};

struct scram;

/* The fields are ordered by size within loose groups (what a reply and
 * the next command touch first), so the struct has no holes: an idle
 * connection is mostly this struct, the parser and libevent's pieces,
 * and 15,000 of them must fit in 6.5 KB each (issue 19). */
struct conn {
	/* Every reply and command. */
	const struct conn_env *env;	/* the driver's; outlives the conn */
	struct bufferevent *bev;
	/* What the worker's tick reads of every connection (conn_tick,
	 * conn_sync_wire), in this first cache line: spread over seven,
	 * the walk over 18,000 idle LoadSim connections was 15% of the
	 * client's steady CPU (perf: conn_tick, conn_sync_wire). */
	uint64_t t_last_io;	/* the last byte read from the server */
	uint64_t t_asked;	/* the last command (or DONE) sent */
	uint64_t stall_said;	/* when a >15 s stall was last reported */
	enum conn_state st;
	unsigned n_fl;
	enum conn_idle idle;	/* IDLE command progress */
	enum conn_compress z;	/* COMPRESS=DEFLATE: none to on */
	bool stopping;		/* conn_drain/conn_halt: no driver commands */
	bool ever_in;		/* a LOGIN of this slot succeeded, any session */
	bool tls_layer;		/* the bufferevent is TLS (wire != IMAP octets) */
	struct imap_parser *parser;
	struct event *rd_ev;	/* plain socket: our own reads (CONN_MAX_READ) */
	struct inflight *fl;	/* fl_inline, or CONN_MAX_INFLIGHT on the heap */
	struct evbuffer *stage;	/* command under construction */
	struct evbuffer *scratch;	/* its text after a referenced body */
	struct rng rng;
	uint64_t t_batch;	/* inside a batch: its clock, 0 until its first command */
	uint64_t t_due;		/* --rate: when the command being sent was due */
	unsigned slot;		/* global client index */
	enum lstate lstate;
	unsigned caps;
	uint32_t tag_next;
	char tag_prefix[12];	/* "<slot>." of every tag, made on first use */
	uint8_t tag_prefix_len;	/* 0 until then */
	bool own_reads;		/* rd_ev reads the socket, not the bufferevent */
	bool batching;		/* inside conn_batch_begin/end: one clock */
	struct inflight fl_inline[CONN_FL_INLINE];

	/* A command with synchronizing literals waiting for "+": the rest of
	 * it, and the offsets (relative to what is left) to stop at.  Both
	 * NULL until the connection's first such command (conn_cont_open):
	 * with LITERAL+ or no literals they are never needed. */
	struct evbuffer *cont;
	size_t *cont_splits;	/* IMAP_CMD_MAX_SPLITS */
	unsigned n_cont_splits, cont_next;
	uint32_t cont_tag;	/* the command whose "+" cont_wait awaits */
	bool cont_wait;
	bool redact_cont;	/* the pending continuation holds a secret */

	/* The selected mailbox. */
	bool view_active;	/* a SELECT was sent: feed the view */
	char sep;		/* hierarchy separator, 0 until known */
	uint8_t guard;		/* enum conn_guard (in what was padding) */
	uint32_t guard_e;	/* its entry in env->guard */
	struct mbox_view *view;	/* model of the selected mailbox, or NULL */
	const struct imap_resp *cur_resp;	/* for error lines */
	uint32_t exists;	/* messages in the selected mailbox */
	enum conn_cp cp;	/* checkpoint progress */

	/* Login. */
	char *user;		/* this session's login name (heap, user_cap) */
	const char *pass;	/* this user's password */
	struct scram *scram;	/* a SCRAM login in progress, or NULL */
	unsigned user_cap;
	enum auth_mech sasl_mech;	/* the AUTHENTICATE being sent */
	enum conn_sasl_step sasl_step;
	/* Setup steps of the session. */
	enum conn_step sep_step;	/* the LIST "" "" that asks for it */
	enum conn_step capa;	/* CAPABILITY when the greeting had none */
	enum conn_step enable;	/* qresync: ENABLE (due: after the caps) */
	enum conn_step id;	/* ID on this connection */

	/* The session's life. */
	uint64_t t_connect;	/* when connect() started */
	uint64_t t_tls_start;	/* when the STARTTLS handshake started */
	uint64_t t_connected;	/* when the connection was established */
	uint64_t serial;	/* connection number, for tags and logs */
	struct event *timer;	/* reconnect backoff, pause, IDLE, DISCONNECT */
	struct event *guard_ev;	/* the guard's wake-up, made on first use */
	struct rawlog *rawlog;	/* rawlog: the protocol, or NULL */
	enum conn_logout logout;	/* LOGOUT progress */
	enum conn_quit quit;	/* a close decided inside a callback */
	enum conn_end close_end;	/* its outcome and cause, for the */
	enum err_kind close_err;	/* closed hook */
	bool sasl_verified;	/* the server's SCRAM signature was right */
	bool delayed;		/* paused (conn_pause) */
	bool disconnect_pending; /* conn_disconnect: close from the timer */
	bool idle_driver;	/* the IDLE is a driver's: no timer ends it */
	bool qresync_on;	/* "* ENABLED QRESYNC" came: VANISHED is allowed */
	uint8_t login_op;	/* OP_LOGIN or OP_AUTHENTICATE, the last sent */
	uint8_t hold;		/* CONN_HOLD_*: why nothing may be sent now
				 * (in what was padding: the idle footprint) */

	/* TLS and COMPRESS. */
	uint64_t wire_in, wire_out;	/* TLS: socket octets already counted */
	struct ssl_session_st *tls_sess;	/* --tls-resume: last session */
	/* A driver's COMPRESS (conn_compress_begin): its done runs once the
	 * layer is on, so what it sends next goes through it. */
	conn_done_fn z_done;
	void *z_done_arg;
	/* The filter's octet counts: allocated by the first COMPRESS, then
	 * kept (the filter points at them while it lives). */
	struct compress_counts *zc;
	enum conn_tls tls;	/* TLS on this connection: none to done */
};

/* THE may-send predicate, one for every command that is not a set-up
 * step of the session: a session is up and nothing on the wire forbids a
 * new command (a literal waiting for "+", an IDLE, COMPRESS switching
 * layers, LOGOUT sent, a close decided, a pause or a planned disconnect).
 * The set-up and login (conn_send_more) and the driver commands
 * (conn_can_command) add only what is theirs (not logged in, stopping).
 *
 * It is asked before every pipelined command, so it is kept as bits in
 * c->hold, one per reason, that conn_hold_update() recomputes from the
 * fields wherever one of them changes: the question is then one test.
 * conn_hold_of() is the predicate itself; built with -DCONN_HOLD_CHECK,
 * every question checks that c->hold still says what it says. */
enum {
	CONN_HOLD_NO_SESSION = 1u << 0,	/* not in session, or no bufferevent */
	CONN_HOLD_ENDING = 1u << 1,	/* a close decided or planned, LOGOUT sent */
	CONN_HOLD_CONT = 1u << 2,	/* a literal waits for "+" */
	CONN_HOLD_IDLE = 1u << 3,	/* an IDLE from start to tagged OK */
	CONN_HOLD_PAUSED = 1u << 4,	/* conn_pause */
	CONN_HOLD_COMPRESS = 1u << 5,	/* COMPRESS asked, layer not on yet */
	CONN_HOLD_NONAUTH = 1u << 6,	/* not logged in: no driver command */
	CONN_HOLD_STOPPING = 1u << 7,	/* conn_drain/conn_halt: no driver command */
};
/* What forbids any command (conn_may_send), and a driver's. */
#define CONN_HOLD_SEND 0x3fu
#define CONN_HOLD_DRIVER 0xffu

static inline unsigned
conn_hold_of(const struct conn *c)
{
	return (c->st != CONN_S_SESSION || c->bev == NULL ?
		CONN_HOLD_NO_SESSION : 0) |
	    (c->quit != CONN_QUIT_NONE || c->logout != CONN_LOGOUT_NONE ||
	     c->disconnect_pending ? CONN_HOLD_ENDING : 0) |
	    (c->cont_wait ? CONN_HOLD_CONT : 0) |
	    (c->idle != CONN_IDLE_NONE ? CONN_HOLD_IDLE : 0) |
	    (c->delayed ? CONN_HOLD_PAUSED : 0) |
	    (c->z == CONN_Z_ASKED || c->z == CONN_Z_UPGRADE ?
	     CONN_HOLD_COMPRESS : 0) |
	    (c->lstate == LSTATE_NONAUTH ? CONN_HOLD_NONAUTH : 0) |
	    (c->stopping ? CONN_HOLD_STOPPING : 0);
}

/* After any change of st, bev, quit, logout, cont_wait, idle, delayed,
 * disconnect_pending, z, lstate or stopping. */
static inline void
conn_hold_update(struct conn *c)
{
	c->hold = (uint8_t)conn_hold_of(c);
}

#ifdef CONN_HOLD_CHECK
void conn_hold_mismatch(const struct conn *c);
#define CONN_HOLD_VERIFY(c) \
	do { if ((c)->hold != conn_hold_of(c)) conn_hold_mismatch(c); } while (0)
#else
#define CONN_HOLD_VERIFY(c) ((void)0)
#endif

static inline bool
conn_may_send(const struct conn *c)
{
	CONN_HOLD_VERIFY(c);
	return !(c->hold & CONN_HOLD_SEND);
}

/* A driver's command: conn_may_send, logged in and not stopping. */
static inline bool
conn_driver_may_send(const struct conn *c)
{
	CONN_HOLD_VERIFY(c);
	return !(c->hold & CONN_HOLD_DRIVER);
}

/* The session is the driver's own (conn_hooks.raw): up, and past the
 * STARTTLS the engine does first when --starttls asks for it. */
static inline bool
conn_raw(const struct conn *c)
{
	return c->env->hooks->raw != NULL && c->st == CONN_S_SESSION &&
	    (c->env->cfg->tls != TLS_STARTTLS || c->tls == CONN_TLS_DONE);
}

/* A new in-flight slot, the last of c->fl; a session's first command
 * beyond CONN_FL_INLINE moves the slots to the heap. */
void conn_fl_grow(struct conn *c);
static inline struct inflight *
conn_fl_push(struct conn *c)
{
	if (c->n_fl == CONN_FL_INLINE && c->fl == c->fl_inline)
		conn_fl_grow(c);
	return &c->fl[c->n_fl++];
}

/* The layers of src/conn/, each file calling only the ones below it
 * (scripts/check-layers holds it):
 *
 *   conn.c          the connection object and the events of its timers:
 *                   new/free, the tick, drain, halt, restart, the guard's
 *                   wake-up, and the driver calls that may end a session
 *   conn_connect.c  a session's start: socket, connect, attach
 *   conn_io.c       the socket's events: read, write, EOF, errors, TLS and
 *                   COMPRESS layers, the connect's completion
 *   conn_life.c     THE place a connection is closed and reset
 *   conn_step.c     what the session sends next: set-up, login, LOGOUT
 *   conn_resp.c     the server's responses
 *   conn_driver.c, conn_sasl.c, conn_guard.c, conn_view.c
 *   conn_cmd.c      commands on their way to the wire
 *   conn_wire.c, conn_guard_gate.c, conn_log.c, conn_stall.c, ...
 *
 * Below conn_life.c nothing closes a connection: a fault sets the quit
 * reason (conn_quit, or conn_fail, which also logs and counts it) and
 * returns, and the event that found it (a callback of conn_io.c or
 * conn.c, or a call of the driver's) closes the connection when the
 * layers below have returned (conn_settle). */

/* Close the connection once the event being handled returns: how it ends
 * and why, for the closed hook.  Sending stops at once (CONN_HOLD_ENDING).
 * The last reason set wins. */
static inline void
conn_quit(struct conn *c, enum conn_end end, enum err_kind why)
{
	c->quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	c->close_end = end;
	c->close_err = why;
}

/* How a session closed now ends: after LOGOUT's BYE a logout, while
 * stopping stopped, else failed. */
static inline enum conn_end
conn_end_now(const struct conn *c)
{
	return c->logout == CONN_LOGOUT_BYE ? CONN_END_LOGOUT :
	    c->stopping ? CONN_END_STOPPED : CONN_END_FAILED;
}

/* The mechanism a login state uses: mech= for both states, except that
 * the default (mech=LOGIN, the LOGIN command) leaves imaptest's
 * AUTHENTICATE state with PLAIN. */
static inline enum auth_mech
conn_sasl_mech(const struct conn *c, enum op op)
{
	enum auth_mech m = c->env->cfg->mech_id;
	return op == OP_AUTHENTICATE && m == MECH_LOGIN ? MECH_PLAIN : m;
}

/* The life (conn_life.c).  conn_close tears the session down and tells
 * the driver (the closed hook) how it ended and why; it counts nothing
 * but what was in flight (a failure's error is counted where it is
 * found, conn_fail).  conn_settle carries out a quit set below: true
 * when it closed. */
void conn_close(struct conn *c, enum conn_end end, enum err_kind why);
bool conn_settle(struct conn *c);
/* Forget the last session's state: a new one starts. */
void conn_reset_session(struct conn *c);
/* The session is over (or starting): back to the inline slots. */
void conn_fl_release(struct conn *c);

/* The socket's events (conn_io.c): the libevent callbacks, each of which
 * settles what it found. */
void conn_read_cb(struct bufferevent *bev, void *arg);
void conn_sock_read_cb(int fd, short what, void *arg);
void conn_write_cb(struct bufferevent *bev, void *arg);
void conn_event_cb(struct bufferevent *bev, short what, void *arg);
/* Count errno e from bind/connect as "out of local ports" when it is. */
void conn_count_port_error(struct conn *c, int e);
/* A plain socket's connect as seen from the timeout tick: true when TCP
 * is up (the greeting is awaited from now on). */
bool conn_connect_poll(struct conn *c, uint64_t now);

/* The wire (conn_wire.c). */
void conn_write_now(struct conn *c);
/* Octets were queued on c->bev's output: make sure its write event will
 * carry them if conn_write_now() does not (it turns the event off). */
void conn_out_queued(struct conn *c);
void conn_count_received(struct conn *c, uint64_t n);
/* Bring the wire byte counters up to date (TLS counts its own). */
void conn_sync_wire(struct conn *c);
/* Count octets handed to / taken from the IMAP layer. */
void conn_count_sent(struct conn *c, uint64_t n);

/* What the session sends next (conn_step.c): the set-up and login, the
 * LOGOUT of a drain, a foreign-mail search that waited, then the ready
 * hook.  A fault sets the quit reason: the caller settles. */
void conn_step(struct conn *c);

int conn_on_resp(void *arg, const struct imap_resp *r);
/* Whether untagged `r` may be applied: false for a response of an
 * extension this session did not enable (VANISHED without QRESYNC), which
 * is counted and reported as a protocol error that ends the session
 * (conn_ext.c).  Notes "* ENABLED QRESYNC" as it passes. */
bool conn_ext_untagged(struct conn *c, const struct imap_resp *r);

/* Commands (conn_cmd.c). */
void conn_idle_done(struct conn *c);
/* Arm c->timer to fire in us microseconds. */
void conn_schedule(struct conn *c, uint64_t us);
/* The done of a driver's command nobody waits for (conn_cmd.c): the
 * slot still marks the command as a driver's, not the engine's own. */
void conn_driver_ignore(void *arg, struct conn *c, enum conn_reply st,
			const char *text, size_t len);
/* Returns the command's in-flight slot (valid until the next reply). */
struct inflight *conn_send_cmd(struct conn *c, struct imap_cmd *cmd,
			       enum op op, enum conn_internal internal,
			       uint32_t tag, uint32_t msgs, uint64_t bytes);
uint32_t conn_tag_begin(struct conn *c, struct imap_cmd *cmd);
/* Send one set-up command of the session (not a row of the table). */
void conn_send_internal(struct conn *c, enum conn_internal internal,
			const char *text);
/* Our LOGOUT (the drain's). */
void conn_send_logout(struct conn *c);
void conn_flush_cont(struct conn *c);
/* Make c->cont and c->cont_splits, if not yet there; drop what c->cont
 * holds (it may be NULL). */
void conn_cont_open(struct conn *c);
void conn_cont_clear(struct conn *c);
/* Log in (not logged in, the set-up before it done): an engine step, no
 * driver is asked.  Nothing when a login is in flight already. */
void conn_login(struct conn *c);
/* AUTHENTICATE (conn_sasl.c): the command text after the tag, the
 * challenges, and the tagged reply (false: an OK that must not count as
 * a login). */
bool conn_sasl_start(struct conn *c, enum op op, struct imap_cmd *cmd);
bool conn_sasl_active(const struct conn *c);
void conn_sasl_continue(struct conn *c, const struct imap_resp *r);
bool conn_sasl_end(struct conn *c, bool ok);

/* Driver commands (conn_driver.c): the end of those still in flight
 * when the session ends. */
void conn_driver_abandon(struct conn *c);
/* A tagged BAD: logged; the session ends once nothing is in flight. */
void conn_bad_reply(struct conn *c, enum op op, const struct imap_resp *r);
/* A SELECT is being sent: a fresh view of the model; its violations. */
void conn_view_select(struct conn *c);
void conn_view_err(void *arg, enum mbox_err kind, const char *msg);
/* The tagged OK of a SELECT while the view is fed (its response code,
 * then the snapshot the UIDNEXT checks compare with). */
void conn_view_select_done(struct conn *c, const struct imap_resp *r);
/* An untagged STATUS while the view is fed. */
void conn_view_on_status(struct conn *c, const struct imap_resp *r);

/* The foreign-mail guard (conn_guard.c): send a search that waited for
 * the pipeline to drain; a session's end; an untagged SEARCH/ESEARCH of
 * its search (true: taken, nobody else sees it); THE gate, asked by
 * conn_cmd_send for every driver command (aborts on a destructive one
 * that was not cleared; for CREATE, DELETE and RENAME of a mailbox it
 * returns the entries + 1 of the names, the second << 32, for
 * conn_guard_names_done to apply at their OK). */
void conn_guard_send_due(struct conn *c);
void conn_guard_closed(struct conn *c);
/* conn_guard_clear without the wake-up event (conn.c makes it for a
 * session that waits). */
bool conn_guard_ask(struct conn *c, const char *box);
bool conn_guard_untagged(struct conn *c, const struct imap_resp *r);
uint64_t conn_guard_gate(struct conn *c, enum op op,
			 const struct imap_cmd *cmd);
void conn_guard_names_done(struct conn *c, enum op op, uint64_t names);

/* The end of a run's stall bound (conn_stall.c).  Whether a connection
 * that last heard from the server at t_heard and last asked it something
 * at t_asked has waited in silence for more than bound_us at `now`; and,
 * while the connection drains, cutting it when it has (counted as a
 * timeout).  True when it was cut: the quit reason is set, the caller
 * settles. */
bool conn_stall_stale(uint64_t now, uint64_t t_heard, uint64_t t_asked,
		      uint64_t bound_us);
bool conn_stall_cut(struct conn *c, uint64_t now);

#endif
