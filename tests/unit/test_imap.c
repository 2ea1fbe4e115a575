/* test_imap.c: the response parser against realistic transcripts fed in
 * every split, plus limits, malformed input, stop/reset and memory use.
 *
 * Each event is rendered as one line
 *     <kind> <tag> <num> <cond> <keyword> <literals>/<literal bytes> |<text>
 * (kind T/U/C, tag "*" or "+" when untagged/continuation, "-" for absent
 * num/keyword, CR/LF/non-printables escaped), and the callback checks that
 * tag, number, keyword and text are exactly where they belong in line, so
 * comparing these renderings compares every field. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "imap.h"
#include "xmalloc.h"

/* Test-only accessor defined in imap.c. */
size_t imap_parser_bufcap(const struct imap_parser *p);

struct rec {
	char *s;
	size_t len, cap;
	unsigned events;
	unsigned stop_every;	/* callback returns 1 on every Nth event */
	const char *bad;	/* first failed invariant in the callback */
};

/* Check records every ck_assert (a write per call), far too slow for the
 * millions of events of the split tests, so the callback only notes the
 * first failure and the caller asserts once. */
#define REC_CHECK(r, cond)						\
	do {								\
		if (!(cond) && (r)->bad == NULL)			\
			(r)->bad = #cond;				\
	} while (0)

static void
rec_put(struct rec *r, const char *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		r->cap = (r->len + n + 1) * 2;
		r->s = xrealloc(r->s, r->cap);
	}
	memcpy(r->s + r->len, s, n);
	r->len += n;
	r->s[r->len] = '\0';
}

static void
rec_printf(struct rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
rec_printf(struct rec *r, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		ck_abort_msg("rec_printf overflow");
	rec_put(r, tmp, (size_t)n);
}

static void
rec_esc(struct rec *r, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r')
			rec_put(r, "\\r", 2);
		else if (c == '\n')
			rec_put(r, "\\n", 2);
		else if (c >= 0x20 && c < 0x7f)
			rec_put(r, (const char *)&s[i], 1);
		else
			rec_printf(r, "\\x%02x", c);
	}
}

static const char *const cond_names[] = {
	"NONE", "OK", "NO", "BAD", "BYE", "PREAUTH"
};

static int
rec_cb(void *arg, const struct imap_resp *x)
{
	struct rec *r = arg;
	const char *line = x->line, *end = x->line + x->line_len;
	const char *after_kw = x->keyword + x->keyword_len;

	REC_CHECK(r, line[x->line_len] == '\0');
	REC_CHECK(r, x->text >= line && x->text + x->text_len == end);
	REC_CHECK(r, x->keyword >= line && after_kw <= end);
	if (x->kind != IMAP_CONTINUATION)
		REC_CHECK(r, x->text == end
				 ? after_kw == end || after_kw + 1 == end
				 : x->text == after_kw + 1);
	switch (x->kind) {
	case IMAP_TAGGED:
		REC_CHECK(r, x->tag == line && x->tag_len > 0);
		REC_CHECK(r, x->keyword == line + x->tag_len + 1);
		REC_CHECK(r, !x->has_num);
		rec_put(r, "T ", 2);
		rec_put(r, x->tag, x->tag_len);
		break;
	case IMAP_UNTAGGED: {
		char num[16] = "";
		if (x->has_num)
			snprintf(num, sizeof(num), "%u ", x->num);
		REC_CHECK(r, strncmp(line, "* ", 2) == 0);
		REC_CHECK(r, strncmp(line + 2, num, strlen(num)) == 0);
		REC_CHECK(r, x->keyword == line + 2 + strlen(num));
		rec_put(r, "U *", 3);
		break;
	}
	case IMAP_CONTINUATION:
		REC_CHECK(r, line[0] == '+');
		REC_CHECK(r, x->text == line + (line[1] == ' ' ? 2 : 1));
		REC_CHECK(r, !x->has_num && x->cond == IMAP_COND_NONE);
		rec_put(r, "C +", 3);
		break;
	}
	if (x->has_num)
		rec_printf(r, " %u", x->num);
	else
		rec_put(r, " -", 2);
	rec_printf(r, " %s ", cond_names[x->cond]);
	if (x->keyword_len)
		rec_esc(r, x->keyword, x->keyword_len);
	else
		rec_put(r, "-", 1);
	rec_printf(r, " %u/%llu |", x->literals,
		   (unsigned long long)x->literal_bytes);
	rec_esc(r, x->text, x->text_len);
	rec_put(r, "\n", 1);
	r->events++;
	return r->stop_every && r->events % r->stop_every == 0;
}

#define S(x) x, sizeof(x) - 1

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

struct bad_case {
	const char *in;
	size_t in_len;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ S("\r\n"), "empty response line" },
	{ S("\n"), "empty response line" },
	{ S(" a1 OK\r\n"), "response does not start with a tag, \"*\" or \"+\": \" a1 OK\"" },
	{ S("(a1) OK\r\n"), "does not start with a tag" },
	{ S("\x16\x03\x01\x02\x00\r\n"), "does not start with a tag, \"*\" or \"+\": \"\\x16\\x03\\x01\\x02\\x00\"" },
	{ S("a(1 OK x\r\n"), "invalid character 0x28 in tag: \"a(1 OK x\"" },
	{ S("a1+ OK\r\n"), "invalid character 0x2b in tag" },
	{ S("a\"1 OK\r\n"), "invalid character 0x22 in tag" },
	{ S("a1 FOO bar\r\n"), "tagged response without OK/NO/BAD: \"a1 FOO bar\"" },
	{ S("HTTP/1.1 400 Bad Request\r\n"), "tagged response without OK/NO/BAD" },
	{ S("a1\r\n"), "tagged response without OK/NO/BAD" },
	{ S("a1  OK\r\n"), "tagged response without OK/NO/BAD" },
	{ S("*\r\n"), "untagged response without a keyword" },
	{ S("* \r\n"), "untagged response without a keyword" },
	{ S("* 12\r\n"), "untagged response without a keyword" },
	{ S("*OK\r\n"), "untagged response without a space after \"*\"" },
	{ S("* 4294967296 EXISTS\r\n"), "number in untagged response out of range (max 4294967295)" },
	{ S("* 99999999999999999999999 EXISTS\r\n"), "out of range" },
	{ S("* 12x EXISTS\r\n"), "malformed number in untagged response: \"* 12x EXISTS\"" },
	{ S("* 1 FETCH (BODY[] {12x}\r\n"), "malformed literal \"{12x}\"" },
	{ S("* 1 FETCH (BODY[] {}\r\n"), "malformed literal \"{}\"" },
	{ S("* 1 FETCH (BODY[] {+}\r\n"), "malformed literal \"{+}\"" },
	{ S("* 1 FETCH (BODY[] {-1}\r\n"), "malformed literal \"{-1}\"" },
	{ S("* 1 FETCH (BODY[] {1++}\r\n"), "malformed literal \"{1++}\"" },
	{ S("* 1 FETCH (BODY[] {4294967296}\r\n"), "literal of 4294967296 bytes exceeds max-literal 268435456" },
	{ S("* 1 FETCH (BODY[] ~{268435457}\r\n"), "literal of 268435457 bytes exceeds max-literal 268435456" },
	{ S("* 1 FETCH (BODY[] {18446744073709551615}\r\n"), "literal of 18446744073709551615 bytes exceeds" },
	{ S("* 1 FETCH (BODY[] {18446744073709551616}\r\n"), "literal of 18446744073709551616 bytes exceeds" },
	{ S("* 1 FETCH (BODY[] {999999999999999999999999999999}\r\n"), "literal of 999999999999999999999999999999 bytes exceeds max-literal" },
	{ S("* 1 FETCH (BODY[] {2}\r\nab{5x}\r\n"), "malformed literal \"{5x}\"" },
	{ S("* OK fine\r\n* 1 FETCH (BODY[] {2}\r\nab)\r\nnot-a-tag\r\n"), "tagged response without OK/NO/BAD: \"not-a-tag\"" },
};

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

START_TEST(test_malformed)
{
	const struct bad_case *b = &bad_cases[_i];
	for (int bytewise = 0; bytewise <= 1; bytewise++) {
		struct rec r = { 0 };
		struct imap_parser *p = imap_parser_new(NULL, rec_cb, &r);
		long got = 0;
		if (bytewise) {
			for (size_t i = 0; i < b->in_len && got >= 0; i++)
				got = imap_parser_feed(p, b->in + i, 1);
		} else {
			got = imap_parser_feed(p, b->in, b->in_len);
		}
		ck_assert_msg(got == -1, "case %d: feed gave %ld", _i, got);
		ck_assert_msg(strstr(imap_parser_error(p), b->msg) != NULL,
			      "case %d: error \"%s\", want \"%s\"", _i,
			      imap_parser_error(p), b->msg);
		/* Sticky until reset, then the parser is usable again. */
		ck_assert_int_eq(imap_parser_feed(p, S("* OK\r\n")), -1);
		imap_parser_reset(p);
		ck_assert_str_eq(imap_parser_error(p), "");
		unsigned before = r.events;
		ck_assert_int_eq(imap_parser_feed(p, S("a1 OK done\r\n")), 12);
		ck_assert_uint_eq(r.events, before + 1);
		imap_parser_free(p);
		free(r.s);
	}
}
END_TEST

static struct imap_parser *
new_rec_parser(struct rec *r, size_t max_line, uint64_t max_literal,
	       size_t capture)
{
	struct imap_limits lim = { max_line, max_literal, capture };
	memset(r, 0, sizeof(*r));
	rec_put(r, "", 0);
	return imap_parser_new(&lim, rec_cb, r);
}

START_TEST(test_literal_limits)
{
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 0, 100, 0);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {100}\r\n")), 25);
	ck_assert_uint_eq(imap_parser_pending(p), 25);
	imap_parser_reset(p);
	ck_assert_uint_eq(imap_parser_pending(p), 0);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {101}\r\n")), -1);
	ck_assert_str_eq(imap_parser_error(p),
			 "literal of 101 bytes exceeds max-literal 100");
	imap_parser_free(p);
	free(r.s);

	/* With no practical limit, sizes past 32 bits are fine and only
	 * a number past 64 bits is refused. */
	p = new_rec_parser(&r, 0, UINT64_MAX, 0);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {4294967296}\r\n")), 32);
	imap_parser_reset(p);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {18446744073709551615}\r\n")), 42);
	imap_parser_reset(p);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {18446744073709551616}\r\n")), -1);
	ck_assert_str_eq(imap_parser_error(p), "literal of 18446744073709551616 "
			 "bytes exceeds max-literal 18446744073709551615");
	imap_parser_free(p);
	free(r.s);
}
END_TEST

START_TEST(test_defaults)
{
	static const struct imap_limits zero = { 0, 0, 0 };
	for (int k = 0; k < 2; k++) {
		struct rec r = { 0 };
		struct imap_parser *p = imap_parser_new(k ? &zero : NULL,
							rec_cb, &r);
		static char body[4097];
		memset(body, 'x', sizeof(body));
		/* 4 KiB is captured, one more octet is skipped. */
		ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {4096}\r\n")), 26);
		ck_assert_int_eq(imap_parser_feed(p, body, 4096), 4096);
		ck_assert_int_eq(imap_parser_feed(p, S(")\r\n* 2 FETCH (BODY[] {4097}\r\n")), 29);
		ck_assert_int_eq(imap_parser_feed(p, body, 4097), 4097);
		ck_assert_int_eq(imap_parser_feed(p, S(")\r\n")), 3);
		ck_assert_uint_eq(r.events, 2);
		ck_assert(strstr(r.s, "{4096}\\r\\nxxxx") != NULL);
		ck_assert(strstr(r.s, "1/4097 |(BODY[] {4097!})\n") != NULL);
		/* 256 MiB literal accepted, one more refused. */
		ck_assert_int_eq(imap_parser_feed(p, S("* 3 FETCH (BODY[] {268435456}\r\n")), 31);
		imap_parser_reset(p);
		ck_assert_int_eq(imap_parser_feed(p, S("* 3 FETCH (BODY[] {268435457}\r\n")), -1);
		imap_parser_reset(p);
		/* 64 KiB of text accepted, one more refused. */
		static char line[65536 + 3];
		memset(line, 'y', sizeof(line));
		memcpy(line, "* OK ", 5);
		memcpy(line + 65536, "\r\n", 2);
		ck_assert_int_eq(imap_parser_feed(p, line, 65538), 65538);
		ck_assert_uint_eq(r.events, 3);
		line[65536] = 'y';
		memcpy(line + 65537, "\r\n", 2);
		ck_assert_int_eq(imap_parser_feed(p, line, 65539), -1);
		ck_assert_str_eq(imap_parser_error(p),
				 "response line longer than 65536 bytes");
		imap_parser_free(p);
		free(r.s);
	}
	imap_parser_free(NULL);
}
END_TEST

START_TEST(test_line_limit)
{
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 16, 0, 0);
	/* Exactly 16 octets of text, the CRLF not counted, even when the CR
	 * arrives alone at the limit. */
	ck_assert_int_eq(imap_parser_feed(p, S("* OK 0123456789a\r\n")), 18);
	ck_assert_int_eq(imap_parser_feed(p, S("* OK 0123456789a\r")), 17);
	ck_assert_int_eq(imap_parser_feed(p, S("\n")), 1);
	ck_assert_uint_eq(r.events, 2);
	ck_assert_int_eq(imap_parser_feed(p, S("* OK 0123456789ab\r\n")), -1);
	ck_assert_str_eq(imap_parser_error(p), "response line longer than 16 bytes");
	imap_parser_reset(p);
	ck_assert_int_eq(imap_parser_feed(p, S("* OK 0123456789a\r")), 17);
	ck_assert_int_eq(imap_parser_feed(p, S("x")), -1);
	imap_parser_reset(p);
	/* Text is summed across literal segments; literal octets are not. */
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 F {40}\r\n")), 12);
	ck_assert_int_eq(imap_parser_feed(p, S("0123456789012345678901234567890123456789 X)\r\n")), 45);
	ck_assert_uint_eq(r.events, 3);
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 F {2}\r\nab 01234567\r\n")), -1);
	imap_parser_free(p);
	free(r.s);

	/* A line that never ends fails before it is buffered whole. */
	p = new_rec_parser(&r, 0, 0, 0);
	static char junk[4096];
	memset(junk, 'x', sizeof(junk));
	size_t fed = 0;
	long got = imap_parser_feed(p, S("* OK "));
	while (got >= 0 && fed < (1u << 20)) {
		got = imap_parser_feed(p, junk, sizeof(junk));
		if (got >= 0)
			fed += (size_t)got;
	}
	ck_assert_int_eq(got, -1);
	ck_assert_uint_le(fed, 65536);
	ck_assert_uint_le(imap_parser_bufcap(p), 2 * 65536);
	ck_assert_str_eq(imap_parser_error(p), "response line longer than 65536 bytes");
	imap_parser_free(p);
	free(r.s);

	p = new_rec_parser(&r, 1000, 0, 0);
	fed = 0;
	do {
		got = imap_parser_feed(p, "z", 1);
		fed++;
	} while (got == 1 && fed < (1u << 20));
	ck_assert_int_eq(got, -1);
	ck_assert_uint_eq(fed, 1001);
	imap_parser_free(p);
	free(r.s);
}
END_TEST

START_TEST(test_capture_budget)
{
	/* capture 4 -> at most 32 captured octets per response; the ninth
	 * 4-octet literal is skipped rather than failing the response. */
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 0, 0, 4);
	const char *in = "* 1 FETCH (ENVELOPE ({4}\r\naaaa {4}\r\nbbbb {4}\r\ncccc "
		"{4}\r\ndddd {4}\r\neeee {4}\r\nffff {4}\r\ngggg {4}\r\nhhhh "
		"{4}\r\niiii {5}\r\njjjjj {0}\r\n))\r\n";
	ck_assert_int_eq(imap_parser_feed(p, in, strlen(in)), (long)strlen(in));
	ck_assert_str_eq(r.s, "U * 1 NONE FETCH 11/41 |(ENVELOPE ("
		"{4}\\r\\naaaa {4}\\r\\nbbbb {4}\\r\\ncccc {4}\\r\\ndddd "
		"{4}\\r\\neeee {4}\\r\\nffff {4}\\r\\ngggg {4}\\r\\nhhhh "
		"{4!} {5!} {0}\\r\\n))\n");
	imap_parser_free(p);
	free(r.s);
}
END_TEST

START_TEST(test_stop)
{
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 0, 0, 0);
	const char *in = "* 3 EXISTS\r\n* 2 FETCH (BODY[] {3}\r\nabc)\r\na1 OK x\r\n";
	r.stop_every = 1;
	ck_assert_int_eq(imap_parser_feed(p, in, strlen(in)), 12);
	ck_assert_int_eq(imap_parser_feed(p, in + 12, strlen(in) - 12), 29);
	ck_assert_int_eq(imap_parser_feed(p, in + 41, strlen(in) - 41), 9);
	ck_assert_uint_eq(r.events, 3);
	ck_assert_uint_eq(imap_parser_pending(p), 0);
	/* Stopping on a response that ends the chunk changes nothing. */
	ck_assert_int_eq(imap_parser_feed(p, S("a2 OK y\r\n")), 9);
	ck_assert_uint_eq(r.events, 4);
	imap_parser_free(p);
	free(r.s);
}
END_TEST

START_TEST(test_pending_and_reset)
{
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 0, 0, 4);
	ck_assert_uint_eq(imap_parser_pending(p), 0);
	ck_assert_int_eq(imap_parser_feed(p, S("* OK hel")), 8);
	ck_assert_uint_eq(imap_parser_pending(p), 8);
	ck_assert_int_eq(imap_parser_feed(p, S("lo\r\n* 1 FETCH (BODY[] {10}\r\n0123")), 32);
	ck_assert_uint_eq(r.events, 1);
	ck_assert_uint_eq(imap_parser_pending(p), 28);
	/* A reset mid-literal forgets it: what follows is a new response. */
	imap_parser_reset(p);
	ck_assert_uint_eq(imap_parser_pending(p), 0);
	ck_assert_int_eq(imap_parser_feed(p, S("a1 NO [ALERT] x\r\n")), 17);
	ck_assert_str_eq(r.s, "U * - OK OK 0/0 |hello\nT a1 - NO NO 0/0 |[ALERT] x\n");
	/* A reset in the middle of text, too: "}" alone is now a tag. */
	ck_assert_int_eq(imap_parser_feed(p, S("* 1 FETCH (BODY[] {2")), 20);
	imap_parser_reset(p);
	ck_assert_int_eq(imap_parser_feed(p, S("}\r\n")), -1);
	ck_assert_str_eq(imap_parser_error(p),
			 "tagged response without OK/NO/BAD: \"}\"");
	imap_parser_free(p);
	free(r.s);
}
END_TEST

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

START_TEST(test_big_skipped_literal)
{
	struct rec r;
	struct imap_parser *p = new_rec_parser(&r, 0, 0, 0);
	const size_t total = 10u << 20;
	static char chunk[65536];
	/* Literal content that would confuse a parser scanning it. */
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = "\r\n{5}\r\n* OK a1 BAD ~{9+}\n"[i % 26];
	const char *head = "* 7 FETCH (UID 7 BODY[] {10485760}\r\n";
	size_t hl = strlen(head);
	ck_assert_int_eq(imap_parser_feed(p, head, hl), (long)hl);
	size_t cap0 = imap_parser_bufcap(p);
	ck_assert_uint_le(cap0, 1024);

	uint32_t seed = 42;
	size_t done = 0;
	while (done < total) {
		size_t n = done < 65536 ? 1 : 1 + lcg(&seed) % sizeof(chunk);
		if (n > total - done)
			n = total - done;
		ck_assert_int_eq(imap_parser_feed(p, chunk, n), (long)n);
		done += n;
		ck_assert_uint_eq(imap_parser_pending(p), hl + done);
		ck_assert_uint_eq(imap_parser_bufcap(p), cap0);
	}
	ck_assert_uint_eq(r.events, 0);
	ck_assert_int_eq(imap_parser_feed(p, S(")\r\n")), 3);
	ck_assert_str_eq(r.s, "U * 7 NONE FETCH 1/10485760 |(UID 7 BODY[] {10485760!})\n");
	ck_assert_uint_eq(imap_parser_bufcap(p), cap0);
	imap_parser_free(p);
	free(r.s);
}
END_TEST

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

static int
code_cb(void *arg, const struct imap_resp *x)
{
	char *out = arg;
	const char *c, *a;
	size_t cl, al;
	if (imap_resp_code(x, &c, &cl, &a, &al))
		snprintf(out + strlen(out), 256 - strlen(out), "[%.*s|%.*s]",
			 (int)cl, c, (int)al, a);
	else
		strcat(out, "[none]");
	return 0;
}

START_TEST(test_helpers)
{
	char out[256] = "";
	struct imap_parser *p = imap_parser_new(NULL, code_cb, out);
	const char *in =
		"a3 OK [APPENDUID 1 5] Append completed.\r\n"
		"a2 OK [READ-WRITE] Select completed.\r\n"
		"* OK [PERMANENTFLAGS (\\Seen \\*)] Flags permitted.\r\n"
		"a1 OK Logged in\r\n"
		"* OK [unterminated\r\n"
		"* OK []\r\n"
		"* NO [ALERT]\r\n"
		"+ [X] y\r\n";
	ck_assert_int_eq(imap_parser_feed(p, in, strlen(in)), (long)strlen(in));
	ck_assert_str_eq(out, "[APPENDUID|1 5][READ-WRITE|][PERMANENTFLAGS|"
			 "(\\Seen \\*)][none][none][none][ALERT|][X|]");
	imap_parser_free(p);

	struct imap_resp x = { .keyword = "EXISTS", .keyword_len = 6 };
	ck_assert(imap_resp_is(&x, "EXISTS"));
	ck_assert(imap_resp_is(&x, "exists"));
	ck_assert(!imap_resp_is(&x, "EXIST"));
	ck_assert(!imap_resp_is(&x, "EXISTSS"));
	ck_assert(!imap_resp_is(&x, ""));

	const char *caps = "IMAP4rev1 SASL-IR  LOGIN-REFERRALS ID IDLE LITERAL+ AUTH=PLAIN";
	size_t cn = strlen(caps);
	ck_assert(imap_caps_has(caps, cn, "IMAP4rev1"));
	ck_assert(imap_caps_has(caps, cn, "imap4REV1"));
	ck_assert(imap_caps_has(caps, cn, "LOGIN-REFERRALS"));
	ck_assert(imap_caps_has(caps, cn, "literal+"));
	ck_assert(imap_caps_has(caps, cn, "AUTH=PLAIN"));
	ck_assert(!imap_caps_has(caps, cn, "AUTH"));
	ck_assert(!imap_caps_has(caps, cn, "IMAP4"));
	ck_assert(!imap_caps_has(caps, cn, "LITERAL"));
	ck_assert(!imap_caps_has(caps, cn, "STARTTLS"));
	ck_assert(!imap_caps_has(caps, cn, ""));
	ck_assert(!imap_caps_has(caps, 9, "SASL-IR"));	/* only first n */
	ck_assert(imap_caps_has(caps, 9, "IMAP4REV1"));
	ck_assert(!imap_caps_has("", 0, "IDLE"));
}
END_TEST

static int
kw_cb(void *arg, const struct imap_resp *x)
{
	char *out = arg;

	snprintf(out + strlen(out), 512 - strlen(out), "%d,", (int)x->kw_id);
	return 0;
}

/* The parser classifies every keyword once, case-insensitively, and
 * imap_resp_kw() classifies a hand-made response the same way. */
START_TEST(test_keyword_ids)
{
	static const struct {
		const char *name;
		enum imap_kw kw;
	} names[] = {
		{ "OK", IMAP_KW_OK }, { "NO", IMAP_KW_NO },
		{ "BAD", IMAP_KW_BAD }, { "BYE", IMAP_KW_BYE },
		{ "PREAUTH", IMAP_KW_PREAUTH },
		{ "CAPABILITY", IMAP_KW_CAPABILITY },
		{ "ENABLED", IMAP_KW_ENABLED }, { "ID", IMAP_KW_ID },
		{ "NAMESPACE", IMAP_KW_NAMESPACE }, { "LIST", IMAP_KW_LIST },
		{ "LSUB", IMAP_KW_LSUB }, { "STATUS", IMAP_KW_STATUS },
		{ "SEARCH", IMAP_KW_SEARCH }, { "ESEARCH", IMAP_KW_ESEARCH },
		{ "FLAGS", IMAP_KW_FLAGS }, { "EXISTS", IMAP_KW_EXISTS },
		{ "RECENT", IMAP_KW_RECENT }, { "EXPUNGE", IMAP_KW_EXPUNGE },
		{ "FETCH", IMAP_KW_FETCH }, { "VANISHED", IMAP_KW_VANISHED },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *n = names[i].name;
		size_t len = strlen(n);
		char lower[16], mixed[16], off[16] = "";
		for (size_t k = 0; k <= len; k++) {
			lower[k] = (char)(n[k] | (n[k] ? 0x20 : 0));
			mixed[k] = k % 2 ? lower[k] : n[k];
			off[k] = n[k];
		}
		ck_assert_int_eq(imap_kw_classify(n, len), names[i].kw);
		ck_assert_int_eq(imap_kw_classify(lower, len), names[i].kw);
		ck_assert_int_eq(imap_kw_classify(mixed, len), names[i].kw);
		/* one octet off, in every place; a prefix; one more octet */
		for (size_t k = 0; k < len; k++) {
			off[k] = (char)(n[k] ^ 0x01);
			ck_assert_msg(imap_kw_classify(off, len) == IMAP_KW_OTHER,
				      "%s: %s", n, off);
			off[k] = n[k];
		}
		ck_assert(imap_kw_classify(n, len - 1) != names[i].kw);
		off[len] = 'S';
		ck_assert(imap_kw_classify(off, len + 1) != names[i].kw);
	}
	ck_assert_int_eq(imap_kw_classify("O\xcb", 2), IMAP_KW_OTHER);
	ck_assert_int_eq(imap_kw_classify("", 0), IMAP_KW_OTHER);
	ck_assert_int_eq(imap_kw_classify("CAPABILITYX", 11), IMAP_KW_OTHER);

	char out[512] = "";
	struct imap_parser *p = imap_parser_new(NULL, kw_cb, out);
	const char *in =
		"* 3 fetch (UID 1)\r\n"
		"* 4 EXISTS\r\n"
		"* 2 Expunge\r\n"
		"* ok [UIDNEXT 5] x\r\n"
		"* CAPABILITY IMAP4rev1\r\n"
		"* 3 FOO\r\n"
		"* XFETCH (a)\r\n"
		"a1 ok done\r\n"
		"a2 BAD no\r\n"
		"+ OK go on\r\n"	/* a continuation's keyword is empty */
		"+ \r\n"
		"* VANISHED 1:3\r\n";
	ck_assert_int_eq(imap_parser_feed(p, in, strlen(in)), (long)strlen(in));
	char want[512];
	snprintf(want, sizeof(want), "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,",
		 IMAP_KW_FETCH, IMAP_KW_EXISTS, IMAP_KW_EXPUNGE, IMAP_KW_OK,
		 IMAP_KW_CAPABILITY, IMAP_KW_OTHER, IMAP_KW_OTHER, IMAP_KW_OK,
		 IMAP_KW_BAD, IMAP_KW_OTHER, IMAP_KW_OTHER, IMAP_KW_VANISHED);
	ck_assert_str_eq(out, want);
	imap_parser_free(p);

	/* made by hand: kw_id IMAP_KW_UNSET */
	struct imap_resp x = { .keyword = "Exists", .keyword_len = 6 };
	ck_assert_int_eq(x.kw_id, IMAP_KW_UNSET);
	ck_assert_int_eq(imap_resp_kw(&x), IMAP_KW_EXISTS);
	x.kw_id = IMAP_KW_FETCH;	/* set: taken as it is */
	ck_assert_int_eq(imap_resp_kw(&x), IMAP_KW_FETCH);
	struct imap_resp none = { .keyword = NULL };
	ck_assert_int_eq(imap_resp_kw(&none), IMAP_KW_OTHER);
}
END_TEST

static Suite *
imap_suite(void)
{
	Suite *s = suite_create("imap");
	TCase *tc = tcase_create("transcripts");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_transcript, 0, (int)N_TRANSCRIPTS);
	tcase_add_loop_test(tc, test_transcript_stop_resume, 0, (int)N_TRANSCRIPTS);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_malformed, 0, (int)N_BAD);
	tcase_add_test(tc, test_literal_limits);
	tcase_add_test(tc, test_line_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("behaviour");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_capture_budget);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_pending_and_reset);
	tcase_add_test(tc, test_big_skipped_literal);
	tcase_add_test(tc, test_no_growth_after_warmup);
	tcase_add_test(tc, test_helpers);
	tcase_add_test(tc, test_keyword_ids);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_suite)
