/* conn_wire.c: octets on a connection's wire: counting them (at the IMAP
 * level and on the socket, where TLS and COMPRESS make them differ) and
 * writing what the commands queued without a loop turn. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/compress.h"
#include "conn/conn_int.h"
#include "net/tls.h"
#include "conn/shared.h"

void
conn_sync_wire(struct conn *c)
{
	uint64_t in, out;

	if (c->bev == NULL)
		return;
	if (c->z == CONN_Z_ON && !c->tls_layer) {
		in = c->wire.zc->wire_in;
		out = c->wire.zc->wire_out;
	} else if (!c->tls_layer || !tls_bev_wire_bytes(c->z == CONN_Z_ON ?
			bufferevent_get_underlying(c->bev) : c->bev, &in, &out)) {
		return;
	}
	ctr_add(&c->env->stats->bytes_received, in - c->wire.wire_in);
	ctr_add(&c->env->stats->bytes_sent, out - c->wire.wire_out);
	c->wire.wire_in = in;
	c->wire.wire_out = out;
}

void
conn_count_received(struct conn *c, uint64_t n)
{
	ctr_add(&c->env->stats->imap_received, n);
	if (!c->tls_layer && c->z != CONN_Z_ON)
		ctr_add(&c->env->stats->bytes_received, n);
}

void
conn_count_sent(struct conn *c, uint64_t n)
{
	ctr_add(&c->env->stats->imap_sent, n);
	if (!c->tls_layer && c->z != CONN_Z_ON)
		ctr_add(&c->env->stats->bytes_sent, n);
}

void
conn_out_queued(struct conn *c)
{
	if (!(bufferevent_get_enabled(c->bev) & EV_WRITE))
		bufferevent_enable(c->bev, EV_WRITE);
}

/* Write what the commands just queued right here, instead of through the
 * bufferevent's write event: that event costs an epoll_ctl() to arm, a
 * loop turn to fire and another epoll_ctl() to disarm, per batch.  Only
 * plain sockets (own_reads) after connect; whatever the kernel does not
 * take is left to the bufferevent as before. */
void
conn_write_now(struct conn *c)
{
	if (!c->own_reads || c->bev == NULL || c->st == CONN_S_CONNECTING)
		return;
	struct evbuffer *out = bufferevent_get_output(c->bev);
	if (evbuffer_get_length(out) == 0)
		return;
	if (evbuffer_write_atmost(out, bufferevent_getfd(c->bev),
				  CONN_MAX_WRITE) < 0)
		return;	/* EAGAIN or an error: the write event handles it */
	if (evbuffer_get_length(out) == 0) {
		/* Its write event was armed when we queued (conn_out_queued),
		 * in this loop turn, so libevent's changelist cancels it
		 * without a system call; the next queue turns it on again. */
		bufferevent_disable(c->bev, EV_WRITE);
	}
}
