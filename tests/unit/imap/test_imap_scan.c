/* test_imap_scan.c: the scanner under the argument tokenizer
 * (imap_scan.c): 64-bit numbers, token and quoted-string ends found 16 or
 * 8 octets at a time at every length and offset, and the case-blind
 * compares.  Split from test_imap_args.c. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap_args.h"

START_TEST(test_numbers)
{
	uint64_t v = 7;

	ck_assert_int_eq(imap_parse_u64("18446744073709551615", 20, &v), 0);
	ck_assert(v == UINT64_MAX);
	ck_assert_int_eq(imap_parse_u64("18446744073709551616", 20, &v), -2);
	ck_assert_int_eq(imap_parse_u64("99999999999999999999", 20, &v), -2);
	ck_assert_int_eq(imap_parse_u64("", 0, &v), -1);
	ck_assert_int_eq(imap_parse_u64("12a", 3, &v), -1);
	ck_assert_int_eq(imap_parse_u64("-1", 2, &v), -1);
	ck_assert_int_eq(imap_parse_u64("007", 3, &v), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(imap_arg_u64(NULL, &v), -1);
}
END_TEST

/* Token ends are found 16 or 8 octets at a time: every length, at every
 * offset from the start of the text, must end exactly where it ends, and
 * the first stray octet must be the one reported. */
START_TEST(test_scan_boundaries)
{
	struct imap_args *args = imap_args_new(0);
	char text[192];

	for (size_t pad = 0; pad < 17; pad++) {
		for (size_t n = 1; n < 40; n++) {
			/* pad spaces, an atom of n octets (some of them
			 * non-ASCII), a quoted string of n, a section */
			size_t k = 0;
			for (size_t i = 0; i < pad; i++)
				text[k++] = ' ';
			for (size_t i = 0; i < n; i++)
				text[k++] = i % 5 == 4 ? (char)0xe9 : 'a';
			text[k++] = ' ';
			text[k++] = '"';
			for (size_t i = 0; i < n; i++)
				text[k++] = i % 3 == 2 ? ' ' : (char)0xc3;
			text[k++] = '"';
			memcpy(text + k, " B[", 3);
			k += 3;
			for (size_t i = 0; i < n; i++)
				text[k++] = i % 4 == 3 ? ' ' : 'x';
			memcpy(text + k, "]<0>)", 5);
			k += 4;	/* without the ')' */
			const struct imap_arg *root =
				imap_args_parse(args, text, k);
			ck_assert_msg(root != NULL, "pad %zu n %zu: %s", pad,
				      n, imap_args_error(args));
			ck_assert_uint_eq(root->count, 3);
			const struct imap_arg *a = imap_arg_child(root);
			ck_assert_int_eq(a->type, IMAP_ARG_ATOM);
			ck_assert_uint_eq(a->len, n);
			ck_assert_ptr_eq(a->str, text + pad);
			a = imap_arg_next(a);
			ck_assert_int_eq(a->type, IMAP_ARG_QUOTED);
			ck_assert_uint_eq(a->len, n);
			ck_assert_ptr_eq(a->str, text + pad + n + 2);
			a = imap_arg_next(a);
			ck_assert_int_eq(a->type, IMAP_ARG_ATOM);
			ck_assert_uint_eq(a->len, n + 6);
			/* ')' right after: unexpected */
			ck_assert_ptr_null(imap_args_parse(args, text, k + 1));

			/* a CR inside the string, a TAB inside the atom */
			char want[96];
			text[pad + n + 2 + n / 2] = '\r';
			ck_assert_ptr_null(imap_args_parse(args, text, k));
			snprintf(want, sizeof(want), "line break in quoted "
				 "string at offset %zu", pad + n + 2 + n / 2);
			ck_assert_str_eq(imap_args_error(args), want);
			text[pad + n / 2] = '\t';
			ck_assert_ptr_null(imap_args_parse(args, text, k));
			snprintf(want, sizeof(want), "unexpected control "
				 "character 0x09 at offset %zu", pad + n / 2);
			ck_assert_str_eq(imap_args_error(args), want);
		}
	}
	imap_args_free(args);
}
END_TEST

/* Quoted strings that end at, or just past, every boundary: closed,
 * escaped, unterminated. */
START_TEST(test_quoted_boundaries)
{
	struct imap_args *args = imap_args_new(0);
	char text[64], want[96];

	for (size_t n = 0; n < 40; n++) {
		text[0] = '"';
		memset(text + 1, 'q', n);
		text[n + 1] = '"';
		const struct imap_arg *root = imap_args_parse(args, text, n + 2);
		ck_assert_ptr_nonnull(root);
		ck_assert_uint_eq(imap_arg_child(root)->len, n);
		ck_assert_ptr_null(imap_args_parse(args, text, n + 1));
		ck_assert_str_eq(imap_args_error(args),
				 "unterminated quoted string at offset 0");
		if (n < 2)
			continue;
		text[n - 1] = '\\';	/* an escaped backslash at the end */
		text[n] = '\\';
		root = imap_args_parse(args, text, n + 2);
		ck_assert_ptr_nonnull(root);
		ck_assert_uint_eq(imap_arg_child(root)->len, n - 1);
		text[n] = 'x';		/* a bad escape */
		ck_assert_ptr_null(imap_args_parse(args, text, n + 2));
		snprintf(want, sizeof(want), "bad escape '\\x' in quoted "
			 "string at offset %zu", n - 1);
		ck_assert_str_eq(imap_args_error(args), want);
	}
	imap_args_free(args);
}
END_TEST

START_TEST(test_ci_eq)
{
	ck_assert(imap_ci_eq("FLAGS", "flags", 5));
	ck_assert(imap_ci_eq("a\0b", "A\0B", 3));	/* NUL is an octet */
	ck_assert(!imap_ci_eq("a\0b", "A\0C", 3));
	ck_assert(imap_ci_eq("", "x", 0));
	/* only letters fold: these pairs differ by the case bit too */
	ck_assert(!imap_ci_eq("[", "{", 1));
	ck_assert(!imap_ci_eq("@", "`", 1));
	ck_assert(!imap_ci_eq("^", "~", 1));
	ck_assert(!imap_ci_eq("\xc1", "\xe1", 1));

	ck_assert(imap_ci_eq_lit("rfc822.size", "RFC822.SIZE", 11));
	ck_assert(imap_ci_eq_lit("Message-Id", "MESSAGE-ID", 10));
	ck_assert(imap_ci_eq_lit("bodY", "BODY", 4));
	ck_assert(imap_ci_eq_lit("BODY[HEADER.FIEL", "body[header.fiel", 16));
	ck_assert(!imap_ci_eq_lit("RFC822.SIZf", "RFC822.SIZE", 11));
	ck_assert(!imap_ci_eq_lit("RFC822\x0eSIZE", "RFC822.SIZE", 11));
	ck_assert(!imap_ci_eq_lit("MESSAGE\rID", "MESSAGE-ID", 10));
	ck_assert(!imap_ci_eq_lit("BODY{HEADER.FIEL", "BODY[HEADER.FIEL", 16));
	ck_assert(!imap_ci_eq_lit("FLAGZ", "FLAGS", 5));
	ck_assert(!imap_ci_eq_lit("\xc6LAGS", "FLAGS", 5));
	/* every position of the two overlapping words */
	char buf[16];
	for (size_t n = 4; n <= 16; n++) {
		for (size_t i = 0; i < n; i++) {
			memcpy(buf, "ABCDEFGHIJKLMNOP", n);
			buf[i] ^= 0x20;
			ck_assert(imap_ci_eq_lit(buf, "ABCDEFGHIJKLMNOP", n));
			buf[i] ^= 0x01;
			ck_assert(!imap_ci_eq_lit(buf, "ABCDEFGHIJKLMNOP", n));
		}
	}
}
END_TEST

static Suite *
imap_scan_suite(void)
{
	Suite *s = suite_create("imap_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_scan_boundaries);
	tcase_add_test(tc, test_quoted_boundaries);
	tcase_add_test(tc, test_ci_eq);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_scan_suite)
