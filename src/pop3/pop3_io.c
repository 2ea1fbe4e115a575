/* pop3_io.c: a POP3 session's socket side (pop3_int.h): its bytes to the
 * parser, its events (connected, closed, timed out, TLS errors), and the
 * TLS layer, from the first byte (POP3S) or after STLS's +OK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/bevio.h"
#include "net/tls.h"
#include "pop3/pop3_int.h"

/* After STLS's +OK (nothing else in flight: STLS is sent alone) and its
 * line drained (a TLS filter reads what its underlying input holds at
 * once), the TLS layer goes on, the parser starts afresh, and CAPA is
 * asked again. */
static int
tls_start(struct p3sess *s)
{
	struct bufferevent *tls = p3_tls_layer(s, s->bev);

	if (tls == NULL)
		return -1;
	pop3_parser_reset(&s->ps);
	s->pipelining = s->stls_offered = false;
	p3_send(s, P3_CAPA, 0);
	return 0;
}

void
p3_read_cb(struct bufferevent *bev, void *arg)
{
	struct p3sess *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_iovec v[8];

	while (!s->dead && evbuffer_get_length(in) > 0) {
		int n = evbuffer_peek(in, -1, NULL, v, 8);
		size_t took = 0;
		enum pop3_perr e = POP3_PE_NONE;
		for (int i = 0; i < n && i < 8 && e == POP3_PE_NONE && !s->dead; i++) {
			size_t used;
			e = pop3_parser_feed(&s->ps, v[i].iov_base, v[i].iov_len,
					     p3_on_event, s, &used);
			took += used;
		}
		if (s->dead)
			return;		/* (the event freed nothing yet) */
		if (s->tls_due) {
			s->tls_due = false;
			evbuffer_drain(in, took);
			if (tls_start(s) == 0)
				p3_flush(s);
			return;		/* the TLS layer reads from now */
		}
		if (e != POP3_PE_NONE) {
			p3_fail(s, P3F_PROTOCOL, pop3_perr_text(e));
			return;
		}
		evbuffer_drain(in, took);
	}
	p3_flush(s);
}

void
p3_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct p3sess *s = arg;

	if (what & BEV_EVENT_CONNECTED) {
		s->connected = true;
		p3_flush(s);
		return;
	}
	char why[POP3_TEXT];
	bool verify;
	/* A TLS layer may report the close with the last reply (QUIT's
	 * +OK) still unread: read it first. */
	if (!(what & BEV_EVENT_TIMEOUT) &&
	    evbuffer_get_length(bufferevent_get_input(bev)) > 0) {
		p3_read_cb(bev, s);
		if (s->dead)
			return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		p3_fail(s, P3F_TIMEOUT, "no response in time");
	else if (s->tls_on && tls_bev_error(bev, why, sizeof(why), &verify))
		p3_fail(s, P3F_TLS, why);
	else if (!s->connected)
		p3_fail(s, P3F_CONNECT, "connect failed");
	else
		p3_fail(s, P3F_DISCONNECT, "the server closed the session");
}

/* A TLS filter over bev (its owner from now on) as the session's
 * bufferevent; NULL (the session failed) when it cannot be made. */
struct bufferevent *
p3_tls_layer(struct p3sess *s, struct bufferevent *bev)
{
	struct pop3_client *c = s->c;
	struct bufferevent *tls = NULL;

	bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
	if (c->env.tls != NULL)
		tls = tls_bev_upgrade(c->env.tls, c->env.base, bev, NULL);
	if (tls == NULL) {
		s->bev = bev;
		p3_fail(s, P3F_TLS, "cannot set up TLS");
		return NULL;
	}
	s->bev = tls;
	s->tls_on = true;
	s->direct = false;	/* its bytes go through the TLS layer */
	bufferevent_setcb(tls, p3_read_cb, NULL, p3_event_cb, s);
	bevio_set_timeout(tls, c->env.timeout_s, true);
	bufferevent_enable(tls, EV_READ | EV_WRITE);
	return tls;
}
