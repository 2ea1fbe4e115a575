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
conn_send_more(struct conn *c)
{
	conn_step(c);
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
	if (c->guard == CONN_G_WAIT && c->guard_ev == NULL)
		c->guard_ev = evtimer_new(c->env->base, conn_guard_wake_cb, c);
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
