/* conn.c: a connection's life: connect (or attach), timeouts, close, and
 * the calls its driver makes (conn.h).  What comes next after a close is
 * the driver's (the closed hook).  What is sent lives in conn_cmd.c, what
 * is received in conn_resp.c. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "clock.h"
#include "conn_int.h"
#include "conn_log.h"
#include "log.h"
#include "rawlog.h"
#include "scram.h"
#include "tls.h"
#include "store_map.h"
#include "shared.h"
#include "xmalloc.h"

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
	c->parser = imap_parser_new(&lim, conn_on_resp, c);
	c->timer = evtimer_new(env->base, conn_timer_cb, c);
	/* assigned to each connection's socket in conn_start */
	c->rd_ev = event_new(env->base, -1, 0, conn_sock_read_cb, c);
	c->stage = evbuffer_new();
	c->scratch = evbuffer_new();
	c->cont = evbuffer_new();
	rng_seed(&c->rng, cfg->have_seed ? cfg->seed : env->sh->run_id, slot);
	if (cfg->rawlog)
		c->rawlog = rawlog_open(cfg->rawlog_dir, slot,
		    &env->sh->live->rawlog_failures);
	return c;
}

unsigned
conn_slot(const struct conn *c)
{
	return c->slot;
}

struct rng *
conn_rng(struct conn *c)
{
	return &c->rng;
}

void
conn_set_user(struct conn *c, const char *user, const char *pass)
{
	snprintf(c->user, sizeof(c->user), "%s", user);
	c->pass = pass;
}

unsigned
conn_in_flight(const struct conn *c)
{
	return c->n_fl;
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
	evbuffer_free(c->stage);
	evbuffer_free(c->scratch);
	evbuffer_free(c->cont);
	mbox_view_free(c->view);
	rawlog_close(c->rawlog);
	tls_session_free(c->tls_sess);
	scram_free(c->scram);
	free(c);
}

static void
conn_reset_session(struct conn *c)
{
	c->lstate = LSTATE_NONAUTH;
	c->caps = 0;
	c->tag_next = 1;
	c->n_fl = 0;
	c->exists = 0;
	c->cont_wait = false;
	c->n_cont_splits = c->cont_next = 0;
	scram_free(c->scram);
	c->scram = NULL;
	c->sasl_step = SASL_DONE;
	c->logout_sent = c->bye_seen = false;
	c->closing = false;
	c->tls = CONN_TLS_NONE;
	c->capa_sent = false;
	c->enable_due = false;
	c->quit_after_inflight = false;
	c->redact_cont = false;
	c->idle = CONN_IDLE_NONE;
	c->view_active = false;
	c->sep_pending = false;
	c->z = CONN_Z_NONE;
	memset(&c->zc, 0, sizeof(c->zc));
	c->id_sent = c->disconnect_pending = false;
	c->stall_said = 0;
	evbuffer_drain(c->stage, evbuffer_get_length(c->stage));
	evbuffer_drain(c->scratch, evbuffer_get_length(c->scratch));
	evbuffer_drain(c->cont, evbuffer_get_length(c->cont));
	plan_init(&c->plan);
	imap_parser_reset(c->parser);
}

void
conn_view_err(void *arg, enum mbox_err kind, const char *msg)
{
	struct conn *c = arg;
	stats_err(c->env->stats, ERR_MBOXSTATE);
	conn_log_err(c, ERR_MBOXSTATE, "%s (%s): %.200s", msg, mbox_err_name(kind),
		     c->cur_resp != NULL ? c->cur_resp->line : "");
}

/* A SELECT is about to go out: a fresh view on this user's mailbox. */
void
conn_view_select(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	struct mbox_store *s;

	if (c->env->stores == NULL)
		return;
	s = store_map_get(c->env->stores, c->user, cfg->box);
	if (c->view != NULL && mbox_view_store(c->view) != s) {
		mbox_view_free(c->view);
		c->view = NULL;
	}
	if (c->view == NULL) {
		struct mbox_view_opts o = {
			.own_msgs = cfg->own_msgs,
			.own_flags = cfg->own_flags,
			.check_modseq = (c->caps & CAP_CONDSTORE) != 0,
			.err_cb = conn_view_err,
			.err_arg = c,
		};
		c->view = mbox_view_new(s, c->slot + 1, &o);
	}
	mbox_view_reset(c->view);
}

/* A socket of our own, so --source can bind it and TCP_NODELAY is set
 * before the first byte. */
static evutil_socket_t
conn_socket(struct conn *c, const struct sockaddr *sa)
{
	const struct config *cfg = c->env->cfg;
	int one = 1;
	evutil_socket_t fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
				    SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (cfg->n_sources > 0) {
		const struct sockaddr_storage *src =
		    &c->env->sh->sources[c->slot % c->env->sh->n_sources];
		if (bind(fd, (const struct sockaddr *)src,
			 c->env->sh->source_lens[c->slot % c->env->sh->n_sources]) < 0) {
			int e = errno;
			evutil_closesocket(fd);
			errno = e;
			return -1;
		}
	}
	return fd;
}

/* Out of local ports for this source address: bind() to an address with
 * port 0 says EADDRINUSE, connect() on an unbound socket EADDRNOTAVAIL.
 * Counted apart so the report can say so plainly. */
void
conn_count_port_error(struct conn *c, int e)
{
	if (e == EADDRNOTAVAIL || (e == EADDRINUSE && c->env->cfg->n_sources > 0))
		ctr_add(&c->env->stats->ports_exhausted, 1);
}

/* A new session: counted as a connect from here. */
static void
conn_begin(struct conn *c)
{
	conn_reset_session(c);
	c->serial++;
	c->st = CONN_S_CONNECTING;
	c->t_connect = c->t_last_io = clock_us();
	ctr_add(&c->env->stats->connects, 1);
	rawlog_note(c->rawlog, "connection %llu: connecting as %s",
		    (unsigned long long)c->serial, c->user);
}

static void
conn_bev_setup(struct conn *c)
{
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, CONN_OUT_LOW, 0);
	bufferevent_set_max_single_write(c->bev, CONN_MAX_WRITE);
	/* How much a TLS bufferevent decrypts per callback (libevent's
	 * default is 16 KiB); a plain socket's reads are ours. */
	bufferevent_set_max_single_read(c->bev, CONN_MAX_READ);
}

void
conn_attach(struct conn *c, struct bufferevent *bev)
{
	conn_begin(c);
	c->tls_layer = false;
	c->wire_in = c->wire_out = 0;
	c->own_reads = false;
	c->bev = bev;
	conn_bev_setup(c);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	conn_event_cb(bev, BEV_EVENT_CONNECTED, c);
}

void
conn_start(struct conn *c)
{
	const struct shared *sh = c->env->sh;
	unsigned ai = (unsigned)((c->slot + c->serial) % sh->n_addrs);
	const struct sockaddr *sa = (const struct sockaddr *)&sh->addrs[ai];
	evutil_socket_t fd;

	conn_begin(c);
	fd = conn_socket(c, sa);
	if (fd < 0) {
		conn_count_port_error(c, errno);
		conn_fail(c, ERR_CONNECT, "socket: %s", strerror(errno));
		return;
	}
	c->tls_layer = c->env->cfg->tls == TLS_IMPLICIT;
	c->wire_in = c->wire_out = 0;
	c->bev = tls_bev_new(sh->tls, c->env->base, fd, c->tls_layer, c->tls_sess);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		conn_fail(c, ERR_TLS, "cannot set up TLS");
		return;
	}
	conn_bev_setup(c);
	/* A plain socket is read by rd_ev from BEV_EVENT_CONNECTED on; TLS
	 * reads whole records through OpenSSL. */
	c->own_reads = !c->tls_layer &&
	    event_assign(c->rd_ev, c->env->base, fd, EV_READ | EV_PERSIST,
			 conn_sock_read_cb, c) == 0;
	bufferevent_enable(c->bev, c->own_reads ? EV_WRITE : EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, sa, (int)sh->addr_lens[ai]) < 0) {
		conn_count_port_error(c, errno);
		conn_fail(c, ERR_CONNECT, "connect: %s", strerror(errno));
	}
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
		if (f->op == OP_LOGOUT && c->bye_seen) {
			/* imaptest counts LOGOUT at the BYE; a server that
			 * closes before the tagged OK still logged us out. */
			stats_cmd(s, OP_LOGOUT, STATS_OK, now - f->t_sent);
			continue;
		}
		stats_cmd(s, (enum op)f->op, STATS_FAILED, 0);
	}
	c->n_fl = 0;
}

/* End an IDLE: DONE, and time the IDLE from here to its tagged OK. */
void
conn_idle_done(struct conn *c)
{
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->fl[i].op == OP_IDLE && c->fl[i].internal == CONN_I_NONE)
			c->fl[i].t_sent = clock_us();
	c->idle = CONN_IDLE_DONE_SENT;
	conn_count_sent(c, 6);
	rawlog_data(c->rawlog, 'C', "DONE\r\n", 6);
	bufferevent_write(c->bev, "DONE\r\n", 6);
	conn_write_now(c);
}

void
conn_close(struct conn *c, enum err_kind why, bool count_err)
{
	enum conn_end end = c->logout_sent && c->bye_seen ? CONN_END_LOGOUT :
	    !count_err && why == ERR_DISCONNECT && c->planned_close ?
	    CONN_END_PLANNED : c->stopping ? CONN_END_STOPPED : CONN_END_FAILED;
	c->planned_close = false;

	conn_sync_wire(c);
	conn_fail_inflight(c);
	if (c->env->cfg->tls_resume && c->tls == CONN_TLS_DONE && c->bev != NULL) {
		/* Offer this session again when the slot reconnects. */
		struct ssl_session_st *s = tls_bev_session(c->z == CONN_Z_ON ?
		    bufferevent_get_underlying(c->bev) : c->bev);
		if (s != NULL) {
			tls_session_free(c->tls_sess);
			c->tls_sess = s;
		}
	}
	c->cp_waiting = c->cp_checked = false;
	if (count_err)
		stats_err(c->env->stats, why);
	if (c->own_reads) {
		event_del(c->rd_ev);	/* safe inside its own callback */
		c->own_reads = false;
	}
	if (c->bev != NULL) {
		/* Safe inside the bufferevent's own callback: libevent holds
		 * a reference until the callback returns. */
		bufferevent_free(c->bev);
		c->bev = NULL;
	}
	c->closing = false;
	if (c->st == CONN_S_DONE)
		return;
	c->st = CONN_S_WAIT;
	c->env->hooks->closed(c->env->hook_arg, c, end, why);
}

void
conn_restart(struct conn *c, uint64_t us)
{
	if (c->st == CONN_S_WAIT)
		conn_schedule(c, us);
}

void
conn_finish(struct conn *c)
{
	evtimer_del(c->timer);
	c->st = CONN_S_DONE;
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
		c->planned_close = true;
		conn_close(c, ERR_DISCONNECT, false);
		return;
	}
	if (c->idle == CONN_IDLE_ACTIVE && c->bev != NULL) {
		conn_idle_done(c);
		return;
	}
	/* A DELAY state or a retry of a skipped plan ends here. */
	c->delayed = false;
	conn_send_more(c);
}

static void conn_tick_timeouts(struct conn *c, uint64_t now);
static bool conn_stalled(const struct conn *c, uint64_t now, uint64_t us);

void
conn_tick(struct conn *c, uint64_t now, struct conn_gauges *g)
{
	conn_tick_timeouts(c, now);
	if (c->st != CONN_S_DONE)
		g->clients++;
	if (c->st == CONN_S_SESSION)
		g->session++;
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
				 (unsigned long long)((now - c->t_last_io) /
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
	conn_sync_wire(c);
	if (c->n_fl == 0)
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

/* Has a command been waiting with no byte from the server for `us`? */
static bool
conn_stalled(const struct conn *c, uint64_t now, uint64_t us)
{
	return c->st == CONN_S_SESSION && c->n_fl > 0 &&
	       now - c->t_last_io > us;
}

void
conn_drain(struct conn *c)
{
	c->stopping = true;
	switch (c->st) {
	case CONN_S_WAIT:
		evtimer_del(c->timer);
		conn_close(c, ERR_DISCONNECT, false);	/* the hook finishes it */
		return;
	case CONN_S_SESSION:
		if (c->idle == CONN_IDLE_ACTIVE) {
			evtimer_del(c->timer);
			conn_idle_done(c);
		}
		if (c->n_fl == 0 && !c->cont_wait)
			conn_send_more(c);	/* sends LOGOUT */
		return;
	case CONN_S_CONNECTING:
	case CONN_S_GREETING:
		conn_close(c, ERR_DISCONNECT, false);
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
	c->n_fl = 0;
	evtimer_del(c->timer);
	conn_close(c, ERR_DISCONNECT, false);	/* the hook finishes it */
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
conn_send_check(struct conn *c)
{
	if (c->st != CONN_S_SESSION || c->bev == NULL ||
	    c->lstate != LSTATE_SELECTED || c->view == NULL)
		return false;
	c->cp_waiting = c->cp_checked = true;
	conn_send_internal(c, CONN_I_CHECK, "CHECK");
	return true;
}

bool
conn_check_pending(const struct conn *c)
{
	return c->cp_waiting;
}

struct mbox_view *
conn_checked_view(const struct conn *c)
{
	return c->cp_checked ? c->view : NULL;
}

void
conn_check_done(struct conn *c)
{
	c->cp_checked = false;
}

bool
conn_is_logged_in(const struct conn *c)
{
	return c->st == CONN_S_SESSION && c->lstate != LSTATE_NONAUTH;
}
