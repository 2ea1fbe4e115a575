/* test_script_match.c: expected reply patterns against server replies as
 * imap.h parses them (src/script/script_match.c, script_pat.c):
 * variables captured and compared, `$`, ${case:}, $N with EXPUNGE,
 * $modseqN, every list directive and imaptest's per-list defaults, the
 * tagged result and its prefix, command expansion. */
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "imap/imap.h"
#include "script/script_match.h"

static struct smatch m;

struct call {
	const char *pattern;
	const struct script_cmd *cmd;
	bool ok;
	struct sbuf why;
};

static int
on_resp(void *arg, const struct imap_resp *r)
{
	struct call *c = arg;
	char err[200];

	if (c->cmd != NULL) {
		c->ok = smatch_tagged(&m, c->cmd, r, &c->why);
		return 0;
	}
	struct spat *p = spat_compile(c->pattern, strlen(c->pattern), err,
				      sizeof(err));
	ck_assert_msg(p != NULL, "%s: %s", c->pattern, err);
	c->ok = smatch_untagged(&m, p, r, &c->why);
	spat_free(p);
	return 0;
}

static bool
feed(struct call *c, const char *server)
{
	struct imap_parser *ps = imap_parser_new(NULL, on_resp, c);
	char line[2048];
	int n = snprintf(line, sizeof(line), "%s\r\n", server);

	ck_assert_int_eq(imap_parser_feed(ps, line, (size_t)n), n);
	imap_parser_free(ps);
	return c->ok;
}

/* Does pattern (after "* ") match the server line (with "* ")? */
static bool
match(const char *pattern, const char *server)
{
	struct call c = { .pattern = pattern };
	bool ok = feed(&c, server);

	sbuf_reset(&c.why);
	return ok;
}

static void
mismatch(const char *pattern, const char *server, const char *why)
{
	struct call c = { .pattern = pattern };

	ck_assert_msg(!feed(&c, server), "'%s' matched '%s'", pattern, server);
	ck_assert_msg(c.why.s && strstr(c.why.s, why), "why '%s' lacks '%s'",
		      c.why.s ? c.why.s : "", why);
	sbuf_reset(&c.why);
}

static const char *
var(const char *name)
{
	return svars_get(m.vars, name, strlen(name));
}

static void
setup(void)
{
	smatch_init(&m);
}

static void
teardown(void)
{
	smatch_free(&m);
}

START_TEST(test_plain_and_case)
{
	ck_assert(match("3 exists", "* 3 EXISTS"));
	ck_assert(!match("3 exists", "* 4 EXISTS"));
	mismatch("3 exists", "* 4 EXISTS", "expected '3', the server sent '4'");
	ck_assert(match("list () \"/\" ${case:INBOX}", "* LIST () \"/\" INBOX"));
	ck_assert(!match("list () \"/\" ${case:INBOX}", "* LIST () \"/\" inbox"));
	ck_assert(match("list () \"/\" inbox", "* LIST () \"/\" INBOX"));
	/* a quoted pattern and a literal reply compare by content */
	ck_assert(match("1 fetch (body[] \"abc\")", "* 1 FETCH (BODY[] {3}\r\nabc)"));
	ck_assert(match("1 fetch (body[] {3}\r\nabc)", "* 1 FETCH (BODY[] \"abc\")"));
	/* more or fewer top-level arguments */
	ck_assert(!match("search 1", "* SEARCH 1 2"));
	ck_assert(!match("search 1 2", "* SEARCH 1"));
	/* a status reply's human text is extra */
	ck_assert(match("ok [uidnext 4]", "* OK [UIDNEXT 4] Predicted \"odd"));
	ck_assert(!match("ok [uidnext 5]", "* OK [UIDNEXT 4] Predicted"));
}
END_TEST

START_TEST(test_variables)
{
	ck_assert(match("1 fetch (uid $uid1)", "* 1 FETCH (UID 17)"));
	ck_assert_str_eq(var("uid1"), "17");
	ck_assert(match("2 fetch (uid $uid1)", "* 2 FETCH (UID 17)"));
	ck_assert(!match("2 fetch (uid $uid1)", "* 2 FETCH (UID 18)"));
	/* inside a section, beside text; ${name} too */
	ck_assert(match("ok [uidvalidity $uv]", "* OK [UIDVALIDITY 99] x"));
	ck_assert_str_eq(var("uv"), "99");
	ck_assert(match("status ${uv}box (messages 0)", "* STATUS 99box (MESSAGES 0)"));
	/* a failed match undoes what it captured */
	ck_assert(!match("1 fetch (uid $a flags (\\seen))",
			 "* 1 FETCH (UID 5 FLAGS (\\Draft))"));
	ck_assert_ptr_null(var("a"));
	/* named variables never match a list; $ does */
	mismatch("1 fetch (flags $f)", "* 1 FETCH (FLAGS (\\Seen))", "use $");
	ck_assert(match("1 fetch (flags $ uid $)", "* 1 FETCH (UID 3 FLAGS (\\Seen))"));
	ck_assert(match("$ $ $", "* 1 FETCH (UID 3)"));
	mismatch("1 fetch (uid $x$y)", "* 1 FETCH (UID 3)", "two variables");
	/* several in one argument, text between them: each takes up to
	 * the text after it (UIDs a server chooses, RFC 4315) */
	ck_assert(match("ok [copyuid $cv $src $dst]", "* OK [COPYUID 9 3:4 7,8] moved"));
	ck_assert_str_eq(var("cv"), "9");
	ck_assert_str_eq(var("src"), "3:4");
	ck_assert_str_eq(var("dst"), "7,8");
	/* one with a value between two without: compared, and a failure
	 * undoes the captures and shows the pattern */
	mismatch("ok [copyuid $cv2 $src $dst2]", "* OK [COPYUID 9 5 7] moved",
		 "expected '[copyuid <$cv2> 3:4 <$dst2>]', the server sent '[COPYUID 9 5 7]'");
	ck_assert_ptr_null(var("cv2"));
	ck_assert_ptr_null(var("dst2"));
	ck_assert(match("x a$p-$q.b", "* X a1-2-3.b"));
	ck_assert_str_eq(var("p"), "1");
	ck_assert_str_eq(var("q"), "2-3");
	ck_assert(!match("x a$p2-$q2.b", "* X a1.b"));
	ck_assert_ptr_null(var("p2"));
}
END_TEST

START_TEST(test_seq_expunge)
{
	smatch_step_begin(&m);
	ck_assert_uint_eq(smatch_seq(&m, 3), 3);
	/* the FETCH before the EXPUNGE: still 3 */
	ck_assert(match("$3 fetch (uid 3)", "* 3 FETCH (UID 3)"));
	ck_assert(match("$2 expunge", "* 2 EXPUNGE"));
	smatch_note_expunge(&m, 2);
	/* after: message 3 is now 2, message 2 is gone */
	ck_assert(match("$3 fetch (uid 3)", "* 2 FETCH (UID 3)"));
	ck_assert(!match("$3 fetch (uid 3)", "* 3 FETCH (UID 3)"));
	mismatch("$2 fetch (uid 2)", "* 2 FETCH (UID 2)", "expunged");
	ck_assert_uint_eq(smatch_seq(&m, 1), 1);
	smatch_note_expunge(&m, 1);
	ck_assert_uint_eq(smatch_seq(&m, 3), 1);
	smatch_step_begin(&m);
	ck_assert_uint_eq(smatch_seq(&m, 3), 3);
}
END_TEST

START_TEST(test_modseq)
{
	ck_assert(match("ok [highestmodseq $modseq2]", "* OK [HIGHESTMODSEQ 10]"));
	/* $modseq2 must be 2 at least */
	smatch_free(&m);
	smatch_init(&m);
	mismatch("1 fetch (modseq ($modseq2))", "* 1 FETCH (MODSEQ (1))", "at least 2");
	mismatch("1 fetch (modseq ($modseq2))", "* 1 FETCH (MODSEQ (x))", "at least 2");
	/* no order between them: imaptest's esearch-condstore captures
	 * $modseq3 = 7 before $modseq2 = 8 */
	ck_assert(match("1 fetch (modseq ($modseq1))", "* 1 FETCH (MODSEQ (6))"));
	ck_assert(match("3 fetch (modseq ($modseq3))", "* 3 FETCH (MODSEQ (7))"));
	ck_assert(match("2 fetch (modseq ($modseq2))", "* 2 FETCH (MODSEQ (8))"));
}
END_TEST

START_TEST(test_fetch_defaults)
{
	/* FETCH list: unordered pairs, extra items allowed */
	ck_assert(match("1 fetch (uid 5 flags ())", "* 1 FETCH (FLAGS () UID 5)"));
	ck_assert(match("1 fetch (uid 5)", "* 1 FETCH (FLAGS () UID 5 MODSEQ (3))"));
	ck_assert(!match("1 fetch (uid 5 uid 5)", "* 1 FETCH (UID 5)"));
	/* FLAGS in FETCH: unordered, no extras but \Recent */
	ck_assert(match("1 fetch (flags (\\seen \\draft))",
			"* 1 FETCH (FLAGS (\\Draft \\Recent \\Seen))"));
	mismatch("1 fetch (flags (\\seen))", "* 1 FETCH (FLAGS (\\Seen \\Draft))",
		 "$!noextra");
	/* explicit directives replace the defaults of that list only */
	ck_assert(!match("1 fetch (flags ($!extra \\seen))",
			 "* 1 FETCH (FLAGS (\\Recent \\Seen))"));
	ck_assert(match("1 fetch (flags ($!extra \\recent))",
			"* 1 FETCH (UID 1 FLAGS (\\Recent \\Seen))"));
	/* LIST/LSUB flags unordered; STATUS unordered pairs */
	ck_assert(match("list (\\noselect \\haschildren) \"/\" a",
			"* LIST (\\HasChildren \\Noselect) \"/\" a"));
	ck_assert(match("lsub (\\b \\a) \"/\" a", "* LSUB (\\a \\b) \"/\" a"));
	ck_assert(match("status a (messages 1 uidnext 5)",
			"* STATUS a (UIDNEXT 5 MESSAGES 1)"));
	/* other lists: ordered and exact */
	ck_assert(!match("flags (\\seen \\draft)", "* FLAGS (\\Draft \\Seen)"));
	ck_assert(!match("flags (\\seen)", "* FLAGS (\\Seen \\Draft)"));
	ck_assert(match("flags (\\seen \\draft)", "* FLAGS (\\Seen \\Draft)"));
}
END_TEST

START_TEST(test_directives)
{
	ck_assert(match("flags ($!unordered \\a \\b)", "* FLAGS (\\b \\c \\a)"));
	ck_assert(!match("flags ($!unordered $!noextra \\a \\b)", "* FLAGS (\\b \\c \\a)"));
	ck_assert(match("flags ($!unordered $!noextra $!ignore=\\c \\a \\b)",
			"* FLAGS (\\b \\c \\a)"));
	mismatch("flags ($!unordered $!ban=\\c \\a)", "* FLAGS (\\c \\a)", "$!ban");
	ck_assert(match("flags ($!ordered $!extra \\a)", "* FLAGS (\\a \\b)"));
	ck_assert(!match("flags ($!ordered $!extra \\b)", "* FLAGS (\\a \\b)"));
	ck_assert(!match("flags ($!ordered \\a)", "* FLAGS (\\a \\b)"));
	ck_assert(match("x ($!unordered=2 a 1 b 2)", "* X (b 2 a 1)"));
	ck_assert(!match("x ($!unordered=2 a 2 b 1)", "* X (b 2 a 1)"));
	mismatch("x ($!unordered=2 a 1)", "* X (b 2 a)", "chains of 2");
	ck_assert(match("x ($!noextra $!unordered a)", "* X (a)"));
	ck_assert(!match("x ($!noextra $!unordered a)", "* X (a b)"));
	/* nested lists and thread-like lists */
	ck_assert(match("thread (1 2)(3)", "* THREAD (1 2)(3)"));
	ck_assert(!match("thread (1 2)(3)", "* THREAD (1)(2 3)"));
}
END_TEST

/* Forms RFC 3501 and 9051 allow that a plain pattern refused: NIL body
 * parameters ($!nil), BODYSTRUCTURE extension data cut short or
 * extended ($!min=N with $!extra), SEARCH numbers in any order. */
START_TEST(test_rfc_forms)
{
	const char *bs = "2 fetch (bodystructure ($!min=8 $!extra \"text\" \"plain\" "
			 "($!nil \"charset\" \"us-ascii\") NIL NIL \"7bit\" $ $ NIL NIL "
			 "NIL NIL))";
	char err[200];

	/* Dovecot's, Courier's (NIL parameters, 3 extension fields), none
	 * of them, and a future fifth one */
	ck_assert(match(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" "
			"(\"charset\" \"us-ascii\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))"));
	ck_assert(match(bs, "* 2 FETCH (BODYSTRUCTURE (\"TEXT\" \"PLAIN\" NIL NIL NIL "
			"\"7BIT\" 10 1 NIL NIL NIL))"));
	ck_assert(match(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL "
			"\"7bit\" 10 1))"));
	ck_assert(match(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL "
			"\"7bit\" 10 1 NIL NIL NIL NIL (\"x\")))"));
	/* what stays wrong: another charset, a field dropped from the
	 * basic ones, a wrong extension field */
	mismatch(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" \"utf-8\") "
		 "NIL NIL \"7bit\" 10 1))", "expected 'us-ascii', the server sent 'utf-8'");
	mismatch(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 10))",
		 "expected at least 8 elements, the server's list has 7");
	ck_assert(!match(bs, "* 2 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL "
			 "\"7bit\" 10 1 \"abc\"))"));
	/* $!nil takes NIL only, not "" or a string; $!min without $!extra
	 * takes no more than the pattern lists */
	ck_assert(!match("x ($!nil a)", "* X \"\""));
	ck_assert(!match("x ($!nil a)", "* X \"NIL\""));
	ck_assert(match("x ($!nil a)", "* X nil"));
	ck_assert(match("x ($!min=1 a b)", "* X (a)"));
	ck_assert(!match("x ($!min=1 a b)", "* X (a b c)"));
	ck_assert(match("x ($!min=0 a)", "* X ()"));
	/* $!min needs an ordered list that long */
	struct spat *p = spat_compile("x ($!unordered $!min=1 a)", 25, err, sizeof(err));
	ck_assert_msg(p == NULL && strstr(err, "$!min=N needs an ordered list"), "%s", err);
	p = spat_compile("x ($!min=3 a b)", 15, err, sizeof(err));
	ck_assert_msg(p == NULL && strstr(err, "$!min=N needs"), "%s", err);
	p = spat_compile("x ($!min=a a)", 13, err, sizeof(err));
	ck_assert_msg(p == NULL && strstr(err, "$!min takes"), "%s", err);
	/* SEARCH: any order, but no number more or less */
	ck_assert(match("search 1 2 3", "* SEARCH 3 1 2"));
	ck_assert(!match("search 1 2", "* SEARCH 2 1 3"));
	ck_assert(!match("search 1 2 3", "* SEARCH 2 1"));
	ck_assert(match("search $a $b", "* SEARCH 5 3"));
	ck_assert_str_eq(var("a"), "5");
	ck_assert_str_eq(var("b"), "3");
	/* header field names quoted or not, on either side (an astring) */
	ck_assert(match("3 fetch (body[header.fields (subject)] \"x\")",
			"* 3 FETCH (BODY[HEADER.FIELDS (\"SUBJECT\")] \"x\")"));
	ck_assert(match("3 fetch (body[header.fields (\"subject\" from)] \"x\")",
			"* 3 FETCH (BODY[HEADER.FIELDS (SUBJECT \"From\")] \"x\")"));
	ck_assert(!match("3 fetch (body[header.fields (subject)] \"x\")",
			 "* 3 FETCH (BODY[HEADER.FIELDS (\"FROM\")] \"x\")"));
	/* other top-level replies keep their order */
	ck_assert(!match("sort 1 2", "* SORT 2 1"));
}
END_TEST

START_TEST(test_tagged)
{
	struct script_cmd c = { .result = SCRIPT_R_OK };
	struct call k = { .cmd = &c };

	ck_assert(feed(&k, "a1 OK done"));
	ck_assert(!feed(&k, "a1 NO nope"));
	ck_assert_msg(strstr(k.why.s, "expected OK"), "%s", k.why.s);
	sbuf_reset(&k.why);
	c.result = SCRIPT_R_ANY;
	ck_assert(feed(&k, "a1 BAD what"));
	c.result = SCRIPT_R_NO;
	c.prefix = (char *)"[trycreate]";
	ck_assert(feed(&k, "a1 NO [TRYCREATE] no such mailbox"));
	ck_assert(!feed(&k, "a1 NO [NONEXISTENT] no such mailbox"));
	sbuf_reset(&k.why);
	c.result = SCRIPT_R_OK;
	c.prefix = (char *)"[appenduid $v 1]";
	ck_assert(feed(&k, "a1 OK [APPENDUID 42 1] done"));
	ck_assert_str_eq(var("v"), "42");
	ck_assert(!feed(&k, "a1 OK [APPENDUID 43 1] done"));
	sbuf_reset(&k.why);
	c.prefix = (char *)"[appenduid $v2 $uid]";
	ck_assert(feed(&k, "a1 OK [APPENDUID 42 17] done"));
	ck_assert_str_eq(var("v2"), "42");
	ck_assert_str_eq(var("uid"), "17");
	c.prefix = (char *)"[read-write]";
	ck_assert(feed(&k, "a1 OK [READ-WRITE] Select completed"));
	ck_assert(!feed(&k, "a1 OK [READ-ONLY] Select completed"));
	sbuf_reset(&k.why);
	/* server text reaches a message escaped */
	ck_assert(!feed(&k, "a1 OK [READ-ONLY] \x1b[31mred"));
	ck_assert_msg(strstr(k.why.s, "\\x1b[31mred") && !strchr(k.why.s, 0x1b),
		      "%s", k.why.s);
	sbuf_reset(&k.why);
}
END_TEST

START_TEST(test_expand)
{
	struct sbuf out = { 0 }, why = { 0 };

	svars_set(m.vars, "mailbox", "box");
	svars_set(m.vars, "uid1", "7");
	ck_assert_int_eq(smatch_expand(&m, "uid store $uid1 flags ${mailbox}2 $ a$", &out,
				       &why), 0);
	ck_assert_str_eq(out.s, "uid store 7 flags box2 $ a$");
	sbuf_reset(&out);
	smatch_step_begin(&m);
	smatch_note_expunge(&m, 1);
	ck_assert_int_eq(smatch_expand(&m, "fetch $3", &out, &why), 0);
	ck_assert_str_eq(out.s, "fetch 2");
	sbuf_reset(&out);
	ck_assert_int_eq(smatch_expand(&m, "fetch $nope", &out, &why), -1);
	ck_assert_msg(strstr(why.s, "$nope has no value"), "%s", why.s);
	sbuf_reset(&out);
	sbuf_reset(&why);
}
END_TEST

static Suite *
script_match_suite(void)
{
	Suite *s = suite_create("script_match");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_plain_and_case);
	tcase_add_test(tc, test_variables);
	tcase_add_test(tc, test_seq_expunge);
	tcase_add_test(tc, test_modseq);
	tcase_add_test(tc, test_fetch_defaults);
	tcase_add_test(tc, test_directives);
	tcase_add_test(tc, test_rfc_forms);
	tcase_add_test(tc, test_tagged);
	tcase_add_test(tc, test_expand);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(script_match_suite)
