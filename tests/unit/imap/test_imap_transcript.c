/* test_imap_transcript.c: the response parser against realistic
 * transcripts (Dovecot, Cyrus and hostile ones) fed in every split: whole,
 * one byte at a time, cut once and twice anywhere, and with the callback
 * stopping the parser after every event, and fed again and again with no
 * growth.  Split from test_imap.c: the
 * transcripts alone are 120 lines. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap.h"
#include "imap_rec.h"
#include "util/xmalloc.h"

/* Test-only accessor defined in imap.c. */
size_t imap_parser_bufcap(const struct imap_parser *p);

struct transcript {
	const char *name;
	const char *in;
	size_t in_len;
	struct imap_limits lim;
	const char *want;
};

static const struct transcript transcripts[] = {
{ "dovecot greeting", S(
"* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN] Dovecot ready.\r\n"),
  { 0, 0, 0 },
"U * - OK OK 0/0 |[CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN] Dovecot ready.\n" },
{ "login", S(
"a1 OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED CONDSTORE QRESYNC ESEARCH BINARY MOVE LITERAL+ SPECIAL-USE] Logged in\r\n"),
  { 0, 0, 0 },
"T a1 - OK OK 0/0 |[CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED CONDSTORE QRESYNC ESEARCH BINARY MOVE LITERAL+ SPECIAL-USE] Logged in\n" },
{ "select", S(
"* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n"
"* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)] Flags permitted.\r\n"
"* 12 EXISTS\r\n"
"* 0 RECENT\r\n"
"* OK [UNSEEN 3] First unseen.\r\n"
"* OK [UIDVALIDITY 1700000000] UIDs valid\r\n"
"* OK [UIDNEXT 13] Predicted next UID\r\n"
"a2 OK [READ-WRITE] Select completed (0.001 + 0.000 secs).\r\n"),
  { 0, 0, 0 },
"U * - NONE FLAGS 0/0 |(\\Answered \\Flagged \\Deleted \\Seen \\Draft)\n"
"U * - OK OK 0/0 |[PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)] Flags permitted.\n"
"U * 12 NONE EXISTS 0/0 |\n"
"U * 0 NONE RECENT 0/0 |\n"
"U * - OK OK 0/0 |[UNSEEN 3] First unseen.\n"
"U * - OK OK 0/0 |[UIDVALIDITY 1700000000] UIDs valid\n"
"U * - OK OK 0/0 |[UIDNEXT 13] Predicted next UID\n"
"T a2 - OK OK 0/0 |[READ-WRITE] Select completed (0.001 + 0.000 secs).\n" },
{ "append", S(
"+ OK\r\n"
"* 13 EXISTS\r\n"
"a3 OK [APPENDUID 1 5] Append completed (0.002 + 0.000 + 0.001 secs).\r\n"
"+ idling\r\n"
"+\r\n"),
  { 0, 0, 0 },
"C + - NONE - 0/0 |OK\n"
"U * 13 NONE EXISTS 0/0 |\n"
"T a3 - OK OK 0/0 |[APPENDUID 1 5] Append completed (0.002 + 0.000 + 0.001 secs).\n"
"C + - NONE - 0/0 |idling\n"
"C + - NONE - 0/0 |\n" },
{ "fetch captured+skipped", S(
"* 1 FETCH (UID 5 BODY[HEADER.FIELDS (SUBJECT)] {21}\r\nSubject: hi there\r\n\r\n BODY[] {81}\r\n"
"From: a@example.org\r\nSubject: {99}\r\n\r\na1 OK not a response\r\n* BYE nor this\r\n{5}\r\n)\r\n"
"a4 OK Fetch completed (0.001 + 0.000 secs).\r\n"),
  { 0, 0, 32 },
"U * 1 NONE FETCH 2/102 |(UID 5 BODY[HEADER.FIELDS (SUBJECT)] {21}\\r\\nSubject: hi there\\r\\n\\r\\n BODY[] {81!})\n"
"T a4 - OK OK 0/0 |Fetch completed (0.001 + 0.000 secs).\n" },
{ "bye", S(
"* BYE Disconnected for inactivity.\r\n"
"* BYE Logging out\r\n"
"a9 OK Logout completed (0.001 + 0.000 secs).\r\n"),
  { 0, 0, 0 },
"U * - BYE BYE 0/0 |Disconnected for inactivity.\n"
"U * - BYE BYE 0/0 |Logging out\n"
"T a9 - OK OK 0/0 |Logout completed (0.001 + 0.000 secs).\n" },
{ "no", S(
"a5 NO [TRYCREATE] Mailbox doesn't exist: Foo (0.001 + 0.000 secs).\r\n"
"a6 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n"),
  { 0, 0, 0 },
"T a5 - NO NO 0/0 |[TRYCREATE] Mailbox doesn't exist: Foo (0.001 + 0.000 secs).\n"
"T a6 - NO NO 0/0 |[AUTHENTICATIONFAILED] Authentication failed.\n" },
{ "bad", S(
"* BAD [PARSE] Invalid characters in atom\r\n"
"a7 BAD Error in IMAP command UIDX: Unknown command (0.001 + 0.000 secs).\r\n"),
  { 0, 0, 0 },
"U * - BAD BAD 0/0 |[PARSE] Invalid characters in atom\n"
"T a7 - BAD BAD 0/0 |Error in IMAP command UIDX: Unknown command (0.001 + 0.000 secs).\n" },
{ "preauth", S(
"* PREAUTH [CAPABILITY IMAP4rev1 LITERAL+] Logged in as bob\r\n"),
  { 0, 0, 0 },
"U * - PREAUTH PREAUTH 0/0 |[CAPABILITY IMAP4rev1 LITERAL+] Logged in as bob\n" },
{ "bare LF", S(
"* 3 EXISTS\n* 1 RECENT\r\n* 2 FETCH (BODY[] {3}\nab\n)\na7 OK done\n"),
  { 0, 0, 0 },
"U * 3 NONE EXISTS 0/0 |\n"
"U * 1 NONE RECENT 0/0 |\n"
"U * 2 NONE FETCH 1/3 |(BODY[] {3}\\r\\nab\\n)\n"
"T a7 - OK OK 0/0 |done\n" },
{ "list", S(
"* LIST (\\HasNoChildren) \"/\" INBOX\r\n"
"* LIST (\\HasNoChildren \\Sent) \"/\" {4}\r\nSent\r\n"
"* LIST (\\Noselect) \"/\" \"\"\r\n"
"a8 OK List completed (0.001 + 0.000 secs).\r\n"),
  { 0, 0, 0 },
"U * - NONE LIST 0/0 |(\\HasNoChildren) \"/\" INBOX\n"
"U * - NONE LIST 1/4 |(\\HasNoChildren \\Sent) \"/\" {4}\\r\\nSent\n"
"U * - NONE LIST 0/0 |(\\Noselect) \"/\" \"\"\n"
"T a8 - OK OK 0/0 |List completed (0.001 + 0.000 secs).\n" },
{ "literal forms", S(
"* 2 FETCH (UID 9 BODY[] {0}\r\n)\r\n"
"* 3 FETCH (BINARY[1] ~{5}\r\nab\0cd)\r\n"
"* 4 FETCH (BODY[] {3+}\r\nabc)\r\n"
"* 5 FETCH (BODY[] {1}\r\n\r)\r\n"
"* LIST () \"/\" {1}\r\n\r\r\n"
"* LIST () \"/\" {1}\r\n\r\n"
"* 6 FETCH (BINARY[] ~{10}\r\n0123456789 BODY[] {12+}\r\nhello world! RFC822.SIZE 12)\r\n"
"a10 ok done\r\n"),
  { 0, 0, 8 },
"U * 2 NONE FETCH 1/0 |(UID 9 BODY[] {0}\\r\\n)\n"
"U * 3 NONE FETCH 1/5 |(BINARY[1] ~{5}\\r\\nab\\x00cd)\n"
"U * 4 NONE FETCH 1/3 |(BODY[] {3+}\\r\\nabc)\n"
"U * 5 NONE FETCH 1/1 |(BODY[] {1}\\r\\n\\r)\n"
"U * - NONE LIST 1/1 |() \"/\" {1}\\r\\n\\r\n"
"U * - NONE LIST 1/1 |() \"/\" {1}\\r\\n\\r\n"
"U * 6 NONE FETCH 2/22 |(BINARY[] ~{10!} BODY[] {12!} RFC822.SIZE 12)\n"
"T a10 - OK ok 0/0 |done\n" },
{ "odd but valid", S(
"* 1 expunge\r\n"
"* OK {see the manual}\r\n"
"* OK\r\n"
"A.b-c]9 NO\r\n"
"* SEARCH 2 3 5\r\n"
"* 4294967295 EXISTS\r\n"),
  { 0, 0, 0 },
"U * 1 NONE expunge 0/0 |\n"
"U * - OK OK 0/0 |{see the manual}\n"
"U * - OK OK 0/0 |\n"
"T A.b-c]9 - NO NO 0/0 |\n"
"U * - NONE SEARCH 0/0 |2 3 5\n"
"U * 4294967295 NONE EXISTS 0/0 |\n" },
};

#define N_TRANSCRIPTS (sizeof(transcripts) / sizeof(transcripts[0]))

/* Feed t->in cut at the given offsets (ascending, may repeat, giving empty
 * feeds) and return the rendering of all events. */
static char *
run_cuts(const struct transcript *t, const size_t *cuts, size_t ncuts)
{
	struct rec r = { 0 };
	struct imap_parser *p = imap_parser_new(&t->lim, rec_cb, &r);
	size_t at = 0;
	rec_put(&r, "", 0);
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : t->in_len;
		long n = imap_parser_feed(p, t->in + at, to - at);
		if (n != (long)(to - at))
			ck_abort_msg("%s: feed [%zu,%zu) gave %ld: %s", t->name,
				     at, to, n, imap_parser_error(p));
		at = to;
	}
	if (imap_parser_pending(p) != 0)
		ck_abort_msg("%s: %llu pending", t->name,
			     (unsigned long long)imap_parser_pending(p));
	if (r.bad != NULL)
		ck_abort_msg("%s: callback check failed: %s", t->name, r.bad);
	imap_parser_free(p);
	return r.s;
}

static void
expect_cuts(const struct transcript *t, const size_t *cuts, size_t ncuts)
{
	char *got = run_cuts(t, cuts, ncuts);
	if (strcmp(got, t->want) != 0)
		ck_abort_msg("%s (cuts %zu: %zu %zu): got\n%s\nwant\n%s",
			     t->name, ncuts, ncuts > 0 ? cuts[0] : 0,
			     ncuts > 1 ? cuts[1] : 0, got, t->want);
	free(got);
}

START_TEST(test_transcript)
{
	const struct transcript *t = &transcripts[_i];
	size_t n = t->in_len;

	expect_cuts(t, NULL, 0);

	size_t *each = xmalloc((n + 1) * sizeof(*each));
	for (size_t i = 0; i < n; i++)
		each[i] = i + 1;
	expect_cuts(t, each, n);	/* one byte per feed */
	free(each);

	for (size_t i = 0; i <= n; i++) {
		size_t c2[2] = { i, 0 };
		expect_cuts(t, c2, 1);
		size_t step = n / 40 + 1;
		for (size_t j = i; j <= n; j += (j < i + 3 ? 1 : step)) {
			c2[1] = j;
			expect_cuts(t, c2, 2);
		}
	}
}
END_TEST

/* The same transcripts, the callback stopping the parser after every event
 * and the caller resuming with the unconsumed rest. */
START_TEST(test_transcript_stop_resume)
{
	const struct transcript *t = &transcripts[_i];
	for (size_t chunk = 1; chunk <= t->in_len; chunk = chunk * 3 + 1) {
		struct rec r = { .stop_every = 1 };
		struct imap_parser *p = imap_parser_new(&t->lim, rec_cb, &r);
		rec_put(&r, "", 0);
		size_t at = 0;
		while (at < t->in_len) {
			size_t n = t->in_len - at < chunk ? t->in_len - at : chunk;
			unsigned before = r.events;
			long got = imap_parser_feed(p, t->in + at, n);
			ck_assert_int_ge(got, 0);
			if (r.events == before)
				ck_assert_int_eq(got, (long)n);
			else
				ck_assert_int_eq(r.events, before + 1);
			at += (size_t)got;
		}
		ck_assert_str_eq(r.s, t->want);
		ck_assert_ptr_null(r.bad);
		imap_parser_free(p);
		free(r.s);
	}
}
END_TEST

/* A parser fed the same transcript again and again keeps its buffer. */
START_TEST(test_no_growth_after_warmup)
{
	const struct transcript *t = &transcripts[2];	/* select */
	struct rec r = { 0 };
	struct imap_parser *p = imap_parser_new(NULL, rec_cb, &r);
	ck_assert_int_eq(imap_parser_feed(p, t->in, t->in_len), (long)t->in_len);
	size_t cap = imap_parser_bufcap(p);
	for (int i = 0; i < 2000; i++) {
		r.len = 0;
		ck_assert_int_eq(imap_parser_feed(p, t->in, t->in_len), (long)t->in_len);
		ck_assert_uint_eq(imap_parser_bufcap(p), cap);
	}
	ck_assert_uint_eq(r.events, 2001 * 8);
	imap_parser_free(p);
	free(r.s);
}
END_TEST

static Suite *
imap_transcript_suite(void)
{
	Suite *s = suite_create("imap_transcript");
	TCase *tc = tcase_create("transcripts");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_transcript, 0, (int)N_TRANSCRIPTS);
	tcase_add_loop_test(tc, test_transcript_stop_resume, 0, (int)N_TRANSCRIPTS);
	tcase_add_test(tc, test_no_growth_after_warmup);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_transcript_suite)
