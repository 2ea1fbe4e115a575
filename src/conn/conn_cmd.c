/* conn_cmd.c: what a connection sends: the tags, the commands on their
 * way to the wire (literals, rawlog, the latency clock of a batch), a
 * driver's one command call (conn_cmd_begin/conn_cmd_send, and the
 * may-send question a batch asks before each), the continuation of a
 * literal, IDLE's DONE, and the holds on sending (a pause, a planned
 * disconnect) that the timer lifts (conn.c).  What the session sends
 * next is conn_step.c. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "util/log.h"
#include "net/rawlog.h"
#include "conn/shared.h"
#include "msg/msg.h"
#include "util/xmalloc.h"

static inline __attribute__((always_inline)) uint32_t
tag_begin(struct conn *c, struct imap_cmd *cmd)
{
	uint32_t tag = c->cmd.tag_next++;
	/* imaptest's tags: "<client>.<n>" (not printf: every command); the
	 * "<client>." part is made once per connection. */
	char buf[48];
	_Static_assert(sizeof(c->cmd.tag_prefix) + 20 + 1 <= sizeof(buf),
		       "a tag fits the buffer");
	if (c->cmd.tag_prefix_len == 0) {
		size_t p = imap_fmt_u64(c->cmd.tag_prefix, c->life.slot);
		c->cmd.tag_prefix[p++] = '.';
		c->cmd.tag_prefix_len = (uint8_t)p;
	}
	/* Written where it goes, the prefix as its whole array (a copy of a
	 * length known when compiling), when the text is inline. */
	char *out = imap_cmd_room(cmd, sizeof(buf));
	if (out == NULL)
		out = buf;
	size_t n = c->cmd.tag_prefix_len;
	memcpy(out, c->cmd.tag_prefix, sizeof(c->cmd.tag_prefix));
	n += imap_fmt_u64(out + n, tag);
	out[n++] = ' ';
	if (out == buf)
		imap_cmd_add(cmd, buf, n);
	else
		imap_cmd_wrote(cmd, n);
	imap_cmd_mark_words(cmd);	/* for the foreign-mail gate */
	return tag;
}

uint32_t
conn_tag_begin(struct conn *c, struct imap_cmd *cmd)
{
	return tag_begin(c, cmd);
}

/* The command as sent, except that a password never reaches the file. */
static void
conn_rawlog_cmd(struct conn *c, enum op op, enum conn_internal internal,
		uint32_t tag, const struct imap_cmd *cmd)
{
	char line[512];
	if (internal == CONN_I_NONE && (op == OP_LOGIN || op == OP_AUTHENTICATE)) {
		enum auth_mech m = conn_sasl_mech(c, op);
		int n = m == MECH_LOGIN ?
		    snprintf(line, sizeof(line), "%u.%u LOGIN %s <secret "
			     "redacted>\r\n", c->life.slot, tag, c->login.user) :
		    snprintf(line, sizeof(line), "%u.%u AUTHENTICATE %s <secret "
			     "redacted>\r\n", c->life.slot, tag, config_mech_name(m));
		rawlog_data(c->wire.rawlog, 'C', line, (size_t)n);
		c->cmd.redact_cont = true;
		return;
	}
	c->cmd.redact_cont = false;
	size_t upto = cmd->n_splits ? cmd->splits[0] : evbuffer_get_length(c->cmd.stage);
	struct evbuffer_iovec v[8];
	int nv = evbuffer_peek(c->cmd.stage, (ev_ssize_t)upto, NULL, v, 8);
	for (int i = 0; i < nv && i < 8 && upto > 0; i++) {
		size_t n = v[i].iov_len < upto ? v[i].iov_len : upto;
		rawlog_data(c->wire.rawlog, 'C', v[i].iov_base, n);
		upto -= n;
	}
}

/* When a command being queued now was sent.  Inside a batch
 * (conn_batch_begin) every command shares the clock read for the first: they
 * all leave in one write after the last is queued, so the first one's
 * clock is no later than any of them really left (it only counts the
 * queueing of the rest into their latency, well under a microsecond
 * each), and one clock read per batch instead of per command was 3% of
 * the client's CPU on pipelined NOOPs. */
static uint64_t
conn_send_clock(struct conn *c)
{
	if (!c->cmd.batching)
		return clock_us();
	if (c->cmd.t_batch == 0)
		c->cmd.t_batch = clock_us();
	return c->cmd.t_batch;
}

void
conn_batch_begin(struct conn *c, uint64_t due)
{
	c->cmd.batching = true;
	c->cmd.t_batch = 0;
	c->cmd.t_due = due;
}

void
conn_batch_end(struct conn *c, uint64_t due)
{
	c->cmd.batching = false;
	c->cmd.t_due = 0;
	if (due != 0)
		conn_write_now(c);	/* on the wire now, not a loop turn later */
}

/* Move bytes from the staging buffer to the socket.  A command with
 * synchronizing literals goes out up to the first one; the rest waits in
 * c->cmd.cont for "+" continuations. */
static inline __attribute__((always_inline)) struct inflight *
send_cmd(struct conn *c, struct imap_cmd *cmd, enum op op,
	 enum conn_internal internal, uint32_t tag, uint32_t msgs,
	 uint64_t bytes)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct inflight *f = conn_fl_push(c);
	const char *text;
	size_t len;
	/* A short command, whole: copied to the output as it is (the rawlog
	 * reads it from the staging buffer, so not with a rawlog). */
	bool whole = cmd->n_splits == 0 && c->wire.rawlog == NULL &&
	    imap_cmd_inline_text(cmd, &text, &len);

	if (!whole) {
		imap_cmd_flush(cmd);
		len = evbuffer_get_length(c->cmd.stage);
	}
	f->tag = tag;
	f->op = (uint8_t)op;
	f->internal = (uint8_t)internal;
	f->msgs = msgs;
	f->bytes = bytes;
	f->done = NULL;
	f->done_arg = NULL;
	/* Open loop: latency runs from when the command was due; the
	 * stall bound from when it was really asked (conn_stall.c). */
	c->t_asked = conn_send_clock(c);
	f->t_sent = c->cmd.t_due ? c->cmd.t_due : c->t_asked;
	c->cmd.t_due = 0;
	conn_count_sent(c, len);
	if (c->wire.rawlog != NULL)
		conn_rawlog_cmd(c, op, internal, tag, cmd);

	conn_out_queued(c);
	if (whole) {
		evbuffer_add(out, text, len);
		return f;
	}
	if (cmd->n_splits == 0) {
		evbuffer_add_buffer(out, c->cmd.stage);
		return f;
	}
	conn_cont_open(c);
	evbuffer_remove_buffer(c->cmd.stage, out, cmd->splits[0]);
	evbuffer_add_buffer(c->cmd.cont, c->cmd.stage);
	for (unsigned i = 1; i < cmd->n_splits; i++)
		c->cmd.cont_splits[i - 1] = cmd->splits[i] - cmd->splits[i - 1];
	c->cmd.n_cont_splits = cmd->n_splits - 1;
	c->cmd.cont_next = 0;
	c->cmd.cont_wait = true;
	conn_hold_update(c);
	c->cmd.cont_tag = tag;
	return f;
}

struct inflight *
conn_send_cmd(struct conn *c, struct imap_cmd *cmd, enum op op,
	      enum conn_internal internal, uint32_t tag, uint32_t msgs,
	      uint64_t bytes)
{
	return send_cmd(c, cmd, op, internal, tag, msgs, bytes);
}

/* A driver's command (conn.h, "A driver's commands"), here beside
 * conn_send_cmd: every command of a batch passes both. */
bool
conn_can_command(const struct conn *c)
{
	return conn_driver_may_send(c) && c->n_fl < CONN_MAX_INFLIGHT - 2 &&
	    c->mbox.guard != CONN_G_DRAIN && c->mbox.guard != CONN_G_SENT;
}

/* Asked before every command of a batch: the same test as
 * conn_can_command, the hold bits read once (conn_int.h). */
bool
conn_can_pipeline(const struct conn *c, unsigned max)
{
	return c->n_fl < max && conn_can_command(c) &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) < CONN_OUT_HIGH;
}

/* A reply nobody waits for, so the inflight entry still marks the
 * command as a driver's, not the engine's own. */
void
conn_driver_ignore(void *arg, struct conn *c, enum conn_reply st,
		   const char *text, size_t len)
{
	(void)arg;
	(void)c;
	(void)st;
	(void)text;
	(void)len;
}

uint32_t
conn_cmd_begin(struct conn *c, struct imap_cmd *cmd)
{
	imap_cmd_init(cmd, c->cmd.stage, (c->setup.caps & CAP_LITERALPLUS) != 0);
	imap_cmd_inline(cmd);
	imap_cmd_set_side(cmd, c->cmd.scratch);
	return tag_begin(c, cmd);	/* inline: every driver command's */
}

uint64_t
conn_cmd_body(struct conn *c, struct imap_cmd *cmd, const struct msg *m)
{
	size_t len = msg_wire_len(m);

	if (!imap_cmd_literal(cmd, len))
		return 0;
	char head[MSG_HEAD_MAX + 1];
	/* Only messages with an id line use up a sequence number. */
	uint32_t seq = m->needs_id ? (*c->env->msg_seq)++ *
	    c->env->sh->n_workers + c->env->worker_id : 0;
	imap_cmd_add(cmd, head, msg_head(head, m, c->env->sh->run_id, seq));
	/* The pool outlives every connection: no copy, no cleanup. */
	imap_cmd_add_ref(cmd, m->data, m->len);
	return len;
}

void
conn_cmd_send(struct conn *c, struct imap_cmd *cmd, uint32_t tag, enum op op,
	      uint32_t msgs, uint64_t bytes, conn_done_fn done, void *arg)
{
	/* Only APPEND carries messages: the others' fields hold the
	 * mailbox names the guard follows. */
	uint64_t names = conn_guard_gate(c, op, cmd);
	if (names != 0)
		bytes = names;
	imap_cmd_adds(cmd, "\r\n");
	/* Inline here: a driver's every command passes (conn_send_cmd is
	 * the engine's own commands' way). */
	struct inflight *f = send_cmd(c, cmd, op, CONN_I_NONE, tag, msgs,
				      bytes);
	f->done = done != NULL ? done : conn_driver_ignore;
	f->done_arg = arg;
}

void
conn_flush_cont(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	conn_cont_open(c);	/* a "+" with nothing held: as for an empty one */
	size_t n = c->cmd.cont_next < c->cmd.n_cont_splits ?
	    c->cmd.cont_splits[c->cmd.cont_next] : evbuffer_get_length(c->cmd.cont);
	if (c->wire.rawlog != NULL) {
		if (c->cmd.redact_cont) {
			rawlog_data(c->wire.rawlog, 'C', "<secret redacted>\r\n", 19);
		} else {
			struct evbuffer_iovec v;
			if (evbuffer_peek(c->cmd.cont, (ev_ssize_t)n, NULL, &v, 1) > 0)
				rawlog_data(c->wire.rawlog, 'C', v.iov_base,
					    v.iov_len < n ? v.iov_len : n);
		}
	}
	conn_out_queued(c);
	if (c->cmd.cont_next < c->cmd.n_cont_splits) {
		evbuffer_remove_buffer(c->cmd.cont, out,
				       c->cmd.cont_splits[c->cmd.cont_next++]);
		return;
	}
	evbuffer_add_buffer(out, c->cmd.cont);
	c->cmd.cont_wait = false;
	conn_hold_update(c);
}

static void
conn_simple(struct conn *c, enum op op, enum conn_internal internal,
	    const char *text)
{
	struct imap_cmd cmd;
	imap_cmd_init(&cmd, c->cmd.stage, c->setup.caps & CAP_LITERALPLUS);
	imap_cmd_inline(&cmd);
	uint32_t tag = conn_tag_begin(c, &cmd);
	imap_cmd_adds(&cmd, text);
	imap_cmd_adds(&cmd, "\r\n");
	conn_send_cmd(c, &cmd, op, internal, tag, 0, 0);
}

void
conn_send_internal(struct conn *c, enum conn_internal internal,
		   const char *text)
{
	conn_simple(c, OP_NOOP, internal, text);
}

void
conn_send_logout(struct conn *c)
{
	c->life.logout = CONN_LOGOUT_SENT;
	conn_hold_update(c);
	conn_simple(c, OP_LOGOUT, CONN_I_NONE, "LOGOUT");
}

void
conn_fl_grow(struct conn *c)
{
	struct inflight *fl = xmalloc(CONN_MAX_INFLIGHT * sizeof(*fl));

	memcpy(fl, c->cmd.fl_inline, sizeof(c->cmd.fl_inline));
	c->cmd.fl = fl;
}

void
conn_cont_open(struct conn *c)
{
	if (c->cmd.cont != NULL)
		return;
	c->cmd.cont = evbuffer_new();
	c->cmd.cont_splits = xmalloc(IMAP_CMD_MAX_SPLITS * sizeof(*c->cmd.cont_splits));
}

void
conn_cont_clear(struct conn *c)
{
	if (c->cmd.cont != NULL)
		evbuffer_drain(c->cmd.cont, evbuffer_get_length(c->cmd.cont));
}

void
conn_schedule(struct conn *c, uint64_t us)
{
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };
	evtimer_add(c->life.timer, &tv);
}

/* End an IDLE: DONE, and time the IDLE from here to its tagged OK. */
void
conn_idle_done(struct conn *c)
{
	c->t_asked = clock_us();
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->cmd.fl[i].op == OP_IDLE && c->cmd.fl[i].internal == CONN_I_NONE)
			c->cmd.fl[i].t_sent = c->t_asked;
	c->idle = CONN_IDLE_DONE_SENT;
	conn_hold_update(c);
	conn_count_sent(c, 6);
	rawlog_data(c->wire.rawlog, 'C', "DONE\r\n", 6);
	bufferevent_write(c->bev, "DONE\r\n", 6);
	conn_out_queued(c);
	conn_write_now(c);
}

void
conn_pause(struct conn *c, uint64_t us)
{
	c->cmd.delayed = true;
	conn_hold_update(c);
	conn_schedule(c, us);
}

bool
conn_paused(const struct conn *c)
{
	return c->cmd.delayed;
}

void
conn_disconnect(struct conn *c)
{
	struct timeval now0 = { 0, 0 };
	c->cmd.disconnect_pending = true;
	conn_hold_update(c);
	evtimer_add(c->life.timer, &now0);
}

bool
conn_may_disconnect(const struct conn *c)
{
	return c->life.logout == CONN_LOGOUT_NONE && c->n_fl == 0 &&
	    !c->cmd.disconnect_pending;
}
