/* conn_io.c: the socket's events: the read, write and event callbacks
 * (parsing, EOF, errors, the connect's completion) and the layers that
 * can be put over the socket mid-session (STARTTLS, COMPRESS=DEFLATE).
 * Each callback is an event of the connection: what the layers below it
 * found (a quit reason) is carried out when they have returned, by
 * conn_settle (conn_int.h).  Counting octets is conn_wire.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "util/clock.h"
#include "net/compress.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "imap/imap_resp.h"
#include "net/rawlog.h"
#include "net/tls.h"
#include "conn/shared.h"
#include "util/xmalloc.h"

/* Out of local ports for this source address: bind() to an address with
 * port 0 says EADDRINUSE, connect() on an unbound socket EADDRNOTAVAIL.
 * Counted apart so the report can say so plainly. */
void
conn_count_port_error(struct conn *c, int e)
{
	if (e == EADDRNOTAVAIL || (e == EADDRINUSE && c->env->cfg->n_sources > 0))
		ctr_add(&c->env->stats->ports_exhausted, 1);
}

/* The TCP connection is up (BEV_EVENT_CONNECTED, or a plain socket's first
 * read): now the greeting is awaited. */
static void
conn_connected(struct conn *c, uint64_t now)
{
	c->st = CONN_S_GREETING;
	conn_hold_update(c);
	c->t_last_io = c->life.t_connected = now;
}

/* A plain socket still connecting turned readable; e is recv()'s errno (0
 * when it returned data or EOF).  True when the caller must stop: nothing
 * to read yet, or the connect failed (counted, the quit reason set). */
static bool
conn_connect_result(struct conn *c, int e)
{
	if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)
		return true;
	if (e != 0) {
		conn_count_port_error(c, e);
		conn_fail(c, ERR_CONNECT, "connect(%s) failed: %s",
			  c->env->cfg->host, strerror(e));
		return true;
	}
	conn_connected(c, clock_us());
	return false;
}

bool
conn_connect_poll(struct conn *c, uint64_t now)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);

	/* Only a socket that has not been readable yet gets here, once a
	 * tick: TCP is up when it has a peer (ENOTCONN while connecting, and
	 * after a failure, which the read reports). */
	if (!c->own_reads || c->bev == NULL ||
	    getpeername(bufferevent_getfd(c->bev), (struct sockaddr *)&peer, &len) < 0)
		return false;
	conn_connected(c, now);
	return true;
}

/* Hand the socket's reading back to the bufferevent, for a layer (TLS,
 * COMPRESS) that filters it. */
static void
conn_sock_reads_off(struct conn *c)
{
	if (!c->own_reads)
		return;
	event_del(c->wire.rd_ev);
	c->own_reads = false;
	/* The layer writes through this bufferevent too: its write event
	 * must be on again (conn_write_now turns it off). */
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* STARTTLS said OK: put a TLS filter over the plain bufferevent.  Called
 * after the parser returned, never from inside a parser callback. */
static void
conn_starttls_upgrade(struct conn *c)
{
	struct bufferevent *tls;

	c->setup.tls = CONN_TLS_HANDSHAKE;
	conn_sync_wire(c);
	conn_sock_reads_off(c);
	bufferevent_setcb(c->bev, NULL, NULL, NULL, NULL);
	tls = tls_bev_upgrade(c->env->sh->tls, c->env->base, c->bev, c->wire.tls_sess);
	if (tls == NULL) {
		conn_fail(c, ERR_TLS, "STARTTLS: cannot set up TLS");
		return;
	}
	c->bev = tls;
	conn_hold_update(c);
	c->tls_layer = true;
	c->wire.wire_in = c->wire.wire_out = 0;
	c->wire.t_tls_start = clock_us();
	/* Capabilities must be asked again after STARTTLS (RFC 9051). */
	c->setup.caps = 0;
	c->setup.capa = CONN_STEP_NONE;
	bufferevent_setcb(tls, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_setwatermark(tls, EV_WRITE, CONN_OUT_LOW, 0);
	bufferevent_enable(tls, EV_READ | EV_WRITE);
}

/* COMPRESS DEFLATE said OK: a zlib filter goes over whatever carries the
 * connection (socket or TLS).  Called after the parser returned. */
static void
conn_compress_upgrade(struct conn *c)
{
	char err[160];
	struct bufferevent *z;

	c->z = CONN_Z_NONE;
	conn_hold_update(c);
	conn_sync_wire(c);
	conn_sock_reads_off(c);
	bufferevent_setcb(c->bev, NULL, NULL, NULL, NULL);
	if (!c->tls_layer) {
		/* From here the filter counts the wire octets. */
		c->wire.wire_in = c->wire.wire_out = 0;
	}
	if (c->wire.zc == NULL)
		c->wire.zc = xcalloc(1, sizeof(*c->wire.zc));
	z = compress_bev_new(c->bev, -1, c->wire.zc, err, sizeof(err));
	if (z == NULL) {
		conn_fail(c, ERR_PROTOCOL, "COMPRESS: %s", err);
		return;
	}
	c->bev = z;
	c->z = CONN_Z_ON;
	conn_hold_update(c);
	rawlog_note(c->wire.rawlog, "COMPRESS=DEFLATE active");
	bufferevent_setcb(z, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_setwatermark(z, EV_WRITE, CONN_OUT_LOW, 0);
	/* See CONN_INFLATE_AHEAD: without it, one read of a long compressed
	 * line inflated all of it (908 MB at 10 clients). */
	bufferevent_setwatermark(z, EV_READ, 0, CONN_INFLATE_AHEAD);
	bufferevent_enable(z, EV_READ | EV_WRITE);
	/* The driver hears of its COMPRESS first (what it decides on the
	 * OK, as on any other), then the connection is free. */
	if (c->wire.z_done != NULL) {
		conn_done_fn done = c->wire.z_done;
		c->wire.z_done = NULL;
		done(c->wire.z_done_arg, c, CONN_REPLY_OK, "", 0);
	}
	conn_step(c);
}

/* The output drained below CONN_OUT_LOW: room for more commands. */
void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	if (c->bev == bev) {
		conn_step(c);
		conn_settle(c);
	}
}

/* Parse len received octets.  Returns how many the parser took (less than
 * len only when a response asked it to stop: an upgrade is due), or -1
 * when the connection is to be closed (the quit reason is set). */
static long
conn_feed(struct conn *c, const char *data, size_t len)
{
	rawlog_data(c->wire.rawlog, 'S', data, len);
	long n = imap_parser_feed(c->wire.parser, data, len);
	/* Counted as consumed, so nothing kept for later is counted twice. */
	if (n > 0)
		conn_count_received(c, (uint64_t)n);
	if (n < 0 && c->st == CONN_S_GREETING) {
		/* Another protocol on this port (LMTP's "220 ...", say): say
		 * so, with its first line, rather than how it fails to parse. */
		char ex[208];
		const char *eol = memchr(data, '\n', len);
		size_t l = eol != NULL ? (size_t)(eol - data) : len;
		if (l > 0 && data[l - 1] == '\r')
			l--;
		conn_fail(c, ERR_PROTOCOL, "not an IMAP greeting: \"%s\"",
			  imap_resp_excerpt(ex, sizeof(ex), data, l));
		return -1;
	}
	if (n < 0) {
		conn_fail(c, ERR_PROTOCOL, "%s", imap_parser_error(c->wire.parser));
		return -1;
	}
	return c->life.quit == CONN_QUIT_NOW ? -1 : n;
}

/* After parsing: put a layer over the socket if a response asked for one.
 * True when it did (the caller stops: the new bufferevent reads next). */
static bool
conn_upgrade_due(struct conn *c)
{
	if (c->setup.tls == CONN_TLS_UPGRADE) {
		conn_starttls_upgrade(c);
		return true;
	}
	if (c->z == CONN_Z_UPGRADE) {
		conn_compress_upgrade(c);
		return true;
	}
	return false;
}

static void
conn_read(struct conn *c, struct bufferevent *bev)
{
	struct evbuffer *in = bufferevent_get_input(bev);

	/* A bufferevent this connection already closed: under COMPRESS with
	 * a read watermark, the filter's resume trigger may still run the old
	 * one's callback (with the unparsed rest of its last read, the reply
	 * that closed it), which would feed the new session's parser. */
	if (bev != c->bev)
		return;
	c->t_last_io = clock_us();
	while (evbuffer_get_length(in) > 0) {
		struct evbuffer_iovec v;
		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
			break;
		long n = conn_feed(c, v.iov_base, v.iov_len);
		if (n < 0)
			return;
		evbuffer_drain(in, (size_t)n);
		if (conn_upgrade_due(c))
			return;
	}
	conn_step(c);
}

void
conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	conn_read(c, bev);
	conn_settle(c);
}

static void conn_event(struct conn *c, struct bufferevent *bev, short what);

/* Our own reads of a plain socket (see CONN_MAX_READ): one recv() into the
 * worker's buffer, parsed in place; only what the parser could not take
 * (an upgrade stopped it) is copied into the bufferevent's input, where
 * the new layer finds it. */
static void
conn_sock_read(struct conn *c, evutil_socket_t fd)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	ssize_t got = recv(fd, c->env->rbuf, CONN_MAX_READ, 0);

	if (c->st == CONN_S_CONNECTING &&
	    conn_connect_result(c, got < 0 ? errno : 0))
		return;
	if (got < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		conn_event(c, c->bev, BEV_EVENT_READING | BEV_EVENT_ERROR);
		return;
	}
	if (got == 0) {
		conn_event(c, c->bev, BEV_EVENT_READING | BEV_EVENT_EOF);
		return;
	}
	if (evbuffer_get_length(in) > 0) {
		/* never the case today (we only leave bytes behind for an
		 * upgrade, which turns our reads off); keep the order anyway */
		evbuffer_add(in, c->env->rbuf, (size_t)got);
		conn_read(c, c->bev);
		return;
	}
	c->t_last_io = clock_us();
	long n = conn_feed(c, c->env->rbuf, (size_t)got);
	if (n < 0)
		return;
	if (n < got)
		evbuffer_add(in, c->env->rbuf + n, (size_t)(got - n));
	if (conn_upgrade_due(c))
		return;
	conn_step(c);
	if (c->life.quit != CONN_QUIT_NOW)
		conn_write_now(c);
}

void
conn_sock_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)what;
	conn_sock_read(c, fd);
	conn_settle(c);
}

static void
conn_event(struct conn *c, struct bufferevent *bev, short what)
{
	char why[256];

	if (bev != c->bev)
		return;	/* one closed already (see conn_read_cb) */
	if (what & BEV_EVENT_CONNECTED) {
		uint64_t now = clock_us();
		if (c->st == CONN_S_SESSION) {
			/* The STARTTLS handshake finished. */
			hist_record(c->env->stats->tls_lat, now - c->wire.t_tls_start);
			ctr_add(&c->env->stats->tls_handshakes, 1);
			if (tls_bev_resumed(bev))
				ctr_add(&c->env->stats->tls_resumed, 1);
			c->setup.tls = CONN_TLS_DONE;
			rawlog_note(c->wire.rawlog, "TLS established");
			conn_step(c);
			return;
		}
		/* (A plain socket's connect is ours: conn_connect_plain.) */
		conn_connected(c, now);
		if (c->env->cfg->tls == TLS_IMPLICIT) {
			hist_record(c->env->stats->tls_lat, now - c->life.t_connect);
			ctr_add(&c->env->stats->tls_handshakes, 1);
			if (tls_bev_resumed(bev))
				ctr_add(&c->env->stats->tls_resumed, 1);
			c->setup.tls = CONN_TLS_DONE;
			rawlog_note(c->wire.rawlog, "TLS established");
		}
		return;
	}
	bool verify;
	if (c->z == CONN_Z_ON && compress_error(c->wire.zc) != NULL) {
		conn_fail(c, ERR_PROTOCOL, "COMPRESS: %s", compress_error(c->wire.zc));
		return;
	}
	if (tls_bev_error(c->z == CONN_Z_ON ? bufferevent_get_underlying(bev) : bev,
			  why, sizeof(why), &verify)) {
		if (verify) {
			/* Not transient: main stops the run if nobody ever
			 * got in, instead of retrying for ever. */
			atomic_store(&c->env->sh->live->tls_verify_failed, true);
		}
		conn_fail(c, ERR_TLS, "TLS: %s", why);
		return;
	}
	if (c->st == CONN_S_CONNECTING) {
		conn_count_port_error(c, EVUTIL_SOCKET_ERROR());
		conn_fail(c, ERR_CONNECT, "connect(%s) failed: %s",
			  c->env->cfg->host,
			  evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return;
	}
	if (c->z == CONN_Z_ON) {
		/* Same for the compress filter: inflate what the layer
		 * below already holds before taking its EOF. */
		bufferevent_flush(bev, EV_READ, BEV_FLUSH);
	}
	if (evbuffer_get_length(bufferevent_get_input(bev)) > 0) {
		/* A TLS filter can report EOF before it has handed us the
		 * last records it decrypted (the BYE and OK of a LOGOUT):
		 * parse what is there before judging how the session ended. */
		conn_read(c, bev);
		if (c->bev != bev || c->life.quit == CONN_QUIT_NOW)
			return;
	}
	if (c->life.logout == CONN_LOGOUT_BYE) {
		conn_quit(c, CONN_END_LOGOUT, ERR_DISCONNECT);
		return;
	}
	if (what & BEV_EVENT_EOF)
		conn_fail(c, ERR_DISCONNECT, "server closed the connection%s",
			  c->n_fl > 0 ? " with commands in flight" : "");
	else
		conn_fail(c, ERR_DISCONNECT, "connection error: %s",
			  evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

void
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	conn_event(c, bev, what);
	conn_settle(c);
}
