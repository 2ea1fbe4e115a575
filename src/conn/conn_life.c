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
	if (c->fl != c->fl_inline)
		free(c->fl);
	c->fl = c->fl_inline;
}

void
conn_reset_session(struct conn *c)
{
	c->lstate = LSTATE_NONAUTH;
	c->caps = 0;
	c->tag_next = 1;
	c->n_fl = 0;
	conn_fl_release(c);
	c->exists = 0;
	c->cont_wait = false;
	c->n_cont_splits = c->cont_next = 0;
	scram_free(c->scram);
	c->scram = NULL;
	c->sasl_step = SASL_DONE;
	c->logout = CONN_LOGOUT_NONE;
	c->quit = CONN_QUIT_NONE;
	c->tls = CONN_TLS_NONE;
	c->capa = CONN_STEP_NONE;
	c->enable = CONN_STEP_NONE;
	c->qresync_on = false;
	c->redact_cont = false;
	c->idle = CONN_IDLE_NONE;
	c->idle_driver = false;
	c->view_active = false;
	c->sep_step = CONN_STEP_NONE;
	c->z = CONN_Z_NONE;
	c->z_done = NULL;
	if (c->zc != NULL)
		memset(c->zc, 0, sizeof(*c->zc));
	c->id = CONN_STEP_NONE;
	c->disconnect_pending = false;
	/* A DISCONNECT taken during a DELAY pause replaced the pause's
	 * timer: the next session must not start paused (it never sent). */
	c->delayed = false;
	conn_hold_update(c);
	c->stall_said = 0;
	c->login_op = OP_LOGIN;
	evbuffer_drain(c->stage, evbuffer_get_length(c->stage));
	evbuffer_drain(c->scratch, evbuffer_get_length(c->scratch));
	conn_cont_clear(c);
	imap_parser_reset(c->parser);
}

/* Count what was in flight as failed: the server never answered it. */
static void
conn_fail_inflight(struct conn *c)
{
	struct stats *s = c->env->stats;
	uint64_t now = clock_us();

	for (unsigned i = 0; i < c->n_fl; i++) {
		struct inflight *f = &c->fl[i];
		if (f->internal != CONN_I_NONE)
			continue;
		if (f->op == OP_LOGOUT && c->logout == CONN_LOGOUT_BYE) {
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
	c->quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	conn_sync_wire(c);
	conn_fail_inflight(c);
	conn_guard_closed(c);
	if (c->env->cfg->tls_resume && c->tls == CONN_TLS_DONE && c->bev != NULL) {
		/* Offer this session again when the slot reconnects. */
		struct ssl_session_st *s = tls_bev_session(c->z == CONN_Z_ON ?
		    bufferevent_get_underlying(c->bev) : c->bev);
		if (s != NULL) {
			tls_session_free(c->tls_sess);
			c->tls_sess = s;
		}
	}
	c->cp = CONN_CP_NONE;
	if (c->own_reads) {
		event_del(c->rd_ev);	/* safe inside its own callback */
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
	c->quit = CONN_QUIT_NONE;
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
	if (c->quit != CONN_QUIT_NOW)
		return false;
	conn_close(c, c->close_end, c->close_err);
	return true;
}
