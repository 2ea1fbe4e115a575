/* compress: the COMPRESS=DEFLATE filter talking to itself over a
 * bufferevent pair (compress_link.c) (with and without watermarks squeezing it), against
 * plain zlib driven by hand in both directions, with corrupt input, and
 * that freeing it frees what lies below.  One event_base, no network. */
#define ZLIB_CONST
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <zlib.h>

#include "check_main.h"
#include "net/compress.h"
#include "compress_link.h"
#include "util/rng.h"
#include "util/xmalloc.h"

/* Every command and reply arrives whole after its own write, with no
 * further write to push it: the sync flush at work. */
START_TEST(test_commands_arrive_without_more_writes)
{
	static const int batches[] = { 1, 2, 1000 };
	struct link l;
	struct evbuffer *to_srv = evbuffer_new(), *to_cli = evbuffer_new();
	char line[64];
	int tag = 0;

	link_open(&l, 1, 1);
	for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		for (int i = 0; i < batches[b]; i++, tag++) {
			int n = snprintf(line, sizeof(line), "a%d NOOP\r\n",
					 tag);
			bufferevent_write(l.cli.bev, line, (size_t)n);
			evbuffer_add(to_srv, line, (size_t)n);
			n = snprintf(line, sizeof(line),
				     "a%d OK NOOP completed.\r\n", tag);
			bufferevent_write(l.srv.bev, line, (size_t)n);
			evbuffer_add(to_cli, line, (size_t)n);
		}
		pump_until(&l, &l.srv, evbuffer_get_length(to_srv));
		pump_until(&l, &l.cli, evbuffer_get_length(to_cli));
		assert_got(&l.srv, evbuffer_pullup(to_srv, -1),
			   evbuffer_get_length(to_srv));
		assert_got(&l.cli, evbuffer_pullup(to_cli, -1),
			   evbuffer_get_length(to_cli));
	}
	assert_counts_match(&l.cli, &l.srv, evbuffer_get_length(to_srv));
	assert_counts_match(&l.srv, &l.cli, evbuffer_get_length(to_cli));
	ck_assert_int_eq(l.cli.n_events + l.srv.n_events, 0);
	ck_assert_ptr_null(compress_error(&l.cli.counts));
	evbuffer_free(to_srv);
	evbuffer_free(to_cli);
	link_close(&l);
}
END_TEST

/* 5 MB each way at once, mixed text and binary in 1..64K writes.  In the
 * second round both readers allow only 4 KB ahead and both wires hold only
 * 2 KB, so every limit the filters are given is hit over and over. */
START_TEST(test_bulk_both_ways)
{
	const size_t n = 5 * 1024 * 1024;
	unsigned char *up = mixed_data(n, 11, 0), *down = mixed_data(n, 12, 0);
	struct link l;

	link_open(&l, 1, 1);
	if (_i == 1) {
		struct end *ends[] = { &l.cli, &l.srv };
		for (int k = 0; k < 2; k++) {
			bufferevent_setwatermark(ends[k]->bev, EV_READ, 0,
						 4096);
			bufferevent_setwatermark(
			    bufferevent_get_underlying(ends[k]->bev),
			    EV_WRITE, 0, 2048);
		}
	}
	write_chunks(l.cli.bev, up, n, 21);
	write_chunks(l.srv.bev, down, n, 22);
	pump_until(&l, &l.srv, n);
	pump_until(&l, &l.cli, n);
	assert_got(&l.srv, up, n);
	assert_got(&l.cli, down, n);
	assert_counts_match(&l.cli, &l.srv, n);
	assert_counts_match(&l.srv, &l.cli, n);
	ck_assert_int_eq(l.cli.n_events + l.srv.n_events, 0);
	if (_i == 1) {
		/* The reader's limit holds to within what zlib owed. */
		ck_assert_uint_le(l.srv.max_input, 4096 + 4 * 258);
		ck_assert_uint_le(l.cli.max_input, 4096 + 4 * 258);
	}
	free(up);
	free(down);
	link_close(&l);
}
END_TEST

/* Repetitive text must shrink well on the wire. */
START_TEST(test_text_compresses)
{
	const size_t n = 1024 * 1024;
	unsigned char *text = mixed_data(n, 13, 1);
	struct link l;

	link_open(&l, 1, 1);
	write_chunks(l.cli.bev, text, n, 23);
	pump_until(&l, &l.srv, n);
	assert_got(&l.srv, text, n);
	ck_assert_uint_eq(l.cli.counts.plain_out, n);
	ck_assert_msg(l.cli.counts.wire_out * 2 < l.cli.counts.plain_out,
		      "%llu octets on the wire for %llu of text",
		      (unsigned long long)l.cli.counts.wire_out,
		      (unsigned long long)l.cli.counts.plain_out);
	free(text);
	link_close(&l);
}
END_TEST

/* Run until nothing is left to do: with only pairs and filters on the
 * base, the loop reports "no events" once every callback has run. */
static void
settle(struct event_base *base)
{
	for (int i = 0; i < 1000; i++)
		if (event_base_loop(base, EVLOOP_NONBLOCK) == 1)
			break;
}

/* What an IMAP server sends: a greeting, a 75 KB body that deflates to a
 * few hundred octets, a binary literal, a tagged reply. */
static struct evbuffer **
server_messages(int *count)
{
	static const int n = 4;
	struct evbuffer **m = xcalloc((size_t)n, sizeof(*m));
	struct rng r;
	rng_seed(&r, 7, 3);
	for (int i = 0; i < n; i++)
		m[i] = evbuffer_new();
	evbuffer_add_printf(m[0], "* OK [CAPABILITY IMAP4rev1] ready\r\n");
	evbuffer_add_printf(m[1], "* 1 FETCH (BODY[] {76800}\r\n");
	for (int k = 0; k < 76800 / 64; k++)
		evbuffer_add_printf(m[1], "%-62s\r\n",
				    "The quick brown fox jumps over the dog.");
	evbuffer_add_printf(m[1], ")\r\n");
	for (int k = 0; k < 10000; k++) {
		unsigned char b = (unsigned char)rng_next(&r);
		evbuffer_add(m[2], &b, 1);
	}
	evbuffer_add_printf(m[3], "a1 OK FETCH completed.\r\n");
	*count = n;
	return m;
}

static void
free_messages(struct evbuffer **m, int n)
{
	for (int i = 0; i < n; i++)
		evbuffer_free(m[i]);
	free(m);
}

/* A server's own zlib (raw deflate, a sync flush per response) decoded by
 * the filter: each response complete as soon as its flush is in, whether
 * the wire delivers it at once or one octet at a time, and under a read
 * limit of 100 octets far below what one octet can inflate to. */
START_TEST(test_inflates_plain_zlib)
{
	struct link l;
	z_stream z;
	z_stream zr;	/* reference decoder, fed what the filter is fed */
	struct evbuffer *wire = evbuffer_new(), *plain = evbuffer_new();
	struct evbuffer *one = evbuffer_new(), *ref = evbuffer_new();
	int n;
	struct evbuffer **msg = server_messages(&n);
	uint64_t wire_total = 0;

	memset(&z, 0, sizeof(z));
	memset(&zr, 0, sizeof(zr));
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, -15, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	ck_assert_int_eq(inflateInit2(&zr, -15), Z_OK);
	link_open(&l, 1, 0);
	if (_i == 2)
		bufferevent_setwatermark(l.cli.bev, EV_READ, 0, 100);
	for (int i = 0; i < n; i++) {
		size_t len = evbuffer_get_length(msg[i]);
		z_sync(&z, evbuffer_pullup(msg[i], -1), len, wire);
		evbuffer_add(plain, evbuffer_pullup(msg[i], -1), len);
		wire_total += evbuffer_get_length(wire);
		if (_i == 0) {
			bufferevent_write_buffer(l.srv.bev, wire);
		} else {
			while (evbuffer_get_length(wire) > 0) {
				bufferevent_write(l.srv.bev,
				    evbuffer_pullup(wire, 1), 1);
				evbuffer_remove_buffer(wire, one, 1);
				settle(l.base);
				/* All that the octets so far decode to is
				 * out, none left waiting inside zlib. */
				z_inflate_all(&zr, one, ref);
				ck_assert_uint_eq(evbuffer_get_length(l.cli.got),
						  evbuffer_get_length(ref));
			}
		}
		pump_until(&l, &l.cli, evbuffer_get_length(plain));
		assert_got(&l.cli, evbuffer_pullup(plain, -1),
			   evbuffer_get_length(plain));
	}
	ck_assert_uint_eq(l.cli.counts.wire_in, wire_total);
	ck_assert_uint_eq(l.cli.counts.plain_in, evbuffer_get_length(plain));
	ck_assert_int_eq(l.cli.n_events, 0);
	/* Past the limit only what zlib already owed: the rest of one
	 * 258-octet match and what under 8 buffered bits decode to. */
	if (_i == 2)
		ck_assert_uint_le(l.cli.max_input, 100 + 4 * 258);
	deflateEnd(&z);
	inflateEnd(&zr);
	free_messages(msg, n);
	evbuffer_free(wire);
	evbuffer_free(plain);
	evbuffer_free(one);
	evbuffer_free(ref);
	link_close(&l);
}
END_TEST

/* The filter's output read by plain zlib: after every write, what is on
 * the wire inflates to everything written so far, with nothing owing.
 * In later rounds the wire below holds only 1 KB, then 100 octets, at a
 * time. */
START_TEST(test_deflate_read_by_plain_zlib)
{
	struct link l;
	z_stream z;
	struct evbuffer *plain = evbuffer_new(), *out = evbuffer_new();
	int n;
	struct evbuffer **msg = server_messages(&n);

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, -15), Z_OK);
	link_open(&l, 1, 0);
	if (_i > 0)
		bufferevent_setwatermark(bufferevent_get_underlying(l.cli.bev),
					 EV_WRITE, 0, _i == 1 ? 1024 : 100);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < n; i++) {
			size_t len = evbuffer_get_length(msg[i]);
			bufferevent_write(l.cli.bev,
			    evbuffer_pullup(msg[i], -1), len);
			evbuffer_add(plain, evbuffer_pullup(msg[i], -1), len);
			settle(l.base);
			z_inflate_all(&z, l.srv.got, out);
			ck_assert_uint_eq(evbuffer_get_length(out),
					  evbuffer_get_length(plain));
			ck_assert(memcmp(evbuffer_pullup(out, -1),
			    evbuffer_pullup(plain, -1),
			    evbuffer_get_length(plain)) == 0);
		}
	}
	ck_assert_uint_eq(l.cli.counts.plain_out, evbuffer_get_length(plain));
	ck_assert_uint_eq(l.cli.counts.wire_out, z.total_in);
	inflateEnd(&z);
	free_messages(msg, n);
	evbuffer_free(plain);
	evbuffer_free(out);
	link_close(&l);
}
END_TEST

/* Good data, then a broken stream: the good part is delivered, the user
 * gets one BEV_EVENT_ERROR, compress_bev_error says why, and later input
 * is dropped.  Rounds: random octets, a stored block whose lengths do not
 * match, data after a final block. */
START_TEST(test_corrupt_stream)
{
	static const char hello[] = "* OK ready\r\n";
	struct link l;
	z_stream z;
	struct evbuffer *wire = evbuffer_new();
	struct rng r;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, -15, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	link_open(&l, 1, 0);
	ck_assert_ptr_null(compress_error(&l.cli.counts));
	z_sync(&z, hello, strlen(hello), wire);
	bufferevent_write_buffer(l.srv.bev, wire);
	pump_until(&l, &l.cli, strlen(hello));
	ck_assert_ptr_null(compress_error(&l.cli.counts));

	if (_i == 0) {
		rng_seed(&r, 99, 4);
		for (int k = 0; k < 4096; k++) {
			unsigned char b = (unsigned char)rng_next(&r);
			evbuffer_add(wire, &b, 1);
		}
	} else if (_i == 1) {
		/* Not final, stored; LEN 5 but NLEN is not its complement. */
		static const unsigned char bad[] = { 0, 5, 0, 0x12, 0x34 };
		evbuffer_add(wire, bad, sizeof(bad));
	} else {
		z.next_in = NULL;
		z.avail_in = 0;
		unsigned char end[64];
		z.next_out = end;
		z.avail_out = sizeof(end);
		ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
		evbuffer_add(wire, end, sizeof(end) - z.avail_out);
		evbuffer_add(wire, "more", 4);
	}
	bufferevent_write_buffer(l.srv.bev, wire);
	settle(l.base);

	assert_got(&l.cli, hello, strlen(hello));
	ck_assert_int_eq(l.cli.n_events, 1);
	ck_assert(l.cli.events & BEV_EVENT_ERROR);
	ck_assert(l.cli.events & BEV_EVENT_READING);
	const char *why = compress_error(&l.cli.counts);
	ck_assert_ptr_nonnull(why);
	ck_assert_uint_gt(strlen(why), 0);
	if (_i == 1)
		ck_assert_str_eq(why, "invalid stored block lengths");
	if (_i == 2)
		ck_assert_str_eq(why, "data after the end of the compressed "
			"stream");

	/* Nothing more comes through and the user is not told twice. */
	bufferevent_write(l.srv.bev, "\0\0\0\0", 4);
	settle(l.base);
	assert_got(&l.cli, hello, strlen(hello));
	ck_assert_int_eq(l.cli.n_events, 1);
	deflateEnd(&z);
	evbuffer_free(wire);
	link_close(&l);
}
END_TEST

/* Freeing the filter frees the bufferevent below: a pair end unlinks its
 * partner only when it is destroyed. */
START_TEST(test_free_releases_underlying)
{
	struct event_base *base = event_base_new();
	struct bufferevent *pair[2];
	ck_assert_int_eq(bufferevent_pair_new(base, 0, pair), 0);
	struct bufferevent *z = filter_over(pair[0], NULL);
	bufferevent_enable(z, EV_READ | EV_WRITE);
	bufferevent_write(z, "a1 NOOP\r\n", 9);
	settle(base);
	ck_assert_ptr_eq(bufferevent_pair_get_partner(pair[1]), pair[0]);
	bufferevent_free(z);
	settle(base);
	ck_assert_ptr_null(bufferevent_pair_get_partner(pair[1]));
	bufferevent_free(pair[1]);
	event_base_free(base);
}
END_TEST

/* Bad arguments are refused with a reason, and `under` stays the
 * caller's; a bufferevent that is not a filter has no compress error. */
START_TEST(test_bad_arguments)
{
	struct event_base *base = event_base_new();
	struct bufferevent *pair[2];
	char err[128];
	ck_assert_int_eq(bufferevent_pair_new(base, 0, pair), 0);

	ck_assert_ptr_null(compress_bev_new(pair[0], 10, NULL, err,
					    sizeof(err)));
	ck_assert_msg(strstr(err, "compression level 10") != NULL, "%s", err);
	ck_assert_ptr_null(compress_bev_new(pair[0], -2, NULL, err,
					    sizeof(err)));
	ck_assert_msg(strstr(err, "-2") != NULL, "%s", err);
	ck_assert_ptr_null(compress_bev_new(NULL, 1, NULL, err, sizeof(err)));
	ck_assert_msg(strstr(err, "no connection") != NULL, "%s", err);
	ck_assert_ptr_null(compress_bev_new(pair[0], 99, NULL, NULL, 0));

	ck_assert_ptr_eq(bufferevent_pair_get_partner(pair[1]), pair[0]);
	ck_assert_ptr_null(compress_error(NULL));
	bufferevent_free(pair[0]);
	bufferevent_free(pair[1]);
	event_base_free(base);
}
END_TEST

/* Compressed octets that were already below when the filter was put in
 * place (sent right behind the tagged OK) are decoded too. */
START_TEST(test_data_already_below)
{
	static const char hello[] = "* 3 EXISTS\r\n";
	struct event_base *base = event_base_new();
	struct bufferevent *pair[2];
	struct evbuffer *wire = evbuffer_new();
	struct end e;
	z_stream z;

	memset(&z, 0, sizeof(z));
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, -15, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	ck_assert_int_eq(bufferevent_pair_new(base, 0, pair), 0);
	bufferevent_enable(pair[0], EV_READ);
	z_sync(&z, hello, strlen(hello), wire);
	bufferevent_write_buffer(pair[1], wire);
	settle(base);
	ck_assert_uint_gt(evbuffer_get_length(bufferevent_get_input(pair[0])),
			  0);

	end_start(&e, filter_over(pair[0], &e.counts));
	settle(base);
	assert_got(&e, hello, strlen(hello));
	end_stop(&e);
	bufferevent_free(pair[1]);
	deflateEnd(&z);
	evbuffer_free(wire);
	event_base_free(base);
}
END_TEST

/* The bomb bound: 4 MiB of one octet (1027:1) is refused by name once a
 * MiB has come out; 4 MiB of FETCH FLAGS lines (8.5:1) and 4 MiB of
 * zeros broken by 12 random letters every 3000 octets (212:1, just under
 * the bound) go through. */
START_TEST(test_inflation_ratio)
{
	enum { TOTAL = 4 * 1024 * 1024 };
	struct link l;
	z_stream z;
	struct evbuffer *wire = evbuffer_new(), *plain = evbuffer_new();
	struct rng r;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, -15, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	link_open(&l, 1, 0);
	bufferevent_setwatermark(l.cli.bev, EV_READ, 0, 128 * 1024);
	rng_seed(&r, 7, 1);
	char line[96];
	for (unsigned k = 1; evbuffer_get_length(plain) < TOTAL; k++) {
		if (_i == 0) {
			memset(line, 0, 64);
			evbuffer_add(plain, line, 64);
		} else if (_i == 1) {
			int n = snprintf(line, sizeof(line), "* %u FETCH (UID %u "
					 "FLAGS (\\Seen))\r\n", k, k * 3);
			evbuffer_add(plain, line, (size_t)n);
		} else {
			static char zeros[3000];
			for (int j = 0; j < 12; j++)
				line[j] = (char)('a' + rng_below(&r, 26));
			evbuffer_add(plain, line, 12);
			evbuffer_add(plain, zeros, sizeof(zeros));
		}
	}
	size_t n = evbuffer_get_length(plain);
	z_sync(&z, evbuffer_pullup(plain, -1), n, wire);
	bufferevent_write_buffer(l.srv.bev, wire);
	pump_until(&l, &l.cli, n);
	if (_i == 0) {
		const char *why = compress_error(&l.cli.counts);
		ck_assert_ptr_nonnull(why);
		ck_assert_msg(strncmp(why, "inflation over 256:1 (", 22) == 0,
			      "%s", why);
		ck_assert_int_eq(l.cli.n_events, 1);
		ck_assert_uint_lt(evbuffer_get_length(l.cli.got), 2 * 1024 * 1024);
	} else {
		ck_assert_ptr_null(compress_error(&l.cli.counts));
		assert_got(&l.cli, evbuffer_pullup(plain, -1), n);
	}
	deflateEnd(&z);
	evbuffer_free(wire);
	evbuffer_free(plain);
	link_close(&l);
}
END_TEST

/* BEV_FLUSH ends the batch in a full flush: raw blocks from a fresh
 * stream put below at that point read as part of one stream, and the
 * same text written after them (which a sync flush would let refer back
 * across the blocks) still arrives as written.  fakeimapd sends one
 * deflated reply to many connections so (tests/fake/fake_zcache.c). */
START_TEST(test_full_flush_splice)
{
	static const char text[] = "* 1 FETCH (FLAGS (\\Seen) UID 1)\r\n";
	struct link l;
	struct evbuffer *want = evbuffer_new(), *raw = evbuffer_new();
	z_stream z;
	char payload[3000];

	memset(payload, 'x', sizeof(payload));
	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	z_sync(&z, payload, sizeof(payload), raw);
	deflateEnd(&z);

	link_open(&l, 1, 1);
	for (int round = 0; round < 3; round++) {
		bufferevent_write(l.srv.bev, text, strlen(text));
		evbuffer_add(want, text, strlen(text));
		bufferevent_flush(l.srv.bev, EV_WRITE, BEV_FLUSH);
		evbuffer_add(bufferevent_get_output(
		    bufferevent_get_underlying(l.srv.bev)),
		    evbuffer_pullup(raw, -1), evbuffer_get_length(raw));
		evbuffer_add(want, payload, sizeof(payload));
	}
	bufferevent_write(l.srv.bev, text, strlen(text));
	evbuffer_add(want, text, strlen(text));
	pump_until(&l, &l.cli, evbuffer_get_length(want));
	assert_got(&l.cli, evbuffer_pullup(want, -1),
		   evbuffer_get_length(want));
	ck_assert_ptr_null(compress_error(&l.cli.counts));
	ck_assert_int_eq(l.cli.n_events, 0);
	evbuffer_free(want);
	evbuffer_free(raw);
	link_close(&l);
}
END_TEST

static Suite *
compress_suite(void)
{
	Suite *s = suite_create("compress");
	TCase *tc = tcase_create("compress");
	/* Megabytes through zlib under the sanitizers take a while. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_commands_arrive_without_more_writes);
	tcase_add_loop_test(tc, test_bulk_both_ways, 0, 2);
	tcase_add_test(tc, test_text_compresses);
	tcase_add_loop_test(tc, test_inflates_plain_zlib, 0, 3);
	tcase_add_loop_test(tc, test_deflate_read_by_plain_zlib, 0, 3);
	tcase_add_loop_test(tc, test_corrupt_stream, 0, 3);
	tcase_add_test(tc, test_free_releases_underlying);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_data_already_below);
	tcase_add_loop_test(tc, test_inflation_ratio, 0, 3);
	tcase_add_test(tc, test_full_flush_splice);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(compress_suite)
