/* conn_life.c: THE place a connection is closed and a session's state
 * reset.  Everything below it only sets the quit reason (conn_quit,
 * conn_fail) and returns; the event that found it (a socket's callback,
 * a timer, a call of the driver or the worker) settles it here once the
 * layers below have returned, so no layer tears down a session that a
 * caller further up is still working on.  What comes next after a close
 * is the driver's (the closed hook). */
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "imap/scram.h"
#include "net/tls.h"
#include "conn/shared.h"

void
conn_fl_release(struct conn *c)
{
	if (c->cmd.fl != c->cmd.fl_inline)
		free(c->cmd.fl);
	c->cmd.fl = c->cmd.fl_inline;
}

/* The resets of the groups of struct conn (conn_int.h), one each, all
 * called from conn_reset_session: a new session starts with nothing of
 * the last but what outlives it (the slot, its random stream, the login
 * name, the hierarchy separator, TLS resumption, ever_in). */
static void
conn_wire_reset(struct conn *c)
{
	/* conn_start or conn_attach says what the new socket is. */
	c->tls_layer = false;
	c->own_reads = false;
	c->wire.wire_in = c->wire.wire_out = 0;
	c->z = CONN_Z_NONE;
	c->wire.z_done = NULL;
	if (c->wire.zc != NULL)
		memset(c->wire.zc, 0, sizeof(*c->wire.zc));
	imap_parser_reset(c->wire.parser);
}

static void
conn_cmds_reset(struct conn *c)
{
	c->cmd.tag_next = 1;
	c->n_fl = 0;
	conn_fl_release(c);
	c->cmd.cont_wait = false;
	c->cmd.n_cont_splits = c->cmd.cont_next = 0;
	c->cmd.redact_cont = false;
	c->idle = CONN_IDLE_NONE;
	c->cmd.idle_driver = false;
	c->cmd.disconnect_pending = false;
	/* A DISCONNECT taken during a DELAY pause replaced the pause's
	 * timer: the next session must not start paused (it never sent). */
	c->cmd.delayed = false;
	evbuffer_drain(c->cmd.stage, evbuffer_get_length(c->cmd.stage));
	evbuffer_drain(c->cmd.scratch, evbuffer_get_length(c->cmd.scratch));
	conn_cont_clear(c);
}

static void
conn_login_reset(struct conn *c)
{
	c->login.lstate = LSTATE_NONAUTH;
	scram_free(c->login.scram);
	c->login.scram = NULL;
	c->login.sasl_step = SASL_DONE;
	c->login.login_op = OP_LOGIN;
}

static void
conn_setup_reset(struct conn *c)
{
	_Static_assert(CONN_STEP_NONE == 0 && CONN_TLS_NONE == 0,
		       "a zeroed set-up group has begun no step");
	/* All of it, but the hierarchy separator: the server's, once known. */
	c->setup = (struct conn_setup){ .sep = c->setup.sep };
}

static void
conn_mbox_reset(struct conn *c)
{
	/* The view, the checkpoint's part and the guard ended with the
	 * last session (conn_close). */
	c->mbox.exists = 0;
	c->mbox.view_active = false;
}

static void
conn_life_reset(struct conn *c)
{
	c->life.logout = CONN_LOGOUT_NONE;
	c->life.quit = CONN_QUIT_NONE;
	c->stall_said = 0;
	c->life.serial++;
	c->life.t_connect = c->t_last_io = clock_us();
}

void
conn_reset_session(struct conn *c)
{
	conn_wire_reset(c);
	conn_cmds_reset(c);
	conn_login_reset(c);
	conn_setup_reset(c);
	conn_mbox_reset(c);
	conn_life_reset(c);
	conn_hold_update(c);
}

/* Count what was in flight as failed: the server never answered it. */
static void
conn_fail_inflight(struct conn *c)
{
	struct stats *s = c->env->stats;
	uint64_t now = clock_us();

	for (unsigned i = 0; i < c->n_fl; i++) {
		struct inflight *f = &c->cmd.fl[i];
		if (f->internal != CONN_I_NONE)
			continue;
		if (f->op == OP_LOGOUT && c->life.logout == CONN_LOGOUT_BYE) {
			/* imaptest counts LOGOUT at the BYE; a server that
			 * closes before the tagged OK still logged us out. */
			stats_cmd(s, OP_LOGOUT, STATS_OK, now - f->t_sent);
			if (f->done != NULL)
				f->done(f->done_arg, c, CONN_REPLY_OK, "", 0);
			f->done = NULL;
			continue;
		}
		stats_cmd(s, (enum op)f->op, STATS_FAILED, 0);
	}
	conn_driver_abandon(c);
	c->n_fl = 0;
}

void
conn_close(struct conn *c, enum conn_end end, enum err_kind why)
{
	/* A driver told of its failed commands must not send more. */
	c->life.quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	conn_sync_wire(c);
	conn_fail_inflight(c);
	conn_guard_closed(c);
	if (c->env->cfg->tls_resume && c->setup.tls == CONN_TLS_DONE && c->bev != NULL) {
		/* Offer this session again when the slot reconnects. */
		struct ssl_session_st *s = tls_bev_session(c->z == CONN_Z_ON ?
		    bufferevent_get_underlying(c->bev) : c->bev);
		if (s != NULL) {
			tls_session_free(c->wire.tls_sess);
			c->wire.tls_sess = s;
		}
	}
	c->mbox.cp = CONN_CP_NONE;
	if (c->own_reads) {
		event_del(c->wire.rd_ev);	/* safe inside its own callback */
		c->own_reads = false;
	}
	if (c->bev != NULL) {
		/* Inside the bufferevent's own read callback.  A socket or
		 * TLS bufferevent holds a reference until the callback
		 * returns; the COMPRESS filter does not (libevent 2.1.12's
		 * be_filter_readcb only locks), and after the callback
		 * libevent re-triggers it if its input is still at the read
		 * high watermark (CONN_INFLATE_AHEAD), as when the parser
		 * refused the line it was fed.  That trigger takes and drops
		 * a reference on a filter already at zero: unlinked twice,
		 * its socket freed twice, an assertion aborts the process.
		 * Reads off, the watermark check does nothing. */
		bufferevent_disable(c->bev, EV_READ);
		bufferevent_free(c->bev);
		c->bev = NULL;
	}
	c->life.quit = CONN_QUIT_NONE;
	conn_hold_update(c);
	if (c->st == CONN_S_DONE)
		return;
	c->st = CONN_S_WAIT;
	conn_hold_update(c);
	c->env->hooks->closed(c->env->hook_arg, c, end, why);
}

bool
conn_settle(struct conn *c)
{
	if (c->life.quit != CONN_QUIT_NOW)
		return false;
	conn_close(c, c->life.close_end, c->life.close_err);
	return true;
}
