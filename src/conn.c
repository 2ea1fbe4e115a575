/* conn.c: a connection's life: connect, read loop, timeouts, close and
 * reconnect.  What is sent lives in conn_cmd.c, what is received in
 * conn_resp.c. */
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
#include "conn.h"
#include "conn_log.h"
#include "log.h"
#include "checkpoint.h"
#include "openloop.h"
#include "rawlog.h"
#include "scram.h"
#include "tls.h"
#include "store_map.h"
#include "user_template.h"
#include "userfile.h"
#include "worker.h"
#include "xmalloc.h"

/* Backoff after a failure: 20 ms doubling to 5 s, with jitter, so a dead
 * server is probed a few times a second, not hammered in a tight loop. */
#define BACKOFF_MIN_US 20000u
#define BACKOFF_MAX_US 5000000u

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg);

/* Pick a user: from userfile=, or a number for the user= template. */
static void
conn_pick_user(struct conn *c)
{
	const struct config *cfg = c->w->cfg;
	const struct userfile *uf = c->w->sh->users;
	c->pass = cfg->pass;
	if (uf != NULL) {
		const struct userfile_entry *e = &uf->e[rng_below(&c->rng, uf->n)];
		snprintf(c->user, sizeof(c->user), "%s", e->user);
		if (e->pass != NULL)
			c->pass = e->pass;
		return;
	}
	unsigned span = cfg->users_max - cfg->users_min + 1;
	unsigned nw = c->w->sh->n_workers, id = c->w->id;
	if (span >= nw && nw > 1) {
		/* Users are partitioned: worker k takes users k, k+W, ...
		 * so one mailbox's sessions all live in one worker and its
		 * model needs no locks. */
		unsigned mine = (span - id + nw - 1) / nw;
		c->user_no = cfg->users_min + id + nw * rng_below(&c->rng, mine);
	} else {
		c->user_no = cfg->users_min + rng_below(&c->rng, span);
	}
	c->domain_no = cfg->domains_min +
	    rng_below(&c->rng, cfg->domains_max - cfg->domains_min + 1);
	user_template_fill(cfg->user_template, c->user_no, c->domain_no,
			   c->user, sizeof(c->user));
}

struct conn *
conn_new(struct worker *w, unsigned slot)
{
	const struct config *cfg = w->cfg;
	struct conn *c = xcalloc(1, sizeof(*c));
	struct imap_limits lim = {
		.max_line = cfg->max_line,
		.max_literal = cfg->max_literal,
		.capture_literal = 4096,
	};

	c->w = w;
	c->slot = slot;
	c->st = CONN_S_WAIT;
	c->parser = imap_parser_new(&lim, conn_on_resp, c);
	c->timer = evtimer_new(w->base, conn_timer_cb, c);
	/* assigned to each connection's socket in conn_start */
	c->rd_ev = event_new(w->base, -1, 0, conn_sock_read_cb, c);
	c->idle_slot = -1;
	c->stage = evbuffer_new();
	c->scratch = evbuffer_new();
	c->cont = evbuffer_new();
	rng_seed(&c->rng, cfg->have_seed ? cfg->seed : w->sh->run_id, slot);
	if (cfg->rawlog)
		c->rawlog = rawlog_open(cfg->rawlog_dir, slot,
		    &((struct shared *)w->sh)->rawlog_failures);
	conn_pick_user(c);
	return c;
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
	c->tls_done = false;
	c->capa_sent = false;
	c->enable_due = false;
	c->quit_after_inflight = false;
	c->starttls_sent = c->upgrade = c->redact_cont = false;
	c->idle = CONN_IDLE_NONE;
	c->view_active = false;
	c->sep_pending = false;
	c->compress_on = c->compress_sent = c->compress_upgrade = false;
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
	stats_err(c->w->stats, ERR_MBOXSTATE);
	conn_log_err(c, ERR_MBOXSTATE, "%s (%s): %.200s", msg, mbox_err_name(kind),
		     c->cur_resp != NULL ? c->cur_resp->line : "");
}

/* A SELECT is about to go out: a fresh view on this user's mailbox. */
void
conn_view_select(struct conn *c)
{
	const struct config *cfg = c->w->cfg;
	struct mbox_store *s;

	if (c->w->stores == NULL)
		return;
	s = store_map_get(c->w->stores, c->user, cfg->box);
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
	const struct config *cfg = c->w->cfg;
	int one = 1;
	evutil_socket_t fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
				    SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (cfg->n_sources > 0) {
		const struct sockaddr_storage *src =
		    &c->w->sh->sources[c->slot % c->w->sh->n_sources];
		if (bind(fd, (const struct sockaddr *)src,
			 c->w->sh->source_lens[c->slot % c->w->sh->n_sources]) < 0) {
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
	if (e == EADDRNOTAVAIL || (e == EADDRINUSE && c->w->cfg->n_sources > 0))
		ctr_add(&c->w->stats->ports_exhausted, 1);
}

void
conn_start(struct conn *c)
{
	const struct shared *sh = c->w->sh;
	unsigned ai = (unsigned)((c->slot + c->serial) % sh->n_addrs);
	const struct sockaddr *sa = (const struct sockaddr *)&sh->addrs[ai];
	evutil_socket_t fd;

	conn_reset_session(c);
	c->serial++;
	c->st = CONN_S_CONNECTING;
	c->t_connect = c->t_last_io = clock_us();
	ctr_add(&c->w->stats->connects, 1);
	rawlog_note(c->rawlog, "connection %llu: connecting as %s",
		    (unsigned long long)c->serial, c->user);

	fd = conn_socket(c, sa);
	if (fd < 0) {
		conn_count_port_error(c, errno);
		conn_log_err(c, ERR_CONNECT, "socket: %s", strerror(errno));
		conn_close(c, ERR_CONNECT, true);
		return;
	}
	c->tls_layer = c->w->cfg->tls == TLS_IMPLICIT;
	c->wire_in = c->wire_out = 0;
	c->bev = tls_bev_new(sh->tls, c->w->base, fd, c->tls_layer, c->tls_sess);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		conn_log_err(c, ERR_TLS, "cannot set up TLS");
		conn_close(c, ERR_TLS, true);
		return;
	}
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, CONN_OUT_LOW, 0);
	bufferevent_set_max_single_write(c->bev, CONN_MAX_WRITE);
	/* How much a TLS bufferevent decrypts per callback (libevent's
	 * default is 16 KiB); a plain socket's reads are ours. */
	bufferevent_set_max_single_read(c->bev, CONN_MAX_READ);
	/* A plain socket is read by rd_ev from BEV_EVENT_CONNECTED on; TLS
	 * reads whole records through OpenSSL. */
	c->own_reads = !c->tls_layer &&
	    event_assign(c->rd_ev, c->w->base, fd, EV_READ | EV_PERSIST,
			 conn_sock_read_cb, c) == 0;
	bufferevent_enable(c->bev, c->own_reads ? EV_WRITE : EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, sa, (int)sh->addr_lens[ai]) < 0) {
		conn_count_port_error(c, errno);
		conn_log_err(c, ERR_CONNECT, "connect: %s", strerror(errno));
		conn_close(c, ERR_CONNECT, true);
	}
}

/* Time to wait before the next attempt after `streak` failures in a row. */
static uint64_t
conn_backoff_us(struct conn *c)
{
	uint64_t d;
	unsigned s = c->fail_streak > 12 ? 12 : c->fail_streak;

	if (s == 0)
		return 0;
	d = (uint64_t)BACKOFF_MIN_US << (s - 1);
	if (d > BACKOFF_MAX_US)
		d = BACKOFF_MAX_US;
	return d / 2 + rng_below(&c->rng, (uint32_t)(d / 2 + 1));
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
	struct stats *s = c->w->stats;
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
	/* After LOGOUT, or imaptest's DISCONNECT state: a normal end. */
	bool clean = (c->logout_sent && c->bye_seen) ||
	    (!count_err && why == ERR_DISCONNECT && c->planned_close);
	c->planned_close = false;

	conn_sync_wire(c);
	conn_fail_inflight(c);
	if (c->w->cfg->tls_resume && c->tls_done && c->bev != NULL) {
		/* Offer this session again when the slot reconnects. */
		struct ssl_session_st *s = tls_bev_session(c->compress_on ?
		    bufferevent_get_underlying(c->bev) : c->bev);
		if (s != NULL) {
			tls_session_free(c->tls_sess);
			c->tls_sess = s;
		}
	}
	if (c->w->openloop != NULL)
		openloop_conn_gone(c->w->openloop, c);
	bool in_checkpoint = checkpoint_holding(c->w->cp);
	c->cp_waiting = c->cp_checked = false;
	if (count_err)
		stats_err(c->w->stats, why);
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
	if (in_checkpoint)
		checkpoint_progress(c->w->cp);	/* with bev gone: no sends */
	if (c->st == CONN_S_DONE)
		return;
	if (c->w->draining) {
		c->st = CONN_S_DONE;
		worker_conn_finished(c->w);
		return;
	}
	c->st = CONN_S_WAIT;
	if (clean) {
		/* After a LOGOUT the slot logs in again as a new user. */
		conn_pick_user(c);
		c->fail_streak = 0;
		conn_schedule(c, 0);
		return;
	}
	/* The server dropped us: the same user reconnects, after a pause
	 * that grows while failures repeat. */
	c->fail_streak++;
	conn_schedule(c, conn_backoff_us(c));
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

void
conn_tick(struct conn *c, uint64_t now)
{
	const struct config *cfg = c->w->cfg;

	switch (c->st) {
	case CONN_S_CONNECTING:
		if (now - c->t_connect > (uint64_t)(cfg->connect_timeout * 1e6)) {
			conn_log_err(c, ERR_TIMEOUT, "connect timed out after %.0f s",
				     cfg->connect_timeout);
			conn_close(c, ERR_TIMEOUT, true);
		}
		return;
	case CONN_S_GREETING:
		/* From when TCP (and implicit TLS) completed, not from the last
		 * byte: a server dripping its greeting must not hold us. */
		if (now - c->t_connected > (uint64_t)(cfg->greeting_timeout * 1e6)) {
			conn_log_err(c, ERR_TIMEOUT, "no greeting after %.0f s",
				     cfg->greeting_timeout);
			conn_close(c, ERR_TIMEOUT, true);
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
		conn_log_err(c, ERR_TIMEOUT, "%s: no reply after %.0f s",
			     conn_inflight_name(&c->fl[0]), cfg->cmd_timeout);
		conn_close(c, ERR_TIMEOUT, true);
		return;
	}
	if (cfg->stalled_disconnect_timeout > 0 &&
	    now - c->t_last_io > cfg->stalled_disconnect_timeout * 1000000ull) {
		conn_log_err(c, ERR_TIMEOUT, "stalled for %u s, disconnecting",
			     cfg->stalled_disconnect_timeout);
		conn_close(c, ERR_TIMEOUT, true);
	}
}

bool
conn_stalled(const struct conn *c, uint64_t now, uint64_t us)
{
	return c->st == CONN_S_SESSION && c->n_fl > 0 &&
	       now - c->t_last_io > us;
}

void
conn_drain(struct conn *c)
{
	switch (c->st) {
	case CONN_S_WAIT:
		evtimer_del(c->timer);
		c->st = CONN_S_DONE;
		worker_conn_finished(c->w);
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

void
conn_halt(struct conn *c)
{
	if (c->st == CONN_S_DONE)
		return;
	/* Unanswered at a hard stop: reported as unfinished, not failed,
	 * because the server may still complete them. */
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->fl[i].internal == CONN_I_NONE)
			c->w->unfinished++;
	c->n_fl = 0;
	if (c->bev != NULL || c->st == CONN_S_WAIT)
		conn_close(c, ERR_DISCONNECT, false);
	evtimer_del(c->timer);
	if (c->st != CONN_S_DONE) {
		c->st = CONN_S_DONE;
		worker_conn_finished(c->w);
	}
}
