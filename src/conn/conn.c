/* conn.c: the connection object and the events that are not the
 * socket's: new and free, its timer (start, pause, IDLE, DISCONNECT),
 * the worker's tick (timeouts, stalls), drain and halt, the guard's
 * wake-up, and the driver's calls that may end a session.  Each settles
 * what the layers below found (conn_settle, conn_life.c).  Its start is
 * conn_connect.c, the socket's events conn_io.c, what is sent
 * conn_cmd.c and conn_step.c, what is received conn_resp.c. */
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

/* The inits of the groups of struct conn (conn_int.h), one each, all
 * called from conn_new: what lives as long as the connection.  The
 * set-up and mailbox groups start zeroed (none of their steps begun,
 * nothing selected); each session then starts from conn_reset_session
 * (conn_life.c). */
static void
conn_wire_init(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	struct imap_limits lim = {
		.max_line = cfg->max_line,
		.max_literal = cfg->max_literal,
		.capture_literal = 4096,
	};

	c->wire.parser = imap_parser_new(&lim, conn_on_resp, c);
	/* assigned to each connection's socket in conn_start */
	c->wire.rd_ev = event_new(c->env->base, -1, 0, conn_sock_read_cb, c);
	if (cfg->rawlog)
		c->wire.rawlog = rawlog_open(cfg->rawlog_dir, c->life.slot,
		    &c->env->sh->live->rawlog_failures);
}

static void
conn_cmds_init(struct conn *c)
{
	c->cmd.fl = c->cmd.fl_inline;
	c->cmd.stage = evbuffer_new();
	c->cmd.scratch = evbuffer_new();
}

static void
conn_login_init(struct conn *c)
{
	c->login.login_op = OP_LOGIN;
	c->login.user = xcalloc(1, CONN_USER_INIT);
	c->login.user_cap = CONN_USER_INIT;
}

static void
conn_life_init(struct conn *c, unsigned slot)
{
	const struct config *cfg = c->env->cfg;

	c->life.slot = slot;
	c->st = CONN_S_WAIT;
	c->life.timer = evtimer_new(c->env->base, conn_timer_cb, c);
	rng_seed(&c->life.rng, cfg->have_seed ? cfg->seed : c->env->sh->run_id,
		 slot);
}

struct conn *
conn_new(const struct conn_env *env, unsigned slot)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	c->env = env;
	conn_life_init(c, slot);	/* first: the others name the slot */
	conn_wire_init(c);
	conn_cmds_init(c);
	conn_login_init(c);
	conn_hold_update(c);
	return c;
}

void
conn_set_user(struct conn *c, const char *user, const char *pass)
{
	size_t n = strnlen(user, CONN_USER_MAX);

	if (n >= c->login.user_cap) {
		c->login.user = xrealloc(c->login.user, n + 1);
		c->login.user_cap = (unsigned)n + 1;
	}
	memmove(c->login.user, user, n);	/* user may be conn_user(c) */
	c->login.user[n] = '\0';
	c->login.pass = pass;
}

size_t
conn_footprint(const struct conn *c)
{
	size_t n = sizeof(*c) + c->login.user_cap;

	if (c->cmd.fl != c->cmd.fl_inline)
		n += CONN_MAX_INFLIGHT * sizeof(*c->cmd.fl);
	if (c->cmd.cont != NULL)
		n += IMAP_CMD_MAX_SPLITS * sizeof(*c->cmd.cont_splits);
	if (c->wire.zc != NULL)
		n += sizeof(*c->wire.zc);
	return n;
}

void
conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	if (c->bev != NULL)
		bufferevent_free(c->bev);
	imap_parser_free(c->wire.parser);
	if (c->life.timer != NULL)
		event_free(c->life.timer);
	if (c->wire.rd_ev != NULL)
		event_free(c->wire.rd_ev);
	if (c->mbox.guard_ev != NULL)
		event_free(c->mbox.guard_ev);	/* a wake-up still due goes too */
	evbuffer_free(c->cmd.stage);
	evbuffer_free(c->cmd.scratch);
	if (c->cmd.cont != NULL)
		evbuffer_free(c->cmd.cont);
	free(c->cmd.cont_splits);
	mbox_view_free(c->mbox.view);
	rawlog_close(c->wire.rawlog);
	tls_session_free(c->wire.tls_sess);
	scram_free(c->login.scram);
	conn_fl_release(c);
	free(c->login.user);
	free(c->wire.zc);
	free(c);
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
		evtimer_del(c->life.timer);
		event_active(c->life.timer, EV_TIMEOUT, 1);
		return;
	}
	conn_schedule(c, us);
}

void
conn_finish(struct conn *c)
{
	evtimer_del(c->life.timer);
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
	if (c->cmd.disconnect_pending) {
		c->cmd.disconnect_pending = false;
		conn_hold_update(c);
		conn_close(c, CONN_END_PLANNED, ERR_DISCONNECT);
		return;
	}
	if (c->idle == CONN_IDLE_ACTIVE && c->bev != NULL) {
		conn_idle_done(c);
		return;
	}
	/* A pause (conn_pause) ends here. */
	c->cmd.delayed = false;
	conn_hold_update(c);
	conn_send_more(c);
}

void
conn_send_more(struct conn *c)
{
	/* A close already decided belongs to the event that decided it (a
	 * driver may call this from a done callback, inside the parser):
	 * only what this step decides is settled here. */
	bool decided = c->life.quit == CONN_QUIT_NOW;

	conn_step(c);
	if (!decided)
		conn_settle(c);
}

/* A session waiting for another's foreign-mail search hears that it is
 * answered (conn_guard.c wakes it): the ready hook, through conn_step. */
static void
conn_guard_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_send_more(arg);
}

bool
conn_guard_clear(struct conn *c, const char *box)
{
	bool ok = conn_guard_ask(c, box);

	/* Made on first use, for a session that waits: most never do, and
	 * an event is ~130 octets of every idle connection. */
	if (c->mbox.guard == CONN_G_WAIT && c->mbox.guard_ev == NULL)
		c->mbox.guard_ev = evtimer_new(c->env->base, conn_guard_wake_cb, c);
	return ok;
}

static void conn_tick_timeouts(struct conn *c, uint64_t now);
static bool conn_stalled(const struct conn *c, uint64_t now, uint64_t us);

void
conn_tick(struct conn *c, uint64_t now, struct conn_gauges *g)
{
	conn_tick_timeouts(c, now);
	conn_settle(c);
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
				 "%u.%u %s%s", c->login.user, c->life.slot,
				 (unsigned long long)((now - (c->t_last_io >
				     c->t_asked ? c->t_last_io : c->t_asked)) /
				     1000000),
				 c->life.slot, c->cmd.fl[0].tag,
				 conn_inflight_name(&c->cmd.fl[0]),
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
		if (now - c->life.t_connect > (uint64_t)(cfg->connect_timeout * 1e6)) {
			conn_fail(c, ERR_TIMEOUT, "connect timed out after %.0f s",
				  cfg->connect_timeout);
		}
		return;
	case CONN_S_GREETING:
		/* From when TCP (and implicit TLS) completed, not from the last
		 * byte: a server dripping its greeting must not hold us. */
		if (now - c->life.t_connected > (uint64_t)(cfg->greeting_timeout * 1e6)) {
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
	uint64_t oldest = c->cmd.fl[0].t_sent;
	for (unsigned i = 1; i < c->n_fl; i++)
		if (c->cmd.fl[i].t_sent < oldest)
			oldest = c->cmd.fl[i].t_sent;
	if (now - oldest > (uint64_t)(cfg->cmd_timeout * 1e6)) {
		conn_fail(c, ERR_TIMEOUT, "%s: no reply after %.0f s",
			  conn_inflight_name(&c->cmd.fl[0]), cfg->cmd_timeout);
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
		evtimer_del(c->life.timer);
		conn_close(c, CONN_END_STOPPED, ERR_DISCONNECT);	/* the hook finishes it */
		return;
	case CONN_S_SESSION:
		if (c->idle == CONN_IDLE_ACTIVE) {
			evtimer_del(c->life.timer);
			conn_idle_done(c);
		}
		if (c->n_fl == 0 && !c->cmd.cont_wait)
			conn_send_more(c);	/* sends LOGOUT */
		/* Silent for the stall bound already: no grace. */
		if (conn_stall_cut(c, clock_us()))
			conn_settle(c);
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
		if (c->cmd.fl[i].internal == CONN_I_NONE)
			unanswered++;
	c->life.quit = CONN_QUIT_NOW;
	conn_hold_update(c);
	conn_driver_abandon(c);
	c->n_fl = 0;
	evtimer_del(c->life.timer);
	conn_close(c, CONN_END_STOPPED, ERR_DISCONNECT);	/* the hook finishes it */
	return unanswered;
}

bool
conn_quiesce(struct conn *c)
{
	if (c->st != CONN_S_SESSION)
		return true;
	if (c->idle == CONN_IDLE_ACTIVE) {
		evtimer_del(c->life.timer);
		conn_idle_done(c);
	}
	return c->n_fl == 0 && !c->cmd.cont_wait;
}

bool
conn_is_logged_in(const struct conn *c)
{
	return c->st == CONN_S_SESSION && c->login.lstate != LSTATE_NONAUTH;
}
