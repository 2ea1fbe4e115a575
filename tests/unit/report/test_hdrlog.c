/* HdrHistogram export and the interval log encoding: our bucket index is
 * HdrHistogram's counts index (lowest 1, 3 significant digits), and the V2
 * payload for a known histogram is byte for byte what hdr-histogram-js
 * 3.x encodes for the same values (reference taken from it once; the
 * integration test t_hdr_log decodes whole runs with it).  Also
 * --metrics-listen address parsing and the le counts. */
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check_main.h"
#include "report/hdrlog.h"
#include "stats/hist.h"
#include "config/config.h"

/* HdrHistogram's countsArrayIndex for subBucketHalfCountMagnitude 10,
 * unitMagnitude 0, written out from its definition. */
static unsigned
hdr_index(uint64_t v)
{
	unsigned bucket = 0;
	while ((v >> bucket) >= 2048)
		bucket++;
	unsigned sub = (unsigned)(v >> bucket);
	return ((bucket + 1) << 10) + (sub - 1024);
}

START_TEST(test_layout_is_hdrhistogram)
{
	static uint64_t counts[HIST_N_BUCKETS];
	struct hist *h = hist_new();
	uint64_t vals[] = { 0, 1, 1023, 1024, 2047, 2048, 2049, 4095, 4096,
			    123456, 999999, 1ull << 31, HIST_MAX_US };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		hist_reset(h);
		hist_record(h, vals[i]);
		unsigned len = hist_export(h, counts, HIST_N_BUCKETS);
		ck_assert_uint_eq(len, hdr_index(vals[i]) + 1);
		ck_assert_uint_eq(counts[hdr_index(vals[i])], 1);
	}
	hist_free(h);
}
END_TEST

START_TEST(test_count_le)
{
	struct hist *h = hist_new();
	hist_record_n(h, 100, 3);
	hist_record_n(h, 1000, 2);
	hist_record_n(h, 3000, 1);	/* bucket [3000, 3001] */
	ck_assert_uint_eq(hist_count_le(h, 99), 0);
	ck_assert_uint_eq(hist_count_le(h, 100), 3);
	ck_assert_uint_eq(hist_count_le(h, 1000), 5);
	ck_assert_uint_eq(hist_count_le(h, 3000), 5);	/* bucket reaches 3001 */
	ck_assert_uint_eq(hist_count_le(h, 3001), 6);
	ck_assert_uint_eq(hist_count_le(h, HIST_MAX_US), 6);
	hist_free(h);
}
END_TEST

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

START_TEST(test_encoding_matches_reference)
{
	/* hdr-histogram-js: recordValueWithCount for these, then
	 * encodeIntoCompressedBase64, inflated: bytes 40.. are these. */
	static const unsigned char want[] = {
		0x00, 0x02, 0xcb, 0x0f, 0x06, 0xab, 0x10, 0x02, 0x06, 0xb1,
		0x58, 0x0a, 0xb1, 0xf2, 0x01, 0x02,
	};
	struct hist *h = hist_new();
	hist_record_n(h, 1, 1);
	hist_record_n(h, 1000, 3);
	hist_record_n(h, 2047, 1);
	hist_record_n(h, 2048, 2);
	hist_record_n(h, 2049, 1);
	hist_record_n(h, 100000, 5);
	hist_record_n(h, HIST_MAX_US, 1);
	char *b64 = hdrlog_encode(h);
	hist_free(h);

	/* The fixed cookie makes every such string start like this. */
	ck_assert_msg(strncmp(b64, "HISTF", 5) == 0, "%s", b64);
	size_t n = strlen(b64);
	unsigned char *bin = malloc(n);
	int blen = EVP_DecodeBlock(bin, (const unsigned char *)b64, (int)n);
	ck_assert_int_gt(blen, 8);
	ck_assert_uint_eq(be32(bin), 0x1c849314u);
	uint32_t zlen = be32(bin + 4);
	ck_assert_uint_le(zlen + 8, (unsigned)blen);

	unsigned char raw[256];
	uLongf rawlen = sizeof(raw);
	ck_assert_int_eq(uncompress(raw, &rawlen, bin + 8, zlen), Z_OK);
	ck_assert_uint_eq(rawlen, 40 + sizeof(want));
	ck_assert_uint_eq(be32(raw), 0x1c849313u);
	ck_assert_uint_eq(be32(raw + 4), sizeof(want));	/* payload length */
	ck_assert_uint_eq(be32(raw + 12), 3);		/* significant digits */
	ck_assert_uint_eq(be64(raw + 16), 1);		/* lowest */
	ck_assert_uint_eq(be64(raw + 24), HIST_MAX_US);	/* highest */
	ck_assert_uint_eq(be64(raw + 32), 0x3ff0000000000000ull);	/* 1.0 */
	ck_assert_mem_eq(raw + 40, want, sizeof(want));
	free(bin);
	free(b64);
}
END_TEST

START_TEST(test_empty_histogram)
{
	struct hist *h = hist_new();
	char *b64 = hdrlog_encode(h);
	unsigned char bin[128], raw[64];
	int blen = EVP_DecodeBlock(bin, (const unsigned char *)b64, (int)strlen(b64));
	ck_assert_int_gt(blen, 8);
	uLongf rawlen = sizeof(raw);
	ck_assert_int_eq(uncompress(raw, &rawlen, bin + 8, be32(bin + 4)), Z_OK);
	ck_assert_uint_eq(rawlen, 40);		/* header, no counts */
	free(b64);
	hist_free(h);
}
END_TEST

START_TEST(test_parse_listen)
{
	static const struct {
		const char *in, *host;
		unsigned port;
		bool loopback;
	} good[] = {
		{ "9150", "127.0.0.1", 9150, true },
		{ "127.0.0.1:0", "127.0.0.1", 0, true },
		{ "127.1.2.3:65535", "127.1.2.3", 65535, true },
		{ "[::1]:9150", "::1", 9150, true },
		{ "0.0.0.0:9150", "0.0.0.0", 9150, false },
		{ "[::]:80", "::", 80, false },
		{ "10.0.0.1:9150", "10.0.0.1", 9150, false },
	};
	static const char *const bad[] = {
		"", "x", "65536", "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:9x",
		":9150", "localhost:9150", "[::1]", "[::1]9150", "[::1:9150",
		"1.2.3.4.5:80", "127.0.0.1:99999999999999999999",
	};
	char host[64], err[200];
	unsigned port;
	bool lb;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(config_parse_listen(good[i].in, host, sizeof(host), &port,
						  &lb, err, sizeof(err)) == 0,
			      "%s: %s", good[i].in, err);
		ck_assert_str_eq(host, good[i].host);
		ck_assert_uint_eq(port, good[i].port);
		ck_assert_int_eq(lb, good[i].loopback);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(config_parse_listen(bad[i], host, sizeof(host), &port,
						  &lb, err, sizeof(err)) == -1,
			      "'%s' accepted", bad[i]);
		ck_assert_msg(err[0] != '\0', "'%s': no message", bad[i]);
	}
}
END_TEST

static Suite *
hdrlog_suite(void)
{
	Suite *s = suite_create("hdrlog");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_layout_is_hdrhistogram);
	tcase_add_test(tc, test_count_le);
	tcase_add_test(tc, test_encoding_matches_reference);
	tcase_add_test(tc, test_empty_histogram);
	tcase_add_test(tc, test_parse_listen);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hdrlog_suite)
