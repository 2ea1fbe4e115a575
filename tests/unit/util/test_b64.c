/* test_b64.c: our base64 (b64.c), which replaced OpenSSL's so that SASL
 * PLAIN and --hdr-log do not load libcrypto: fixed vectors, malformed
 * input refused, and the same output as OpenSSL's EVP_EncodeBlock /
 * EVP_DecodeBlock for every length up to 200 (the unit tests link
 * libcrypto directly). */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/b64.h"
#include "check_main.h"

START_TEST(test_vectors)
{
	unsigned char out[16];
	char enc[16];

	ck_assert_int_eq(b64_decode("biws", 4, out, sizeof(out)), 3);
	ck_assert(memcmp(out, "n,,", 3) == 0);
	ck_assert_int_eq(b64_decode("YQ==", 4, out, sizeof(out)), 1);
	ck_assert_int_eq(out[0], 'a');
	ck_assert_int_eq(b64_decode("YWI=", 4, out, sizeof(out)), 2);
	ck_assert(memcmp(out, "ab", 2) == 0);
	ck_assert_int_eq(b64_decode("", 0, out, sizeof(out)), 0);
	ck_assert_uint_eq(b64_encode((const unsigned char *)"n,,", 3, enc), 4);
	ck_assert_str_eq(enc, "biws");
	ck_assert_uint_eq(b64_encode("", 0, enc), 0);
	ck_assert_str_eq(enc, "");
	ck_assert_uint_eq(b64_encode("a", 1, enc), 4);
	ck_assert_str_eq(enc, "YQ==");
	ck_assert_uint_eq(b64_encode("\xff\xfe", 2, enc), 4);
	ck_assert_str_eq(enc, "//4=");
}
END_TEST

START_TEST(test_malformed)
{
	unsigned char out[16];
	static const char *const bad[] = {
		"YQ=", "Y=Q=", "YQ=a", "=QQQ", "YQ==YQ==", "YW J", "YWJ\n",
		"YWJ-", "YWJ_", "Y\0Jj",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = i == sizeof(bad) / sizeof(bad[0]) - 1 ? 4 :
		    strlen(bad[i]);
		ck_assert_msg(b64_decode(bad[i], n, out, sizeof(out)) == -1,
			      "accepted bad base64 #%zu", i);
	}
	/* Over outlen: refused, not cut. */
	ck_assert_int_eq(b64_decode("YWJj", 4, out, 2), -1);
	ck_assert_int_eq(b64_decode("YWJj", 4, out, 3), 3);
}
END_TEST

START_TEST(test_same_as_openssl)
{
	unsigned char in[200], back[200], ossl_back[204];
	char ours[B64_ENCODED_SIZE(200)], theirs[B64_ENCODED_SIZE(200)];

	srand(19);
	for (size_t len = 0; len <= sizeof(in); len++) {
		for (size_t i = 0; i < len; i++)
			in[i] = (unsigned char)rand();
		size_t n = b64_encode(in, len, ours);
		int m = EVP_EncodeBlock((unsigned char *)theirs, in, (int)len);
		ck_assert_int_eq((int)n, m);
		ck_assert_str_eq(ours, theirs);
		ck_assert_int_eq(b64_decode(ours, n, back, len), (int)len);
		ck_assert(memcmp(back, in, len) == 0);
		/* EVP_DecodeBlock counts padding as zero octets. */
		int k = EVP_DecodeBlock(ossl_back, (unsigned char *)ours, (int)n);
		ck_assert_int_eq(k, (int)(4 * ((len + 2) / 3) / 4 * 3));
		ck_assert(memcmp(ossl_back, in, len) == 0);
	}
}
END_TEST

static Suite *
b64_suite(void)
{
	Suite *s = suite_create("b64");
	TCase *tc = tcase_create("b64");
	tcase_add_test(tc, test_vectors);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_same_as_openssl);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(b64_suite)
