/* conn_resp.c: what a connection does with each server response: the
 * greeting, capabilities, the mailbox size (EXISTS/EXPUNGE), BYE, and
 * every tagged reply, which becomes one counted, timed command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "imap/imap_resp.h"
#include "util/log.h"
#include "conn/shared.h"

static void
conn_parse_caps(struct conn *c, const char *s, size_t n)
{
	c->setup.caps = conn_caps_parse(s, n);
}

/* A [CAPABILITY ...] response code in a status response. */
static void
conn_caps_from_code(struct conn *c, const struct imap_resp *r)
{
	const char *code, *arg;
	size_t code_len, arg_len;

	if (imap_resp_code(r, &code, &code_len, &arg, &arg_len) &&
	    code_len == 10 && strncasecmp(code, "CAPABILITY", 10) == 0)
		conn_parse_caps(c, arg, arg_len);
}

static int
conn_greeting(struct conn *c, const struct imap_resp *r)
{
	uint64_t now = clock_us();

	if (r->kind != IMAP_UNTAGGED ||
	    (r->cond != IMAP_COND_OK && r->cond != IMAP_COND_PREAUTH &&
	     r->cond != IMAP_COND_BYE)) {
		char ex[208];
		conn_fail(c, ERR_PROTOCOL, "not an IMAP greeting: \"%s\"",
				imap_resp_excerpt(ex, sizeof(ex), r->line,
						  r->line_len));
		return 1;
	}
	if (r->cond == IMAP_COND_BYE) {
		conn_fail(c, ERR_BYE, "server said BYE in its greeting: %.200s",
				r->line);
		return 1;
	}
	hist_record(c->env->stats->connect_lat, now - c->life.t_connect);
	c->st = CONN_S_SESSION;
	if (r->cond == IMAP_COND_PREAUTH)
		c->login.lstate = LSTATE_AUTH;
	conn_hold_update(c);
	conn_caps_from_code(c, r);
	return 0;
}

/* How many messages "* VANISHED uid-set" removes: the UIDs it lists
 * (RFC 7162 3.2.10: only ones the client knows of, so each was a message
 * of the mailbox), capped at `exists`.  VANISHED (EARLIER) removes none.
 * An unparsable set removes none here; the mailbox model reports it. */
static uint32_t
vanished_count(const char *p, const char *end, uint32_t exists)
{
	uint64_t n = 0;

	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '(')
		return 0;
	while (p < end && *p != ' ' && n < exists) {
		uint64_t lo = 0, hi;
		if (*p < '0' || *p > '9')
			return 0;
		while (p < end && *p >= '0' && *p <= '9' && lo <= UINT32_MAX)
			lo = lo * 10 + (uint64_t)(*p++ - '0');
		hi = lo;
		if (p < end && *p == ':') {
			hi = 0;
			if (++p >= end || *p < '0' || *p > '9')
				return 0;
			while (p < end && *p >= '0' && *p <= '9' && hi <= UINT32_MAX)
				hi = hi * 10 + (uint64_t)(*p++ - '0');
		}
		n += (hi > lo ? hi - lo : lo - hi) + 1;
		if (p < end && *p == ',')
			p++;
	}
	return n < exists ? (uint32_t)n : exists;
}

static void
conn_untagged(struct conn *c, const struct imap_resp *r)
{
	if (!conn_ext_untagged(c, r))
		return;		/* neither the view nor the count apply it */
	if (c->mbox.view != NULL && c->mbox.view_active) {
		if (c->n_fl > 0)
			mbox_view_set_state(c->mbox.view, op_table[c->cmd.fl[0].op].name);
		c->cmd.cur_resp = r;
		mbox_view_untagged(c->mbox.view, r);
		c->cmd.cur_resp = NULL;
		if (imap_resp_kw(r) == IMAP_KW_STATUS)
			conn_view_on_status(c, r);
	}
	enum imap_kw kw = imap_resp_kw(r);
	if (kw == IMAP_KW_VANISHED) {
		/* Numbers shift as with EXPUNGE: later commands must not name
		 * sequence numbers past the end. */
		c->mbox.exists -= vanished_count(r->text, r->text + r->text_len,
					    c->mbox.exists);
		return;
	}
	if (r->has_num) {
		if (kw == IMAP_KW_EXISTS)
			c->mbox.exists = r->num;
		else if (kw == IMAP_KW_EXPUNGE && c->mbox.exists > 0)
			c->mbox.exists--;
		return;
	}
	switch (r->cond) {
	case IMAP_COND_BYE:
		if (c->life.logout == CONN_LOGOUT_NONE)
			conn_fail(c, ERR_BYE, "unexpected BYE: %.200s", r->line);
		else
			c->life.logout = CONN_LOGOUT_BYE;
		conn_hold_update(c);
		return;
	case IMAP_COND_OK:
	case IMAP_COND_NO:
	case IMAP_COND_BAD:
		conn_caps_from_code(c, r);
		return;
	default:
		break;
	}
	if (kw == IMAP_KW_CAPABILITY)
		conn_parse_caps(c, r->text, r->text_len);
	else if (kw == IMAP_KW_LIST && c->setup.sep == 0) {
		/* "(flags) "sep" name": the separator is the quoted char
		 * right after the flags (NIL means a flat namespace). */
		const char *end = r->text + r->text_len;
		const char *q = memchr(r->text, ')', r->text_len);
		if (q != NULL && end - q >= 4 && q[1] == ' ' && q[2] == '"')
			c->setup.sep = q[3] == '\\' && end - q >= 5 ? q[4] : q[3];
	}
}

/* "<slot>.<n>" exactly as conn_tag_begin writes it (this connection's
 * slot, decimal without leading zeros): n, or 0 when the tag is not one
 * this connection sent in any form ("7.5" on slot 3, "03.5", "3.05"). */
static uint32_t
conn_parse_tag(const struct conn *c, const struct imap_resp *r)
{
	char mine[24];
	size_t k = imap_fmt_u64(mine, c->life.slot);
	uint64_t n = 0;

	if (r->tag_len < k + 2 || memcmp(r->tag, mine, k) != 0 ||
	    r->tag[k] != '.' || r->tag[k + 1] == '0')
		return 0;
	for (const char *p = r->tag + k + 1; p < r->tag + r->tag_len; p++) {
		if (*p < '0' || *p > '9' || n > UINT32_MAX / 10)
			return 0;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	return n <= UINT32_MAX ? (uint32_t)n : 0;
}

static int
conn_find_inflight(const struct conn *c, uint32_t tag)
{
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->cmd.fl[i].tag == tag)
			return (int)i;
	return -1;
}

/* qresync asked: ENABLE it where the logged-in capabilities allow, else
 * say once that the run goes on without it (as SORT and MOVE do). */
static void
conn_enable_qresync(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	struct shared_live *live = c->env->sh->live;

	c->setup.enable = CONN_STEP_DONE;
	if ((c->setup.caps & CAP_ENABLE) && (c->setup.caps & CAP_QRESYNC)) {
		conn_send_internal(c, CONN_I_ENABLE, cfg->imap4rev2 ?
				   "ENABLE QRESYNC IMAP4rev2" : "ENABLE QRESYNC");
		return;
	}
	if (!atomic_exchange(&live->warned_qresync, true))
		log_warn("server does not advertise %s: running without QRESYNC",
			 (c->setup.caps & CAP_ENABLE) ? "QRESYNC" : "ENABLE");
}

static void
conn_internal_reply(struct conn *c, const struct inflight *f,
		    const struct imap_resp *r)
{
	if (f->internal == CONN_I_CAPABILITY && c->setup.capa == CONN_STEP_SENT)
		c->setup.capa = CONN_STEP_DONE;
	if (f->internal == CONN_I_ID)
		c->setup.id = CONN_STEP_DONE;
	if (f->internal == CONN_I_CAPABILITY && !(c->setup.caps & CAP_KNOWN))
		c->setup.caps = CAP_KNOWN;	/* answered without a list: none */
	if (f->internal == CONN_I_CAPABILITY && c->setup.enable == CONN_STEP_DUE &&
	    c->login.lstate != LSTATE_NONAUTH)
		conn_enable_qresync(c);
	if (f->internal == CONN_I_STARTTLS) {
		if (r->cond == IMAP_COND_OK) {
			c->setup.tls = CONN_TLS_UPGRADE;	/* after the parser returns */
			return;
		}
		conn_fail(c, ERR_TLS, "STARTTLS refused: %.200s", r->line);
		return;
	}
	/* Counted and shown like any command's: they decide the exit
	 * status too.  CREATE's NO is the mailbox that already exists. */
	const char *name = conn_inflight_name(f);
	if (f->internal == CONN_I_GUARD && r->cond != IMAP_COND_OK) {
		/* The refusal line (conn_guard.c) names the answer, once a
		 * run: not a line more per session that asked. */
		stats_err(c->env->stats, r->cond == IMAP_COND_BAD ? ERR_BAD :
			  ERR_NO);
		return;
	}
	if (r->cond == IMAP_COND_BAD) {
		stats_err(c->env->stats, ERR_BAD);
		conn_log_err(c, ERR_BAD, "%s (set-up) replied BAD: %.200s",
			     name, r->line);
	} else if (r->cond == IMAP_COND_NO && f->internal != CONN_I_CREATE) {
		stats_err(c->env->stats, ERR_NO);
		conn_log_err(c, ERR_NO, "%s (set-up) replied NO: %.200s",
			     name, r->line);
	}
}

static bool
conn_has_code(const struct imap_resp *r, const char *want)
{
	const char *code, *arg;
	size_t code_len, arg_len;
	return imap_resp_code(r, &code, &code_len, &arg, &arg_len) &&
	    code_len == strlen(want) && strncasecmp(code, want, code_len) == 0;
}

/* The states that work on random mailbox names. */
static bool
op_random_names(enum op op)
{
	return op == OP_MCREATE || op == OP_MDELETE || op == OP_MRENAME ||
	    op == OP_MSUBS;
}

/* The benign code of a NO (see enum benign_code), or -1.  Mailbox-name
 * codes are benign only for the states that pick random names: for
 * SELECT or APPEND a missing box= is a real problem. */
int
conn_benign(enum op op, const struct imap_resp *r)
{
	bool names = op_random_names(op);

	if ((op == OP_COPY || op == OP_MOVE) && conn_has_code(r, "TRYCREATE"))
		return BENIGN_TRYCREATE;
	if (conn_has_code(r, "EXPUNGEISSUED"))
		return BENIGN_EXPUNGEISSUED;
	if (names && conn_has_code(r, "ALREADYEXISTS"))
		return BENIGN_ALREADYEXISTS;
	if (names && conn_has_code(r, "NONEXISTENT"))
		return BENIGN_NONEXISTENT;
	return -1;
}

static void
conn_logged_in(struct conn *c, const struct imap_resp *r)
{
	unsigned before = c->setup.caps;

	c->login.lstate = LSTATE_AUTH;
	conn_hold_update(c);
	ctr_add(&c->env->stats->logins, 1);
	c->ever_in = true;	/* kept across reconnects: conn_gauges.in */
	c->setup.caps &= ~CAP_KNOWN;
	conn_caps_from_code(c, r);
	/* Capabilities change at login (MULTIAPPEND often appears only
	 * then); without a list in the OK keep the old ones until the new
	 * list comes. */
	bool caps_follow = !(c->setup.caps & CAP_KNOWN);
	if (caps_follow)
		c->setup.caps = before;
	/* The driver first: what it decides at login (the stress plan's
	 * DISCONNECT chance needs nothing in flight) sees the session as
	 * the reply left it, before the set-up below is sent. */
	if (c->env->hooks->logged_in != NULL)
		c->env->hooks->logged_in(c->env->hook_arg, c);
	if (caps_follow)
		conn_send_internal(c, CONN_I_CAPABILITY, "CAPABILITY");
	const struct config *cfg = c->env->cfg;
	if (c->setup.sep == 0 && (cfg->states[OP_MCREATE].prob || cfg->states[OP_MDELETE].prob ||
	    cfg->states[OP_MRENAME].prob || cfg->states[OP_MSUBS].prob))
		/* Mailbox names use the server's hierarchy separator. */
	{
		c->setup.sep_step = CONN_STEP_SENT;
		conn_send_internal(c, CONN_I_LIST, "LIST \"\" \"\"");
	}
	if (cfg->qresync) {
		if (caps_follow)
			c->setup.enable = CONN_STEP_DUE;
		else
			conn_enable_qresync(c);
	}
}

void
conn_bad_reply(struct conn *c, enum op op, const struct imap_resp *r)
{
	/* imaptest gives up on a session after BAD.  What is still in flight
	 * (pipelined APPENDs, say) may be done by the server all the same:
	 * nothing new is sent, and the connection closes once their replies
	 * are read and counted. */
	conn_log_err(c, ERR_BAD, "%s replied BAD: %.200s", op_table[op].name,
		     r->line);
	if (c->n_fl == 0)
		conn_quit(c, conn_end_now(c), ERR_BAD);
	else
		c->life.quit = CONN_QUIT_AFTER_INFLIGHT;
	conn_hold_update(c);
}

static void conn_tagged_effects(struct conn *c, const struct inflight *fp,
				const struct imap_resp *r, uint64_t now);
static void conn_reply_effects(struct conn *c, const struct inflight *fp,
			       enum stats_reply rep, int benign,
			       const struct imap_resp *r);
static void conn_state_effects(struct conn *c, const struct inflight *f,
			       enum stats_reply rep, const struct imap_resp *r);

static void
conn_tagged(struct conn *c, const struct imap_resp *r)
{
	/* When the read that carried this reply returned (conn_io.c sets
	 * it before parsing): the replies of one read arrived together, and
	 * parsing the ones before this is our time, not the server's. */
	uint64_t now = c->t_last_io;
	uint32_t tag = conn_parse_tag(c, r);
	int i = tag == 0 ? -1 : conn_find_inflight(c, tag);

	if (i < 0) {
		conn_fail(c, ERR_PROTOCOL, "reply with a tag this "
				"connection did not send: %.200s", r->line);
		return;
	}
	struct inflight f = c->cmd.fl[i];
	c->cmd.fl[i] = c->cmd.fl[--c->n_fl];
	if (c->cmd.cont_wait && tag == c->cmd.cont_tag) {
		/* A tagged reply instead of "+" (RFC 3501 7.5: the server
		 * refused the literal): the command is over, so is the rest
		 * of it we were holding, and the connection is free. */
		conn_cont_clear(c);
		c->cmd.cont_wait = false;
		conn_hold_update(c);
		c->cmd.redact_cont = false;
	}

	if (f.internal == CONN_I_CHECK)
		c->mbox.cp = c->mbox.cp == CONN_CP_SENT ? CONN_CP_ANSWERED :
		    c->mbox.cp == CONN_CP_STALE ? CONN_CP_NONE : c->mbox.cp;
	if (f.internal == CONN_I_LIST)
		c->setup.sep_step = CONN_STEP_DONE;
	conn_tagged_effects(c, &f, r, now);
	if (c->life.quit == CONN_QUIT_AFTER_INFLIGHT && c->n_fl == 0)
		conn_quit(c, conn_end_now(c), ERR_BAD);
	/* The driver hears that the connection is free once, from
	 * conn_send_more after the read (the ready hook), not per reply. */
}

static void
conn_tagged_effects(struct conn *c, const struct inflight *fp,
		    const struct imap_resp *r, uint64_t now)
{
	struct inflight f = *fp;

	if (f.internal != CONN_I_NONE) {
		conn_internal_reply(c, &f, r);
		if (f.done != NULL)	/* a driver's ENABLE (conn_enable) */
			f.done(f.done_arg, c, r->cond == IMAP_COND_OK ?
			       CONN_REPLY_OK : r->cond == IMAP_COND_NO ?
			       CONN_REPLY_NO : CONN_REPLY_BAD, r->text,
			       r->text_len);
		return;
	}
	enum op op = (enum op)f.op;
	enum stats_reply rep = r->cond == IMAP_COND_OK ? STATS_OK :
	    r->cond == IMAP_COND_NO ? STATS_NO : STATS_BAD;
	int benign = rep == STATS_NO ? conn_benign(op, r) : -1;
	if (benign >= 0)
		stats_cmd_benign(c->env->stats, op, (enum benign_code)benign,
				 now - f.t_sent);
	else
		stats_cmd(c->env->stats, op, rep, now - f.t_sent);
	conn_reply_effects(c, &f, rep, benign, r);
}

/* THE reply-effects switch: what a tagged reply to command f does to the
 * connection, the same for every driver's commands and the engine's own.
 * A BAD changes no state (the command was not run) and ends the session
 * once nothing else is in flight; a NO of the engine's own commands (a
 * login) is shown.  A driver hears the reply last, through done, with the
 * reply at hand (conn_reply). */
static void
conn_reply_effects(struct conn *c, const struct inflight *fp,
		   enum stats_reply rep, int benign, const struct imap_resp *r)
{
	struct inflight f = *fp;
	enum op op = (enum op)f.op;

	if (f.done == NULL && rep == STATS_NO && benign < 0)
		conn_log_err(c, ERR_NO, "%s failed: %.200s", op_table[op].name,
			     r->line);
	if (rep == STATS_BAD)
		conn_bad_reply(c, op, r);
	else
		conn_state_effects(c, &f, rep, r);
	if (f.done == NULL || (op == OP_COMPRESS && rep == STATS_OK))
		return;	/* a COMPRESS's done runs once the layer is on */
	c->cmd.cur_resp = r;
	f.done(f.done_arg, c, rep == STATS_OK ? CONN_REPLY_OK :
	       rep == STATS_NO ? CONN_REPLY_NO : CONN_REPLY_BAD, r->text,
	       r->text_len);
	c->cmd.cur_resp = NULL;
}

/* What a command that ran (OK or NO) changes in the session. */
static void
conn_state_effects(struct conn *c, const struct inflight *f,
		   enum stats_reply rep, const struct imap_resp *r)
{
	switch ((enum op)f->op) {
	case OP_LOGIN:
	case OP_AUTHENTICATE:
		if (!conn_sasl_end(c, rep == STATS_OK))
			break;		/* an unproven SCRAM server */
		if (rep == STATS_OK) {
			conn_logged_in(c, r);
		} else {
			/* Counted as "login" (and as NO above); the totals of
			 * errors leave "login" out, so nothing counts twice. */
			stats_err(c->env->stats, ERR_LOGIN);
			conn_quit(c, conn_end_now(c), ERR_LOGIN);
		}
		break;
	case OP_SELECT:
		if (rep == STATS_OK) {
			c->login.lstate = LSTATE_SELECTED;
			conn_hold_update(c);
			if (c->mbox.view != NULL)
				conn_view_select_done(c, r);
		} else {
			/* No mailbox is selected after a failed SELECT (RFC
			 * 3501 6.3.1), and no view is fed. */
			c->login.lstate = LSTATE_AUTH;
			conn_hold_update(c);
			c->mbox.view_active = false;
		}
		break;
	case OP_STORE:
	case OP_DELETE:
		if (c->mbox.view != NULL)
			mbox_view_store_end(c->mbox.view);
		break;
	case OP_MCREATE:
	case OP_MDELETE:
	case OP_MRENAME:
		if (rep == STATS_OK)
			conn_guard_names_done(c, (enum op)f->op, f->bytes);
		break;
	case OP_APPEND:
		if (rep == STATS_OK) {
			ctr_add(&c->env->stats->append_msgs, f->msgs);
			ctr_add(&c->env->stats->append_bytes, f->bytes);
		}
		break;
	case OP_IDLE:
		c->idle = CONN_IDLE_NONE;
		conn_hold_update(c);
		c->cmd.idle_driver = false;
		break;
	case OP_COMPRESS:
		/* On OK the filter goes in after the parser returns; a
		 * driver's done runs then (conn_compress_upgrade), so what it
		 * sends next goes through it. */
		c->z = rep == STATS_OK ? CONN_Z_UPGRADE : CONN_Z_NONE;
		conn_hold_update(c);
		if (rep == STATS_OK) {
			c->wire.z_done = f->done;
			c->wire.z_done_arg = f->done_arg;
		}
		break;
	case OP_LOGOUT:
		c->login.lstate = LSTATE_NONAUTH;
		conn_hold_update(c);
		conn_quit(c, conn_end_now(c), ERR_DISCONNECT);
		break;
	default:
		break;
	}
}

/* The server is idling us: stay a random while, then DONE (from the
 * timer).  Untagged EXISTS/EXPUNGE from other sessions arrive meanwhile. */
static void
conn_idle_started(struct conn *c)
{
	uint32_t ms = 1 + rng_below(&c->life.rng, CONN_IDLE_MAX_MS);
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
	c->idle = CONN_IDLE_ACTIVE;
	conn_hold_update(c);
	/* Waiting now, a LoadSim user for hours: the parser's buffer is
	 * given back after this "+ idling" (issue 35: 6 KB a user). */
	imap_parser_trim(c->wire.parser);
	if (c->cmd.idle_driver) {
		/* The driver's IDLE lasts until it says DONE (or a drain). */
		if (c->stopping)
			conn_idle_done(c);
		else if (c->env->hooks->idle_started != NULL)
			c->env->hooks->idle_started(c->env->hook_arg, c);
		return;
	}
	if (c->stopping)
		tv.tv_sec = tv.tv_usec = 0;
	evtimer_add(c->life.timer, &tv);
}

int
conn_on_resp(void *arg, const struct imap_resp *r)
{
	struct conn *c = arg;

	if (c->st == CONN_S_GREETING)
		return conn_greeting(c, r);
	if (conn_raw(c)) {
		/* The driver's session: nothing here acts on it. */
		c->env->hooks->raw(c->env->hook_arg, c, r);
		return c->life.quit == CONN_QUIT_NOW || c->z == CONN_Z_UPGRADE;
	}
	switch (r->kind) {
	case IMAP_CONTINUATION:
		if (c->idle == CONN_IDLE_STARTING) {
			conn_idle_started(c);
		} else if (conn_sasl_active(c)) {
			conn_sasl_continue(c, r);
		} else if (c->cmd.cont_wait) {
			conn_flush_cont(c);
		} else {
			conn_fail(c, ERR_PROTOCOL,
					"unexpected continuation: %.200s",
					r->line);
		}
		break;
	case IMAP_UNTAGGED:
		/* The foreign-mail search's own answer (asked here first,
		 * not in a call per untagged response: a FETCH's bodies
		 * are untagged). */
		if (c->mbox.guard == CONN_G_SENT && conn_guard_untagged(c, r))
			break;
		conn_untagged(c, r);
		if (c->env->hooks->untagged != NULL && c->life.quit != CONN_QUIT_NOW &&
		    c->login.lstate != LSTATE_NONAUTH)
			c->env->hooks->untagged(c->env->hook_arg, c, r);
		break;
	case IMAP_TAGGED:
		conn_tagged(c, r);
		break;
	}
	return c->life.quit == CONN_QUIT_NOW || c->setup.tls == CONN_TLS_UPGRADE ||
	    c->z == CONN_Z_UPGRADE ? 1 : 0;
}

const struct imap_resp *
conn_reply(const struct conn *c)
{
	return c->cmd.cur_resp;
}
