/* conn_cmd.c: what a connection sends.  conn_send_more() runs the plan
 * (workload.c) and pipelines up to pipeline_max commands the way imaptest
 * does; the rest of the file builds each state's command. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "clock.h"
#include "conn.h"
#include "conn_log.h"
#include "log.h"
#include "checkpoint.h"
#include "openloop.h"
#include "rawlog.h"
#include "version.h"
#include "worker.h"

/* A plan that keeps choosing commands that cannot run (say, FETCH in an
 * empty mailbox) gives up after this many and retries a little later. */
#define SKIP_LIMIT 64
#define RETRY_US 10000

uint32_t
conn_tag_begin(struct conn *c, struct imap_cmd *cmd)
{
	uint32_t tag = c->tag_next++;
	/* imaptest's tags: "<client>.<n>" (not printf: every command) */
	char buf[48];
	size_t n = imap_fmt_u64(buf, c->slot);
	buf[n++] = '.';
	n += imap_fmt_u64(buf + n, tag);
	buf[n++] = ' ';
	imap_cmd_add(cmd, buf, n);
	return tag;
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
			     "redacted>\r\n", c->slot, tag, c->user) :
		    snprintf(line, sizeof(line), "%u.%u AUTHENTICATE %s <secret "
			     "redacted>\r\n", c->slot, tag, config_mech_name(m));
		rawlog_data(c->rawlog, 'C', line, (size_t)n);
		c->redact_cont = true;
		return;
	}
	c->redact_cont = false;
	size_t upto = cmd->n_splits ? cmd->splits[0] : evbuffer_get_length(c->stage);
	struct evbuffer_iovec v[8];
	int nv = evbuffer_peek(c->stage, (ev_ssize_t)upto, NULL, v, 8);
	for (int i = 0; i < nv && i < 8 && upto > 0; i++) {
		size_t n = v[i].iov_len < upto ? v[i].iov_len : upto;
		rawlog_data(c->rawlog, 'C', v[i].iov_base, n);
		upto -= n;
	}
}

/* Move bytes from the staging buffer to the socket.  A command with
 * synchronizing literals goes out up to the first one; the rest waits in
 * c->cont for "+" continuations. */
void
conn_send_cmd(struct conn *c, struct imap_cmd *cmd, enum op op,
	      enum conn_internal internal, uint32_t tag, uint32_t msgs,
	      uint64_t bytes)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct inflight *f = &c->fl[c->n_fl++];

	imap_cmd_flush(cmd);
	size_t len = evbuffer_get_length(c->stage);

	f->tag = tag;
	f->op = (uint8_t)op;
	f->internal = (uint8_t)internal;
	f->msgs = msgs;
	f->bytes = bytes;
	/* Open loop: latency runs from when the command was due. */
	f->t_sent = c->t_due ? c->t_due : clock_us();
	c->t_due = 0;
	conn_count_sent(c, len);
	if (c->rawlog != NULL)
		conn_rawlog_cmd(c, op, internal, tag, cmd);

	if (cmd->n_splits == 0) {
		evbuffer_add_buffer(out, c->stage);
		return;
	}
	evbuffer_remove_buffer(c->stage, out, cmd->splits[0]);
	evbuffer_add_buffer(c->cont, c->stage);
	for (unsigned i = 1; i < cmd->n_splits; i++)
		c->cont_splits[i - 1] = cmd->splits[i] - cmd->splits[i - 1];
	c->n_cont_splits = cmd->n_splits - 1;
	c->cont_next = 0;
	c->cont_wait = true;
	c->cont_tag = tag;
}

void
conn_flush_cont(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	size_t n = c->cont_next < c->n_cont_splits ?
	    c->cont_splits[c->cont_next] : evbuffer_get_length(c->cont);
	if (c->rawlog != NULL) {
		if (c->redact_cont) {
			rawlog_data(c->rawlog, 'C', "<secret redacted>\r\n", 19);
		} else {
			struct evbuffer_iovec v;
			if (evbuffer_peek(c->cont, (ev_ssize_t)n, NULL, &v, 1) > 0)
				rawlog_data(c->rawlog, 'C', v.iov_base,
					    v.iov_len < n ? v.iov_len : n);
		}
	}
	if (c->cont_next < c->n_cont_splits) {
		evbuffer_remove_buffer(c->cont, out,
				       c->cont_splits[c->cont_next++]);
		return;
	}
	evbuffer_add_buffer(out, c->cont);
	c->cont_wait = false;
}

static void
conn_pending(const struct conn *c, struct plan_pending *p, uint8_t *ops)
{
	p->flags = 0;
	p->statechange = false;
	p->new_lstate = c->lstate;
	p->n_ops = 0;
	p->ops = ops;
	for (unsigned i = 0; i < c->n_fl; i++) {
		const struct inflight *f = &c->fl[i];
		if (f->internal != CONN_I_NONE)
			continue;
		unsigned fl = op_table[f->op].flags;
		if (fl & OPF_STATECHANGE) {
			p->statechange = true;
			p->new_lstate = plan_target_lstate((enum op)f->op);
		}
		p->flags |= fl;
		ops[p->n_ops++] = f->op;
	}
}

static void
conn_simple(struct conn *c, enum op op, enum conn_internal internal,
	    const char *text)
{
	struct imap_cmd cmd;
	imap_cmd_init(&cmd, c->stage, c->caps & CAP_LITERALPLUS);
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

static void
conn_send_logout(struct conn *c)
{
	c->logout_sent = true;
	conn_simple(c, OP_LOGOUT, CONN_I_NONE, "LOGOUT");
}

static void
conn_retry_later(struct conn *c)
{
	struct timeval tv = { 0, RETRY_US };
	c->delayed = true;
	evtimer_add(c->timer, &tv);
}

/* RFC 3501 6.2.3: under LOGINDISABLED a client must not send LOGIN, and
 * AUTHENTICATE PLAIN would put the same password on the wire.  In clear,
 * neither is sent: the connection is closed (kind tls, like a server
 * without STARTTLS) and the run stops as unusable, with a line saying to
 * use --starttls (run.c). */
static bool
conn_login_disabled(struct conn *c)
{
	enum auth_mech m = c->w->cfg->mech_id;

	/* SCRAM never puts the password on the wire, so RFC 3501's rule
	 * (no LOGIN under LOGINDISABLED) does not stop it. */
	if (c->lstate != LSTATE_NONAUTH || c->tls_done ||
	    !(c->caps & CAP_LOGINDISABLED) ||
	    m == MECH_SCRAM_SHA1 || m == MECH_SCRAM_SHA256)
		return false;
	atomic_store(&((struct shared *)c->w->sh)->login_disabled, true);
	conn_log_err(c, ERR_TLS, "server says LOGINDISABLED: not sending the "
		     "password in clear (use --starttls)");
	conn_close(c, ERR_TLS, true);
	return true;
}

static unsigned conn_send_plan(struct conn *c, unsigned max);

void
conn_send_more(struct conn *c)
{
	const struct config *cfg = c->w->cfg;
	unsigned max = cfg->no_pipelining ? 1 : cfg->pipeline_max;

	if (c->st != CONN_S_SESSION || c->bev == NULL || c->cont_wait ||
	    c->delayed || c->logout_sent || c->closing || c->quit_after_inflight ||
	    c->idle != CONN_IDLE_NONE || c->disconnect_pending ||
	    c->compress_sent)
		return;
	if (max > CONN_MAX_INFLIGHT - 2)
		max = CONN_MAX_INFLIGHT - 2;

	if (c->w->draining) {
		/* Let what is in flight finish, then leave politely. */
		if (c->n_fl > 0)
			return;
		if (c->lstate == LSTATE_NONAUTH)
			conn_close(c, ERR_DISCONNECT, false);
		else
			conn_send_logout(c);
		return;
	}
	if (!(c->caps & CAP_KNOWN)) {
		/* The greeting had no capability list: ask before LOGIN
		 * (LITERAL+ decides how literals are sent). */
		if (!c->capa_sent) {
			c->capa_sent = true;
			conn_send_internal(c, CONN_I_CAPABILITY, "CAPABILITY");
		}
		return;
	}
	if (cfg->tls == TLS_STARTTLS && !c->tls_done) {
		/* Never a password in clear when STARTTLS was asked for. */
		if (c->starttls_sent || c->n_fl > 0)
			return;
		if (!(c->caps & CAP_STARTTLS)) {
			conn_log_err(c, ERR_TLS, "server does not advertise STARTTLS; "
				     "not logging in without TLS");
			conn_close(c, ERR_TLS, true);
			return;
		}
		c->starttls_sent = true;
		conn_send_internal(c, CONN_I_STARTTLS, "STARTTLS");
		return;
	}
	if (conn_login_disabled(c))
		return;
	if (!c->id_sent && (c->caps & CAP_ID) && cfg->send_id) {
		/* A session id the server can log (imap_id_log), so one of
		 * our error lines can be matched to the server's. */
		char id[200];
		c->id_sent = true;
		snprintf(id, sizeof(id), "ID (\"name\" \"imapstress\" \"version\" "
			 "\"" IMAPSTRESS_VERSION "\" \"x-session-id\" \"%016llx-%u-%llu\")",
			 (unsigned long long)c->w->sh->run_id, c->slot,
			 (unsigned long long)c->serial);
		conn_send_internal(c, CONN_I_ID, id);
	}

	if (checkpoint_holding(c->w->cp) && c->lstate != LSTATE_NONAUTH)
		return;		/* a checkpoint is draining */
	if (c->w->openloop != NULL && c->lstate != LSTATE_NONAUTH) {
		/* Open loop: commands go out when the schedule says. */
		if (c->n_fl == 0)
			openloop_conn_idle(c->w->openloop, c);
		return;
	}
	conn_send_plan(c, max);
}

/* Send plan commands until `max` are in flight or the plan says wait.
 * Returns how many were sent. */
static unsigned
conn_send_plan(struct conn *c, unsigned max)
{
	const struct config *cfg = c->w->cfg;
	uint8_t ops[CONN_MAX_INFLIGHT];
	struct plan_pending pend;
	unsigned skips = 0, sent = 0;

	while (c->n_fl < max && !c->cont_wait && !c->closing && !c->delayed &&
	       evbuffer_get_length(bufferevent_get_output(c->bev)) < CONN_OUT_HIGH) {
		conn_pending(c, &pend, ops);
		enum op head = plan_update(&c->plan, cfg, &c->rng, c->lstate,
					   &pend);
		if (!plan_may_send(head, c->lstate, &pend))
			break;
		enum op op = plan_take(&c->plan);
		bool names = op == OP_MCREATE || op == OP_MDELETE ||
		    op == OP_MRENAME || op == OP_MSUBS;
		if (((op == OP_IDLE || op == OP_DISCONNECT || op == OP_COMPRESS) &&
		     c->n_fl > 0) || (names && c->sep_pending)) {
			/* These need the connection to themselves. */
			memmove(c->plan.q + 1, c->plan.q, c->plan.n);
			c->plan.q[0] = (uint8_t)op;
			c->plan.n++;
			break;
		}
		if (op == OP_LOGOUT) {
			if (c->n_fl > 0) {
				/* LOGOUT goes last: put it back. */
				c->plan.q[c->plan.n++] = OP_LOGOUT;
				break;
			}
			conn_send_logout(c);
			return sent + 1;
		}
		if (conn_cmd_op(c, op, &pend)) {
			sent++;
			if (c->idle != CONN_IDLE_NONE || c->disconnect_pending ||
			    c->compress_sent)
				break;
			continue;
		}
		if (++skips >= SKIP_LIMIT) {
			if (c->n_fl == 0)
				conn_retry_later(c);
			break;
		}
	}
	if (sent > 0 && !c->delayed && c->lstate != LSTATE_NONAUTH &&
	    rng_pct(&c->rng, cfg->states[OP_DELAY].prob))
		(void)conn_delay_start(c);
	return sent;
}

bool
conn_send_scheduled(struct conn *c, uint64_t due)
{
	if (c->st != CONN_S_SESSION || c->bev == NULL || c->n_fl > 0 ||
	    c->cont_wait || c->delayed || c->closing || c->logout_sent ||
	    c->quit_after_inflight)
		return false;
	c->t_due = due;
	unsigned n = conn_send_plan(c, c->n_fl + 1);
	c->t_due = 0;
	conn_write_now(c);	/* on the wire now, not a loop turn later */
	return n > 0;
}
