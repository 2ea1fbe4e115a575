/* conn_connect.c: a connection's start: its socket, the connect (or a
 * bufferevent handed over, conn_attach) and the session state reset for
 * it (conn_life.c); when TCP is up the greeting is awaited (conn_io.c
 * hears it). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "net/rawlog.h"
#include "conn/shared.h"
#include "stats/stats.h"
#include "net/tls.h"

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
		    &c->env->sh->sources[c->life.slot % c->env->sh->n_sources];
#ifdef IP_BIND_ADDRESS_NO_PORT
		/* The port is chosen at connect(), for the whole 4-tuple: a
		 * bind() to port 0 searched the address's bound ports for a
		 * free one itself, and with 10,000 connections that search
		 * was 57% of the client's CPU during a ramp (perf:
		 * inet_bhash2_conflict, inet_bind2_bucket_find,
		 * inet_csk_bind_conflict), all of it system time. */
		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one,
			   sizeof(one));
#endif
		if (bind(fd, (const struct sockaddr *)src,
			 c->env->sh->source_lens[c->life.slot % c->env->sh->n_sources]) < 0) {
			int e = errno;
			evutil_closesocket(fd);
			errno = e;
			return -1;
		}
	}
	return fd;
}

/* A new session: counted as a connect from here. */
static void
conn_begin(struct conn *c)
{
	conn_reset_session(c);
	c->st = CONN_S_CONNECTING;
	conn_hold_update(c);
	ctr_add(&c->env->stats->connects, 1);
	rawlog_note(c->wire.rawlog, "connection %llu: connecting as %s",
		    (unsigned long long)c->life.serial, c->login.user);
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
	c->bev = bev;
	conn_hold_update(c);
	conn_bev_setup(c);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	conn_event_cb(bev, BEV_EVENT_CONNECTED, c);
}

/* The connect of a plain socket, without waiting for it to be writable:
 * rd_ev waits for the greeting from the start, and the first read says
 * whether TCP came up (conn_connect_result).  That saves, per session,
 * the loop turn that only reported the connect, its getsockopt() and the
 * epoll_ctl() from write to read interest.  A refused or failed connect
 * makes the socket readable with an error (epoll always reports it). */
static void
conn_connect_plain(struct conn *c, evutil_socket_t fd, const struct sockaddr *sa,
		   socklen_t len)
{
	if (connect(fd, sa, len) == 0 || errno == EINPROGRESS) {
		/* A new socket bufferevent guards its buffers (input's end,
		 * output's start) until bufferevent_socket_connect() or its
		 * reads and writes lift that; conn_write_now() writes the
		 * output and the reads keep leftovers in the input directly,
		 * so they are opened here as that connect would leave them. */
		evbuffer_unfreeze(bufferevent_get_input(c->bev), 0);
		evbuffer_unfreeze(bufferevent_get_output(c->bev), 1);
		event_add(c->wire.rd_ev, NULL);
		return;
	}
	conn_count_port_error(c, errno);
	if (errno == ECONNREFUSED)	/* as the readable-with-error path says it */
		conn_fail(c, ERR_CONNECT, "connect(%s) failed: %s",
			  c->env->cfg->host, strerror(errno));
	else
		conn_fail(c, ERR_CONNECT, "connect: %s", strerror(errno));
}

static void
conn_connect(struct conn *c)
{
	const struct shared *sh = c->env->sh;
	unsigned ai = (unsigned)((c->life.slot + c->life.serial) % sh->n_addrs);
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
	c->bev = tls_bev_new(sh->tls, c->env->base, fd, c->tls_layer, c->wire.tls_sess);
	conn_hold_update(c);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		conn_fail(c, ERR_TLS, "cannot set up TLS");
		return;
	}
	conn_bev_setup(c);
	/* A plain socket is read by rd_ev; TLS reads whole records through
	 * OpenSSL. */
	c->own_reads = !c->tls_layer &&
	    event_assign(c->wire.rd_ev, c->env->base, fd, EV_READ | EV_PERSIST,
			 conn_sock_read_cb, c) == 0;
	if (c->own_reads) {
		conn_connect_plain(c, fd, sa, (socklen_t)sh->addr_lens[ai]);
		return;
	}
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, sa, (int)sh->addr_lens[ai]) < 0) {
		conn_count_port_error(c, errno);
		conn_fail(c, ERR_CONNECT, "connect: %s", strerror(errno));
	}
}

void
conn_start(struct conn *c)
{
	conn_connect(c);
	conn_settle(c);
}
