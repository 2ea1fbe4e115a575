/* test_imap_cmd.c: the command builders: exact bytes for quoted strings,
 * literals in both forms, the continuation split points, sequence sets. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "check_main.h"
#include "imap/imap_cmd.h"

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

static struct evbuffer *buf;
static struct imap_cmd cmd;

static void
setup(void)
{
	buf = evbuffer_new();
	ck_assert_ptr_nonnull(buf);
}

static void
teardown(void)
{
	evbuffer_free(buf);
}

/* The whole buffer must be exactly want (n bytes; may hold NUL). */
static void
expect_bytes(const char *want, size_t n)
{
	size_t len = evbuffer_get_length(buf);
	const unsigned char *got = evbuffer_pullup(buf, -1);
	ck_assert_msg(len == n && (n == 0 || memcmp(got, want, n) == 0),
		      "got %zu bytes \"%.*s\", want %zu bytes \"%.*s\"",
		      len, (int)len, (const char *)got, n, (int)n, want);
}

static void
expect(const char *want)
{
	expect_bytes(want, strlen(want));
}

/* --- quoted strings ---------------------------------------------------- */

START_TEST(test_quoted_plain)
{
	imap_cmd_init(&cmd, buf, false);
	ck_assert(imap_cmd_astring(&cmd, "INBOX", 5));
	imap_cmd_adds(&cmd, " ");
	ck_assert(imap_cmd_astring(&cmd, "", 0));
	imap_cmd_adds(&cmd, " ");
	ck_assert(imap_cmd_astring(&cmd, "a b(c)%*{1}", 11));
	expect("\"INBOX\" \"\" \"a b(c)%*{1}\"");
	ck_assert_uint_eq(cmd.n_splits, 0);
}
END_TEST

START_TEST(test_quoted_escapes)
{
	imap_cmd_init(&cmd, buf, false);
	ck_assert(imap_cmd_astring(&cmd, "a\"b\\c", 5));
	expect("\"a\\\"b\\\\c\"");
	evbuffer_drain(buf, evbuffer_get_length(buf));

	/* Specials at both ends and back to back. */
	ck_assert(imap_cmd_astring(&cmd, "\"\\\\\"", 4));
	expect("\"\\\"\\\\\\\\\\\"\"");
	ck_assert_uint_eq(cmd.n_splits, 0);
}
END_TEST

START_TEST(test_quotable)
{
	ck_assert(imap_cmd_quotable("", 0));
	ck_assert(imap_cmd_quotable("a\"b\\c", 5));
	ck_assert(imap_cmd_quotable("\t~ \x7f", 4));
	ck_assert(!imap_cmd_quotable("a\rb", 3));
	ck_assert(!imap_cmd_quotable("a\nb", 3));
	ck_assert(!imap_cmd_quotable("a\0b", 3));
	ck_assert(!imap_cmd_quotable("caf\xc3\xa9", 5));
	ck_assert(!imap_cmd_quotable("\x80", 1));
	/* Only the first n octets count. */
	ck_assert(imap_cmd_quotable("ab\r\n", 2));
}
END_TEST

/* --- literals ---------------------------------------------------------- */

START_TEST(test_astring_literal_plus)
{
	imap_cmd_init(&cmd, buf, true);
	imap_cmd_adds(&cmd, "1.1 LOGIN ");
	ck_assert(imap_cmd_astring(&cmd, "a\r\nb", 4));
	imap_cmd_adds(&cmd, " ");
	ck_assert(imap_cmd_astring(&cmd, "caf\xc3\xa9", 5));
	imap_cmd_adds(&cmd, " ");
	ck_assert(imap_cmd_astring(&cmd, "x\0y", 3));
	imap_cmd_adds(&cmd, "\r\n");
	static const char want[] = "1.1 LOGIN {4+}\r\na\r\nb {5+}\r\ncaf\xc3\xa9"
		" {3+}\r\nx\0y\r\n";
	expect_bytes(want, sizeof(want) - 1);
	ck_assert_uint_eq(cmd.n_splits, 0);
}
END_TEST

START_TEST(test_astring_sync_literal)
{
	const char *head = "1.2 LOGIN {4}\r\n";

	imap_cmd_init(&cmd, buf, false);
	imap_cmd_adds(&cmd, "1.2 LOGIN ");
	ck_assert(imap_cmd_astring(&cmd, "a\r\nb", 4));
	imap_cmd_adds(&cmd, " \"pw\"\r\n");
	expect("1.2 LOGIN {4}\r\na\r\nb \"pw\"\r\n");
	ck_assert_uint_eq(cmd.n_splits, 1);
	ck_assert_uint_eq(cmd.splits[0], strlen(head));
}
END_TEST

START_TEST(test_literal_splits)
{
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_adds(&cmd, "9.9 APPEND \"box\" ");
	ck_assert(imap_cmd_literal(&cmd, 3));
	size_t first = evbuffer_get_length(buf);
	imap_cmd_adds(&cmd, "abc");
	imap_cmd_adds(&cmd, " ");
	ck_assert(imap_cmd_literal(&cmd, 0));
	size_t second = evbuffer_get_length(buf);
	imap_cmd_adds(&cmd, "\r\n");
	expect("9.9 APPEND \"box\" {3}\r\nabc {0}\r\n\r\n");
	ck_assert_uint_eq(cmd.n_splits, 2);
	ck_assert_uint_eq(cmd.splits[0], first);
	ck_assert_uint_eq(cmd.splits[0], strlen("9.9 APPEND \"box\" {3}\r\n"));
	ck_assert_uint_eq(cmd.splits[1], second);
	ck_assert_uint_eq(cmd.splits[1],
			  strlen("9.9 APPEND \"box\" {3}\r\nabc {0}\r\n"));
}
END_TEST

START_TEST(test_literal_big_size)
{
	imap_cmd_init(&cmd, buf, true);
	ck_assert(imap_cmd_literal(&cmd, 1ULL << 40));
	imap_cmd_init(&cmd, buf, false);
	ck_assert(imap_cmd_literal(&cmd, UINT64_MAX));
	expect("{1099511627776+}\r\n{18446744073709551615}\r\n");
	ck_assert_uint_eq(cmd.splits[0], evbuffer_get_length(buf));
}
END_TEST

START_TEST(test_too_many_sync_literals)
{
	imap_cmd_init(&cmd, buf, false);
	for (unsigned i = 0; i < IMAP_CMD_MAX_SPLITS; i++) {
		ck_assert(imap_cmd_literal(&cmd, 1));
		imap_cmd_adds(&cmd, "x");
	}
	ck_assert_uint_eq(cmd.n_splits, IMAP_CMD_MAX_SPLITS);
	size_t len = evbuffer_get_length(buf);

	/* The one too many fails and writes nothing. */
	ck_assert(!imap_cmd_literal(&cmd, 1));
	ck_assert(!imap_cmd_astring(&cmd, "a\nb", 3));
	ck_assert_uint_eq(evbuffer_get_length(buf), len);
	ck_assert_uint_eq(cmd.n_splits, IMAP_CMD_MAX_SPLITS);
	/* A quoted string needs no split and still works. */
	ck_assert(imap_cmd_astring(&cmd, "ok", 2));
	ck_assert_uint_eq(evbuffer_get_length(buf), len + 4);
	/* Every split is right after its own "{1}\r\n". */
	for (unsigned i = 0; i < IMAP_CMD_MAX_SPLITS; i++)
		ck_assert_uint_eq(cmd.splits[i], (i + 1) * 5 + i);

	/* init starts a new command. */
	imap_cmd_init(&cmd, buf, false);
	ck_assert_uint_eq(cmd.n_splits, 0);
	ck_assert(imap_cmd_literal(&cmd, 1));
}
END_TEST

START_TEST(test_literal_plus_no_limit)
{
	imap_cmd_init(&cmd, buf, true);
	for (unsigned i = 0; i < 3 * IMAP_CMD_MAX_SPLITS; i++)
		ck_assert(imap_cmd_literal(&cmd, 0));
	ck_assert_uint_eq(cmd.n_splits, 0);
	ck_assert_uint_eq(evbuffer_get_length(buf),
			  3 * IMAP_CMD_MAX_SPLITS * strlen("{0+}\r\n"));
}
END_TEST

/* --- sequence sets ----------------------------------------------------- */

struct seq_case {
	uint32_t seqs[8];
	unsigned n;
	const char *want;
};

static const struct seq_case seq_cases[] = {
	{ { 1, 2, 3, 5, 7, 8 }, 6, "1:3,5,7:8" },
	{ { 42 }, 1, "42" },
	{ { 0 }, 0, "" },
	{ { 1, 2 }, 2, "1:2" },
	{ { 1, 3, 5 }, 3, "1,3,5" },
	{ { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, "1:8" },
	{ { 2, 4, 5, 6, 9 }, 5, "2,4:6,9" },
	{ { 4294967294u, 4294967295u }, 2, "4294967294:4294967295" },
};

START_TEST(test_fmt_u64)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 9, "9" }, { 10, "10" }, { 4294967295u, "4294967295" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[24];
		memset(out, 'x', sizeof(out));
		size_t n = imap_fmt_u64(out, cases[i].v);
		ck_assert_uint_eq(n, strlen(cases[i].want));
		ck_assert(memcmp(out, cases[i].want, n) == 0);
		ck_assert_int_eq(out[n], 'x');	/* nothing past the digits */
	}
}
END_TEST

START_TEST(test_seqset)
{
	const struct seq_case *c = &seq_cases[_i];
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_seqset(&cmd, c->seqs, c->n);
	expect(c->want);
}
END_TEST

START_TEST(test_seqset_appends)
{
	const uint32_t seqs[] = { 3, 4 };
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_adds(&cmd, "5.1 FETCH ");
	imap_cmd_seqset(&cmd, seqs, N(seqs));
	imap_cmd_adds(&cmd, " (FLAGS)\r\n");
	expect("5.1 FETCH 3:4 (FLAGS)\r\n");
}
END_TEST

/* --- raw text ---------------------------------------------------------- */

START_TEST(test_printf_and_add)
{
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_printf(&cmd, "%u.%u ", 12u, 345u);
	imap_cmd_adds(&cmd, "UID FETCH");
	imap_cmd_add(&cmd, " 1:*XYZ", 4);
	imap_cmd_printf(&cmd, " (%s %d%%)", "BODY.PEEK[]", -7);
	imap_cmd_add(&cmd, "\r\n", 2);
	expect("12.345 UID FETCH 1:* (BODY.PEEK[] -7%)\r\n");
	ck_assert_uint_eq(cmd.n_splits, 0);

	/* Long output is not truncated. */
	char big[5000];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	evbuffer_drain(buf, evbuffer_get_length(buf));
	imap_cmd_printf(&cmd, "<%s>", big);
	ck_assert_uint_eq(evbuffer_get_length(buf), sizeof(big) + 1);
}
END_TEST

/* --- inline text --------------------------------------------------------- */

/* The command's inline text is exactly want. */
static void
expect_inline(const char *want)
{
	const char *text;
	size_t len;
	ck_assert(imap_cmd_inline_text(&cmd, &text, &len));
	ck_assert_msg(len == strlen(want) && memcmp(text, want, len) == 0,
		      "inline \"%.*s\", want \"%s\"", (int)len, text, want);
	ck_assert_uint_eq(imap_cmd_len(&cmd), len);
	ck_assert_uint_eq(evbuffer_get_length(buf), 0);
}

START_TEST(test_inline_short_command)
{
	const uint32_t seqs[] = { 3, 4, 9 };
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_inline(&cmd);
	imap_cmd_printf(&cmd, "%u.%u ", 7u, 12u);
	imap_cmd_adds(&cmd, "FETCH ");
	imap_cmd_seqset(&cmd, seqs, N(seqs));
	imap_cmd_add(&cmd, " (FLAGS)XYZ", 8);
	ck_assert(imap_cmd_astring(&cmd, " a\"b", 4));
	imap_cmd_adds(&cmd, "\r\n");
	expect_inline("7.12 FETCH 3:4,9 (FLAGS)\" a\\\"b\"\r\n");
	/* flush hands it to buf, where the sender without a fast path
	 * takes it. */
	imap_cmd_flush(&cmd);
	ck_assert(!imap_cmd_inline_text(&cmd, &(const char *){ NULL },
					&(size_t){ 0 }));
	expect("7.12 FETCH 3:4,9 (FLAGS)\" a\\\"b\"\r\n");

	/* A command not asked to be inline never is. */
	evbuffer_drain(buf, evbuffer_get_length(buf));
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_adds(&cmd, "1.1 NOOP\r\n");
	ck_assert(!imap_cmd_inline_text(&cmd, &(const char *){ NULL },
					&(size_t){ 0 }));
	expect("1.1 NOOP\r\n");
}
END_TEST

START_TEST(test_inline_outgrown)
{
	char big[IMAP_CMD_INLINE + 40];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';

	/* By add: what was inline goes first, in order. */
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_inline(&cmd);
	imap_cmd_adds(&cmd, "1.1 X ");
	imap_cmd_adds(&cmd, big);
	imap_cmd_adds(&cmd, "\r\n");
	ck_assert(!imap_cmd_inline_text(&cmd, &(const char *){ NULL },
					&(size_t){ 0 }));
	ck_assert_uint_eq(imap_cmd_len(&cmd), 6 + strlen(big) + 2);
	imap_cmd_flush(&cmd);
	ck_assert_uint_eq(evbuffer_get_length(buf), 6 + strlen(big) + 2);
	const char *got = (const char *)evbuffer_pullup(buf, -1);
	ck_assert(memcmp(got, "1.1 X qqq", 9) == 0);
	ck_assert(memcmp(got + 6 + strlen(big), "\r\n", 2) == 0);

	/* By printf that does not fit: printed whole into buf. */
	evbuffer_drain(buf, evbuffer_get_length(buf));
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_inline(&cmd);
	imap_cmd_adds(&cmd, "2.2 ");
	imap_cmd_printf(&cmd, "<%s>", big);
	imap_cmd_flush(&cmd);
	ck_assert_uint_eq(evbuffer_get_length(buf), 4 + strlen(big) + 2);
	got = (const char *)evbuffer_pullup(buf, -1);
	ck_assert(memcmp(got, "2.2 <qq", 7) == 0);
	ck_assert_int_eq(got[4 + strlen(big) + 1], '>');
}
END_TEST

START_TEST(test_inline_then_literal_and_ref)
{
	/* A synchronizing literal's split counts the inline text. */
	imap_cmd_init(&cmd, buf, false);
	imap_cmd_inline(&cmd);
	imap_cmd_adds(&cmd, "1.2 LOGIN ");
	ck_assert(imap_cmd_astring(&cmd, "a\r\nb", 4));
	imap_cmd_adds(&cmd, " \"pw\"\r\n");
	ck_assert_uint_eq(cmd.n_splits, 1);
	ck_assert_uint_eq(cmd.splits[0], strlen("1.2 LOGIN {4}\r\n"));
	imap_cmd_flush(&cmd);
	expect("1.2 LOGIN {4}\r\na\r\nb \"pw\"\r\n");

	/* A reference moves the inline text to buf ahead of it. */
	static const char body[] = "Subject: x\r\n\r\nhi\r\n";
	evbuffer_drain(buf, evbuffer_get_length(buf));
	imap_cmd_init(&cmd, buf, true);
	imap_cmd_inline(&cmd);
	imap_cmd_adds(&cmd, "3.3 APPEND \"box\" ");
	ck_assert(imap_cmd_literal(&cmd, sizeof(body) - 1));
	imap_cmd_add_ref(&cmd, body, sizeof(body) - 1);
	ck_assert(!imap_cmd_inline_text(&cmd, &(const char *){ NULL },
					&(size_t){ 0 }));
	imap_cmd_adds(&cmd, "\r\n");
	imap_cmd_flush(&cmd);
	expect("3.3 APPEND \"box\" {18+}\r\nSubject: x\r\n\r\nhi\r\n\r\n");
}
END_TEST

static Suite *
imap_cmd_suite(void)
{
	Suite *s = suite_create("imap_cmd");
	TCase *tc = tcase_create("build");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_quoted_plain);
	tcase_add_test(tc, test_quoted_escapes);
	tcase_add_test(tc, test_quotable);
	tcase_add_test(tc, test_astring_literal_plus);
	tcase_add_test(tc, test_astring_sync_literal);
	tcase_add_test(tc, test_literal_splits);
	tcase_add_test(tc, test_literal_big_size);
	tcase_add_test(tc, test_too_many_sync_literals);
	tcase_add_test(tc, test_literal_plus_no_limit);
	tcase_add_test(tc, test_fmt_u64);
	tcase_add_loop_test(tc, test_seqset, 0, (int)N(seq_cases));
	tcase_add_test(tc, test_seqset_appends);
	tcase_add_test(tc, test_printf_and_add);
	tcase_add_test(tc, test_inline_short_command);
	tcase_add_test(tc, test_inline_outgrown);
	tcase_add_test(tc, test_inline_then_literal_and_ref);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_cmd_suite)
