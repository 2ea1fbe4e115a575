/* test_scram.c: SCRAM-SHA-1 and SCRAM-SHA-256 against the example
 * exchanges of RFC 5802 section 5 and RFC 7677 section 3, a tampered
 * server signature, and malformed server messages. */
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "imap/scram.h"

static const struct {
	enum scram_hash h;
	const char *nonce, *server_first, *client_final, *server_final;
} rfc[] = {
	{ SCRAM_SHA1, "fyko+d2lbbFgONRv9qkxdawL",
	  "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,"
	  "i=4096",
	  "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,"
	  "p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
	  "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=" },
	{ SCRAM_SHA256, "rOprNGfwEbeRWgbNEkqO",
	  "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
	  "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
	  "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
	  "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
	  "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" },
};

START_TEST(test_rfc_exchange)
{
	char err[256];
	struct scram *s = scram_new(rfc[_i].h, "user", "pencil", rfc[_i].nonce);
	char want_first[64];

	snprintf(want_first, sizeof(want_first), "n,,n=user,r=%s",
		 rfc[_i].nonce);
	ck_assert_str_eq(scram_client_first(s), want_first);
	const char *cf = scram_client_final(s, rfc[_i].server_first,
					    strlen(rfc[_i].server_first),
					    err, sizeof(err));
	ck_assert_msg(cf != NULL, "client-final: %s", err);
	ck_assert_str_eq(cf, rfc[_i].client_final);
	ck_assert_msg(scram_server_final_ok(s, rfc[_i].server_final,
					    strlen(rfc[_i].server_final),
					    err, sizeof(err)), "%s", err);
	scram_free(s);
}
END_TEST

/* One changed character in the server's signature must be caught. */
START_TEST(test_tampered_signature)
{
	char err[256], bad[128];
	struct scram *s = scram_new(rfc[_i].h, "user", "pencil", rfc[_i].nonce);

	ck_assert_ptr_nonnull(scram_client_final(s, rfc[_i].server_first,
						 strlen(rfc[_i].server_first),
						 err, sizeof(err)));
	snprintf(bad, sizeof(bad), "%s", rfc[_i].server_final);
	bad[5] = bad[5] == 'A' ? 'B' : 'A';
	ck_assert(!scram_server_final_ok(s, bad, strlen(bad), err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "server signature mismatch"));
	ck_assert(!scram_server_final_ok(s, "e=other-error", 13, err,
					 sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "other-error"));
	ck_assert(!scram_server_final_ok(s, "e=bad\x1b[0m", 9, err, sizeof(err)));
	ck_assert_str_eq(err, "server reports error: bad?[0m");
	ck_assert(!scram_server_final_ok(s, "x=1", 3, err, sizeof(err)));
	scram_free(s);
}
END_TEST

static const struct {
	const char *server_first, *why;
} bad_first[] = {
	{ "r=someoneelse,s=QSXCR+Q6sek8bf92,i=4096", "does not extend ours" },
	{ "r=abc,s=QSXCR+Q6sek8bf92,i=4096", "does not extend ours" },
	{ "r=abcXYZ,s=QSXCR+Q6sek8bf92", "lacks r=, s= or i=" },
	{ "r=abcXYZ,s=!!!!,i=4096", "salt is not base64" },
	{ "r=abcXYZ,s=QSXCR+Q6sek8bf92,i=-1", "not a number" },
	{ "r=abcXYZ,s=QSXCR+Q6sek8bf92,i=0", "out of range" },
	{ "r=abcXYZ,s=QSXCR+Q6sek8bf92,i=99999999", "out of range" },
	{ "m=ext,r=abcXYZ,s=QSXCR+Q6sek8bf92,i=1", "extension" },
};

START_TEST(test_bad_server_first)
{
	char err[256] = "";
	struct scram *s = scram_new(SCRAM_SHA1, "u=,x", "p", "abc");

	ck_assert_str_eq(scram_client_first(s), "n,,n=u=3D=2Cx,r=abc");
	ck_assert_ptr_null(scram_client_final(s, bad_first[_i].server_first,
					      strlen(bad_first[_i].server_first),
					      err, sizeof(err)));
	ck_assert_msg(strstr(err, bad_first[_i].why) != NULL, "%s", err);
	/* No server-final is accepted before a server-first was. */
	ck_assert(!scram_server_final_ok(s, "v=AAAA", 6, err, sizeof(err)));
	scram_free(s);
	scram_free(NULL);
}
END_TEST

static Suite *
scram_suite(void)
{
	Suite *s = suite_create("scram");
	TCase *tc = tcase_create("rfc");
	tcase_add_loop_test(tc, test_rfc_exchange, 0, 2);
	tcase_add_loop_test(tc, test_tampered_signature, 0, 2);
	tcase_add_loop_test(tc, test_bad_server_first, 0,
			    (int)(sizeof(bad_first) / sizeof(bad_first[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(scram_suite)
