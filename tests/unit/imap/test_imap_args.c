/* test_imap_args.c: the response argument tokenizer (imap_args.c): every
 * token type, nesting, section atoms, escapes, literals inline and
 * skipped, malformed input and the limits.  The scanner under it (numbers,
 * token ends at every offset, case-blind compares) is test_imap_scan.c's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap_args.h"

static struct imap_args *args;

static void
setup(void)
{
	args = imap_args_new(0);
}

static void
teardown(void)
{
	imap_args_free(args);
	args = NULL;
}

static const struct imap_arg *
parse_ok(const char *text)
{
	const struct imap_arg *root = imap_args_parse(args, text, strlen(text));
	ck_assert_msg(root != NULL, "%s: %s", text, imap_args_error(args));
	ck_assert_int_eq(root->type, IMAP_ARG_LIST);
	return root;
}

static void
assert_text(const struct imap_arg *a, enum imap_arg_type type,
	    const char *want)
{
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->type, type);
	ck_assert_uint_eq(a->len, strlen(want));
	ck_assert_msg(memcmp(a->str, want, a->len) == 0, "got '%.*s' want '%s'",
		      (int)a->len, a->str, want);
}

START_TEST(test_atoms_numbers_nil)
{
	const struct imap_arg *root = parse_ok("A 12 NIL nil \\Seen $Label1");
	const struct imap_arg *a = imap_arg_child(root);
	uint64_t v = 0;

	ck_assert_uint_eq(root->count, 6);
	ck_assert_uint_eq(imap_args_count(args), 7);
	assert_text(a, IMAP_ARG_ATOM, "A");
	ck_assert_int_eq(imap_arg_u64(a, &v), -1);
	a = imap_arg_next(a);
	assert_text(a, IMAP_ARG_ATOM, "12");
	ck_assert_int_eq(imap_arg_u64(a, &v), 0);
	ck_assert_uint_eq(v, 12);
	a = imap_arg_next(a);
	ck_assert(imap_arg_is_nil(a));
	ck_assert(imap_arg_is_nil(imap_arg_next(a)));	/* case-insensitive */
	a = imap_arg_nth(root, 4);
	assert_text(a, IMAP_ARG_ATOM, "\\Seen");
	ck_assert(imap_arg_atom_eq(a, "\\SEEN"));
	ck_assert(!imap_arg_atom_eq(a, "\\See"));
	assert_text(imap_arg_nth(root, 5), IMAP_ARG_ATOM, "$Label1");
	ck_assert_ptr_null(imap_arg_next(imap_arg_nth(root, 5)));
	ck_assert_ptr_null(imap_arg_nth(root, 6));
}
END_TEST

START_TEST(test_quoted_escapes)
{
	const struct imap_arg *root =
		parse_ok("\"a\\\"b\\\\c\" \"\" \"plain (text)\" \"NIL\"");
	const struct imap_arg *a = imap_arg_child(root);

	assert_text(a, IMAP_ARG_QUOTED, "a\"b\\c");
	a = imap_arg_next(a);
	assert_text(a, IMAP_ARG_QUOTED, "");
	a = imap_arg_next(a);
	assert_text(a, IMAP_ARG_QUOTED, "plain (text)");
	a = imap_arg_next(a);
	ck_assert(!imap_arg_is_nil(a));	/* a quoted "NIL" is a string */
	ck_assert(imap_arg_is_string(a));
	ck_assert(imap_arg_text_eq(a, "nil", 3));
	uint64_t v;
	ck_assert_int_eq(imap_arg_u64(a, &v), -1);
}
END_TEST

/* A multipart BODYSTRUCTURE: body-type-mpart is "1*body SP
 * media-subtype", so its part lists touch with no space (seen from
 * Dovecot; once rejected here as "missing space"). */
START_TEST(test_multipart_adjacent_lists)
{
	const char *text = "(BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL "
	    "\"7bit\" 10 1)(\"text\" \"html\" NIL NIL NIL \"7bit\" 20 1) "
	    "\"alternative\"))";
	const struct imap_arg *root = parse_ok(text);
	const struct imap_arg *l = imap_arg_child(root);
	const struct imap_arg *bs = imap_arg_nth(l, 1);

	ck_assert_int_eq(bs->type, IMAP_ARG_LIST);
	ck_assert_uint_eq(bs->count, 3);
	ck_assert_int_eq(imap_arg_nth(bs, 0)->type, IMAP_ARG_LIST);
	ck_assert_int_eq(imap_arg_nth(bs, 1)->type, IMAP_ARG_LIST);
	assert_text(imap_arg_nth(bs, 2), IMAP_ARG_QUOTED, "alternative");
}
END_TEST

START_TEST(test_nested_lists)
{
	const char *text = "(A (B (C D)) () \"x\")";
	const struct imap_arg *root = parse_ok(text);
	const struct imap_arg *l = imap_arg_child(root);

	ck_assert_uint_eq(root->count, 1);
	ck_assert_int_eq(l->type, IMAP_ARG_LIST);
	ck_assert_uint_eq(l->count, 4);
	ck_assert_uint_eq(l->len, strlen(text));	/* raw, with parens */
	assert_text(imap_arg_nth(l, 0), IMAP_ARG_ATOM, "A");
	const struct imap_arg *b = imap_arg_nth(l, 1);
	assert_text(b, IMAP_ARG_LIST, "(B (C D))");
	ck_assert_uint_eq(b->count, 2);
	const struct imap_arg *c = imap_arg_nth(b, 1);
	assert_text(c, IMAP_ARG_LIST, "(C D)");
	assert_text(imap_arg_nth(c, 1), IMAP_ARG_ATOM, "D");
	const struct imap_arg *e = imap_arg_nth(l, 2);
	assert_text(e, IMAP_ARG_LIST, "()");
	ck_assert_uint_eq(e->count, 0);
	ck_assert_ptr_null(imap_arg_child(e));
	assert_text(imap_arg_nth(l, 3), IMAP_ARG_QUOTED, "x");
	ck_assert_ptr_null(imap_arg_next(l));
}
END_TEST

START_TEST(test_section_atoms)
{
	const struct imap_arg *root = parse_ok(
		"BODY[HEADER.FIELDS (MESSAGE-ID SUBJECT)] NIL "
		"BODY[]<0.100> BODY[1.2.MIME] "
		"BODY[HEADER.FIELDS (\"X ]\" Y)]<5> [READ-WRITE]");
	const struct imap_arg *a = imap_arg_child(root);

	ck_assert_uint_eq(root->count, 6);
	assert_text(a, IMAP_ARG_ATOM,
		    "BODY[HEADER.FIELDS (MESSAGE-ID SUBJECT)]");
	assert_text(imap_arg_nth(root, 2), IMAP_ARG_ATOM, "BODY[]<0.100>");
	assert_text(imap_arg_nth(root, 3), IMAP_ARG_ATOM, "BODY[1.2.MIME]");
	assert_text(imap_arg_nth(root, 4), IMAP_ARG_ATOM,
		    "BODY[HEADER.FIELDS (\"X ]\" Y)]<5>");
	assert_text(imap_arg_nth(root, 5), IMAP_ARG_ATOM, "[READ-WRITE]");
}
END_TEST

START_TEST(test_literals_inline)
{
	static const char text[] = "{5}\r\nab)cd {0}\r\n ~{3}\r\n\0\1\2 "
				   "{3+}\r\nxyz";
	const struct imap_arg *root =
		imap_args_parse(args, text, sizeof(text) - 1);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(root->count, 4);
	const struct imap_arg *a = imap_arg_child(root);
	assert_text(a, IMAP_ARG_LITERAL, "ab)cd");
	ck_assert_uint_eq(a->size, 5);
	a = imap_arg_next(a);
	ck_assert_int_eq(a->type, IMAP_ARG_LITERAL);
	ck_assert_uint_eq(a->size, 0);
	ck_assert_uint_eq(a->len, 0);
	a = imap_arg_next(a);	/* literal8 with binary content */
	ck_assert_int_eq(a->type, IMAP_ARG_LITERAL);
	ck_assert_uint_eq(a->len, 3);
	ck_assert(memcmp(a->str, "\0\1\2", 3) == 0);
	ck_assert(imap_arg_is_string(a));
	a = imap_arg_next(a);
	assert_text(a, IMAP_ARG_LITERAL, "xyz");
}
END_TEST

START_TEST(test_literals_skipped)
{
	const struct imap_arg *root =
		parse_ok("(UID 7 BODY[] {70000!}) ~{123456789!}");
	const struct imap_arg *l = imap_arg_child(root);
	const struct imap_arg *s = imap_arg_nth(l, 3);

	ck_assert_uint_eq(l->count, 4);
	assert_text(s, IMAP_ARG_LITERAL_SKIPPED, "{70000!}");
	ck_assert_uint_eq(s->size, 70000);
	ck_assert(!imap_arg_is_string(s));
	s = imap_arg_next(l);
	ck_assert_int_eq(s->type, IMAP_ARG_LITERAL_SKIPPED);
	ck_assert_uint_eq(s->size, 123456789);
}
END_TEST

/* The msg-att text of a Dovecot FETCH as imap.h delivers it. */
START_TEST(test_fetch_msg_att)
{
	const char *text =
		"(UID 5 FLAGS (\\Seen $Label1) RFC822.SIZE 1234 "
		"INTERNALDATE \"17-Jul-1996 02:44:25 -0700\" "
		"ENVELOPE (\"Wed, 17 Jul 1996 02:23:25 -0700\" \"Hi\" "
		"((\"Terry\" NIL \"gray\" \"cac.washington.edu\")) NIL NIL NIL "
		"NIL NIL NIL \"<x@y>\") "
		"BODY[HEADER.FIELDS (MESSAGE-ID)] {21}\r\n"
		"Message-ID: <x@y>\r\n\r\n MODSEQ (12))";
	const struct imap_arg *l = imap_arg_child(parse_ok(text));
	uint64_t v;

	ck_assert_uint_eq(l->count, 14);
	ck_assert(imap_arg_atom_eq(imap_arg_nth(l, 0), "uid"));
	ck_assert_int_eq(imap_arg_u64(imap_arg_nth(l, 1), &v), 0);
	ck_assert_uint_eq(v, 5);
	const struct imap_arg *fl = imap_arg_nth(l, 3);
	ck_assert_uint_eq(fl->count, 2);
	assert_text(imap_arg_nth(fl, 1), IMAP_ARG_ATOM, "$Label1");
	assert_text(imap_arg_nth(l, 7), IMAP_ARG_QUOTED,
		    "17-Jul-1996 02:44:25 -0700");
	const struct imap_arg *env = imap_arg_nth(l, 9);
	ck_assert_uint_eq(env->count, 10);
	const struct imap_arg *from = imap_arg_nth(env, 2);
	assert_text(imap_arg_nth(imap_arg_child(from), 2), IMAP_ARG_QUOTED,
		    "gray");
	assert_text(imap_arg_nth(env, 9), IMAP_ARG_QUOTED, "<x@y>");
	assert_text(imap_arg_nth(l, 10), IMAP_ARG_ATOM,
		    "BODY[HEADER.FIELDS (MESSAGE-ID)]");
	assert_text(imap_arg_nth(l, 11), IMAP_ARG_LITERAL,
		    "Message-ID: <x@y>\r\n\r\n");
	const struct imap_arg *ms = imap_arg_nth(l, 13);
	ck_assert_int_eq(imap_arg_u64(imap_arg_child(ms), &v), 0);
	ck_assert_uint_eq(v, 12);
}
END_TEST

/* imap_args_parse_fetch: ENVELOPE, BODYSTRUCTURE and BODY values of the
 * FETCH list stay whole (LIST_RAW, exact octets); everything else, and a
 * value the list skipper will not vouch for, is tokenized as usual. */
START_TEST(test_parse_fetch_raw)
{
	static const char env[] = "(\"d\" {2}\r\nHi ((\"T\" NIL \"g\" "
		"\"x.org\")) NIL NIL NIL NIL NIL NIL \"<a\\\"b>\")";
	static const char bs[] = "((\"text\" \"plain\" NIL NIL NIL \"7bit\" 3 1)"
		"(\"text\" \"html\" NIL NIL NIL \"7bit\" 4 1) \"alternative\")";
	char text[512];
	snprintf(text, sizeof(text), "(UID 5 ENVELOPE %s FLAGS (\\Seen) "
		 "bodystructure %s BODY (\"text\" \"plain\" NIL NIL NIL "
		 "\"7bit\" 3 1) X (a (b)))", env, bs);
	const struct imap_arg *root = imap_args_parse_fetch(args, text,
							    strlen(text));
	ck_assert_msg(root != NULL, "%s", imap_args_error(args));
	const struct imap_arg *l = imap_arg_child(root);
	ck_assert_uint_eq(l->count, 12);
	const struct imap_arg *e = imap_arg_nth(l, 3);
	ck_assert_int_eq(e->type, IMAP_ARG_LIST_RAW);
	ck_assert_uint_eq(e->len, strlen(env));
	ck_assert(memcmp(e->str, env, e->len) == 0);
	ck_assert_ptr_null(imap_arg_child(e));
	ck_assert_int_eq(imap_arg_nth(l, 5)->type, IMAP_ARG_LIST);
	ck_assert_uint_eq(imap_arg_nth(l, 5)->count, 1);
	const struct imap_arg *b = imap_arg_nth(l, 7);
	ck_assert_int_eq(b->type, IMAP_ARG_LIST_RAW);
	ck_assert_uint_eq(b->len, strlen(bs));
	ck_assert_int_eq(imap_arg_nth(l, 9)->type, IMAP_ARG_LIST_RAW);
	/* not one of the three: tokenized, nested list too */
	const struct imap_arg *x = imap_arg_nth(l, 11);
	ck_assert_int_eq(x->type, IMAP_ARG_LIST);
	ck_assert_int_eq(imap_arg_nth(x, 1)->type, IMAP_ARG_LIST);

	/* the raw octets parse on their own to what the plain parse gives */
	const struct imap_arg *sub = imap_arg_child(parse_ok(env));
	ck_assert_uint_eq(sub->count, 10);
	assert_text(imap_arg_nth(sub, 1), IMAP_ARG_LITERAL, "Hi");
	assert_text(imap_arg_nth(sub, 9), IMAP_ARG_QUOTED, "<a\"b>");
}
END_TEST

/* What the skipper will not take is tokenized, and a broken value fails
 * with imap_args_parse's own message. */
START_TEST(test_parse_fetch_fallback)
{
	static const char *const texts[] = {
		"(ENVELOPE (a[b] c))",		/* '[' in an atom */
		"(ENVELOPE (\"a\\q\"))",	/* bad escape */
		"(ENVELOPE (a (b)",		/* unterminated */
		"(ENVELOPE (a {5}\r\nab))",	/* truncated literal */
		"(ENVELOPE (a\x01))",		/* control character */
	};
	const struct imap_arg *root = imap_args_parse_fetch(args, texts[0],
							    strlen(texts[0]));
	ck_assert_ptr_nonnull(root);
	const struct imap_arg *v = imap_arg_nth(imap_arg_child(root), 1);
	ck_assert_int_eq(v->type, IMAP_ARG_LIST);
	ck_assert_uint_eq(v->count, 2);
	for (size_t i = 1; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char plain[160];
		ck_assert_ptr_null(imap_args_parse(args, texts[i],
						   strlen(texts[i])));
		snprintf(plain, sizeof(plain), "%s", imap_args_error(args));
		ck_assert_ptr_null(imap_args_parse_fetch(args, texts[i],
							 strlen(texts[i])));
		ck_assert_str_eq(imap_args_error(args), plain);
	}
}
END_TEST

START_TEST(test_empty_and_spaces)
{
	const struct imap_arg *root = parse_ok("");
	ck_assert_uint_eq(root->count, 0);
	ck_assert_ptr_null(imap_arg_child(root));
	root = parse_ok("  A   ( B )  ");
	ck_assert_uint_eq(root->count, 2);
	ck_assert_uint_eq(imap_arg_nth(root, 1)->count, 1);
}
END_TEST

static const struct {
	const char *in;
	const char *why;
} bad[] = {
	{ "\"abc", "unterminated quoted string at offset 0" },
	{ "A \"a\\nb\"", "bad escape '\\n' in quoted string at offset 4" },
	{ "\"a\rb\"", "line break in quoted string at offset 2" },
	{ "A)", "unexpected ')' at offset 1" },
	{ "(A (B)", "unterminated list opened at offset 0" },
	{ "(A)B", "missing space before 'B' at offset 3" },
	{ "(A)\"b\"", "missing space before '\"' at offset 3" },
	{ "A\"b\" C", "" },	/* a quote inside an atom is an atom char */
	{ "\"a\"b", "missing space before 'b' at offset 3" },
	{ "A\tB", "unexpected control character 0x09 at offset 1" },
	{ "{5}\r\nab", "literal of 5 octets at offset 0 truncated (2 present)" },
	{ "{5}ab", "literal at offset 0 not followed by CRLF" },
	{ "{x}", "malformed literal at offset 0" },
	{ "{5", "malformed literal at offset 0" },
	{ "{5!", "malformed literal at offset 0" },
	{ "{99999999999999999999}", "literal size too large at offset 0" },
	{ "BODY[HEADER (A", "unterminated '[' in atom at offset 4" },
	{ "{2}\r\nabc", "missing space before 'c' at offset 7" },
};

START_TEST(test_malformed)
{
	const struct imap_arg *root =
		imap_args_parse(args, bad[_i].in, strlen(bad[_i].in));

	if (bad[_i].why[0] == '\0') {
		ck_assert_msg(root != NULL, "%s: %s", bad[_i].in,
			      imap_args_error(args));
		return;
	}
	ck_assert_msg(root == NULL, "%s parsed", bad[_i].in);
	ck_assert_str_eq(imap_args_error(args), bad[_i].why);
	ck_assert_uint_eq(imap_args_count(args), 0);
}
END_TEST

START_TEST(test_token_limit)
{
	struct imap_args *small = imap_args_new(4);

	ck_assert_ptr_nonnull(imap_args_parse(small, "A B C", 5));
	ck_assert_ptr_null(imap_args_parse(small, "A B C D", 7));
	ck_assert_str_eq(imap_args_error(small), "too many tokens (limit 4)");
	ck_assert_ptr_null(imap_args_parse(small, "(A (B))", 7));
	ck_assert_str_eq(imap_args_error(small), "too many tokens (limit 4)");
	/* and it recovers */
	ck_assert_ptr_nonnull(imap_args_parse(small, "(A B)", 5));
	imap_args_free(small);
	imap_args_free(NULL);
}
END_TEST

START_TEST(test_depth_limit)
{
	char text[2 * IMAP_ARGS_MAX_DEPTH + 4];
	size_t n = 0;

	for (unsigned i = 0; i < IMAP_ARGS_MAX_DEPTH; i++)
		text[n++] = '(';
	for (unsigned i = 0; i < IMAP_ARGS_MAX_DEPTH; i++)
		text[n++] = ')';
	ck_assert_ptr_nonnull(imap_args_parse(args, text, n));
	memmove(text + 1, text, n);
	text[0] = '(';
	text[++n] = ')';
	n++;
	ck_assert_ptr_null(imap_args_parse(args, text, n));
	ck_assert_str_eq(imap_args_error(args),
			 "lists nested too deep (limit 128) at offset 128");
}
END_TEST

/* The token array grows while parsing: relative links must survive. */
START_TEST(test_growth_and_reuse)
{
	char text[8000];
	size_t n = 0;

	n += (size_t)snprintf(text, sizeof(text), "(");
	for (int i = 0; i < 600; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s\"q\\\\%d\"",
				      i ? " " : "", i);
	text[n++] = ')';
	const struct imap_arg *root = imap_args_parse(args, text, n);
	ck_assert_ptr_nonnull(root);
	const struct imap_arg *l = imap_arg_child(root);
	ck_assert_uint_eq(l->count, 600);
	int i = 0;
	for (const struct imap_arg *a = imap_arg_child(l); a != NULL;
	     a = imap_arg_next(a), i++) {
		char want[16];
		snprintf(want, sizeof(want), "q\\%d", i);
		assert_text(a, IMAP_ARG_QUOTED, want);
	}
	ck_assert_int_eq(i, 600);
	root = parse_ok("X \"y\\\"\"");
	assert_text(imap_arg_nth(root, 1), IMAP_ARG_QUOTED, "y\"");
}
END_TEST

static Suite *
imap_args_suite(void)
{
	Suite *s = suite_create("imap_args");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_atoms_numbers_nil);
	tcase_add_test(tc, test_quoted_escapes);
	tcase_add_test(tc, test_nested_lists);
	tcase_add_test(tc, test_multipart_adjacent_lists);
	tcase_add_test(tc, test_section_atoms);
	tcase_add_test(tc, test_literals_inline);
	tcase_add_test(tc, test_literals_skipped);
	tcase_add_test(tc, test_fetch_msg_att);
	tcase_add_test(tc, test_empty_and_spaces);
	tcase_add_loop_test(tc, test_malformed, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_token_limit);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_growth_and_reuse);
	tcase_add_test(tc, test_parse_fetch_raw);
	tcase_add_test(tc, test_parse_fetch_fallback);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(imap_args_suite)
