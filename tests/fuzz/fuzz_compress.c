/* fuzz_compress.c: libFuzzer harness for the COMPRESS=DEFLATE filter
 * (src/compress.c) over a bufferevent pair, one event_base per input.
 *
 * The first octet picks the game:
 *  even  the rest is what a server sends: raw DEFLATE (or garbage), written
 *        below the filter in pieces whose sizes come from the input too,
 *        read with a 4 KiB read watermark.  Checks: at most one error
 *        event; what comes out never outruns the bomb bound (256 inflated
 *        octets per compressed octet, plus the 1 MiB window); the reader
 *        never finds more than the watermark plus what zlib owed (about a
 *        kilobyte); counts agree with what the reader got.
 *  odd   the rest is plain text sent through a compressing filter to a
 *        decompressing one: it must arrive whole and unchanged (unless the
 *        bomb bound refused it, which only runs of one octet can reach). */
#define ZLIB_CONST
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "net/compress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_HIGH 4096

struct fz_end {
	struct evbuffer *got;
	int events;
	size_t max_input;
};

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_compress: invariant failed: %s\n", what);
		abort();
	}
}

static void
fz_read(struct bufferevent *bev, void *arg)
{
	struct fz_end *e = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (evbuffer_get_length(in) > e->max_input)
		e->max_input = evbuffer_get_length(in);
	evbuffer_add_buffer(e->got, in);
}

static void
fz_event(struct bufferevent *bev, short what, void *arg)
{
	((struct fz_end *)arg)->events++;
}

static void
fz_settle(struct event_base *base)
{
	for (int i = 0; i < 64; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool trip = data[0] & 1;
	data++;
	size--;

	struct event_base *base = event_base_new();
	struct bufferevent *pair[2];
	struct compress_counts cc = { 0 }, sc = { 0 };
	struct fz_end cli = { evbuffer_new(), 0, 0 };
	char err[128];

	fz_require(bufferevent_pair_new(base, 0, pair) == 0, "pair");
	struct bufferevent *z = compress_bev_new(pair[0], 1, &cc, err,
						 sizeof(err));
	fz_require(z != NULL, "filter");
	struct bufferevent *srv = pair[1];
	if (trip) {
		srv = compress_bev_new(pair[1], 6, &sc, err, sizeof(err));
		fz_require(srv != NULL, "server filter");
	}
	bufferevent_setcb(z, fz_read, NULL, fz_event, &cli);
	bufferevent_setwatermark(z, EV_READ, 0, FZ_HIGH);
	bufferevent_enable(z, EV_READ | EV_WRITE);
	bufferevent_enable(srv, EV_READ | EV_WRITE);

	/* pieces of 1..256 octets, sizes from the data itself */
	size_t off = 0, k = 0;
	while (off < size) {
		size_t n = 1 + data[k++ % size] % 256;
		if (n > size - off)
			n = size - off;
		bufferevent_write(srv, data + off, n);
		off += n;
		fz_settle(base);
	}
	fz_settle(base);

	/* Octets inflated before a fault sit in the input, unread: the
	 * read callback does not run after the error. */
	size_t got = evbuffer_get_length(cli.got);
	size_t left = evbuffer_get_length(bufferevent_get_input(z));
	fz_require(cli.events <= 1, "one error event at most");
	fz_require(left == 0 || compress_error(&cc) != NULL,
		   "unread only at a fault");
	fz_require(got + left == cc.plain_in, "plain_in is what came out");
	fz_require(cc.plain_in <= 256 * cc.wire_in + 1024 * 1024 + 1024,
		   "the bomb bound holds");
	fz_require(cli.max_input <= FZ_HIGH + 4 * 1024,
		   "inflated at most a watermark ahead");
	if (trip && compress_error(&cc) == NULL) {
		fz_require(got == size, "round trip: all of it");
		fz_require(size == 0 || memcmp(evbuffer_pullup(cli.got, -1),
					       data, size) == 0,
			   "round trip: unchanged");
	}
	bufferevent_free(z);
	bufferevent_free(srv);
	evbuffer_free(cli.got);
	event_base_free(base);
	return 0;
}
