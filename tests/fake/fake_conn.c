/* fake_conn.c: one client connection: its life (accept, TLS, COMPRESS,
 * free) and the ordered reply pipeline (immediate, delayed, stalled,
 * dripped, close, reset).  What it reads goes to fake_input.c. */
#include <stdatomic.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/bufferevent_ssl.h>

#include "net/compress.h"

#include "fake.h"
#include "fake_store.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define FAKE_DRIP_US 100000u
#define FAKE_RESET_GRACE_US 20000u
#define FAKE_REF_MIN 1024u
/* Stop parsing while this much is waiting to go out: a client that
 * pipelines FETCH 1:* and never reads must not eat the machine. */
#define FAKE_OUT_MAX (4u * 1024 * 1024)

static void fake_conn_read_cb(struct bufferevent *bev, void *arg);
static void fake_conn_write_cb(struct bufferevent *bev, void *arg);
static void fake_conn_event_cb(struct bufferevent *bev, short what, void *arg);
static void fake_conn_timer_cb(evutil_socket_t fd, short what, void *arg);
static void fake_conn_tick_cb(evutil_socket_t fd, short what, void *arg);

static struct bufferevent *
fake_conn_bev(struct fake_loop *loop, int fd)
{
	if (loop->sh->ssl_ctx == NULL)
		return bufferevent_socket_new(loop->base, fd, BEV_OPT_CLOSE_ON_FREE);
	SSL *ssl = SSL_new(loop->sh->ssl_ctx);
	if (ssl == NULL)
		return NULL;
	struct bufferevent *bev = bufferevent_openssl_socket_new(
		loop->base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
		BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		SSL_free(ssl);
		return NULL;
	}
	/* Clients under test hang up without close_notify all the time;
	 * that is their business, not an error worth a log line. */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

void
fake_conn_accept(struct fake_loop *loop, int fd)
{
	struct fake_shared *sh = loop->sh;
	loop->stats.connections++;
	uint64_t unset = 0;
	atomic_compare_exchange_strong(&sh->first_conn_us, &unset,
				       fake_now_us());
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	struct bufferevent *bev = fake_conn_bev(loop, fd);
	if (bev == NULL) {
		log_warn("fakeimapd: cannot set up a connection: %s",
			 strerror(errno));
		close(fd);
		return;
	}
	struct fake_conn *c = xcalloc(1, sizeof(*c));
	c->loop = loop;
	c->sh = sh;
	c->bev = bev;
	c->timer = evtimer_new(loop->base, fake_conn_timer_cb, c);
	c->tick = evtimer_new(loop->base, fake_conn_tick_cb, c);
	c->scratch = evbuffer_new();
	c->pending = evbuffer_new();
	c->drip = evbuffer_new();
	if (c->timer == NULL || c->tick == NULL || c->scratch == NULL ||
	    c->pending == NULL || c->drip == NULL) {
		/* The same policy as xmalloc: out of memory is not a state a
		 * test server should limp on in. */
		log_error("fakeimapd: out of memory for a connection");
		abort();
	}
	c->cmd_cap = 256;
	c->cmd = xmalloc(c->cmd_cap);
	c->cmd[0] = '\0';
	c->exists = sh->cfg->messages;
	c->rng = fake_seed(loop->seed++);
	if (sh->script != NULL)
		c->once_fired = xcalloc(fake_script_rules(sh->script) + 1, 1);

	fake_delay_conn_opened();
	c->next = loop->conns;
	if (loop->conns != NULL)
		loop->conns->prev = c;
	loop->conns = c;

	bufferevent_setcb(bev, fake_conn_read_cb, fake_conn_write_cb,
			  fake_conn_event_cb, c);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	if (!fake_fault_greet(c))
		fake_cmd_greet(c);
	fake_conn_settle(c);
}

bool
fake_conn_deflate(struct fake_conn *c)
{
	char err[128];
	struct bufferevent *z = compress_bev_new(c->bev, 9, NULL, err,
						 sizeof(err));
	if (z == NULL)
		return false;
	c->bev = z;
	c->deflating = true;
	bufferevent_setcb(z, fake_conn_read_cb, fake_conn_write_cb,
			  fake_conn_event_cb, c);
	bufferevent_enable(z, EV_READ | EV_WRITE);
	return true;
}

void
fake_conn_free(struct fake_conn *c)
{
	if (c == NULL)
		return;
	struct fake_loop *loop = c->loop;
	fake_delay_conn_closed();
	fake_store_conn_gone(c);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		loop->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	if (c->reset) {
		/* Linger 0 turns close() into an RST: the point of --mode reset. */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		int fd = (int)bufferevent_getfd(c->bev);
		if (fd >= 0)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	fake_stream_free(c);
	event_free(c->timer);
	event_free(c->tick);
	bufferevent_free(c->bev);
	evbuffer_free(c->scratch);
	evbuffer_free(c->pending);
	evbuffer_free(c->drip);
	free(c->cmd);
	free(c->lit_marks);
	free(c->foreign);
	free(c->q);
	free(c->once_fired);
	free(c);
}

/* Frees the connection once it is dead, or closing with everything
 * flushed.  Called last in every callback so nothing touches c after. */
bool
fake_conn_settle(struct fake_conn *c)
{
	if (c->dead) {
		fake_conn_free(c);
		return true;
	}
	if (!c->closing)
		return false;
	/* under COMPRESS, what the filter made may still wait below it */
	struct bufferevent *under = bufferevent_get_underlying(c->bev);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0 ||
	    (under != NULL &&
	     evbuffer_get_length(bufferevent_get_output(under)) > 0) ||
	    evbuffer_get_length(c->drip) > 0)
		return false;
	if (c->reset && !c->reset_grace_done) {
		/* Give the peer a moment to read the last reply before the
		 * RST, which on some stacks discards unread data. */
		if (!evtimer_pending(c->tick, NULL)) {
			struct timeval tv = { 0, FAKE_RESET_GRACE_US };
			evtimer_add(c->tick, &tv);
		}
		return false;
	}
	fake_conn_free(c);
	return true;
}

/* ---- reply pipeline ---------------------------------------------------- */

void
fake_reply_begin(struct fake_conn *c, uint64_t delay_us)
{
	const struct fake_cfg *cfg = c->sh->cfg;
	uint64_t due = 0;
	bool direct = !c->closing && c->q_len == 0 && cfg->mode != FAKE_M_DRIP;
	if (delay_us > 0 || cfg->stall || c->q_len > 0) {
		uint64_t now = fake_now_us();
		due = now + delay_us;
		if (cfg->stall) {
			uint64_t s0 = atomic_load(&c->sh->first_conn_us) +
				      cfg->stall_after_us;
			uint64_t s1 = s0 + cfg->stall_us;
			if (now >= s0 && now < s1 && due < s1)
				due = s1;
		}
		/* Never overtake a reply queued earlier. */
		if (due < c->last_due)
			due = c->last_due;
		if (due > now)
			direct = false;
	}
	c->w_direct = direct;
	c->w_due = due;
	c->w = direct ? bufferevent_get_output(c->bev) : c->scratch;
	c->w_start = evbuffer_get_length(c->w);
}

static void
fake_conn_flags(struct fake_conn *c, unsigned flags)
{
	if (flags & FAKE_P_RESET)
		c->reset = true;
	if (flags & (FAKE_P_CLOSE | FAKE_P_RESET))
		c->closing = true;
}

static void
fake_conn_emit(struct fake_conn *c, struct evbuffer *src, size_t len,
	       unsigned flags)
{
	if (c->sh->cfg->mode == FAKE_M_DRIP) {
		evbuffer_remove_buffer(src, c->drip, len);
		if (evbuffer_get_length(c->drip) > 0 &&
		    !evtimer_pending(c->tick, NULL)) {
			struct timeval tv = { 0, FAKE_DRIP_US };
			evtimer_add(c->tick, &tv);
		}
	} else {
		struct evbuffer *out = bufferevent_get_output(c->bev);
		if (len == evbuffer_get_length(src))
			evbuffer_add_buffer(out, src);
		else
			evbuffer_remove_buffer(src, out, len);
	}
	fake_conn_flags(c, flags);
}

static void
fake_conn_arm(struct fake_conn *c, uint64_t now)
{
	uint64_t due = c->q[c->q_head].due_us;
	uint64_t wait = due > now ? due - now : 0;
	struct timeval tv = { (time_t)(wait / 1000000u),
			      (suseconds_t)(wait % 1000000u) };
	evtimer_add(c->timer, &tv);
}

static void
fake_conn_push(struct fake_conn *c, uint64_t due, size_t len, unsigned flags)
{
	if (c->q_head + c->q_len == c->q_cap) {
		if (c->q_head > 0) {
			memmove(c->q, c->q + c->q_head,
				c->q_len * sizeof(c->q[0]));
			c->q_head = 0;
		} else {
			c->q_cap = c->q_cap ? c->q_cap * 2 : 16;
			c->q = xrealloc(c->q, c->q_cap * sizeof(c->q[0]));
		}
	}
	c->q[c->q_head + c->q_len] =
		(struct fake_pending){ .due_us = due, .len = len, .flags = flags };
	c->q_len++;
	c->last_due = due;
}

void
fake_reply_end(struct fake_conn *c, unsigned flags)
{
	size_t len = evbuffer_get_length(c->w) - c->w_start;
	if (c->closing) {
		/* Already on the way out: later replies are never sent. */
		evbuffer_drain(c->scratch, evbuffer_get_length(c->scratch));
		return;
	}
	c->loop->stats.bytes_out += len;
	if (c->w_direct) {
		fake_conn_flags(c, flags);
		return;
	}
	if (c->q_len == 0 && (c->w_due == 0 || c->w_due <= fake_now_us())) {
		fake_conn_emit(c, c->scratch, len, flags);
		return;
	}
	fake_conn_push(c, c->w_due, len, flags);
	evbuffer_add_buffer(c->pending, c->scratch);
	if (c->q_len == 1)
		fake_conn_arm(c, fake_now_us());
}

void
fake_out(struct fake_conn *c, const void *s, size_t n)
{
	evbuffer_add(c->w, s, n);
}

void
fake_outs(struct fake_conn *c, const char *s)
{
	evbuffer_add(c->w, s, strlen(s));
}

void
fake_outf(struct fake_conn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	evbuffer_add_vprintf(c->w, fmt, ap);
	va_end(ap);
}

/* Large bodies go out by reference to the one shared copy. */
void
fake_out_ref(struct fake_conn *c, const void *s, size_t n)
{
	if (n >= FAKE_REF_MIN)
		evbuffer_add_reference(c->w, s, n, NULL, NULL);
	else
		evbuffer_add(c->w, s, n);
}

/* An untimed one-line reply ("+ OK", protocol errors): ordered behind
 * anything queued, but not delayed itself. */
void
fake_reply_now(struct fake_conn *c, const char *line, unsigned flags)
{
	fake_reply_begin(c, 0);
	fake_outs(c, line);
	fake_out(c, "\r\n", 2);
	fake_reply_end(c, flags);
}

void
fake_close(struct fake_conn *c, unsigned flags)
{
	fake_reply_begin(c, 0);
	fake_reply_end(c, flags | FAKE_P_CLOSE);
}

/* endless-line: keep at least one chunk queued behind the socket. */
void
fake_conn_pump(struct fake_conn *c)
{
	if (!c->endless || c->closing || c->q_len > 0)
		return;
	struct evbuffer *out = bufferevent_get_output(c->bev);
	while (evbuffer_get_length(out) < 2 * FAKE_ENDLESS_CHUNK) {
		evbuffer_add_reference(out, c->sh->endless, FAKE_ENDLESS_CHUNK,
				       NULL, NULL);
		c->loop->stats.bytes_out += FAKE_ENDLESS_CHUNK;
	}
}

static void
fake_conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fake_conn *c = arg;
	uint64_t now = fake_now_us();
	while (c->q_len > 0 && !c->closing) {
		struct fake_pending p = c->q[c->q_head];
		if (p.due_us > now)
			break;
		c->q_head++;
		if (--c->q_len == 0)
			c->q_head = 0;
		fake_conn_emit(c, c->pending, p.len, p.flags);
	}
	if (c->closing) {
		evbuffer_drain(c->pending, evbuffer_get_length(c->pending));
		c->q_len = 0;
		c->q_head = 0;
	} else if (c->q_len > 0) {
		fake_conn_arm(c, now);
	}
	fake_conn_pump(c);
	fake_conn_settle(c);
}

static void
fake_conn_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fake_conn *c = arg;
	if (c->reset && c->closing) {
		c->reset_grace_done = true;
		fake_conn_settle(c);
		return;
	}
	/* drip: one byte per tick, everything else waits its turn. */
	if (evbuffer_get_length(c->drip) > 0)
		evbuffer_remove_buffer(c->drip, bufferevent_get_output(c->bev), 1);
	if (evbuffer_get_length(c->drip) > 0) {
		struct timeval tv = { 0, FAKE_DRIP_US };
		evtimer_add(c->tick, &tv);
	}
	fake_conn_settle(c);
}

bool
fake_conn_backlogged(struct fake_conn *c)
{
	return c->stream != NULL ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) +
		evbuffer_get_length(c->pending) +
		evbuffer_get_length(c->drip) > FAKE_OUT_MAX;
}

void
fake_conn_resume_input(struct fake_conn *c)
{
	if (c->paused && !fake_conn_backlogged(c)) {
		c->paused = false;
		bufferevent_enable(c->bev, EV_READ);
		fake_conn_parse(c, bufferevent_get_input(c->bev));
	}
}

static void
fake_conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct fake_conn *c = arg;
	(void)bev;
	fake_conn_resume_input(c);
	fake_conn_pump(c);
	fake_conn_settle(c);
}

static void
fake_conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct fake_conn *c = arg;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		c->dead = true;
	fake_conn_settle(c);
}

static void
fake_conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct fake_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	if (!fake_fault_input(c, in))
		fake_conn_parse(c, in);
	fake_conn_settle(c);
}
