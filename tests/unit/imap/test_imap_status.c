/* The STATUS text NOTIFY sends unasked (imap/imap_status.h): each mailbox
 * form, the attributes, and hostile input refused with a reason, never
 * read past its end (each case is also parsed from a copy of exactly its
 * length, so ASan sees an overread). */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap_status.h"

static int
parse(const char *text, struct imap_status *st, const char **why)
{
	size_t n = strlen(text);
	char *copy = malloc(n ? n : 1);
	memcpy(copy, text, n);
	*why = NULL;
	int rc = imap_status_parse(copy, n, st, why);
	free(copy);
	return rc;
}

START_TEST(test_status_forms)
{
	struct imap_status st;
	const char *why;

	ck_assert_int_eq(parse("INBOX (MESSAGES 12 UIDNEXT 40)", &st, &why), 0);
	ck_assert_str_eq(st.name, "INBOX");
	ck_assert_uint_eq(st.has, IMAP_STATUS_MESSAGES | IMAP_STATUS_UIDNEXT);
	ck_assert_uint_eq(st.messages, 12);
	ck_assert_uint_eq(st.uidnext, 40);
	ck_assert(imap_status_is(&st, "INBOX"));
	ck_assert(!imap_status_is(&st, "Spam"));

	/* Dovecot's, for a non-selected mailbox under NOTIFY */
	ck_assert_int_eq(parse("Spam (MESSAGES 1 UIDNEXT 2 UIDVALIDITY "
			       "1796512960 UNSEEN 1)", &st, &why), 0);
	ck_assert_uint_eq(st.uidvalidity, 1796512960u);
	ck_assert_uint_eq(st.unseen, 1);
	ck_assert(imap_status_is(&st, "Spam"));
	ck_assert(!imap_status_is(&st, "spam"));	/* only INBOX is caseless */

	ck_assert_int_eq(parse("inbox (MESSAGES 0)", &st, &why), 0);
	ck_assert(imap_status_is(&st, "INBOX"));

	ck_assert_int_eq(parse("\"Deleted Items\" (MESSAGES 4294967295)", &st,
			       &why), 0);
	ck_assert_str_eq(st.name, "Deleted Items");
	ck_assert_uint_eq(st.messages, 4294967295u);

	ck_assert_int_eq(parse("\"a\\\"b\\\\c\" ()", &st, &why), 0);
	ck_assert_str_eq(st.name, "a\"b\\c");
	ck_assert_uint_eq(st.has, 0);

	ck_assert_int_eq(parse("{5}\r\nINBOX (MESSAGES 3)", &st, &why), 0);
	ck_assert(imap_status_is(&st, "INBOX"));
	ck_assert_uint_eq(st.messages, 3);
	ck_assert_int_eq(parse("{3+}\r\na b (MESSAGES 3)", &st, &why), 0);
	ck_assert_str_eq(st.name, "a b");

	/* Unknown attributes (64-bit ones too) are skipped; case ignored. */
	ck_assert_int_eq(parse("INBOX (HIGHESTMODSEQ 9223372036854775807 "
			       "messages 7 SIZE 123456789012)", &st, &why), 0);
	ck_assert_uint_eq(st.messages, 7);
	ck_assert_uint_eq(st.has, IMAP_STATUS_MESSAGES);
}
END_TEST

static const struct {
	const char *text, *why;
	size_t len;		/* 0: strlen(text) */
} bad[] = {
	{ "", "empty STATUS", 0 },
	{ "INBOX", "no attribute list", 0 },
	{ "INBOX(MESSAGES 1)", "bad character in the mailbox name", 0 },
	{ "INBOX (MESSAGES 1", "unterminated attribute list", 0 },
	{ "INBOX (MESSAGES 1) x", "text after the attribute list", 0 },
	{ "INBOX (MESSAGES 1))", "text after the attribute list", 0 },
	{ "INBOX (MESSAGES)", "without a value", 0 },
	{ "INBOX (MESSAGES )", "without a number", 0 },
	{ "INBOX (MESSAGES x)", "without a number", 0 },
	{ "INBOX (MESSAGES -1)", "without a number", 0 },
	{ "INBOX (MESSAGES 4294967296)", "out of range", 0 },
	{ "INBOX (UIDNEXT 99999999999999999999999)", "out of range", 0 },
	{ "INBOX (SIZE 9223372036854775808)", "out of range", 0 },
	{ "INBOX (MESS\x01GES 1)", "bad character in a STATUS attribute", 0 },
	{ "INBOX ((MESSAGES 1))", "bad character in a STATUS attribute", 0 },
	{ "\"INBOX (MESSAGES 1)", "unterminated quoted", 0 },
	{ "\"a\\x\" (MESSAGES 1)", "bad escape", 0 },
	{ "\"a\r\nb\" (MESSAGES 1)", "line break", 0 },
	{ "IN\x1b[2JBOX (MESSAGES 1)", "bad character in the mailbox name", 0 },
	{ "{5}\r\nINB", "shorter than its length", 0 },
	{ "{5!} (MESSAGES 1)", "malformed literal", 0 },
	{ "{} (MESSAGES 1)", "malformed literal", 0 },
	{ "{99999999999999999999}\r\nx (MESSAGES 1)", "too long", 0 },
	{ "{2}\r\na\0 (MESSAGES 1)", "NUL in the mailbox name", 20 },
	{ " (MESSAGES 1)", "empty mailbox name", 0 },
};

START_TEST(test_status_bad)
{
	struct imap_status st;
	const char *why = NULL;
	const char *t = bad[_i].text;
	size_t n = bad[_i].len ? bad[_i].len : strlen(t);
	char *copy = malloc(n ? n : 1);
	memcpy(copy, t, n);

	ck_assert_int_eq(imap_status_parse(copy, n, &st, &why), -1);
	ck_assert_msg(why != NULL && strstr(why, bad[_i].why) != NULL,
		      "%s: got '%s', want '%s'", t, why ? why : "(null)",
		      bad[_i].why);
	free(copy);
}
END_TEST

/* A name past the bound is refused, one at the bound taken; a huge
 * attribute list costs a pass and nothing more. */
START_TEST(test_status_bounds)
{
	struct imap_status st;
	const char *why;
	size_t n = IMAP_STATUS_NAME_MAX;
	char *t = malloc(n + 64);

	memset(t, 'a', n);
	strcpy(t + n, " (MESSAGES 1)");
	ck_assert_int_eq(imap_status_parse(t, strlen(t), &st, &why), 0);
	ck_assert_uint_eq(st.name_len, n);
	memset(t, 'a', n + 1);
	strcpy(t + n + 1, " (MESSAGES 1)");
	ck_assert_int_eq(imap_status_parse(t, strlen(t), &st, &why), -1);
	ck_assert_str_eq(why, "mailbox name too long");
	free(t);

	size_t big = 200000;
	char *l = malloc(big + 32);
	strcpy(l, "INBOX (");
	size_t at = strlen(l);
	while (at + 12 < big) {
		memcpy(l + at, "X-ATT 12345 ", 12);
		at += 12;
	}
	strcpy(l + at, "MESSAGES 9)");
	ck_assert_int_eq(imap_status_parse(l, strlen(l), &st, &why), 0);
	ck_assert_uint_eq(st.messages, 9);
	free(l);
}
END_TEST

static Suite *
imap_status_suite(void)
{
	Suite *s = suite_create("imap_status");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_status_forms);
	tcase_add_loop_test(tc, test_status_bad, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_status_bounds);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_status_suite)
