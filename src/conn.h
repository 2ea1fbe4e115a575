/* conn.h: one IMAP client connection over a bufferevent.  It walks
 * connect -> (TLS) -> greeting -> login -> plan commands -> logout, keeps
 * its commands in flight in a small table keyed by tag, and reports each
 * tagged reply to its worker's stats shard.  The object lives for the
 * whole run (one per client slot); only its bufferevent comes and goes, so
 * nothing is ever freed inside its own callback. */
#ifndef IMAPSTRESS_CONN_H
#define IMAPSTRESS_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "compress.h"
#include "imap.h"
#include "imap_cmd.h"
#include "mbox_model.h"
#include "rng.h"
#include "stats.h"
#include "workload.h"

struct worker;
struct bufferevent;
struct event;
struct evbuffer;

enum conn_state {
	CONN_S_WAIT,		/* not connected; a timer will start it */
	CONN_S_CONNECTING,
	CONN_S_GREETING,
	CONN_S_SESSION,		/* greeting seen: login, plan, logout */
	CONN_S_DONE		/* finished for good (run stopping) */
};

/* Commands of our own that are not imaptest states, never counted as
 * commands (their failures still count as errors). */
enum conn_internal {
	CONN_I_NONE,
	CONN_I_CAPABILITY,
	CONN_I_ENABLE,
	CONN_I_STARTTLS,
	CONN_I_ID,
	CONN_I_CREATE,
	CONN_I_CHECK,		/* a checkpoint's CHECK */
	CONN_I_LIST		/* LIST "" "": the hierarchy separator */
};

#define CONN_MAX_INFLIGHT 64
/* Plain sockets are read by the connection itself (conn_sock_read_cb),
 * up to this much per read(): libevent 2.1's bufferevent reads 4 KiB at a
 * time whatever bufferevent_set_max_single_read() says, each read after a
 * FIONREAD ioctl, so a 40 KB FETCH answer cost 20 system calls. */
#define CONN_MAX_READ (128 * 1024)
/* Under COMPRESS, inflate at most this far ahead of the parser: its
 * line and literal limits then hold for the inflated stream, and a bomb
 * costs each connection this much, not what it inflates to. */
#define CONN_INFLATE_AHEAD (128 * 1024)
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

/* How long an IDLE lasts before DONE: a random time up to this. */
#define CONN_IDLE_MAX_MS 2000

struct inflight {
	uint32_t tag;
	uint8_t op;		/* enum op */
	uint8_t internal;	/* enum conn_internal */
	uint32_t msgs;		/* APPEND: messages carried */
	uint64_t bytes;		/* APPEND: message octets carried */
	uint64_t t_sent;	/* us, monotonic */
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
	CAP_KNOWN = 1u << 31	/* a capability list has been seen */
};

/* Where a SCRAM exchange is (conn_sasl.c). */
enum conn_sasl_step {
	SASL_DONE,
	SASL_SEND_FIRST,	/* no SASL-IR: client-first after the "+" */
	SASL_SERVER_FIRST,	/* waiting for server-first-message */
	SASL_SERVER_FINAL	/* waiting for server-final-message */
};

struct scram;

struct conn {
	struct worker *w;
	unsigned slot;		/* global client index */
	enum conn_state st;
	enum lstate lstate;
	struct bufferevent *bev;
	struct imap_parser *parser;
	struct event *timer;	/* reconnect backoff, DELAY */
	struct event *rd_ev;	/* plain socket: our own reads (CONN_MAX_READ) */
	bool own_reads;		/* rd_ev reads the socket, not the bufferevent */
	struct evbuffer *stage;	/* command under construction */
	struct evbuffer *scratch;	/* its text after a referenced body */
	struct rng rng;
	struct plan plan;
	unsigned caps;

	uint32_t tag_next;
	struct inflight fl[CONN_MAX_INFLIGHT];
	unsigned n_fl;

	/* A command with synchronizing literals waiting for "+": the rest of
	 * it, and the offsets (relative to what is left) to stop at. */
	struct evbuffer *cont;
	size_t cont_splits[IMAP_CMD_MAX_SPLITS];
	unsigned n_cont_splits, cont_next;
	bool cont_wait;
	uint32_t cont_tag;	/* the command whose "+" cont_wait awaits */

	uint32_t exists;	/* messages in the selected mailbox */
	struct mbox_view *view;	/* model of the selected mailbox, or NULL */
	bool view_active;	/* a SELECT was sent: feed the view */
	bool cp_waiting;	/* checkpoint: our CHECK is unanswered */
	bool cp_checked;	/* checkpoint: this view takes part */
	const struct imap_resp *cur_resp;	/* for error lines */
	char sep;		/* hierarchy separator, 0 until known */
	bool sep_pending;	/* LIST "" "" sent, reply not yet in */
	unsigned user_no, domain_no;
	char user[256];
	const char *pass;	/* this user's password */
	struct scram *scram;	/* a SCRAM login in progress, or NULL */
	enum auth_mech sasl_mech;	/* the AUTHENTICATE being sent */
	enum conn_sasl_step sasl_step;
	bool sasl_verified;	/* the server's SCRAM signature was right */

	uint64_t wire_in, wire_out;	/* TLS: socket octets already counted */
	struct ssl_session_st *tls_sess;	/* --tls-resume: last session */
	uint64_t t_connect;	/* when connect() started */
	uint64_t t_tls_start;	/* when the STARTTLS handshake started */
	uint64_t t_connected;	/* when the connection was established */
	uint64_t t_last_io;
	unsigned fail_streak;
	bool logout_sent, bye_seen;
	bool closing;		/* set inside callbacks: stop parsing */
	bool close_count;	/* count close_err when closing */
	enum err_kind close_err;
	bool tls_done;		/* TLS established on this connection */
	bool tls_layer;		/* the bufferevent is TLS (wire != IMAP octets) */
	bool compress_on;	/* COMPRESS=DEFLATE is active */
	bool compress_sent;	/* COMPRESS asked, reply pending */
	bool compress_upgrade;	/* COMPRESS OK seen: add the filter after parsing */
	struct compress_counts zc;	/* the filter's octet counts */
	bool capa_sent;		/* CAPABILITY asked, reply pending */
	bool enable_due;	/* qresync: ENABLE waits for post-login caps */
	bool quit_after_inflight;	/* a BAD: close once nothing is in flight */
	bool delayed;		/* in a DELAY state or retry pause */
	bool warned_skip;	/* warned about an unsupported command */
	bool starttls_sent;	/* STARTTLS asked on this connection */
	bool upgrade;		/* STARTTLS OK seen: switch to TLS after parsing */
	bool redact_cont;	/* the pending continuation holds a secret */
	struct rawlog *rawlog;	/* rawlog: the protocol, or NULL */
	int idle_slot;		/* --rate: index in the idle list, or -1 */
	enum conn_idle idle;	/* IDLE command progress */
	bool id_sent;		/* ID sent on this connection */
	bool disconnect_pending; /* DISCONNECT state: close from the timer */
	bool planned_close;	/* the close being done is a DISCONNECT state */
	uint64_t stall_said;	/* when a >15 s stall was last reported */
	uint64_t t_due;		/* --rate: when the command being sent was due */
	uint64_t serial;	/* connection number, for tags and logs */
};

struct conn *conn_new(struct worker *w, unsigned slot);
/* The model: a SELECT is being sent (fresh view), and violations. */
void conn_view_select(struct conn *c);
void conn_view_err(void *arg, enum mbox_err kind, const char *msg);
void conn_free(struct conn *c);			/* NULL is a no-op */

/* Start connecting now (st must be CONN_S_WAIT). */
void conn_start(struct conn *c);
/* Count errno e from bind/connect as "out of local ports" when it is. */
void conn_count_port_error(struct conn *c, int e);

/* The worker's 100 ms tick: timeouts and stall accounting. */
void conn_tick(struct conn *c, uint64_t now);

/* The run is ending: stop sending plan commands; log out once nothing is
 * in flight (drain), or close at once (halt). */
void conn_drain(struct conn *c);
/* Has a command been waiting with no byte from the server for `us`? */
bool conn_stalled(const struct conn *c, uint64_t now, uint64_t us);
void conn_halt(struct conn *c);

/* --rate: send the next plan command now, timed from `due`.  False when
 * the connection had nothing it could send. */
bool conn_send_scheduled(struct conn *c, uint64_t due);

/* Inside conn_*.c only. */
void conn_starttls_upgrade(struct conn *c);
/* The bufferevent callbacks (conn_io.c). */
void conn_read_cb(struct bufferevent *bev, void *arg);
void conn_sock_read_cb(int fd, short what, void *arg);
void conn_write_now(struct conn *c);
void conn_write_cb(struct bufferevent *bev, void *arg);
void conn_event_cb(struct bufferevent *bev, short what, void *arg);
void conn_count_received(struct conn *c, uint64_t n);
void conn_compress_upgrade(struct conn *c);
void conn_idle_done(struct conn *c);
/* Bring the wire byte counters up to date (TLS counts its own). */
void conn_sync_wire(struct conn *c);
/* Count octets handed to / taken from the IMAP layer. */
void conn_count_sent(struct conn *c, uint64_t n);
void conn_close(struct conn *c, enum err_kind why, bool count_err);
void conn_send_more(struct conn *c);
int conn_on_resp(void *arg, const struct imap_resp *r);
void conn_send_cmd(struct conn *c, struct imap_cmd *cmd, enum op op,
		   enum conn_internal internal, uint32_t tag, uint32_t msgs,
		   uint64_t bytes);
uint32_t conn_tag_begin(struct conn *c, struct imap_cmd *cmd);
/* Send one command of our own (not an imaptest state). */
void conn_send_internal(struct conn *c, enum conn_internal internal,
			const char *text);
/* Build and send the command for state op; false when it was skipped
 * (nothing to do in this state, e.g. FETCH in an empty mailbox). */
bool conn_cmd_op(struct conn *c, enum op op, const struct plan_pending *pend);
/* imaptest's DELAY (pause a random time up to 1 s) and DISCONNECT (drop
 * the connection) are chances taken after sending and after a reply, not
 * states of the walk (they come after LOGOUT, where the walk wraps). */
bool conn_delay_start(struct conn *c);
void conn_disconnect_soon(struct conn *c);
void conn_flush_cont(struct conn *c);
/* AUTHENTICATE (conn_sasl.c): the mechanism of a login state, the command
 * text after the tag, the challenges, and the tagged reply (false: an OK
 * that must not count as a login). */
enum auth_mech conn_sasl_mech(const struct conn *c, enum op op);
bool conn_sasl_start(struct conn *c, enum op op, struct imap_cmd *cmd);
bool conn_sasl_active(const struct conn *c);
void conn_sasl_continue(struct conn *c, const struct imap_resp *r);
bool conn_sasl_end(struct conn *c, bool ok);
/* Ask for the connection to be closed once the parser callback returns. */
void conn_close_later(struct conn *c, enum err_kind why, bool count_err);

#endif
