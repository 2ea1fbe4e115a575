/* test_script_run.c: the runner state machine (src/script/script_run.c,
 * script_step.c) over a recording session interface: the set-up sequence
 * per state, skipping on a missing capability, pass, a failure's diff,
 * two connections, pipelined tags, synchronizing literals, IDLE's DONE,
 * ignore_extra_untagged, a lost connection; the foreign-mail check of
 * the set-up's deletes (EXAMINE, the search, CLOSE; a refusal before any
 * DELETE; once per prefix per process) and of a step's destructive
 * commands outside the test's mailboxes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "imap/guard.h"
#include "imap/imap.h"
#include "script/script_buf.h"
#include "msg/msg.h"
#include "script/script_run.h"

struct fake {
	struct script_run *run;
	struct sbuf sent[SCRIPT_MAX_CONNS];	/* everything written */
	unsigned opened, closed;
	unsigned sleeps, slept_ms;	/* io.sleep calls, the last one's ms */
	struct sbuf output;		/* io.output lines, each with \n */
};

static struct fake F;
static struct script *S;
static char err[512];

static void
io_open(void *ctx, unsigned conn)
{
	F.opened |= 1u << conn;
}

static void
io_send(void *ctx, unsigned conn, const char *data, size_t len)
{
	sbuf_add(&F.sent[conn], data, len);
}

static void
io_close(void *ctx, unsigned conn)
{
	F.closed |= 1u << conn;
}

static void
io_sleep(void *ctx, unsigned ms)
{
	F.sleeps++;
	F.slept_ms = ms;
}

static void
io_output(void *ctx, const char *line, size_t len)
{
	sbuf_add(&F.output, line, len);
	sbuf_add(&F.output, "\n", 1);
}

struct feed_arg {
	unsigned conn;
};

static int
on_resp(void *arg, const struct imap_resp *r)
{
	script_on_resp(F.run, ((struct feed_arg *)arg)->conn, r);
	return 0;
}

/* The server says text (lines joined by \n, each sent with CRLF). */
static void
server(unsigned conn, const char *text)
{
	struct feed_arg a = { conn };
	struct imap_parser *p = imap_parser_new(NULL, on_resp, &a);
	struct sbuf b = { 0 };

	for (const char *s = text; *s; s++) {
		if (*s == '\n')
			sbuf_add(&b, "\r\n", 2);
		else
			sbuf_add(&b, s, 1);
	}
	sbuf_add(&b, "\r\n", 2);
	ck_assert_int_eq(imap_parser_feed(p, b.s, b.len), (long)b.len);
	imap_parser_free(p);
	sbuf_reset(&b);
}

/* What conn wrote since the last call. */
static char *
took(unsigned conn)
{
	return sbuf_take(&F.sent[conn]);
}

static void
expect_sent(unsigned conn, const char *want)
{
	char *got = took(conn);
	ck_assert_msg(strcmp(got, want) == 0, "conn %u sent '%s', want '%s'", conn,
		      got, want);
	free(got);
}

static struct msg_pool *pool;	/* the test's mbox, when it has one */
static struct guard *guard;	/* the process's foreign-mail memory */

/* box_auto: the mailbox is the default, NAMESPACE may place it */
static void
start_env(const char *text, const char *user2, bool box_auto)
{
	const struct script_env env = {
		.user = "u@d", .user2 = user2, .password = "pw", .mailbox = "tbox",
		.mailbox_auto = box_auto, .host = "127.0.0.1", .port = 143,
		.run_id = 0x00c0ffee12345678ULL, .guard = guard,
	};
	const struct script_io io = { io_open, io_send, io_close, NULL,
				      io_sleep, io_output };

	memset(&F, 0, sizeof(F));
	S = script_parse("t/x", text, strlen(text), err, sizeof(err));
	ck_assert_msg(S != NULL, "%s", err);
	F.run = script_run_new(&env, &io, NULL);
	script_run_start(F.run, S, pool);
	for (unsigned i = 0; i < S->connections; i++)
		ck_assert(F.opened & (1u << i));
}

static void
start(const char *text)
{
	start_env(text, NULL, false);
}

static void
finish(void)
{
	script_run_free(F.run);
	script_free(S);
	msg_pool_free(pool);
	pool = NULL;
	for (unsigned i = 0; i < SCRIPT_MAX_CONNS; i++)
		sbuf_reset(&F.sent[i]);
	sbuf_reset(&F.output);
}

/* Greet and log in: the set-up's first three commands, caps the
 * capabilities after LOGIN. */
static void
greet_login(const char *caps)
{
	char line[256];

	script_on_ready(F.run, 0);
	expect_sent(0, "u1 CAPABILITY\r\n");
	server(0, "* CAPABILITY IMAP4rev1\nu1 OK");
	expect_sent(0, "u2 LOGIN \"u@d\" \"pw\"\r\n");
	server(0, "u2 OK");
	expect_sent(0, "u3 CAPABILITY\r\n");
	snprintf(line, sizeof(line), "* CAPABILITY %s\nu3 OK", caps);
	server(0, line);
}

/* Greet and walk the set-up up to level: 0 auth, 1 created, 2 selected
 * (the steps' first tag is then s7, s8, s9). */
static void
setup_to_steps(const char *caps, int level)
{
	greet_login(caps);
	expect_sent(0, "u4 LIST \"\" \"tbox*\"\r\n");
	server(0, "* LIST () \"/\" tbox\n* LIST () \"/\" tbox/sub\nu4 OK");
	expect_sent(0, "u5 DELETE \"tbox/sub\"\r\n");
	server(0, "u5 OK");
	expect_sent(0, "u6 DELETE \"tbox\"\r\n");
	server(0, "u6 NO [NONEXISTENT] gone already");
	if (level == 0)
		return;
	expect_sent(0, "u7 CREATE \"tbox\"\r\n");
	server(0, "u7 OK");
	if (level == 2) {
		expect_sent(0, "u8 SELECT \"tbox\"\r\n");
		server(0, "* 0 EXISTS\nu8 OK [READ-WRITE]");
	}
}

static const struct script_outcome *
outcome(void)
{
	ck_assert(script_run_finished(F.run));
	return script_run_outcome(F.run);
}

START_TEST(test_pass_and_logout)
{
	start("ok fetch 1 uid\n* 1 fetch (uid $u)\nok uid fetch $u flags\n");
	setup_to_steps("IMAP4rev1", 2);
	expect_sent(0, "s9 fetch 1 uid\r\n");
	server(0, "* 1 FETCH (UID 41)\ns9 OK");
	expect_sent(0, "s10 uid fetch 41 flags\r\n");
	ck_assert(!script_run_finished(F.run));
	server(0, "* 1 FETCH (UID 41 FLAGS ())\ns10 OK");
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "* BYE\nz OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	ck_assert_uint_eq(outcome()->commands, 2);
	ck_assert(F.closed & 1);
	finish();
}
END_TEST

START_TEST(test_skip_missing_capability)
{
	start("capabilities: CONDSTORE\n\nok noop\n");
	script_on_ready(F.run, 0);
	server(0, "* CAPABILITY IMAP4rev1\nu1 OK");
	server(0, "u2 OK");
	server(0, "* CAPABILITY IMAP4rev1 IDLE\nu3 OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_SKIP);
	ck_assert_str_eq(outcome()->detail, "missing capability CONDSTORE");
	ck_assert(F.closed & 1);
	finish();
}
END_TEST

START_TEST(test_nonauth)
{
	start("state: nonauth\n\nok capability\n* capability $ $\n");
	script_on_ready(F.run, 0);
	expect_sent(0, "u1 CAPABILITY\r\n");
	server(0, "* CAPABILITY IMAP4rev1 LOGIN\nu1 OK");
	expect_sent(0, "s2 capability\r\n");
	server(0, "* CAPABILITY IMAP4rev1 AUTH=PLAIN\ns2 OK");
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	finish();
}
END_TEST

START_TEST(test_failure_diff)
{
	start("ok select $mailbox\n* 3 exists\n");
	setup_to_steps("IMAP4rev1", 2);
	expect_sent(0, "s9 select tbox\r\n");
	server(0, "* 2 EXISTS\n* OK [UIDNEXT 3] \x1b[2J\ns9 OK");
	/* the test goes on: to its LOGOUT */
	ck_assert(!script_run_finished(F.run));
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "z OK");
	const struct script_outcome *o = outcome();
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(o->line, 2);
	ck_assert_msg(strstr(o->detail, "command (line 1, connection 1): select $mailbox\n"),
		      "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "expected (line 2): * 3 exists\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "why: expected '3', the server sent '2'"),
		      "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "    * 2 EXISTS\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "\\x1b[2J") && !strchr(o->detail, 0x1b),
		      "%s", o->detail);
	finish();
}
END_TEST

START_TEST(test_wrong_result)
{
	start("select x\nok [read-only]\n");
	setup_to_steps("IMAP4rev1", 2);
	free(took(0));
	server(0, "s9 OK [READ-WRITE] ok");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(outcome()->line, 2);
	finish();
	start("ok delete x\n");
	setup_to_steps("IMAP4rev1", 2);
	free(took(0));
	server(0, "s9 NO nope");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(outcome()->line, 1);
	finish();
}
END_TEST

START_TEST(test_two_connections)
{
	start("connections: 2\nstate: selected\n\n1 ok expunge\n* 2 expunge\n"
	      "2 ok noop\n* $2 expunge\n2 ok fetch $3 uid\n* $3 fetch (uid 3)\n");
	script_on_ready(F.run, 1);
	ck_assert_str_eq(F.sent[0].s ? F.sent[0].s : "", "");
	script_on_ready(F.run, 0);
	server(0, "u1 OK");
	expect_sent(0, "u1 CAPABILITY\r\nu2 LOGIN \"u@d\" \"pw\"\r\n");
	server(0, "u2 OK");
	expect_sent(1, "u3 LOGIN \"u@d\" \"pw\"\r\n");
	server(1, "u3 OK");
	server(0, "u4 OK");
	server(0, "u5 OK");		/* LIST */
	server(0, "u6 OK");		/* CREATE */
	expect_sent(0, "u4 CAPABILITY\r\nu5 LIST \"\" \"tbox*\"\r\nu6 CREATE \"tbox\"\r\n"
		    "u7 SELECT \"tbox\"\r\n");
	server(0, "u7 OK");
	expect_sent(1, "u8 SELECT \"tbox\"\r\n");
	server(1, "* 3 EXISTS\nu8 OK");
	expect_sent(0, "s9 expunge\r\n");
	/* news on connection 2 while connection 1's step runs: kept for
	 * connection 2's next step, where it matches */
	server(1, "* 2 EXPUNGE");
	server(0, "* 2 EXPUNGE\ns9 OK");
	expect_sent(1, "s10 noop\r\n");
	server(1, "s10 OK");
	expect_sent(1, "s11 fetch 3 uid\r\n");
	/* the EXPUNGE after the FETCH and before it both match */
	server(1, "* 3 FETCH (UID 3)\ns11 OK");
	server(0, "z OK");
	server(1, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

/* An EXISTS that connection 1 gets while connection 2's step runs (RFC
 * 3501 5.2 allows it at any time) counts for connection 1's next step:
 * IDLE's expected EXISTS may come before the IDLE. */
START_TEST(test_news_between_steps)
{
	start("connections: 2\nstate: auth\n\n2 ok noop\n1 ok idle\n* 4 exists\n");
	script_on_ready(F.run, 0);
	script_on_ready(F.run, 1);
	for (unsigned t = 1; t <= 5; t++) {	/* CAPABILITY, 2 LOGINs, CAPABILITY, LIST */
		char line[32];
		snprintf(line, sizeof(line), "u%u OK", t);
		server(t == 3 ? 1 : 0, line);
	}
	free(took(0));
	expect_sent(1, "u3 LOGIN \"u@d\" \"pw\"\r\ns6 noop\r\n");
	server(0, "* 4 EXISTS");
	server(1, "s6 OK");
	expect_sent(0, "s7 idle\r\n");
	server(0, "+ idling");
	expect_sent(0, "DONE\r\n");
	server(0, "s7 OK");
	server(0, "z OK");
	server(1, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

START_TEST(test_pipelined)
{
	start("state: auth\n\nt1 status a (messages)\nt2 status b (messages)\n"
	      "* status b (messages 0)\n* status a (messages 0)\nt1 ok\nt2 ok\n");
	setup_to_steps("IMAP4rev1", 0);
	expect_sent(0, "t1 status a (messages)\r\nt2 status b (messages)\r\n");
	server(0, "* STATUS a (MESSAGES 0)\nt2 OK\n* STATUS b (MESSAGES 0)\nt1 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

START_TEST(test_literal_and_idle)
{
	start("state: created\n\nok append $mailbox {5}\nabc\n {3+}\nx\n\nok idle\n");
	setup_to_steps("IMAP4rev1", 1);
	expect_sent(0, "s8 append tbox {5}\r\n");
	server(0, "+ go");
	expect_sent(0, "abc\r\n {3+}\r\nx\r\n\r\n");
	server(0, "s8 OK");
	expect_sent(0, "s9 idle\r\n");
	server(0, "+ idling");
	expect_sent(0, "DONE\r\n");
	server(0, "s9 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

START_TEST(test_ignore_extra_untagged)
{
	start("ignore_extra_untagged: no\nstate: auth\n\nok noop\n* 1 exists\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 1 EXISTS\n* 1 RECENT\ns7 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_msg(strstr(outcome()->detail, "* 1 RECENT"), "%s", outcome()->detail);
	finish();
	start("state: auth\n\nok noop\n* 1 exists\n");
	setup_to_steps("IMAP4rev1", 0);
	server(0, "* 1 EXISTS\n* 1 RECENT\ns7 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	finish();
}
END_TEST

/* "! ": a reply it matches fails the test, even one a "* " line took;
 * "? ": a reply it matches is no extra, and its absence no failure. */
START_TEST(test_must_not_and_may)
{
	start("ignore_extra_untagged: no\nstate: auth\n\nok noop\n* 1 exists\n"
	      "! $ exists\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 1 EXISTS\ns7 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(outcome()->line, 6);
	ck_assert_msg(strstr(outcome()->detail, "forbids: '* 1 EXISTS'"), "%s",
		      outcome()->detail);
	finish();
	start("ignore_extra_untagged: no\nstate: auth\n\nok noop\n* 1 exists\n"
	      "! 2 exists\n? $ recent\n? 9 expunge\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 1 EXISTS\n* 1 RECENT\ns7 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

/* A "~{{{" block with a NUL goes out whole (its length, not strlen). */
START_TEST(test_nul_literal_sent)
{
	static const char text[] = "state: created\n\nok append $mailbox ~{{{\n"
				   "a\0b\r\n}}}\n";
	const struct script_env env = {
		.user = "u@d", .password = "pw", .mailbox = "tbox",
		.host = "127.0.0.1", .port = 143,
	};
	const struct script_io io = { io_open, io_send, io_close, NULL,
				      io_sleep, io_output };

	memset(&F, 0, sizeof(F));
	S = script_parse("t/x", text, sizeof(text) - 1, err, sizeof(err));
	ck_assert_msg(S != NULL, "%s", err);
	F.run = script_run_new(&env, &io, NULL);
	script_run_start(F.run, S, pool);
	setup_to_steps("IMAP4rev1 BINARY", 1);
	expect_sent(0, "s8 append tbox ~{4}\r\n");
	server(0, "+ go");
	ck_assert_uint_eq(F.sent[0].len, 6);
	ck_assert(memcmp(F.sent[0].s, "a\0b\r\r\n", 6) == 0);
	free(took(0));
	server(0, "s8 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

/* A two-connection script up to connection 1's CAPABILITY answered. */
static void
two_greeted(const char *text, const char *user2)
{
	start_env(text, user2, false);
	script_on_ready(F.run, 0);
	script_on_ready(F.run, 1);
	server(0, "* CAPABILITY IMAP4rev1\nu1 OK");
}

/* "user 2: $user2": connection 2 logs in as user2=, connection 1 as
 * user=; without user2= the test is skipped. */
START_TEST(test_user_header)
{
	two_greeted("connections: 2\nuser 2: $user2\nstate: auth\n\n2 ok noop\n",
		    "other");
	expect_sent(0, "u1 CAPABILITY\r\nu2 LOGIN \"u@d\" \"pw\"\r\n");
	server(0, "u2 OK");
	expect_sent(1, "u3 LOGIN \"other\" \"pw\"\r\n");
	finish();
	/* imaptest: without "user 2:" every connection is user= */
	two_greeted("connections: 2\nstate: auth\n\n2 ok noop\n", "other");
	server(0, "u2 OK");
	free(took(0));
	expect_sent(1, "u3 LOGIN \"u@d\" \"pw\"\r\n");
	finish();
	two_greeted("connections: 2\nuser 2: $user2\nstate: auth\n\n2 ok noop\n",
		    NULL);
	server(0, "u2 OK");
	server(1, "u3 OK");
	server(0, "u4 OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_SKIP);
	ck_assert_str_eq(outcome()->detail, "needs user2= (a 'user N: $user2' line)");
	finish();
}
END_TEST

START_TEST(test_setup_and_connection_failures)
{
	start("ok noop\n");
	script_on_ready(F.run, 0);
	server(0, "u1 OK");
	server(0, "u2 NO [AUTHENTICATIONFAILED] bad password");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_msg(strstr(outcome()->detail, "set-up: LOGIN failed"), "%s",
		      outcome()->detail);
	finish();
	/* A refused DELETE of a listed mailbox is named (NONEXISTENT is
	 * not a refusal: setup_to_steps shows that). */
	start("ok noop\n");
	script_on_ready(F.run, 0);
	server(0, "u1 OK");
	server(0, "u2 OK");
	server(0, "u3 OK");
	server(0, "* LIST () \"/\" tbox\nu4 OK");
	server(0, "u5 NO [INUSE] mailbox in use");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_msg(strstr(outcome()->detail, "set-up: DELETE of an old test mailbox: "
			     "the server sent 'u5 NO [INUSE] mailbox in use'"), "%s",
		      outcome()->detail);
	finish();
	start("state: auth\n\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	script_on_closed(F.run, 0, "reset by peer");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_msg(strstr(outcome()->detail, "connection 1 closed: reset by peer"),
		      "%s", outcome()->detail);
	finish();
	start("state: auth\n\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	server(0, "zz OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	finish();
}
END_TEST

START_TEST(test_predefined_variables)
{
	start_env("connections: 2\nuser 2: $user2\nstate: nonauth\n\n"
		  "1 ok x $user $username $domain $password $mailbox $mailbox_url\n"
		  "2 ok y $user2 $username2 $domain2 $password2\n", "v2", false);
	script_on_ready(F.run, 0);
	script_on_ready(F.run, 1);
	server(0, "u1 OK");
	expect_sent(0, "u1 CAPABILITY\r\ns2 x u@d u d pw tbox tbox\r\n");
	server(0, "s2 OK");
	/* no domain in the name: the host, as imaptest */
	expect_sent(1, "s3 y v2 v2 127.0.0.1 pw\r\n");
	server(1, "s3 OK");
	finish();
}
END_TEST

/* A selected-state script whose first step gets reply: its outcome
 * (LOGOUT answered when the step completed). */
static const struct script_outcome *
one_step(const char *text, const char *reply)
{
	start(text);
	setup_to_steps("IMAP4rev1", 2);
	free(took(0));
	server(0, reply);
	if (!script_run_finished(F.run))
		server(0, "z OK");
	return outcome();
}

/* A message's data items in several FETCH replies (RFC 3501 7.4.2)
 * match one expected line; items of two messages do not add up; what no
 * line took is an extra reply. */
START_TEST(test_split_fetch)
{
	const char *uf = "ok fetch 1:2 (uid flags)\n* 1 fetch (uid 5 flags (\\seen))\n";
	const char *uf_strict = "ignore_extra_untagged: no\n\nok fetch 1 (uid flags)\n"
				"* 1 fetch (uid 5 flags (\\seen))\n";
	const struct script_outcome *o;

	o = one_step("ok fetch 3 (body[header.fields (subject)])\n"
		     "* 3 fetch (body[header.fields (subject)] {4}\nab\n flags (\\seen))\n",
		     "* 3 FETCH (BODY[HEADER.FIELDS (SUBJECT)] {4}\nab\n)\n"
		     "* 2 FETCH (FLAGS ())\n* 3 FETCH (FLAGS (\\Seen))\ns9 OK");
	ck_assert_msg(o->verdict == SCRIPT_PASS, "%s", o->detail);
	finish();
	o = one_step(uf, "* 1 FETCH (UID 5)\n* 2 FETCH (FLAGS (\\Seen))\ns9 OK");
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(o->line, 2);
	finish();
	/* ignore_extra_untagged: no: the parts are no extra; a FETCH no
	 * line takes is, named at the end of the step */
	o = one_step(uf_strict, "* 1 FETCH (FLAGS (\\Seen))\n* 1 FETCH (UID 5)\ns9 OK");
	ck_assert_msg(o->verdict == SCRIPT_PASS, "%s", o->detail);
	finish();
	o = one_step(uf_strict, "* 1 FETCH (UID 5 FLAGS (\\Seen))\n* 2 FETCH (FLAGS (\\Draft))\n"
		     "s9 OK");
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_msg(strstr(o->detail, "does not list: '* 2 FETCH (FLAGS (\\Draft))'"),
		      "%s", o->detail);
	finish();
}
END_TEST

/* Log in with caps, then NAMESPACE answered with ns (NULL: not asked):
 * returns the next tag number. */
static unsigned
login_namespace(const char *caps, const char *ns)
{
	char line[256];

	script_on_ready(F.run, 0);
	server(0, "* CAPABILITY IMAP4rev1\nu1 OK");
	server(0, "u2 OK");
	snprintf(line, sizeof(line), "* CAPABILITY %s\nu3 OK", caps);
	expect_sent(0, "u1 CAPABILITY\r\nu2 LOGIN \"u@d\" \"pw\"\r\nu3 CAPABILITY\r\n");
	server(0, line);
	if (ns == NULL)
		return 4;
	expect_sent(0, "u4 NAMESPACE\r\n");
	server(0, ns);
	return 5;
}

/* CREATE refused: the outcome names the mailbox, the server's line and
 * the hint. */
static void
expect_create_refused(unsigned tag, const char *box, const char *hint)
{
	char line[256];

	snprintf(line, sizeof(line), "u%u LIST \"\" \"%s*\"\r\n", tag, box);
	expect_sent(0, line);
	snprintf(line, sizeof(line), "u%u OK", tag);
	server(0, line);
	snprintf(line, sizeof(line), "u%u CREATE \"%s\"\r\n", tag + 1, box);
	expect_sent(0, line);
	snprintf(line, sizeof(line), "u%u NO [CANNOT] Invalid mailbox \x1b[1m", tag + 1);
	server(0, line);
	const struct script_outcome *o = outcome();
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	snprintf(line, sizeof(line), "set-up: CREATE of the test mailbox '%s' failed: "
		 "the server sent 'u%u NO [CANNOT] Invalid mailbox \\x1b[1m'\nhint: ",
		 box, tag + 1);
	ck_assert_msg(strncmp(o->detail, line, strlen(line)) == 0, "%s", o->detail);
	ck_assert_msg(strstr(o->detail, hint), "'%s' lacks '%s'", o->detail, hint);
	ck_assert_msg(strstr(o->detail, "give box= a mailbox this user may create"),
		      "%s", o->detail);
	finish();
}

/* With box= left alone, the test mailbox goes under the personal
 * namespace's prefix ($mailbox too); CREATE refused says where the name
 * came from; box= given is never moved. */
START_TEST(test_namespace)
{
	start_env("state: created\n\nok status $mailbox (messages)\n", NULL, true);
	unsigned t = login_namespace("IMAP4rev1 NAMESPACE",
				     "* NAMESPACE ((\"INBOX.\" \".\")) NIL NIL\nu4 OK");
	ck_assert_uint_eq(t, 5);
	expect_sent(0, "u5 LIST \"\" \"INBOX.tbox*\"\r\n");
	server(0, "* LIST () \".\" INBOX.tbox\nu5 OK");
	expect_sent(0, "u6 DELETE \"INBOX.tbox\"\r\n");
	server(0, "u6 OK");
	expect_sent(0, "u7 CREATE \"INBOX.tbox\"\r\n");
	server(0, "u7 OK");
	expect_sent(0, "s8 status INBOX.tbox (messages)\r\n");
	server(0, "s8 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	finish();

	/* a prefix without its separator gets it; IMAP4rev2 has NAMESPACE */
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev2", "* NAMESPACE ((\"INBOX\" \"/\")(\"x.\" \".\")) NIL NIL\n"
			"u4 OK");
	expect_create_refused(5, "INBOX/tbox", "hint: the name is the personal "
			      "namespace's prefix 'INBOX' (from NAMESPACE) and 'tbox'");

	/* no NAMESPACE offered: not asked, the top level, and the hint
	 * says so */
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev1", NULL);
	expect_create_refused(4, "tbox", "hint: the server offers no NAMESPACE, so "
			      "the test mailbox is at the top level; give box= a mailbox "
			      "this user may create (with personal mailboxes under "
			      "'INBOX.': box=INBOX.tbox)");

	/* no personal namespace, an empty prefix, NAMESPACE refused */
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev1 NAMESPACE", "* NAMESPACE NIL NIL ((\"#s/\" \"/\"))\nu4 OK");
	expect_create_refused(5, "tbox", "NAMESPACE gives the personal mailboxes no prefix");
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev1 NAMESPACE", "* NAMESPACE ((\"\" \"/\")) NIL NIL\nu4 OK");
	expect_create_refused(5, "tbox", "NAMESPACE gives the personal mailboxes no prefix");
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev1 NAMESPACE", "u4 BAD no");
	expect_create_refused(5, "tbox", "NAMESPACE failed, so the test mailbox is at the "
			      "top level");
	/* a prefix no quoted string can carry is not used, and shown escaped */
	start_env("state: created\n\nok noop\n", NULL, true);
	login_namespace("IMAP4rev1 NAMESPACE", "* NAMESPACE ((\"IN\xc3\x96.\" \".\")) NIL NIL\n"
			"u4 OK");
	expect_create_refused(5, "tbox", "prefix 'IN\\xc3\\x96.' has octets");

	/* box= given: NAMESPACE is not asked even when offered */
	start_env("state: created\n\nok noop\n", NULL, false);
	login_namespace("IMAP4rev1 NAMESPACE", NULL);
	expect_create_refused(4, "tbox", "hint: the name is box='tbox'");
}
END_TEST

/* messages: 4 from a 3-message mbox: wraps, one APPEND each, every
 * literal after the server's "+". */
/* pool: three messages, "Subject: N" and body one, two, three. */
static void
three_messages(void)
{
	char path[] = "/tmp/imapstress-run-XXXXXX";
	int fd = mkstemp(path);
	const char mbox[] = "From a\nSubject: 1\n\none\nFrom b\nSubject: 2\n\ntwo\n"
			    "From c\nSubject: 3\n\nthree\n";
	char e[256];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, mbox, sizeof(mbox) - 1), (ssize_t)(sizeof(mbox) - 1));
	close(fd);
	pool = msg_pool_from_mbox(path, e, sizeof(e));
	unlink(path);
	ck_assert_msg(pool != NULL, "%s", e);
	ck_assert_uint_eq(msg_pool_count(pool), 3);
}

/* imaptest's bodiless APPEND: "append" alone goes to $mailbox, "append
 * BOX (flags)" to BOX, each with the mbox's next message (as the mbox
 * has it in the test's own mailboxes, with the marker in any other);
 * one with a literal is sent as written.  $tag is the step's tag, "$$"
 * a '$'. */
START_TEST(test_bare_append_tag_dollar)
{
	three_messages();
	start("state: created\n\nok append\nok append other (\\seen)\n"
	      "ok append \"tbox2\"\n"
	      "ok append x {3}\ny\n\nok store 1 +flags ($$kw)\n"
	      "* 1 fetch (flags ($$kw)) $tag\n");
	setup_to_steps("IMAP4rev1", 1);
	const struct msg *m = msg_pool_get(pool, 0);
	char want[128];
	snprintf(want, sizeof(want), "s8 append \"tbox\" {%zu}\r\n", m->len);
	expect_sent(0, want);
	server(0, "+ go");
	char *body = took(0);
	ck_assert_uint_eq(strlen(body), m->len + 2);
	ck_assert(memcmp(body, m->data, m->len) == 0);
	free(body);
	server(0, "s8 OK");
	m = msg_pool_get(pool, 1);
	snprintf(want, sizeof(want), "s9 append other (\\seen) {%zu}\r\n",
		 MSG_MARK_LINE_LEN + m->len);
	expect_sent(0, want);
	server(0, "+ go");
	body = took(0);
	ck_assert(strncmp(body, "X-Imapstress: run=00c0ffee12345678 ", 35) == 0);
	ck_assert(memcmp(body + MSG_MARK_LINE_LEN, m->data, m->len) == 0);
	free(body);
	server(0, "s9 OK");
	m = msg_pool_get(pool, 2);
	snprintf(want, sizeof(want), "s10 append \"tbox2\" {%zu}\r\n", m->len);
	expect_sent(0, want);
	server(0, "+ go");
	free(took(0));
	server(0, "s10 OK");
	expect_sent(0, "s11 append x {3}\r\n");
	server(0, "+ go");
	expect_sent(0, "y\r\n\r\n");
	server(0, "s11 OK");
	expect_sent(0, "s12 store 1 +flags ($kw)\r\n");
	server(0, "* 1 FETCH (FLAGS ($kw)) s12\ns12 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
}
END_TEST

START_TEST(test_append_setup)
{
	three_messages();
	start("messages: 4\nstate: appended\n\nok noop\n");
	setup_to_steps("IMAP4rev1", 1);
	for (unsigned i = 0; i < 4; i++) {
		const struct msg *m = msg_pool_get(pool, i % 3);
		char want[128], tag[16];
		snprintf(tag, sizeof(tag), "u%u", 8 + i);
		/* The mbox's message as it is, without the marker: the
		 * test's own mailbox needs none (script_guard.c), and
		 * imaptest's tests compare BODY[] whole. */
		snprintf(want, sizeof(want), "%s APPEND \"tbox\" {%zu}\r\n", tag,
			 m->len);
		expect_sent(0, want);
		server(0, "+ go");
		char *body = took(0);
		ck_assert_uint_eq(strlen(body), m->len + 2);
		ck_assert(memcmp(body, m->data, m->len) == 0);
		ck_assert_ptr_null(strstr(body, "X-Imapstress"));
		free(body);
		snprintf(want, sizeof(want), "* %u EXISTS\n%s OK [APPENDUID 1 %u]", i + 1,
			 tag, i + 1);
		server(0, want);
	}
	expect_sent(0, "s12 noop\r\n");
	server(0, "s12 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	finish();
}
END_TEST

/* --- the foreign-mail check ----------------------------------------------- */

/* Up to the LIST of the test mailboxes, answered with tbox (3 messages)
 * and tbox/sub (\Noselect). */
static void
guarded_to_list(const char *text)
{
	start(text);
	greet_login("IMAP4rev1");
	expect_sent(0, "u4 LIST \"\" \"tbox*\"\r\n");
	server(0, "* LIST () \"/\" tbox\n* LIST (\\Noselect) \"/\" tbox/sub\nu4 OK");
}

/* The check of tbox, holding `exists`: EXAMINE, then the search, whose
 * reply is `answer`. */
static void
guarded_search(const char *exists, const char *answer)
{
	expect_sent(0, "u5 EXAMINE \"tbox\"\r\n");
	server(0, exists);
	expect_sent(0, "u6 " GUARD_SEARCH "\r\n");
	server(0, answer);
}

/* The check, then the deletes; a second test of the process does not
 * check again. */
START_TEST(test_guard_setup_clean)
{
	guarded_to_list("ok noop\n");
	guarded_search("* 3 EXISTS\nu5 OK [READ-ONLY]", "* SEARCH\nu6 OK");
	expect_sent(0, "u7 EXAMINE \"tbox/sub\"\r\n");
	server(0, "u7 NO [NONEXISTENT] noselect");	/* holds nothing */
	expect_sent(0, "u8 CLOSE\r\n");
	server(0, "u8 OK");
	expect_sent(0, "u9 DELETE \"tbox/sub\"\r\n");
	server(0, "u9 OK");
	expect_sent(0, "u10 DELETE \"tbox\"\r\n");
	server(0, "u10 OK");
	expect_sent(0, "u11 CREATE \"tbox\"\r\n");
	finish();

	guarded_to_list("ok noop\n");
	expect_sent(0, "u5 DELETE \"tbox/sub\"\r\n");
	finish();
}
END_TEST

START_TEST(test_guard_setup_foreign)
{
	guarded_to_list("ok noop\n");
	guarded_search("* 20 EXISTS\nu5 OK [READ-ONLY]",
		       "* SEARCH 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 "
		       "20\nu6 OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert(outcome()->foreign);
	ck_assert_str_eq(outcome()->detail, "foreign-mail check: user u@d, "
			 "mailbox \"tbox\" holds 20 messages without the "
			 "X-Imapstress header (mail imapstress did not put "
			 "there); nothing was deleted; --allow-foreign-mail "
			 "runs anyway");
	char *rest = took(0);
	ck_assert_ptr_null(strstr(rest, "DELETE"));
	free(rest);
	finish();

	/* Not cleared: the next test checks again, and a NO is no answer. */
	guarded_to_list("ok noop\n");
	guarded_search("* 2 EXISTS\nu5 OK [READ-ONLY]", "u6 NO search refused");
	ck_assert(outcome()->foreign);
	ck_assert_ptr_nonnull(strstr(outcome()->detail, "answered NO"));
	finish();
}
END_TEST

/* A step may destroy only in the test's own mailboxes. */
START_TEST(test_guard_steps)
{
	/* As after a clean check (test_guard_setup_clean). */
	guard_set(guard, guard_entry(guard, "u@d", "tbox*", 5), GUARD_SAFE);
	start("ok store 1 +flags \\deleted\nok expunge\nok select inbox\n"
	      "ok expunge\n");
	setup_to_steps("IMAP4rev1", 2);
	expect_sent(0, "s9 store 1 +flags \\deleted\r\n");
	server(0, "s9 OK");
	expect_sent(0, "s10 expunge\r\n");
	server(0, "s10 OK");
	expect_sent(0, "s11 select inbox\r\n");
	server(0, "* 20 EXISTS\ns11 OK");
	ck_assert(outcome()->foreign);
	ck_assert_ptr_nonnull(strstr(outcome()->detail, "mailbox \"inbox\""));
	expect_sent(0, "");	/* the EXPUNGE never went */
	finish();

	start("ok delete otherbox\n");
	setup_to_steps("IMAP4rev1", 2);
	ck_assert(outcome()->foreign);
	expect_sent(0, "");
	finish();
}
END_TEST

/* A nonauth test has no set-up, so nothing checked the test mailbox's
 * names: a destructive step there is refused like one elsewhere (it
 * would have deleted a "tbox" of someone else's mail unchecked). */
START_TEST(test_guard_nonauth)
{
	start("state: nonauth\n\nok login u@d pw\nok delete tbox\n");
	script_on_ready(F.run, 0);
	expect_sent(0, "u1 CAPABILITY\r\n");
	server(0, "* CAPABILITY IMAP4rev1\nu1 OK");
	expect_sent(0, "s2 login u@d pw\r\n");
	server(0, "s2 OK");
	ck_assert(outcome()->foreign);
	ck_assert_ptr_nonnull(strstr(outcome()->detail, "mailbox \"tbox\""));
	ck_assert_ptr_nonnull(strstr(outcome()->detail, "before any set-up "
				     "checked"));
	expect_sent(0, "");	/* the DELETE never went */
	finish();
}
END_TEST

/* The clean-up run after the last test (script_cleanup_new): on the run
 * object the tests used, it logs in, lists the test mailboxes, deletes
 * them (children first) and logs out, with no check where a test's
 * set-up checked already; with no test that got as far as the LIST, it
 * ends at once and opens nothing. */
START_TEST(test_cleanup_run)
{
	/* a test: its set-up checks the names (LIST: nothing there yet) */
	start("ok noop\n");
	greet_login("IMAP4rev1");
	expect_sent(0, "u4 LIST \"\" \"tbox*\"\r\n");
	server(0, "u4 OK");
	expect_sent(0, "u5 CREATE \"tbox\"\r\n");
	server(0, "u5 OK");
	expect_sent(0, "u6 SELECT \"tbox\"\r\n");
	server(0, "* 0 EXISTS\nu6 OK");
	expect_sent(0, "s7 noop\r\n");
	server(0, "s7 OK");
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);

	/* then the clean-up on the same run object */
	struct script *c = script_cleanup_new();
	ck_assert(c->cleanup);
	F.opened = F.closed = 0;
	script_run_start(F.run, c, NULL);
	ck_assert(!script_run_finished(F.run));
	ck_assert_uint_eq(F.opened, 1);
	greet_login("IMAP4rev1");
	expect_sent(0, "u4 LIST \"\" \"tbox*\"\r\n");
	server(0, "* LIST () \"/\" tbox\n* LIST () \"/\" tbox/x\nu4 OK");
	expect_sent(0, "u5 DELETE \"tbox/x\"\r\n");
	server(0, "u5 OK");
	expect_sent(0, "u6 DELETE \"tbox\"\r\n");
	server(0, "u6 OK");
	expect_sent(0, "z LOGOUT\r\n");	/* no CREATE, no APPEND */
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	ck_assert(F.closed & 1);
	finish();

	/* nothing was used: done at once, no connection */
	start("state: nonauth\n\nok noop\n");
	script_run_free(F.run);
	const struct script_env env = { .user = "u@d", .password = "pw",
					.mailbox = "tbox", .guard = guard };
	const struct script_io io = { io_open, io_send, io_close, NULL,
				      io_sleep, io_output };
	F.run = script_run_new(&env, &io, NULL);
	F.opened = 0;
	script_run_start(F.run, c, NULL);
	ck_assert(script_run_finished(F.run));
	ck_assert_int_eq(script_run_outcome(F.run)->verdict, SCRIPT_PASS);
	ck_assert_uint_eq(F.opened, 0);
	finish();
	script_free(c);
}
END_TEST

/* The guard tests' process memory (imap/guard.h). */
static void
guard_up(void)
{
	guard = guard_new();
}

static void
guard_down(void)
{
	guard_free(guard);
	guard = NULL;
}

/* A failure does not end the test (imaptest's test-exec.c): every step
 * runs, each failure counts (a wrong result per command, the missing
 * replies of a step as one, a variable with no value), the first one's
 * line is the test's; the groups are all of them and the added LOGOUT. */
START_TEST(test_failure_goes_on)
{
	start("state: auth\n\nok noop\n* 5 exists\n* 6 exists\n"
	      "t1 noop\nt2 noop\nt1 no\nt2 no\nok fetch $nothere\n"
	      "ok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	expect_sent(0, "s7 noop\r\n");
	server(0, "s7 OK");
	expect_sent(0, "t1 noop\r\nt2 noop\r\n");
	server(0, "t1 OK\nt2 OK");
	/* what was expanded up to the variable goes out, as imaptest's */
	expect_sent(0, "s10 fetch \r\n");
	server(0, "s10 BAD [PARSE] no sequence set");
	ck_assert(script_run_finished(F.run));	/* see test_bad_drops */
	finish();

	start("state: auth\n\nok noop\n* 5 exists\n* 6 exists\n"
	      "t1 noop\nt2 noop\nt1 no\nt2 no\nbad fetch $nothere\n"
	      "ok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 OK");
	server(0, "t1 OK\nt2 OK");
	expect_sent(0, "t1 noop\r\nt2 noop\r\ns10 fetch \r\n");
	server(0, "s10 BAD [PARSE] no sequence set");
	expect_sent(0, "s11 noop\r\n");
	server(0, "s11 OK");
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "z OK");
	const struct script_outcome *o = outcome();
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(o->line, 4);
	ck_assert_uint_eq(o->failures, 4);
	ck_assert_uint_eq(o->groups, 5);
	ck_assert_uint_eq(o->commands, 1);	/* the last noop */
	ck_assert_msg(strstr(o->detail, "expected (line 4): * 5 exists\n"
			     "why: no reply of the server matched this line "
			     "(and 1 more lines of this step had no reply)\n"),
		      "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "failure 2 (line 8):\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "failure 3 (line 9):\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "failure 4 (line 10):\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "$nothere has no value"), "%s", o->detail);
	finish();

	/* a lost connection still ends it: the steps before and the one
	 * under way count */
	start("state: auth\n\nno noop\nok noop\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 OK");
	server(0, "s8 OK");
	script_on_closed(F.run, 0, "reset by peer");
	o = outcome();
	ck_assert_uint_eq(o->failures, 2);
	ck_assert_uint_eq(o->groups, 3);
	ck_assert_uint_eq(o->line, 3);
	ck_assert_msg(strstr(o->detail, "failure 2 (line 5):\n"), "%s", o->detail);
	ck_assert_msg(strstr(o->detail, "reset by peer"), "%s", o->detail);
	finish();

	/* more than ten: counted, not all shown */
	struct sbuf t = { 0 };
	sbuf_adds(&t, "state: auth\n\n");
	for (unsigned i = 0; i < 12; i++)
		sbuf_adds(&t, "no noop\n");
	start(t.s);
	sbuf_reset(&t);
	setup_to_steps("IMAP4rev1", 0);
	for (unsigned i = 0; i < 12; i++) {
		char line[32];
		snprintf(line, sizeof(line), "s%u OK", 7 + i);
		server(0, line);
	}
	server(0, "z OK");
	o = outcome();
	ck_assert_uint_eq(o->failures, 12);
	ck_assert_uint_eq(o->groups, 13);
	ck_assert_msg(strstr(o->detail, "failure 10 (line 12)") &&
		      !strstr(o->detail, "failure 11") &&
		      strstr(o->detail, "(2 more failures, not shown)\n"),
		      "%s", o->detail);
	finish();
}
END_TEST

/* imaptest's client drops the connection on a BAD it does not expect
 * (result "bad"; not "" or "ok"): after the step's own checks the test
 * goes to the next group, whose send finds the connection gone: one more
 * failure, and one for each of its commands' unset variables; the groups
 * counted end with the BAD one (the reference imaptest: 2/1). */
START_TEST(test_bad_drops)
{
	start("state: auth\n\nok bogus\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 BAD unknown command");
	const struct script_outcome *o = outcome();
	ck_assert_uint_eq(o->failures, 2);
	ck_assert_uint_eq(o->groups, 1);
	ck_assert_msg(strstr(o->detail, "imaptest drops the connection"), "%s",
		      o->detail);
	ck_assert(F.closed & 1);
	finish();
	/* the next group's unset variable counts too (urlauth on Cyrus) */
	start("state: auth\n\nok bogus\nok fetch $nothing\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 BAD unknown command");
	o = outcome();
	ck_assert_uint_eq(o->failures, 3);
	ck_assert_uint_eq(o->groups, 1);
	ck_assert_msg(strstr(o->detail, "$nothing has no value yet"), "%s",
		      o->detail);
	finish();
	/* "" accepts the BAD, and still the connection goes */
	start("state: auth\n\n\"\" bogus\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 BAD unknown command");
	ck_assert_uint_eq(outcome()->failures, 1);
	finish();
	/* pipelined, the others still out: it ends now */
	start("state: auth\n\nt1 bogus\nt2 noop\nt1 ok\nt2 ok\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "t1 BAD unknown command");
	ck_assert_uint_eq(outcome()->failures, 2);
	ck_assert_uint_eq(outcome()->groups, 1);
	finish();
	/* expected: no drop */
	start("state: auth\n\nbad bogus\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 BAD unknown command");
	expect_sent(0, "z LOGOUT\r\n");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	ck_assert_uint_eq(outcome()->groups, 2);
	finish();
}
END_TEST

/* !ordered: each reply takes the first waiting line it matches, and is
 * tried no further than the first "* " line still waiting: out of order
 * is a missing line.  "? " and "! " lines are passed over. */
START_TEST(test_ordered)
{
	const char *text = "state: auth\n\nok noop\n!ordered\n* 1 exists\n"
			   "? 9 recent\n* 2 exists\n";
	start(text);
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 1 EXISTS\n* 2 EXISTS\ns7 OK");
	server(0, "z OK");
	ck_assert_msg(outcome()->verdict == SCRIPT_PASS, "%s", outcome()->detail);
	finish();
	start(text);
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 2 EXISTS\n* 1 EXISTS\ns7 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(outcome()->line, 7);
	ck_assert_uint_eq(outcome()->failures, 1);
	ck_assert_msg(strstr(outcome()->detail, "in its turn (!ordered)"), "%s",
		      outcome()->detail);
	finish();
	/* without !ordered the same replies pass */
	start("state: auth\n\nok noop\n* 1 exists\n* 2 exists\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 2 EXISTS\n* 1 EXISTS\ns7 OK");
	server(0, "z OK");
	ck_assert_int_eq(outcome()->verdict, SCRIPT_PASS);
	finish();
	/* one reply, one line: "$ exists" twice needs two replies */
	start("state: auth\n\nok noop\n!ordered\n* $ exists\n* $ exists\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "* 1 EXISTS\ns7 OK");
	server(0, "z OK");
	ck_assert_uint_eq(outcome()->line, 6);
	finish();
}
END_TEST

/* !output lines when the step is over (variables replaced, one with no
 * value a failure, its text up to there printed), then !sleep: the next
 * step waits for script_on_wake; what comes meanwhile counts for it. */
START_TEST(test_output_sleep)
{
	start("state: auth\n\nok noop\n* $n exists\n!output n=$n in $mailbox\n"
	      "!output $nope!\n!sleep 1500ms\nok noop\n* 7 exists\n");
	setup_to_steps("IMAP4rev1", 0);
	expect_sent(0, "s7 noop\r\n");
	server(0, "* 4 EXISTS\ns7 OK");
	ck_assert_str_eq(F.output.s, "n=4 in tbox\n\n");
	ck_assert_uint_eq(F.sleeps, 1);
	ck_assert_uint_eq(F.slept_ms, 1500);
	expect_sent(0, "");
	server(0, "* 7 EXISTS");	/* during the pause */
	script_on_wake(F.run);
	expect_sent(0, "s8 noop\r\n");
	server(0, "s8 OK");
	server(0, "z OK");
	const struct script_outcome *o = outcome();
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(o->failures, 1);
	ck_assert_uint_eq(o->line, 6);
	ck_assert_msg(strstr(o->detail, "expected (line 6): !output $nope!\n"),
		      "%s", o->detail);
	finish();
	/* a wake after the end is nothing */
	start("state: auth\n\nok noop\n!sleep 1s\nok noop\n");
	setup_to_steps("IMAP4rev1", 0);
	free(took(0));
	server(0, "s7 OK");
	script_on_closed(F.run, 0, "gone");
	ck_assert_uint_eq(outcome()->groups, 2);
	script_on_wake(F.run);
	ck_assert_uint_eq(outcome()->failures, 1);
	finish();
}
END_TEST

static Suite *
script_run_suite(void)
{
	Suite *s = suite_create("script_run");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pass_and_logout);
	tcase_add_test(tc, test_skip_missing_capability);
	tcase_add_test(tc, test_nonauth);
	tcase_add_test(tc, test_failure_diff);
	tcase_add_test(tc, test_wrong_result);
	tcase_add_test(tc, test_two_connections);
	tcase_add_test(tc, test_pipelined);
	tcase_add_test(tc, test_news_between_steps);
	tcase_add_test(tc, test_literal_and_idle);
	tcase_add_test(tc, test_ignore_extra_untagged);
	tcase_add_test(tc, test_must_not_and_may);
	tcase_add_test(tc, test_failure_goes_on);
	tcase_add_test(tc, test_bad_drops);
	tcase_add_test(tc, test_ordered);
	tcase_add_test(tc, test_output_sleep);
	tcase_add_test(tc, test_nul_literal_sent);
	tcase_add_test(tc, test_user_header);
	tcase_add_test(tc, test_setup_and_connection_failures);
	tcase_add_test(tc, test_predefined_variables);
	tcase_add_test(tc, test_append_setup);
	tcase_add_test(tc, test_bare_append_tag_dollar);
	tcase_add_test(tc, test_namespace);
	tcase_add_test(tc, test_split_fetch);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("guard");
	tcase_add_checked_fixture(tg, guard_up, guard_down);
	tcase_add_test(tg, test_guard_setup_clean);
	tcase_add_test(tg, test_guard_setup_foreign);
	tcase_add_test(tg, test_guard_steps);
	tcase_add_test(tg, test_guard_nonauth);
	tcase_add_test(tg, test_cleanup_run);
	suite_add_tcase(s, tg);
	return s;
}

TEST_SUITE(script_run_suite)
