/* conn_struct.h: struct conn, grouped by sub-machine, and the states of
 * those machines; for src/conn/conn*.c only, through conn_int.h. */
#ifndef IMAPSTRESS_CONN_STRUCT_H
#define IMAPSTRESS_CONN_STRUCT_H

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

/* A connection's state, grouped by the sub-machine that owns it: the
 * wire (socket, TLS, COMPRESS, parser), the commands (in flight, being
 * built, a literal's continuation, IDLE, the holds on sending), the
 * login, the session's set-up steps, the selected mailbox and the
 * connection's life (its timer, its session's end).  Each group has ONE
 * init (conn.c, from conn_new) and ONE reset (conn_life.c, from
 * conn_reset_session, at the start of every session).  Within each, the
 * fields are ordered by size, so there are no holes: an idle connection
 * is mostly this struct, the parser and libevent's pieces, and 15,000
 * of them must fit in 6.5 KB each (issue 19). */

struct conn_wire {
	struct imap_parser *parser;
	struct event *rd_ev;	/* plain socket: our own reads (CONN_MAX_READ) */
	struct rawlog *rawlog;	/* rawlog: the protocol, or NULL */
	struct ssl_session_st *tls_sess;	/* --tls-resume: last session */
	/* The filter's octet counts: allocated by the first COMPRESS, then
	 * kept (the filter points at them while it lives). */
	struct compress_counts *zc;
	/* A driver's COMPRESS (conn_compress_begin): its done runs once the
	 * layer is on, so what it sends next goes through it. */
	conn_done_fn z_done;
	void *z_done_arg;
	uint64_t wire_in, wire_out;	/* TLS: socket octets already counted */
	uint64_t t_tls_start;	/* when the STARTTLS handshake started */
};

struct conn_cmds {
	struct inflight *fl;	/* fl_inline, or CONN_MAX_INFLIGHT on the heap */
	struct evbuffer *stage;	/* command under construction */
	struct evbuffer *scratch;	/* its text after a referenced body */
	const struct imap_resp *cur_resp;	/* the reply being handled, for error lines */
	/* A command with synchronizing literals waiting for "+": the rest of
	 * it, and the offsets (relative to what is left) to stop at.  Both
	 * NULL until the connection's first such command (conn_cont_open):
	 * with LITERAL+ or no literals they are never needed. */
	struct evbuffer *cont;
	size_t *cont_splits;	/* IMAP_CMD_MAX_SPLITS */
	uint64_t t_batch;	/* inside a batch: its clock, 0 until its first command */
	uint64_t t_due;		/* --rate: when the command being sent was due */
	uint32_t tag_next;
	unsigned n_cont_splits, cont_next;
	uint32_t cont_tag;	/* the command whose "+" cont_wait awaits */
	char tag_prefix[12];	/* "<slot>." of every tag, made on first use */
	uint8_t tag_prefix_len;	/* 0 until then */
	bool batching;		/* inside conn_batch_begin/end: one clock */
	bool cont_wait;
	bool redact_cont;	/* the pending continuation holds a secret */
	bool delayed;		/* paused (conn_pause) */
	bool disconnect_pending; /* conn_disconnect: close from the timer */
	bool idle_driver;	/* the IDLE is a driver's: no timer ends it */
	struct inflight fl_inline[CONN_FL_INLINE];
};

struct conn_login {
	char *user;		/* this session's login name (heap, user_cap) */
	const char *pass;	/* this user's password */
	struct scram *scram;	/* a SCRAM login in progress, or NULL */
	unsigned user_cap;
	enum lstate lstate;
	enum auth_mech sasl_mech;	/* the AUTHENTICATE being sent */
	enum conn_sasl_step sasl_step;
	uint8_t login_op;	/* OP_LOGIN or OP_AUTHENTICATE, the last sent */
	bool sasl_verified;	/* the server's SCRAM signature was right */
};

/* The set-up steps of the session (TLS among them: none to done, by
 * STARTTLS or the implicit handshake) and what they found.  The steps
 * are octets (enum conn_step, enum conn_tls): the group is the struct's
 * last and its 12 octets leave no hole. */
struct conn_setup {
	unsigned caps;
	uint8_t sep_step;	/* the LIST "" "" that asks for it */
	uint8_t capa;		/* CAPABILITY when the greeting had none */
	uint8_t enable;		/* qresync: ENABLE (due: after the caps) */
	uint8_t id;		/* ID on this connection */
	uint8_t tls;		/* TLS on this connection: none to done */
	char sep;		/* hierarchy separator, 0 until known */
	bool qresync_on;	/* "* ENABLED QRESYNC" came: VANISHED is allowed */
};

/* The selected mailbox, its model and the foreign-mail guard. */
struct conn_mbox {
	struct mbox_view *view;	/* model of the selected mailbox, or NULL */
	struct event *guard_ev;	/* the guard's wake-up, made on first wait */
	uint32_t guard_e;	/* its entry in env->guard */
	uint32_t exists;	/* messages in the selected mailbox */
	enum conn_cp cp;	/* checkpoint progress */
	uint8_t guard;		/* enum conn_guard */
	bool view_active;	/* a SELECT was sent: feed the view */
};

/* The connection's life: its slot, its sessions, its timer, its end. */
struct conn_life {
	struct event *timer;	/* reconnect backoff, pause, IDLE, DISCONNECT */
	struct rng rng;
	uint64_t t_connect;	/* when connect() started */
	uint64_t t_connected;	/* when the connection was established */
	uint64_t serial;	/* connection number, for tags and logs */
	unsigned slot;		/* global client index */
	enum conn_logout logout;	/* LOGOUT progress */
	enum conn_quit quit;	/* a close decided below conn_life.c */
	enum conn_end close_end;	/* its outcome and cause, for the */
	enum err_kind close_err;	/* closed hook */
};

struct conn {
	const struct conn_env *env;	/* the driver's; outlives the conn */
	struct bufferevent *bev;
	/* What the worker's tick reads of every connection (conn_tick,
	 * conn_sync_wire) and the may-send bits every command asks, in this
	 * first cache line, whichever sub-machine owns them: spread over
	 * seven, the walk over 18,000 idle LoadSim connections was 15% of
	 * the client's steady CPU (perf: conn_tick, conn_sync_wire). */
	uint64_t t_last_io;	/* the last byte read from the server */
	uint64_t t_asked;	/* the last command (or DONE) sent */
	uint64_t stall_said;	/* when a >15 s stall was last reported */
	enum conn_state st;
	unsigned n_fl;		/* commands in flight (cmd.fl) */
	enum conn_idle idle;	/* IDLE command progress */
	enum conn_compress z;	/* COMPRESS=DEFLATE: none to on */
	bool stopping;		/* conn_drain/conn_halt: no driver commands */
	bool ever_in;		/* a LOGIN of this slot succeeded, any session */
	bool tls_layer;		/* the bufferevent is TLS (wire != IMAP octets) */
	bool own_reads;		/* rd_ev reads the socket, not the bufferevent */
	uint8_t hold;		/* CONN_HOLD_*: why nothing may be sent now */

	struct conn_wire wire;
	struct conn_cmds cmd;
	struct conn_login login;
	struct conn_mbox mbox;
	struct conn_life life;
	struct conn_setup setup;
};

#endif
