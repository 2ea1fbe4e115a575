/* conn.c: a connection's life: timeouts, close, restart, and the calls
 * its driver makes (conn.h); its start is conn_connect.c.  What comes next after a close is
 * the driver's (the closed hook).  What is sent lives in conn_cmd.c, what
 * is received in conn_resp.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "util/log.h"
#include "net/rawlog.h"
#include "imap/scram.h"
#include "net/tls.h"
#include "conn/shared.h"
#include "util/xmalloc.h"

#define STALL_SAY_US 15000000	/* stalls this long get their own line */

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg);

struct conn *
conn_new(const struct conn_env *env, unsigned slot)
{
	const struct config *cfg = env->cfg;
	struct conn *c = xcalloc(1, sizeof(*c));
	struct imap_limits lim = {
		.max_line = cfg->max_line,
		.max_literal = cfg->max_literal,
		.capture_literal = 4096,
	};

	c->env = env;
	c->slot = slot;
	c->st = CONN_S_WAIT;
	conn_hold_update(c);
	c->fl = c->fl_inline;
	c->login_op = OP_LOGIN;
	c->user = xcalloc(1, CONN_USER_INIT);
	c->user_cap = CONN_USER_INIT;
	c->parser = imap_parser_new(&lim, conn_on_resp, c);
	c->timer = evtimer_new(env->base, conn_timer_cb, c);
	/* assigned to each connection's socket in conn_start */
	c->rd_ev = event_new(env->base, -1, 0, conn_sock_read_cb, c);
	c->stage = evbuffer_new();
	c->scratch = evbuffer_new();
	rng_seed(&c->rng, cfg->have_seed ? cfg->seed : env->sh->run_id, slot);
	if (cfg->rawlog)
		c->rawlog = rawlog_open(cfg->rawlog_dir, slot,
		    &env->sh->live->rawlog_failures);
	return c;
}

void
conn_set_user(struct conn *c, const char *user, const char *pass)
{
	size_t n = strnlen(user, CONN_USER_MAX);

	if (n >= c->user_cap) {
		c->user = xrealloc(c->user, n + 1);
		c->user_cap = (unsigned)n + 1;
	}
	memmove(c->user, user, n);	/* user may be conn_user(c) */
	c->user[n] = '\0';
	c->pass = pass;
}

void
conn_fl_grow(struct conn *c)
{
	struct inflight *fl = xmalloc(CONN_MAX_INFLIGHT * sizeof(*fl));

	memcpy(fl, c->fl_inline, sizeof(c->fl_inline));
	c->fl = fl;
}

/* The session is over (or starting): back to the inline slots. */
static void
conn_fl_release(struct conn *c)
{
	if (c->fl != c->fl_inline)
		free(c->fl);
	c->fl = c->fl_inline;
}

size_t
conn_footprint(const struct conn *c)
{
	size_t n = sizeof(*c) + c->user_cap;

	if (c->fl != c->fl_inline)
		n += CONN_MAX_INFLIGHT * sizeof(*c->fl);
	if (c->cont != NULL)
		n += IMAP_CMD_MAX_SPLITS * sizeof(*c->cont_splits);
	if (c->zc != NULL)
		n += sizeof(*c->zc);
	return n;
}

void
conn_cont_open(struct conn *c)
{
	if (c->cont != NULL)
		return;
	c->cont = evbuffer_new();
	c->cont_splits = xmalloc(IMAP_CMD_MAX_SPLITS * sizeof(*c->cont_splits));
}

void
conn_cont_clear(struct conn *c)
{
	if (c->cont != NULL)
		evbuffer_drain(c->cont, evbuffer_get_length(c->cont));
}

void
conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	if (c->bev != NULL)
		bufferevent_free(c->bev);
	imap_parser_free(c->parser);
	if (c->timer != NULL)
		event_free(c->timer);
	if (c->rd_ev != NULL)
		event_free(c->rd_ev);
	if (c->guard_ev != NULL)
		event_free(c->guard_ev);	/* a wake-up still due goes too */
	evbuffer_free(c->stage);
	evbuffer_free(c->scratch);
	if (c->cont != NULL)
		evbuffer_free(c->cont);
	free(c->cont_splits);
	mbox_view_free(c->view);
	rawlog_close(c->rawlog);
	tls_session_free(c->tls_sess);
	scram_free(c->scram);
	conn_fl_release(c);
	free(c->user);
	free(c->zc);
	free(c);
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

static void
conn_schedule(struct conn *c, uint64_t us)
{
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };
	evtimer_add(c->timer, &tv);
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

/* End an IDLE: DONE, and time the IDLE from here to its tagged OK. */
void
conn_idle_done(struct conn *c)
{
	c->t_asked = clock_us();
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->fl[i].op == OP_IDLE && c->fl[i].internal == CONN_I_NONE)
			c->fl[i].t_sent = c->t_asked;
	c->idle = CONN_IDLE_DONE_SENT;
	conn_hold_update(c);
	conn_count_sent(c, 6);
	rawlog_data(c->rawlog, 'C', "DONE\r\n", 6);
	bufferevent_write(c->bev, "DONE\r\n", 6);
	conn_out_queued(c);
	conn_write_now(c);
}

enum conn_end
conn_end_now(const struct conn *c)
{
	return c->logout == CONN_LOGOUT_BYE ? CONN_END_LOGOUT :
	    c->stopping ? CONN_END_STOPPED : CONN_END_FAILED;
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

void
conn_restart(struct conn *c, uint64_t us)
{
	if (c->st != CONN_S_WAIT)
		return;
	if (us == 0) {
		/* Now, but outside the closed hook's caller: the callback
		 * runs in this loop turn, after the one that closed returns;
		 * a zero timer would cost an epoll_wait() of its own. */
		evtimer_del(c->timer);
		event_active(c->timer, EV_TIMEOUT, 1);
		return;
	}
	conn_schedule(c, us);
}

void
conn_finish(struct conn *c)
{
	evtimer_del(c->timer);
	c->st = CONN_S_DONE;
	conn_hold_update(c);
}

bool
conn_finished(const struct conn *c)
{
	return c->st == CONN_S_DONE;
}

static void
conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->st == CONN_S_WAIT) {
		conn_start(c);
		return;
	}
	if (c->disconnect_pending) {
		c->disconnect_pending = false;
		conn_hold_update(c);
		conn_close(c, CONN_END_PLANNED, ERR_DISCONNECT);
		return;
	}
	if (c->idle == CONN_IDLE_ACTIVE && c->bev != NULL) {
		conn_idle_done(c);
		return;
	}
	/* A pause (conn_pause) ends here. */
	c->delayed = false;
	conn_hold_update(c);
	conn_send_more(c);
}

void
conn_pause(struct conn *c, uint64_t us)
{
	c->delayed = true;
	conn_hold_update(c);
	conn_schedule(c, us);
}

bool
conn_paused(const struct conn *c)
{
	return c->delayed;
}

void
conn_disconnect(struct conn *c)
{
	struct timeval now0 = { 0, 0 };
	c->disconnect_pending = true;
	conn_hold_update(c);
	evtimer_add(c->timer, &now0);
}

bool
conn_may_disconnect(const struct conn *c)
{
	return c->logout == CONN_LOGOUT_NONE && c->n_fl == 0 &&
	    !c->disconnect_pending;
}

static void conn_tick_timeouts(struct conn *c, uint64_t now);
static bool conn_stalled(const struct conn *c, uint64_t now, uint64_t us);

void
conn_tick(struct conn *c, uint64_t now, struct conn_gauges *g)
{
	conn_tick_timeouts(c, now);
	if (c->st != CONN_S_DONE && c->t_last_io > g->heard)
		g->heard = c->t_last_io;
	if (c->st != CONN_S_DONE)
		g->clients++;
	if (c->st == CONN_S_SESSION)
		g->session++;
	if (c->ever_in)
		g->in++;
	if (conn_stalled(c, now, 3000000))
		g->stalled3++;
	if (conn_stalled(c, now, STALL_SAY_US) &&
	    now - c->stall_said >= STALL_SAY_US) {
		/* imaptest's " - <id> stalled for <s> secs in command:
		 * <tag> <cmd>", once per 15 s per client. */
		c->stall_said = now;
		/* capped like error lines: 300 stalled clients printed 666
		 * lines (run.c says how many in all) */
		unsigned k = atomic_fetch_add_explicit(
		    &c->env->sh->live->stalls_said, 1, memory_order_relaxed);
		if (k < CONN_LOG_MAX_PER_KIND)
			log_warn("%s[%u]: stalled for %llu secs in command: "
				 "%u.%u %s%s", c->user, c->slot,
				 (unsigned long long)((now - (c->t_last_io >
				     c->t_asked ? c->t_last_io : c->t_asked)) /
				     1000000),
				 c->slot, c->fl[0].tag,
				 conn_inflight_name(&c->fl[0]),
				 k + 1 == CONN_LOG_MAX_PER_KIND ?
				 " (further stall warnings are only counted)" :
				 "");
	}
}

static void
conn_tick_timeouts(struct conn *c, uint64_t now)
{
	const struct config *cfg = c->env->cfg;

	switch (c->st) {
	case CONN_S_CONNECTING:
		if (conn_connect_poll(c, now))
			return;	/* up, but no greeting yet: from now on */
		if (now - c->t_connect > (uint64_t)(cfg->connect_timeout * 1e6)) {
			conn_fail(c, ERR_TIMEOUT, "connect timed out after %.0f s",
				  cfg->connect_timeout);
		}
		return;
	case CONN_S_GREETING:
		/* From when TCP (and implicit TLS) completed, not from the last
		 * byte: a server dripping its greeting must not hold us. */
		if (now - c->t_connected > (uint64_t)(cfg->greeting_timeout * 1e6)) {
			conn_fail(c, ERR_TIMEOUT, "no greeting after %.0f s",
				  cfg->greeting_timeout);
		}
		return;
	case CONN_S_SESSION:
		break;
	default:
		return;
	}
	if (conn_stall_cut(c, now))
		return;
	conn_sync_wire(c);
	/* A driver's IDLE waits for the server as long as the driver wants. */
	if (c->n_fl == 0 || c->idle == CONN_IDLE_ACTIVE)
		return;
	uint64_t oldest = c->fl[0].t_sent;
	for (unsigned i = 1; i < c->n_fl; i++)
		if (c->fl[i].t_sent < oldest)
			oldest = c->fl[i].t_sent;
	if (now - oldest > (uint64_t)(cfg->cmd_timeout * 1e6)) {
		conn_fail(c, ERR_TIMEOUT, "%s: no reply after %.0f s",
			  conn_inflight_name(&c->fl[0]), cfg->cmd_timeout);
		return;
	}
	if (cfg->stalled_disconnect_timeout > 0 &&
	    now - c->t_last_io > cfg->stalled_disconnect_timeout * 1000000ull) {
		conn_fail(c, ERR_TIMEOUT, "stalled for %u s, disconnecting",
			  cfg->stalled_disconnect_timeout);
	}
}

/* Has a command been waiting with no byte from the server for `us`?
 * From the last byte or the last command, whichever is later: the DONE
 * that ends a long IDLE (at a drain: every LoadSim user at once) is not
 * stalled the moment it is sent (9,084 warnings at the end of a
 * 10,000-user run that held IDLE for a minute). */
static bool
conn_stalled(const struct conn *c, uint64_t now, uint64_t us)
{
	return c->st == CONN_S_SESSION && c->n_fl > 0 &&
	       c->idle != CONN_IDLE_ACTIVE &&
	       conn_stall_stale(now, c->t_last_io, c->t_asked, us);
}

void
conn_drain(struct conn *c)
{
	c->stopping = true;
	conn_hold_update(c);
	switch (c->st) {
	case CONN_S_WAIT:
		evtimer_del(c->timer);
		conn_close(c, CONN_END_STOPPED, ERR_DISCONNECT);	/* the hook finishes it */
		return;
	case CONN_S_SESSION:
		if (c->idle == CONN_IDLE_ACTIVE) {
			evtimer_del(c->timer);
			conn_idle_done(c);
		}
		if (c->n_fl == 0 && !c->cont_wait)
			conn_send_more(c);	/* sends LOGOUT */
		/* Silent for the stall bound already: no grace. */
		conn_stall_cut(c, clock_us());
		return;
	case CONN_S_CONNECTING:
	case CONN_S_GREETING:
		conn_close(c, CONN_END_STOPPED, ERR_DISCONNECT);
		return;
	case CONN_S_DONE:
		return;
	}
}

unsigned
conn_halt(struct conn *c)
{
	unsigned unanswered = 0;

	if (c->st == CONN_S_DONE)
		return 0;
	c->stopping = true;
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->fl[i].internal == CONN_I_NONE)
			unanswered++;
	c->quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	conn_driver_abandon(c);
	c->n_fl = 0;
	evtimer_del(c->timer);
	conn_close(c, CONN_END_STOPPED, ERR_DISCONNECT);	/* the hook finishes it */
	return unanswered;
}

bool
conn_quiesce(struct conn *c)
{
	if (c->st != CONN_S_SESSION)
		return true;
	if (c->idle == CONN_IDLE_ACTIVE) {
		evtimer_del(c->timer);
		conn_idle_done(c);
	}
	return c->n_fl == 0 && !c->cont_wait;
}

bool
conn_is_logged_in(const struct conn *c)
{
	return c->st == CONN_S_SESSION && c->lstate != LSTATE_NONAUTH;
}

#ifdef CONN_HOLD_CHECK
/* A field of the may-send predicate changed without conn_hold_update(). */
void
conn_hold_mismatch(const struct conn *c)
{
	fprintf(stderr, "conn %u: hold 0x%x, fields say 0x%x\n", c->slot,
		(unsigned)c->hold, conn_hold_of(c));
	abort();
}
#endif
