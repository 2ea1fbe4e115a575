/* fake_stream.c: a reply too large to make at once (a script's "repeat
 * 1000000 ...") made a piece at a time as the connection's output drains,
 * as a real server streams.  Made whole, 50 such replies kept the one
 * event loop busy for seconds, sending nothing to anyone, and held tens
 * of MB per connection.  While a stream runs the connection reads no
 * further commands (fake_conn_backlogged): their replies come after it. */
#include <stdlib.h>

#include "fake.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct fake_stream {
	struct fake_conn *c;
	struct event *resume;
	struct evbuffer *bottom;	/* the socket's output, watched */
	struct evbuffer_cb_entry *watch;
	bool (*more)(struct fake_conn *, void *);
	void *state;
};

/* Bytes made for c and not yet on the socket: what waits in its output
 * (and, under COMPRESS, below the filter), in the delay queue, or in the
 * drip buffer. */
size_t
fake_stream_queued(struct fake_conn *c)
{
	struct bufferevent *under = bufferevent_get_underlying(c->bev);
	return evbuffer_get_length(bufferevent_get_output(c->bev)) +
	    (under != NULL ? evbuffer_get_length(bufferevent_get_output(under))
			   : 0) +
	    evbuffer_get_length(c->pending) + evbuffer_get_length(c->drip);
}

/* Every octet made for c leaves through the bottom buffer, so a drain
 * there is the only moment the queue can fall to the low mark. */
static void
fake_stream_watch_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
		     void *arg)
{
	struct fake_stream *s = arg;
	(void)buf;
	if (info->n_deleted > 0 && fake_stream_queued(s->c) <= FAKE_STREAM_LOW)
		event_active(s->resume, 0, 0);
}

void
fake_stream_free(struct fake_conn *c)
{
	struct fake_stream *s = c->stream;
	if (s == NULL)
		return;
	c->stream = NULL;
	evbuffer_remove_cb_entry(s->bottom, s->watch);
	event_free(s->resume);
	free(s->state);
	free(s);
}

/* Pieces until the reply is over or the queue is above the low mark
 * again; returns true when the reply is over. */
static bool
fake_stream_pump(struct fake_conn *c)
{
	struct fake_stream *s = c->stream;
	while (!c->closing && !c->dead &&
	       fake_stream_queued(c) <= FAKE_STREAM_LOW)
		if (s->more(c, s->state))
			return true;
	return c->closing || c->dead;
}

static void
fake_stream_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fake_conn *c = arg;
	(void)fd;
	(void)what;
	if (c->stream != NULL && fake_stream_pump(c)) {
		fake_stream_free(c);
		/* Commands that arrived meanwhile are answered now. */
		fake_conn_resume_input(c);
	}
	fake_conn_settle(c);
}

void
fake_stream_start(struct fake_conn *c, bool (*more)(struct fake_conn *, void *),
		  void *state)
{
	struct fake_stream *s = xcalloc(1, sizeof(*s));
	struct bufferevent *under = bufferevent_get_underlying(c->bev);
	s->c = c;
	s->more = more;
	s->state = state;
	s->bottom = bufferevent_get_output(under != NULL ? under : c->bev);
	s->resume = event_new(c->loop->base, -1, 0, fake_stream_resume_cb, c);
	s->watch = evbuffer_add_cb(s->bottom, fake_stream_watch_cb, s);
	if (s->resume == NULL || s->watch == NULL) {
		log_error("fakeimapd: out of memory for a streamed reply");
		abort();
	}
	c->stream = s;
	/* Already drained (a piece under COMPRESS can deflate to little):
	 * nothing will drain to wake us, so go on from the loop. */
	if (fake_stream_queued(c) <= FAKE_STREAM_LOW)
		event_active(s->resume, 0, 0);
}
