/* bevio.c: see bevio.h. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/bevio.h"

struct bufferevent *
bevio_connect(struct event_base *base, const struct sockaddr_storage *addr,
	      socklen_t addrlen)
{
	struct bufferevent *bev = bufferevent_socket_new(base, -1,
							 BEV_OPT_CLOSE_ON_FREE);

	if (bev != NULL &&
	    bufferevent_socket_connect(bev, (const struct sockaddr *)addr,
				       (int)addrlen) != 0) {
		bufferevent_free(bev);
		bev = NULL;
	}
	return bev;
}

struct bufferevent *
bevio_open(struct bufferevent *(*open)(void *, struct event_base *),
	   void *open_arg, struct event_base *base,
	   const struct sockaddr_storage *addr, socklen_t addrlen,
	   bool *connected)
{
	*connected = open != NULL;
	return open != NULL ? open(open_arg, base) :
	    bevio_connect(base, addr, addrlen);
}

void
bevio_set_timeout(struct bufferevent *bev, double t, bool on)
{
	struct timeval tv = { (time_t)t, (suseconds_t)((t - (double)(time_t)t) * 1e6) };

	if (on)
		bufferevent_set_timeouts(bev, &tv, &tv);
	else
		bufferevent_set_timeouts(bev, NULL, NULL);
}

bool
bevio_direct(struct bufferevent *bev)
{
	return bufferevent_getfd(bev) >= 0 && bufferevent_get_underlying(bev) == NULL;
}

bool
bevio_write_now(struct bufferevent *bev)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	bool on = (bufferevent_get_enabled(bev) & EV_WRITE) != 0;

	if (evbuffer_get_length(out) > 0) {
		/* A socket bufferevent keeps its output's start frozen but
		 * while its own write callback writes: do as that does. */
		evbuffer_unfreeze(out, 1);
		evbuffer_write(out, bufferevent_getfd(bev));
		evbuffer_freeze(out, 1);
	}
	if (evbuffer_get_length(out) > 0) {
		/* EAGAIN or an error: the write event does the rest or
		 * reports it. */
		if (!on)
			bufferevent_enable(bev, EV_WRITE);
		return false;
	}
	if (on)	/* not pending with an empty output: no system call */
		bufferevent_disable(bev, EV_WRITE);
	return true;
}
