/* test_script_parse.c: the scripted-test file parser (src/script/
 * script_parse.c, script_lines.c): every header key, the three command
 * forms, connection numbers, continuation lines, literals, !ifenv, and
 * every malformed input (one message naming file and line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "script/script.h"

static char err[512];

static struct script *
parse_ok(const char *text)
{
	struct script *s = script_parse("t/x", text, strlen(text), err,
					sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	return s;
}

/* A malformed file: the message starts with "t/x:LINE: " and holds want. */
static void
parse_bad(const char *text, unsigned line, const char *want)
{
	char prefix[32];
	struct script *s = script_parse("t/x", text, strlen(text), err,
					sizeof(err));

	ck_assert_msg(s == NULL, "accepted: %s", text);
	snprintf(prefix, sizeof(prefix), "t/x:%u: ", line);
	ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0,
		      "'%s' does not start with '%s' (input: %s)", err, prefix, text);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
	ck_assert_msg(strchr(err, '\n') == NULL, "two lines: %s", err);
}

START_TEST(test_defaults)
{
	struct script *s = parse_ok("ok noop\n");

	ck_assert_uint_eq(s->connections, 1);
	ck_assert_int_eq(s->messages, -1);
	ck_assert_int_eq(s->state, SCRIPT_ST_SELECTED);
	ck_assert(s->ignore_extra_untagged);
	ck_assert_uint_eq(s->n_caps, 0);
	ck_assert_str_eq(s->name, "x");
	ck_assert_uint_eq(s->n_steps, 1);
	script_free(s);
}
END_TEST

START_TEST(test_header_keys)
{
	struct script *s = parse_ok("capabilities: idle  Condstore\n"
				    "connections: 3\nmessages: 7\nstate: auth\n"
				    "ignore_extra_untagged: no\n\n1 ok noop\n");

	ck_assert_uint_eq(s->n_caps, 2);
	ck_assert_str_eq(s->caps[0], "IDLE");
	ck_assert_str_eq(s->caps[1], "CONDSTORE");
	ck_assert_uint_eq(s->connections, 3);
	ck_assert_int_eq(s->messages, 7);
	ck_assert_int_eq(s->state, SCRIPT_ST_AUTH);
	ck_assert(!s->ignore_extra_untagged);
	script_free(s);

	const char *states[] = { "nonauth", "auth", "created", "appended",
				 "selected" };
	for (int i = 0; i < 5; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "state: %s\nmessages: all\n\nok noop\n",
			 states[i]);
		s = parse_ok(buf);
		ck_assert_int_eq(s->state, i);
		ck_assert_int_eq(s->messages, -1);
		script_free(s);
	}
}
END_TEST

START_TEST(test_form1)
{
	struct script *s = parse_ok("ok select $mailbox\n* 0 exists\n"
				    "* ok [uidvalidity $v]\nno  bogus\n\"\" noop\n");

	ck_assert_uint_eq(s->n_steps, 3);
	ck_assert_uint_eq(s->steps[0].n_cmds, 1);
	ck_assert_str_eq(s->steps[0].cmds[0].text, "select $mailbox");
	ck_assert_int_eq(s->steps[0].cmds[0].result, SCRIPT_R_OK);
	ck_assert_ptr_null(s->steps[0].cmds[0].tag);
	ck_assert_ptr_null(s->steps[0].cmds[0].prefix);
	ck_assert_uint_eq(s->steps[0].n_untagged, 2);
	ck_assert_str_eq(s->steps[0].untagged[1].text, "ok [uidvalidity $v]");
	ck_assert_uint_eq(s->steps[0].untagged[1].line, 3);
	ck_assert_int_eq(s->steps[1].cmds[0].result, SCRIPT_R_NO);
	ck_assert_str_eq(s->steps[1].cmds[0].text, "bogus");
	ck_assert_int_eq(s->steps[2].cmds[0].result, SCRIPT_R_ANY);
	script_free(s);
}
END_TEST

START_TEST(test_form2)
{
	struct script *s = parse_ok("select $mailbox\n* 0 exists\n"
				    "1 ok [read-write] done\nfoo\nbad\n");

	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert_str_eq(s->steps[0].cmds[0].text, "select $mailbox");
	ck_assert_str_eq(s->steps[0].cmds[0].prefix, "[read-write] done");
	ck_assert_uint_eq(s->steps[0].cmds[0].line, 1);
	ck_assert_uint_eq(s->steps[0].cmds[0].result_line, 3);
	ck_assert_int_eq(s->steps[1].cmds[0].result, SCRIPT_R_BAD);
	ck_assert_ptr_null(s->steps[1].cmds[0].prefix);
	script_free(s);
}
END_TEST

START_TEST(test_form3_pipelined)
{
	struct script *s = parse_ok("connections: 2\n\n"
				    "1 tag1 status a (messages)\n"
				    "1 tag2 status b (messages)\n"
				    "* status a (messages 0)\n"
				    "1 tag2 no [nonexistent]\n"
				    "* status b (messages 0)\n"
				    "1 tag1 ok\n2 ok noop\n");
	const struct script_step *st = &s->steps[0];

	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert_uint_eq(st->n_cmds, 2);
	ck_assert_str_eq(st->cmds[0].tag, "tag1");
	ck_assert_str_eq(st->cmds[1].tag, "tag2");
	ck_assert_str_eq(st->cmds[0].text, "status a (messages)");
	ck_assert_int_eq(st->cmds[1].result, SCRIPT_R_NO);
	ck_assert_str_eq(st->cmds[1].prefix, "[nonexistent]");
	ck_assert_int_eq(st->cmds[0].result, SCRIPT_R_OK);
	ck_assert_uint_eq(st->cmds[0].result_line, 8);
	ck_assert_uint_eq(st->n_untagged, 2);
	ck_assert_uint_eq(s->steps[1].conn, 1);
	script_free(s);
}
END_TEST

START_TEST(test_connections)
{
	struct script *s = parse_ok("connections: 2\n\n1 ok expunge\n2 ok noop\n"
				    "* $2 expunge\n");

	ck_assert_uint_eq(s->steps[0].conn, 0);
	ck_assert_uint_eq(s->steps[1].conn, 1);
	ck_assert_str_eq(s->steps[1].untagged[0].text, "$2 expunge");
	script_free(s);
	/* With one connection the number may be given. */
	s = parse_ok("1 ok noop\n");
	ck_assert_uint_eq(s->steps[0].conn, 0);
	script_free(s);
}
END_TEST

START_TEST(test_comments_blank_continuation)
{
	struct script *s = parse_ok("# a comment\n\nok fetch 1 (uid\n"
				    "   flags)\n# between\n* 1 fetch (uid 1\n\t flags ())\n");

	ck_assert_uint_eq(s->n_steps, 1);
	ck_assert_str_eq(s->steps[0].cmds[0].text, "fetch 1 (uid flags)");
	ck_assert_str_eq(s->steps[0].untagged[0].text, "1 fetch (uid 1 flags ())");
	script_free(s);
}
END_TEST

START_TEST(test_literals)
{
	struct script *s = parse_ok("ok append box {7}\nhello\n {2}\n\n\n"
				    "* 1 fetch (body[] {5+}\nabc\n)\n");

	ck_assert_str_eq(s->steps[0].cmds[0].text,
			 "append box {7}\r\nhello\r\n {2}\r\n\r\n");
	ck_assert_str_eq(s->steps[0].untagged[0].text,
			 "1 fetch (body[] {5+}\r\nabc\r\n)");
	script_free(s);
	/* A CRLF file reads the same. */
	s = parse_ok("ok noop\r\n* 1 exists\r\n");
	ck_assert_str_eq(s->steps[0].untagged[0].text, "1 exists");
	script_free(s);
}
END_TEST

/* imaptest's "! " (must not come) and "? " (may come) untagged lines,
 * also without a connection number where commands need one. */
START_TEST(test_untagged_exist)
{
	struct script *s = parse_ok("ok noop\n* 1 exists\n! 2 exists\n"
				    "? 3 recent\n");

	ck_assert_uint_eq(s->steps[0].n_untagged, 3);
	ck_assert_int_eq(s->steps[0].untagged[0].exist, SCRIPT_X_MUST);
	ck_assert_int_eq(s->steps[0].untagged[1].exist, SCRIPT_X_MUST_NOT);
	ck_assert_str_eq(s->steps[0].untagged[1].text, "2 exists");
	ck_assert_uint_eq(s->steps[0].untagged[1].line, 3);
	ck_assert_int_eq(s->steps[0].untagged[2].exist, SCRIPT_X_MAY);
	script_free(s);
	s = parse_ok("connections: 2\n\n1 ok noop\n! bye\n2 ok logout\n* bye\n");
	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert_int_eq(s->steps[0].untagged[0].exist, SCRIPT_X_MUST_NOT);
	ck_assert_str_eq(s->steps[0].untagged[0].text, "bye");
	script_free(s);
	/* "!word" is still a directive */
	parse_bad("ok noop\n!sleepy 1\n", 2, "unknown directive");
	parse_bad("ok noop\n!  \n", 2, "'!' must be followed by a space");
}
END_TEST

/* imaptest's "{{{ ... }}}" blocks: lines joined with CRLF (LF for
 * "~{{{"), the last line's end dropped, the rest of the "}}}" line
 * continuing the command; lines inside are taken as they are. */
START_TEST(test_blocks)
{
	struct script *s = parse_ok("ok append box (\\seen) catenate (text {{{\n"
				    "From: a\n # not a comment\n\nbody\n\n}}} text {{{\n"
				    "x\n}}})\n* 1 fetch (body[] {{{\nab\n}}})\n");

	ck_assert_str_eq(s->steps[0].cmds[0].text,
			 "append box (\\seen) catenate (text {35}\r\nFrom: a\r\n"
			 " # not a comment\r\n\r\nbody\r\n text {1}\r\nx)");
	ck_assert_uint_eq(s->steps[0].cmds[0].text_len,
			  strlen(s->steps[0].cmds[0].text));
	ck_assert_str_eq(s->steps[0].untagged[0].text, "1 fetch (body[] {2}\r\nab)");
	script_free(s);
	/* ~{{{: a literal8, lines joined with LF, their CRs kept */
	s = parse_ok("ok append box ~{{{\na\r\nb\n\n}}}\n");
	ck_assert_str_eq(s->steps[0].cmds[0].text, "append box ~{5}\r\na\r\nb\n");
	script_free(s);
	/* a block that ends the line: its octets are not read as a marker */
	s = parse_ok("ok append box {{{\nx {1}\n}}}\n");
	ck_assert_str_eq(s->steps[0].cmds[0].text, "append box {5}\r\nx {1}");
	script_free(s);
	parse_bad("ok noop\nok append box {{{\nabc\n", 2, "no line beginning with }}}");
}
END_TEST

/* A NUL octet: inside a literal's octets only. */
START_TEST(test_nul)
{
	static const char text[] = "ok append box ~{{{\n\0x\r\n}}}\n"
				   "* 1 fetch (binary[1] ~{{{\n\0x\n}}})\n";
	struct script *s = script_parse("t/x", text, sizeof(text) - 1, err,
					sizeof(err));

	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_uint_eq(s->steps[0].cmds[0].text_len, 20);
	ck_assert(memcmp(s->steps[0].cmds[0].text, "append box ~{3}\r\n\0x\r",
			 20) == 0);
	ck_assert_uint_eq(s->steps[0].untagged[0].len, 28);
	script_free(s);
	static const char bad[] = "ok noop\n* 1 exists\0\n";
	ck_assert_ptr_null(script_parse("t/x", bad, sizeof(bad) - 1, err,
					sizeof(err)));
	ck_assert_msg(strstr(err, "t/x:2: a NUL octet outside a literal"), "%s", err);
}
END_TEST

/* A form-2 result line may leave out its connection number (imaptest's
 * append test), and "user N:" names the user of a connection. */
START_TEST(test_result_without_number_and_users)
{
	struct script *s = parse_ok("connections: 2\nuser 2: $user2\n\n"
				    "2 append box\nno [trycreate]\n1 ok noop\n");

	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert_uint_eq(s->steps[0].conn, 1);
	ck_assert_int_eq(s->steps[0].cmds[0].result, SCRIPT_R_NO);
	ck_assert_str_eq(s->steps[0].cmds[0].prefix, "[trycreate]");
	ck_assert_ptr_null(s->users[0]);
	ck_assert_str_eq(s->users[1], "$user2");
	ck_assert(script_needs_user2(s));
	script_free(s);
	s = parse_ok("user 1: other\nconnections: 2\n\n1 ok noop\n");
	ck_assert_str_eq(s->users[0], "other");
	ck_assert(!script_needs_user2(s));
	script_free(s);
	/* a command needs its number all the same */
	parse_bad("connections: 2\n\n1 ok noop\nok noop\n", 4,
		  "begins with its connection number");
	parse_bad("connections: 2\nuser 3: x\n\n1 ok noop\n", 2,
		  "names a connection this test does not have");
	parse_bad("user 0: x\n\nok noop\n", 1, "'user N:' needs N in 1..16");
}
END_TEST

START_TEST(test_ifenv)
{
	setenv("IMAPSTRESS_T_SET", "1", 1);
	unsetenv("IMAPSTRESS_T_UNSET");
	struct script *s = parse_ok("!ifenv IMAPSTRESS_T_SET\nok a\n!else\nok b\n!endif\n"
				    "!ifnenv IMAPSTRESS_T_SET\nok c\n!endif\n"
				    "!ifenv IMAPSTRESS_T_UNSET\nok d\n"
				    "!ifnenv IMAPSTRESS_T_SET\nok e\n!endif\n"
				    "!else\nok f\n!endif\n");

	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert_str_eq(s->steps[0].cmds[0].text, "a");
	ck_assert_str_eq(s->steps[1].cmds[0].text, "f");
	script_free(s);
}
END_TEST

START_TEST(test_malformed)
{
	parse_bad("bogus: 1\n\nok noop\n", 1, "unknown header line");
	parse_bad("state: auth\nstate: auth\n\nok noop\n", 2, "given twice");
	parse_bad("connections: 0\n\nok noop\n", 1, "connections:");
	parse_bad("connections: 17\n\nok noop\n", 1, "connections:");
	parse_bad("connections: x\n\nok noop\n", 1, "connections:");
	parse_bad("messages: -1\n\nok noop\n", 1, "messages:");
	parse_bad("messages: lots\n\nok noop\n", 1, "messages:");
	parse_bad("state: happy\n\nok noop\n", 1, "state:");
	parse_bad("ignore_extra_untagged: maybe\n\nok noop\n", 1,
		  "ignore_extra_untagged:");
	parse_bad("capabilities: IDLE\nok noop\n", 2, "unknown header line");
	parse_bad("connections: 2\n\nok noop\n", 3, "connection number");
	parse_bad("connections: 2\n\n3 ok noop\n", 3, "out of range");
	parse_bad("2 ok noop\n", 1, "out of range");
	parse_bad("* 1 exists\n", 1, "before any command");
	parse_bad("select x\nok\n* 1 exists\n", 3, "after its command's result");
	parse_bad("ok noop\n*\n", 2, "'*' must be followed");
	parse_bad("ok\n", 1, "no command after it");
	parse_bad("select x\n* 1 exists\n", 1, "no result line");
	parse_bad("select x\nfetch 1 uid\nok\n", 2, "no result line yet");
	parse_bad("connections: 2\n\n1 t1 noop\n2 t2 noop\n1 t1 ok\n2 t2 ok\n", 4,
		  "same connection");
	parse_bad("t1 noop\nt1 noop\nt1 ok\nt1 ok\n", 2, "used twice");
	parse_bad("ok noop\nt9 ok\n", 2, "no command waiting");
	parse_bad("  ok noop\n", 1, "continuation line");
	parse_bad("ok append x {10}\nhello\n", 1, "the file ends");
	parse_bad("ok append x {3}\nhello\n\n", 2, "ends inside this line");
	parse_bad("ok append x {1}\n", 1, "the file ends");
	parse_bad("ok append x {0}\n", 1, "line after the literal");
	parse_bad("!ifenv\nok noop\n!endif\n", 1, "one environment variable");
	parse_bad("!ifenv A B\n!endif\n", 1, "one environment variable");
	parse_bad("!else\n", 1, "!else without");
	parse_bad("!endif\n", 1, "!endif without");
	parse_bad("!ifenv HOME\n!else\n!else\n!endif\n", 3, "second !else");
	parse_bad("ok noop\n!ifenv HOME\nok noop\n", 2, "no !endif");
	parse_bad("!bogus 1\n", 1, "unknown directive");
	parse_bad("!sleep 1s\n", 1, "!sleep before any command");
	parse_bad("state: auth\n\n!output x\nok noop\n", 3, "!output before any command");
	parse_bad("ok noop\n* 1 fetch (uid 1\n", 2, "closing ')'");
	parse_bad("ok noop\n* 1 fetch uid 1)\n", 2, "no '(' before it");
	parse_bad("ok noop\n* 1 fetch (flags ($!bogus))\n", 2, "unknown list directive");
	parse_bad("ok noop\n* 1 fetch (flags (\\seen $!extra))\n", 2, "must come first");
	parse_bad("ok noop\n* 1 fetch ($!unordered=0 a b)\n", 2, "=N");
	parse_bad("ok noop\n* 1 fetch ($!unordered=2 a)\n", 2, "multiple of N");
	parse_bad("ok noop\n* 1 fetch (a \"b)\n", 2, "closing '\"'");
	parse_bad("ok noop\n* 1 fetch (a ${b)\n", 2, "'${' without");
	parse_bad("ok fetch ${x 1\n", 1, "'${' without");
	parse_bad("ok noop\n* $0 expunge\n", 2, "'$N'");
	parse_bad("ok noop\n* \"a\"b\n", 2, "no space between");
	parse_bad("x ok [${oops]\n", 1, "no command waiting");
	parse_bad("select x\nok [${oops]\n", 2, "'${' without");
	/* A NUL octet (the length is given, not found by strlen). */
	ck_assert_ptr_null(script_parse("t/x", "ok noop\0\n", 9, err, sizeof(err)));
	ck_assert_msg(strstr(err, "t/x:1: ") == err && strstr(err, "NUL"), "%s", err);
}
END_TEST

START_TEST(test_load)
{
	char dir[] = "/tmp/imapstress-script-XXXXXX";
	char path[128], mbox[140];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t1", dir);
	snprintf(mbox, sizeof(mbox), "%s/t1.mbox", dir);
	FILE *f = fopen(path, "w");
	fputs("ok noop\n", f);
	fclose(f);
	struct script *s = script_load(path, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_ptr_null(s->mbox_path);
	script_free(s);
	f = fopen(mbox, "w");
	fputs("From a\nSubject: x\n\nbody\n", f);
	fclose(f);
	s = script_load(path, err, sizeof(err));
	ck_assert_str_eq(s->mbox_path, mbox);
	ck_assert_int_eq(s->messages, -1);
	script_free(s);
	/* imaptest's fallback: default.mbox, and no message unless a
	 * "messages:" line asks */
	char dflt[160];
	snprintf(dflt, sizeof(dflt), "%s/default.mbox", dir);
	ck_assert_int_eq(rename(mbox, dflt), 0);
	s = script_load(path, err, sizeof(err));
	ck_assert_str_eq(s->mbox_path, dflt);
	ck_assert_int_eq(s->messages, 0);
	script_free(s);
	f = fopen(path, "w");
	fputs("messages: 2\n\nok noop\n", f);
	fclose(f);
	s = script_load(path, err, sizeof(err));
	ck_assert_int_eq(s->messages, 2);
	script_free(s);
	ck_assert_int_eq(rename(dflt, mbox), 0);
	/* INTERNALDATEs from the "From " lines, as imaptest appends them */
	f = fopen(mbox, "w");
	fputs("From u@d  Fri Feb 22 23:00:00 2008 +0200\nSubject: 1\n\nx\n"
	      "From u@d  Sat Mar  1 01:02:03 2008\nSubject: 2\n\ny\n"
	      "From nodate\nSubject: 3\n\nz\n", f);
	fclose(f);
	s = script_load(path, err, sizeof(err));
	ck_assert_uint_eq(s->n_idates, 3);
	ck_assert_str_eq(s->idates[0], "22-Feb-2008 23:00:00 +0200");
	ck_assert_str_eq(s->idates[1], "01-Mar-2008 01:02:03 +0000");
	ck_assert_ptr_null(s->idates[2]);
	script_free(s);
	ck_assert_ptr_null(script_load(dir, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
	unlink(mbox);
	unlink(path);
	ck_assert_ptr_null(script_load(path, err, sizeof(err)));
	ck_assert_msg(strstr(err, ":0: cannot open") != NULL, "%s", err);
	rmdir(dir);
}
END_TEST

/* imaptest's "individual commands": a pipelined group counts one, and
 * the LOGOUT it adds to a file without one counts one more; a LOGOUT of
 * the file's own, or a step that expects "* bye", adds none. */
START_TEST(test_imaptest_groups)
{
	static const struct {
		const char *text;
		unsigned steps, groups;
	} c[] = {
		{ "\ntag1 noop\ntag2 noop\ntag3 noop\ntag1 ok\ntag2 ok\ntag3 ok\n"
		  "ok noop\n", 2, 3 },
		{ "\nok noop\nok logout\n", 2, 2 },
		{ "\nok LOGOUT\n", 1, 1 },
		{ "\nok noop\n* bye\n", 1, 1 },
		{ "\nok noop\n! bye\n", 1, 2 },
		{ "\nok noop\n? 1 exists\n", 1, 2 },
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct script *s = parse_ok(c[i].text);

		ck_assert_uint_eq(s->n_steps, c[i].steps);
		ck_assert_msg(script_imaptest_groups(s) == c[i].groups,
			      "case %u: %u groups, want %u", i,
			      script_imaptest_groups(s), c[i].groups);
		script_free(s);
	}
}
END_TEST

/* imaptest's group directives (test-parser.c): !ordered, !sleep and
 * !output set up the step whose command comes before them, wherever its
 * untagged and result lines are; no connection number; the interval is
 * Dovecot's; a bad one, a directive before any command and a variable
 * that cannot be read name file and line. */
START_TEST(test_group_directives)
{
	struct script *s = parse_ok("ok noop\n!ordered\n* 1 exists\n"
				    "!sleep 1500ms\n!output a $mailbox b\n"
				    "!output second\n"
				    "t1 noop\n!output during\nt1 ok\n!sleep 2s\n"
				    "!sleep 3 secs\n");

	ck_assert_uint_eq(s->n_steps, 2);
	ck_assert(s->steps[0].ordered);
	ck_assert_uint_eq(s->steps[0].n_untagged, 1);
	ck_assert_uint_eq(s->steps[0].sleep_ms, 1500);
	ck_assert_uint_eq(s->steps[0].n_outputs, 2);
	ck_assert_str_eq(s->steps[0].outputs[0].text, "a $mailbox b");
	ck_assert_uint_eq(s->steps[0].outputs[0].line, 5);
	ck_assert_str_eq(s->steps[0].outputs[1].text, "second");
	ck_assert(!s->steps[1].ordered);
	ck_assert_uint_eq(s->steps[1].n_outputs, 1);
	ck_assert_str_eq(s->steps[1].outputs[0].text, "during");
	ck_assert_uint_eq(s->steps[1].sleep_ms, 3000);	/* the last one */
	script_free(s);
	/* with two connections: no number before a directive */
	s = parse_ok("connections: 2\n\n2 ok noop\n!ordered\n!sleep 0\n"
		     "1 ok noop\n");
	ck_assert(s->steps[0].ordered);
	ck_assert_uint_eq(s->steps[0].sleep_ms, 0);
	ck_assert_uint_eq(s->steps[0].conn, 1);
	script_free(s);
	/* in a block !ifenv drops, dropped */
	s = parse_ok("ok noop\n!ifenv IMAPSTRESS_SURELY_UNSET_VAR\n!sleep 5s\n"
		     "!ordered\n!endif\n");
	ck_assert(!s->steps[0].ordered);
	ck_assert_uint_eq(s->steps[0].sleep_ms, 0);
	script_free(s);

	static const struct { const char *v; int ok; unsigned ms; } iv[] = {
		{ "0", 1, 0 }, { "5s", 1, 5000 }, { "5 sec", 1, 5000 },
		{ "2seconds", 1, 2000 }, { "250ms", 1, 250 },
		{ "250msecs", 1, 250 }, { "7milli", 1, 7 }, { "1m", 1, 60000 },
		{ "2mins", 1, 120000 }, { "1h", 1, 3600000 },
		{ "1d", 1, 86400000 }, { "1w", 1, 604800000 },
		{ "1", 0, 0 }, { "", 0, 0 }, { "s", 0, 0 }, { "5x", 0, 0 },
		{ "5secx", 0, 0 }, { "-1s", 0, 0 }, { "5000000000ms", 0, 0 },
		{ "50d", 0, 0 }, { " 5s", 0, 0 },
	};
	for (unsigned i = 0; i < sizeof(iv) / sizeof(iv[0]); i++) {
		unsigned ms = 12345;
		int rc = script_interval_ms(iv[i].v, &ms);
		ck_assert_msg((rc == 0) == iv[i].ok, "'%s': %d", iv[i].v, rc);
		if (iv[i].ok)
			ck_assert_msg(ms == iv[i].ms, "'%s': %u ms", iv[i].v, ms);
	}

	parse_bad("ok noop\n!sleep\n", 2, "!sleep needs an interval");
	parse_bad("ok noop\n!sleep 10\n", 2, "!sleep needs an interval");
	parse_bad("ok noop\n!sleep 2 fortnights\n", 2, "not '2 fortnights'");
	parse_bad("ok noop\n!ordered please\n", 2, "takes nothing");
	parse_bad("ok noop\n!output ${x\n", 2, "'${' without");
	parse_bad("ok noop\n!outputs\n", 2, "unknown directive");
}
END_TEST

static Suite *
script_parse_suite(void)
{
	Suite *s = suite_create("script_parse");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_header_keys);
	tcase_add_test(tc, test_form1);
	tcase_add_test(tc, test_form2);
	tcase_add_test(tc, test_form3_pipelined);
	tcase_add_test(tc, test_connections);
	tcase_add_test(tc, test_comments_blank_continuation);
	tcase_add_test(tc, test_literals);
	tcase_add_test(tc, test_untagged_exist);
	tcase_add_test(tc, test_blocks);
	tcase_add_test(tc, test_nul);
	tcase_add_test(tc, test_result_without_number_and_users);
	tcase_add_test(tc, test_ifenv);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_imaptest_groups);
	tcase_add_test(tc, test_group_directives);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(script_parse_suite)
