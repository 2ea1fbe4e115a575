/* compress_link.c: see compress_link.h. */
#define ZLIB_CONST
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>

#include <check.h>

#include "compress_link.h"
#include "util/rng.h"
#include "util/xmalloc.h"

static void
end_read(struct bufferevent *bev, void *arg)
{
	struct end *e = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	if (evbuffer_get_length(in) > e->max_input)
		e->max_input = evbuffer_get_length(in);
	evbuffer_add_buffer(e->got, in);
}

static void
end_event(struct bufferevent *bev, short what, void *arg)
{
	struct end *e = arg;
	e->events |= what;
	e->n_events++;
}

void
end_start(struct end *e, struct bufferevent *bev)
{
	ck_assert_ptr_nonnull(bev);
	e->bev = bev;
	e->got = evbuffer_new();
	bufferevent_setcb(bev, end_read, NULL, end_event, e);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

void
end_stop(struct end *e)
{
	if (e->bev != NULL)
		bufferevent_free(e->bev);
	evbuffer_free(e->got);
}

struct bufferevent *
filter_over(struct bufferevent *under, struct compress_counts *counts)
{
	char err[128] = "";
	struct bufferevent *bev = compress_bev_new(under, 1, counts, err,
						   sizeof(err));
	ck_assert_msg(bev != NULL, "compress_bev_new: %s", err);
	return bev;
}

/* Both ends filtered (cli_z, srv_z) or raw. */
void
link_open(struct link *l, int cli_z, int srv_z)
{
	struct bufferevent *pair[2];
	memset(l, 0, sizeof(*l));
	l->base = event_base_new();
	ck_assert_int_eq(bufferevent_pair_new(l->base, 0, pair), 0);
	end_start(&l->cli, cli_z ? filter_over(pair[0], &l->cli.counts)
				 : pair[0]);
	end_start(&l->srv, srv_z ? filter_over(pair[1], &l->srv.counts)
				 : pair[1]);
}

void
link_close(struct link *l)
{
	end_stop(&l->cli);
	end_stop(&l->srv);
	/* Freeing the base runs the bufferevents' finalizers. */
	event_base_free(l->base);
}

/* Run the loop until e has read `want` octets, or give up after a bounded
 * number of rounds so that a stall fails instead of hanging. */
void
pump_until(struct link *l, struct end *e, size_t want)
{
	for (int i = 0; i < 100000 && evbuffer_get_length(e->got) < want; i++)
		event_base_loop(l->base, EVLOOP_NONBLOCK);
	/* A few more rounds, so an excess would show too. */
	for (int i = 0; i < 4; i++)
		event_base_loop(l->base, EVLOOP_NONBLOCK);
}

void
assert_got(struct end *e, const void *want, size_t n)
{
	size_t have = evbuffer_get_length(e->got);
	ck_assert_msg(have == n, "read %zu octets, expected %zu", have, n);
	ck_assert_msg(n == 0 || memcmp(evbuffer_pullup(e->got, -1), want,
				       n) == 0, "octets differ");
}

/* Compress with plain zlib as a server would: raw, each piece synced. */
void
z_sync(z_stream *z, const void *p, size_t n, struct evbuffer *out)
{
	unsigned char buf[4096];
	z->next_in = p;
	z->avail_in = (uInt)n;
	do {
		z->next_out = buf;
		z->avail_out = sizeof(buf);
		int rc = deflate(z, Z_SYNC_FLUSH);
		ck_assert(rc == Z_OK || rc == Z_BUF_ERROR);
		evbuffer_add(out, buf, sizeof(buf) - z->avail_out);
	} while (z->avail_in > 0 || z->avail_out == 0);
}

/* Inflate with plain zlib, insisting that the input ends exactly on
 * what has been flushed: no octet may be left owing. */
void
z_inflate_all(z_stream *z, struct evbuffer *in, struct evbuffer *out)
{
	unsigned char buf[4096];
	size_t n = evbuffer_get_length(in);
	z->next_in = evbuffer_pullup(in, -1);
	z->avail_in = (uInt)n;
	do {
		z->next_out = buf;
		z->avail_out = sizeof(buf);
		int rc = inflate(z, Z_SYNC_FLUSH);
		ck_assert_msg(rc == Z_OK || rc == Z_BUF_ERROR, "inflate %d", rc);
		evbuffer_add(out, buf, sizeof(buf) - z->avail_out);
	} while (z->avail_in > 0 || z->avail_out == 0);
	evbuffer_drain(in, n);
}

static size_t
min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* n octets of IMAP-like text and random binary in alternating runs. */
unsigned char *
mixed_data(size_t n, uint64_t seed, int text_only)
{
	unsigned char *d = xmalloc(n);
	struct rng r;
	rng_seed(&r, seed, 1);
	size_t at = 0;
	while (at < n) {
		size_t run = min_sz(n - at, 1 + rng_below(&r, 200000));
		if (text_only || rng_below(&r, 2) == 0) {
			char line[96];
			for (size_t k = 0; k < run;) {
				int len = snprintf(line, sizeof(line),
				    "* %u FETCH (UID %u FLAGS (\\Seen))\r\n",
				    rng_below(&r, 1000), rng_below(&r, 100));
				size_t take = min_sz((size_t)len, run - k);
				memcpy(d + at + k, line, take);
				k += take;
			}
		} else {
			for (size_t k = 0; k < run; k++)
				d[at + k] = (unsigned char)rng_next(&r);
		}
		at += run;
	}
	return d;
}

/* Write d in chunks of 1..64K octets, each a separate write. */
void
write_chunks(struct bufferevent *bev, const unsigned char *d, size_t n,
	     uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed, 2);
	for (size_t at = 0; at < n;) {
		size_t len = min_sz(n - at, 1 + rng_below(&r, 65536));
		ck_assert_int_eq(bufferevent_write(bev, d + at, len), 0);
		at += len;
	}
}

void
assert_counts_match(const struct end *from, const struct end *to,
		    uint64_t plain)
{
	ck_assert_uint_eq(from->counts.plain_out, plain);
	ck_assert_uint_eq(to->counts.plain_in, plain);
	/* Everything compressed was carried and decoded. */
	ck_assert_uint_eq(from->counts.wire_out, to->counts.wire_in);
}
