/* test_imap.c: the response parser's limits, malformed input, stop/reset
 * and memory use.  Realistic transcripts fed in every split are in
 * test_imap_transcript.c; both render events with imap_rec.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap.h"
#include "imap_rec.h"
#include "util/xmalloc.h"

/* Test-only accessor defined in imap.c. */
size_t imap_parser_bufcap(const struct imap_parser *p);

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

/* imap_parser_trim: a connection going into IDLE gives its grown buffer
 * back once the "+ idling" is read (the callback asks, as conn_resp.c
 * does), and parses on; asked between responses it is at once; asked in
 * the middle of one it waits for the end. */
struct trim_seen {
	struct imap_parser *p;
	unsigned n;
	uint32_t last_num;
	size_t last_len;
};

static int
trim_cb(void *arg, const struct imap_resp *x)
{
	struct trim_seen *t = arg;
	t->n++;
	t->last_num = x->has_num ? x->num : 0;
	t->last_len = x->line_len;
	if (x->kind == IMAP_CONTINUATION)
		imap_parser_trim(t->p);
	return 0;
}

static void
feed_fetch(struct imap_parser *p, size_t n, size_t first)
{
	static char body[1500];
	char head[64];
	memset(body, 'x', sizeof(body));
	snprintf(head, sizeof(head), "* 2 FETCH (BODY[] {%zu}\r\n", n);
	ck_assert_int_eq(imap_parser_feed(p, head, strlen(head)),
			 (long)strlen(head));
	ck_assert_int_eq(imap_parser_feed(p, body, first), (long)first);
	if (first < n)
		ck_assert_int_eq(imap_parser_feed(p, body + first, n - first),
				 (long)(n - first));
}

START_TEST(test_trim)
{
	struct trim_seen t = { 0 };
	struct imap_parser *p = imap_parser_new(NULL, trim_cb, &t);
	t.p = p;

	/* No buffer before the first octets (made on the reading thread). */
	ck_assert_uint_eq(imap_parser_bufcap(p), 0);
	imap_parser_trim(p);			/* nothing to trim: none made */
	ck_assert_uint_eq(imap_parser_bufcap(p), 0);
	feed_fetch(p, 1500, 1500);
	ck_assert_int_eq(imap_parser_feed(p, S(")\r\n")), 3);
	size_t grown = imap_parser_bufcap(p);
	ck_assert_uint_ge(grown, 1500);
	/* "+ idling" and an EXISTS in one read: trimmed in between. */
	ck_assert_int_eq(imap_parser_feed(p, S("+ idling\r\n* 3 EXISTS\r\n")),
			 22);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_uint_eq(t.last_num, 3);
	ck_assert_uint_le(imap_parser_bufcap(p), 64);

	/* It grows again, and between responses the trim is at once. */
	feed_fetch(p, 1500, 1500);
	ck_assert_int_eq(imap_parser_feed(p, S(")\r\n")), 3);
	ck_assert_uint_ge(imap_parser_bufcap(p), 1500);
	imap_parser_trim(p);
	ck_assert_uint_le(imap_parser_bufcap(p), 64);

	/* Mid-response: the part read is kept, the trim comes at its end. */
	static char rest[800];
	memset(rest, 'x', sizeof(rest));
	feed_fetch(p, 1500, 700);
	size_t mid = imap_parser_bufcap(p);
	imap_parser_trim(p);
	ck_assert_uint_eq(imap_parser_bufcap(p), mid);
	ck_assert_int_eq(imap_parser_feed(p, rest, sizeof(rest)), 800);
	unsigned before = t.n;
	ck_assert_int_eq(imap_parser_feed(p, S(")\r\n")), 3);
	ck_assert_uint_eq(t.n, before + 1);
	ck_assert_uint_eq(t.last_num, 2);
	ck_assert_uint_ge(t.last_len, 1500);
	ck_assert_uint_le(imap_parser_bufcap(p), 64);
	imap_parser_free(p);
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

	/* The names one at a time, runs of spaces skipped, none after the
	 * last (trailing spaces included). */
	const char *two = "  IDLE   AUTH=PLAIN  ";
	size_t pos = 0, len;
	const char *name;
	ck_assert(imap_caps_next(two, strlen(two), &pos, &name, &len));
	ck_assert_uint_eq(len, 4);
	ck_assert(strncmp(name, "IDLE", 4) == 0);
	ck_assert(imap_caps_next(two, strlen(two), &pos, &name, &len));
	ck_assert_uint_eq(len, 10);
	ck_assert(strncmp(name, "AUTH=PLAIN", 10) == 0);
	ck_assert(!imap_caps_next(two, strlen(two), &pos, &name, &len));
	pos = 0;
	ck_assert(!imap_caps_next("", 0, &pos, &name, &len));
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
	TCase *tc = tcase_create("errors");
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
	tcase_add_test(tc, test_helpers);
	tcase_add_test(tc, test_trim);
	tcase_add_test(tc, test_keyword_ids);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_suite)
