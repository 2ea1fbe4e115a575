/* compress_link.h: the COMPRESS tests' fixture (test_compress.c): two
 * ends of a bufferevent pair, each raw or behind the COMPRESS=DEFLATE
 * filter, recording what their user read and the events they saw; plain
 * zlib driven by hand as a server would; test data and chunked writes. */
#ifndef IMAPSTRESS_TEST_COMPRESS_LINK_H
#define IMAPSTRESS_TEST_COMPRESS_LINK_H

#define ZLIB_CONST
#include <stddef.h>
#include <stdint.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <zlib.h>

#include "net/compress.h"

/* One end of a link: what its user read, and which events it saw. */
struct end {
	struct bufferevent *bev;
	struct evbuffer *got;
	struct compress_counts counts;
	short events;
	int n_events;
	size_t max_input;	/* largest input buffer the reader found */
};

struct link {
	struct event_base *base;
	struct end cli, srv;
};

void end_start(struct end *e, struct bufferevent *bev);
void end_stop(struct end *e);
struct bufferevent *filter_over(struct bufferevent *under,
				struct compress_counts *counts);
/* Both ends filtered (cli_z, srv_z) or raw. */
void link_open(struct link *l, int cli_z, int srv_z);
void link_close(struct link *l);
/* Run the loop until e has read `want` octets, or give up after a bounded
 * number of rounds so that a stall fails instead of hanging. */
void pump_until(struct link *l, struct end *e, size_t want);
void assert_got(struct end *e, const void *want, size_t n);
/* Compress with plain zlib as a server would: raw, each piece synced. */
void z_sync(z_stream *z, const void *p, size_t n, struct evbuffer *out);
/* Inflate with plain zlib, insisting that the input ends exactly on
 * what has been flushed: no octet may be left owing. */
void z_inflate_all(z_stream *z, struct evbuffer *in, struct evbuffer *out);
/* n octets of IMAP-like text and random binary in alternating runs. */
unsigned char *mixed_data(size_t n, uint64_t seed, int text_only);
/* Write d in chunks of 1..64K octets, each a separate write. */
void write_chunks(struct bufferevent *bev, const unsigned char *d, size_t n,
		  uint64_t seed);
void assert_counts_match(const struct end *from, const struct end *to,
			 uint64_t plain);

#endif
