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
#include "imap/guard.h"
#include "model/mbox_model.h"
#include "util/rng.h"
#include "stats/stats.h"
#include "conn/conn_struct.h"

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
	    (c->life.quit != CONN_QUIT_NONE || c->life.logout != CONN_LOGOUT_NONE ||
	     c->cmd.disconnect_pending ? CONN_HOLD_ENDING : 0) |
	    (c->cmd.cont_wait ? CONN_HOLD_CONT : 0) |
	    (c->idle != CONN_IDLE_NONE ? CONN_HOLD_IDLE : 0) |
	    (c->cmd.delayed ? CONN_HOLD_PAUSED : 0) |
	    (c->z == CONN_Z_ASKED || c->z == CONN_Z_UPGRADE ?
	     CONN_HOLD_COMPRESS : 0) |
	    (c->login.lstate == LSTATE_NONAUTH ? CONN_HOLD_NONAUTH : 0) |
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
	    (c->env->cfg->tls != TLS_STARTTLS || c->setup.tls == CONN_TLS_DONE);
}

/* A new in-flight slot, the last of c->cmd.fl; a session's first command
 * beyond CONN_FL_INLINE moves the slots to the heap. */
void conn_fl_grow(struct conn *c);
static inline struct inflight *
conn_fl_push(struct conn *c)
{
	if (c->n_fl == CONN_FL_INLINE && c->cmd.fl == c->cmd.fl_inline)
		conn_fl_grow(c);
	return &c->cmd.fl[c->n_fl++];
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
	c->life.quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	c->life.close_end = end;
	c->life.close_err = why;
}

/* How a session closed now ends: after LOGOUT's BYE a logout, while
 * stopping stopped, else failed. */
static inline enum conn_end
conn_end_now(const struct conn *c)
{
	return c->life.logout == CONN_LOGOUT_BYE ? CONN_END_LOGOUT :
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
/* Arm c->life.timer to fire in us microseconds. */
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
/* Make c->cmd.cont and c->cmd.cont_splits, if not yet there; drop what
 * c->cmd.cont holds (it may be NULL). */
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
uint64_t conn_guard_gate_all(struct conn *c, enum op op,
			     const struct imap_cmd *cmd);
/* The states whose gate does more than ask the rule of their text: a
 * SELECT un-clears, CREATE, DELETE and RENAME of a mailbox are followed,
 * and EXPUNGE, MOVE and STORE \Deleted destroy whatever their text. */
#define CONN_GUARD_OPS ((1u << OP_SELECT) | (1u << OP_MCREATE) | \
	(1u << OP_MDELETE) | (1u << OP_MRENAME) | (1u << OP_EXPUNGE) | \
	(1u << OP_MOVE) | (1u << OP_DELETE))
_Static_assert(OP_COUNT <= 32, "CONN_GUARD_OPS holds every op");
/* THE gate (conn_guard_gate_all, the whole of it) with its common case
 * inline: every driver command passes, and most (NOOP, FETCH, APPEND,
 * ...) need only the rule's first-octet test of their text
 * (guard_destructive_text, inline too), when their text is inline and
 * its words marked (conn_tag_begin).  What this part lets go, the whole
 * gate lets go too; everything else is asked of the whole gate. */
static inline uint64_t
conn_guard_gate(struct conn *c, enum op op, const struct imap_cmd *cmd)
{
	const char *text;
	size_t len;

	if (op == OP_APPEND || c->env->guard == NULL)
		return 0;
	if (!((CONN_GUARD_OPS >> op) & 1) && cmd->words_at > 0 &&
	    imap_cmd_inline_text(cmd, &text, &len) && cmd->words_at <= len &&
	    text[cmd->words_at - 1] == ' ' &&
	    !guard_destructive_text(text + cmd->words_at, len - cmd->words_at))
		return 0;
	return conn_guard_gate_all(c, op, cmd);
}
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
