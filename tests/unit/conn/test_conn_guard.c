/* test_conn_guard.c: the foreign-mail guard (imap/guard.h, conn_guard.c,
 * issue 31).  The rule (which commands destroy mail) for every kind, the
 * answer's count (SEARCH, ESEARCH ALL and COUNT), the table; then the
 * engine over a bufferevent pair with the test as the server and as a
 * driver that asks conn_guard_clear before each destructive command:
 * the search goes out once, alone (a command in flight first drains),
 * before the destructive one; foreign mail, a NO, a BAD, an OK without a
 * SEARCH response each refuse (the run's flag set, the command never
 * sent); an empty SELECT needs no search; a second session of the same
 * user waits for the first one's answer and sends none of its own; a
 * mailbox DELETE goes only to a mailbox this run created; and every
 * destructive kind sent without the check aborts at the engine's gate. */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "conn_fixture.h"
#include "conn/conn.h"
#include "imap/guard.h"
#include "imap/imap.h"

#define SEARCH_LINE GUARD_SEARCH "\r\n"

/* --- the rule and the counts ------------------------------------------- */

START_TEST(test_guard_rule)
{
	static const struct { const char *text; bool destroys; } cases[] = {
		{ "EXPUNGE", true },
		{ "UID EXPUNGE 4:7", true },
		{ "expunge", true },
		{ "STORE 1:3 +FLAGS (\\Deleted)", true },
		{ "STORE 1 +FLAGS.SILENT \\Deleted", true },
		{ "UID STORE 9 +FLAGS.SILENT (\\Seen \\Deleted)", true },
		{ "STORE 1 FLAGS (\\Deleted)", true },
		{ "STORE 1 (UNCHANGEDSINCE 5) +FLAGS (\\Deleted)", true },
		{ "STORE 1 -FLAGS (\\Deleted)", false },
		{ "STORE 1 +FLAGS (\\Seen)", false },
		{ "STORE 1 +FLAGS ($DeletedLater)", false },
		{ "STORE 1 +FLAGS (\\DeletedX)", false },
		{ "MOVE 1:2 Spam", true },
		{ "UID MOVE 9 \"Deleted Items\"", true },
		{ "DELETE \"test/1\"", true },
		{ "CLOSE", true },
		{ "COPY 1:2 Spam", false },
		{ "UID COPY 1 Spam", false },
		{ "FETCH 1 (FLAGS)", false },
		{ "SEARCH DELETED", false },
		{ "APPEND INBOX {5+}", false },
		{ "NOOP", false },
		/* The first letter turns a command away early, in either
		 * case: these must still get to the words. */
		{ "uid move 9 Spam", true },
		{ "Delete x", true },
		{ "close", true },
		{ "store 2 +flags (\\deleted)", true },
		{ "uid fetch 1 (FLAGS)", false },
		{ "Subscribe x", false },
		{ "", false },
		/* Spaces before the first word: skipped, as ever. */
		{ " EXPUNGE", true },
		{ "  uid move 1 x", true },
		{ " NOOP", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].text;
		ck_assert_msg(guard_destructive_text(t, strlen(t)) ==
			      cases[i].destroys, "%s", t);
		ck_assert_msg(guard_destructive_words(t, strlen(t)) ==
			      cases[i].destroys, "%s", t);
		ck_assert_msg(conn_guard_destructive(OP_NOOP, t, strlen(t)) ==
			      cases[i].destroys, "%s", t);
	}
	/* The first-octet front (guard_lead) never turns away a text the
	 * words call destructive, whatever the octet. */
	static const char *const destroy[] = {
		"UID EXPUNGE 1", "EXPUNGE", "MOVE 1 x", "DELETE x", "CLOSE",
		"STORE 1 +FLAGS (\\Deleted)",
	};
	for (unsigned ch = 0; ch < 256; ch++) {
		for (size_t i = 0; i < sizeof(destroy) / sizeof(destroy[0]); i++) {
			char t[64];
			size_t n = strlen(destroy[i]);
			memcpy(t, destroy[i], n);
			t[0] = (char)ch;
			if (guard_destructive_words(t, n))
				ck_assert_msg(guard_destructive_text(t, n),
					      "0x%02x %s", ch, destroy[i] + 1);
		}
	}
	/* The op alone says so for the states that always destroy. */
	ck_assert(conn_guard_destructive(OP_EXPUNGE, "", 0));
	ck_assert(conn_guard_destructive(OP_DELETE, "", 0));
	ck_assert(conn_guard_destructive(OP_MOVE, "", 0));
	ck_assert(conn_guard_destructive(OP_MDELETE, "", 0));
	ck_assert(!conn_guard_destructive(OP_COPY, "COPY 1 X", 8));
}
END_TEST

START_TEST(test_guard_counts)
{
	ck_assert_int_eq(guard_count_search("", 0), 0);
	ck_assert_int_eq(guard_count_search("1 2 5", 5), 3);
	ck_assert_int_eq(guard_count_search("7 (MODSEQ 12)", 13), 1);
	ck_assert_int_eq(guard_count_search("1 x", 3), -1);
	const char *e1 = "(TAG \"3.2\") UID ALL 1:3,7";
	ck_assert_int_eq(guard_count_esearch(e1, strlen(e1)), 4);
	const char *e2 = "(TAG \"3.2\") UID COUNT 20";
	ck_assert_int_eq(guard_count_esearch(e2, strlen(e2)), 20);
	const char *e3 = "(TAG \"3.2\") UID";
	ck_assert_int_eq(guard_count_esearch(e3, strlen(e3)), 0);
	const char *e4 = "(TAG \"3.2\") UID ALL 1:x";
	ck_assert_int_eq(guard_count_esearch(e4, strlen(e4)), -1);
}
END_TEST

START_TEST(test_guard_table)
{
	struct guard *g = guard_new();
	uint32_t a = guard_entry(g, "u1", "INBOX", 5);
	ck_assert_uint_eq(guard_entry(g, "u1", "inbox", 5), a);
	ck_assert_uint_ne(guard_entry(g, "u2", "INBOX", 5), a);
	uint32_t b = guard_entry(g, "u1", "Spam", 4);
	ck_assert_uint_ne(b, a);
	ck_assert_uint_ne(guard_entry(g, "u1", "spam", 4), b);	/* not INBOX */
	ck_assert_int_eq(guard_verdict(g, a), GUARD_UNKNOWN);
	guard_set(g, a, GUARD_SAFE);
	/* Many entries: the index grows, every one is found again. */
	char box[32];
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(box, sizeof(box), "box%u", i);
		guard_set(g, guard_entry(g, "u9", box, strlen(box)), GUARD_SAFE);
	}
	ck_assert_int_eq(guard_verdict(g, guard_entry(g, "u1", "INBOX", 5)),
			 GUARD_SAFE);
	ck_assert_int_eq(guard_verdict(g, guard_entry(g, "u9", "box4999", 7)),
			 GUARD_SAFE);
	ck_assert_int_eq(guard_verdict(g, guard_entry(g, "u9", "box5000", 7)),
			 GUARD_UNKNOWN);
	/* The names, shared in one arena that grew meanwhile: a name that
	 * is a prefix of another is not taken for it. */
	ck_assert_str_eq(guard_user(g, a), "u1");
	ck_assert_str_eq(guard_box(g, b), "Spam");
	uint32_t c = guard_entry(g, "u10", "Spa", 3);
	ck_assert_uint_ne(guard_entry(g, "u10", "Spam", 4), c);
	ck_assert_uint_ne(guard_entry(g, "u1", "Spa", 3), c);
	ck_assert_str_eq(guard_user(g, c), "u10");
	ck_assert_str_eq(guard_box(g, c), "Spa");
	ck_assert_str_eq(guard_box(g, guard_entry(g, "u9", "box4999", 7)),
			 "box4999");
	/* The tally: none read is no answer; one foreign is refused. */
	uint32_t f;
	const char *why;
	ck_assert_int_eq(guard_judge(g, b, &f, &why), GUARD_REFUSED);
	ck_assert_ptr_nonnull(why);
	guard_tally(g, b, 0);
	ck_assert_int_eq(guard_judge(g, b, &f, &why), GUARD_SAFE);
	guard_tally(g, b, 0);
	guard_tally(g, b, 1);
	ck_assert_int_eq(guard_judge(g, b, &f, &why), GUARD_REFUSED);
	ck_assert_uint_eq(f, 1);
	ck_assert_ptr_null(why);
	guard_tally(g, b, -1);
	ck_assert_int_eq(guard_judge(g, b, &f, &why), GUARD_REFUSED);
	ck_assert_ptr_nonnull(why);

	char line[512];
	guard_refusal(line, sizeof(line), "u1", "INBOX", 20, NULL);
	ck_assert_str_eq(line, "foreign-mail check: user u1, mailbox \"INBOX\" "
			 "holds 20 messages without the X-Imapstress header "
			 "(mail imapstress did not put there); nothing was "
			 "deleted; --allow-foreign-mail runs anyway");
	guard_free(g);
}
END_TEST

/* --- the engine ---------------------------------------------------------- */

struct t {
	struct conn_fx fx;
	struct guard *g;
	unsigned ready;
	/* a second connection of the same user and worker */
	struct conn *c2;
	struct bufferevent *peer2;
	unsigned ready2;
};

static struct t T;

static void
hook_ready(void *arg, struct conn *c)
{
	if (c == T.fx.c)
		T.ready++;
	else
		T.ready2++;
}

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	conn_finish(c);
}

static const struct conn_hooks hooks = {
	.ready = hook_ready,
	.closed = hook_closed,
};

static void
setup(void)
{
	memset(&T, 0, sizeof(T));
	conn_fx_setup(&T.fx, NULL, &hooks, &T, 3);
	T.g = guard_new();
	T.fx.env.guard = T.g;
}

static void
teardown(void)
{
	conn_free(T.c2);
	if (T.peer2 != NULL)
		bufferevent_free(T.peer2);
	conn_fx_teardown(&T.fx);
	guard_free(T.g);
}

static void
pump(void)
{
	conn_fx_pump(&T.fx);
}

static char *
take(struct bufferevent *peer)
{
	struct evbuffer *in = bufferevent_get_input(peer);
	size_t n = evbuffer_get_length(in);
	char *s = malloc(n + 1);
	evbuffer_remove(in, s, n);
	s[n] = '\0';
	return s;
}

static void
say(struct bufferevent *peer, const char *s)
{
	bufferevent_write(peer, s, strlen(s));
	pump();
}

static void
expect(struct bufferevent *peer, const char *want)
{
	char *got = take(peer);
	ck_assert_str_eq(got, want);
	free(got);
}

/* Logged in as tester on slot 3 and INBOX selected with `exists`. */
static void
selected(unsigned exists)
{
	char line[128];

	conn_fx_attach(&T.fx);
	pump();
	say(T.fx.peer, "* OK [CAPABILITY IMAP4rev1 LITERAL+ MOVE UIDPLUS] hi\r\n");
	expect(T.fx.peer, "3.1 LOGIN \"tester\" \"secret\"\r\n");
	say(T.fx.peer, "3.1 OK [CAPABILITY IMAP4rev1 LITERAL+ MOVE UIDPLUS] in\r\n");
	ck_assert(conn_command(T.fx.c, OP_SELECT, "SELECT INBOX", NULL, NULL,
			       NULL));
	expect(T.fx.peer, "3.2 SELECT INBOX\r\n");
	snprintf(line, sizeof(line), "* %u EXISTS\r\n3.2 OK [READ-WRITE] in\r\n",
		 exists);
	say(T.fx.peer, line);
	ck_assert_uint_eq(conn_exists(T.fx.c), exists);
}

static bool
refused(void)
{
	return atomic_load(&T.fx.live.foreign_refused);
}

/* The search goes out; `answer` comes back; the EXPUNGE the driver
 * wanted goes out only when the mailbox was clean. */
static bool
check_with(const char *answer)
{
	selected(3);
	ck_assert(!conn_guard_clear(T.fx.c, "INBOX"));
	expect(T.fx.peer, "3.3 " SEARCH_LINE);
	ck_assert(!conn_guard_clear(T.fx.c, "INBOX"));	/* asked once */
	expect(T.fx.peer, "");
	say(T.fx.peer, answer);
	bool clear = conn_guard_clear(T.fx.c, "INBOX");
	if (clear) {
		ck_assert(conn_command(T.fx.c, OP_EXPUNGE, "EXPUNGE", NULL, NULL,
				       NULL));
		expect(T.fx.peer, "3.4 EXPUNGE\r\n");
	}
	expect(T.fx.peer, "");
	/* The answer is remembered: no second search, same verdict. */
	ck_assert(conn_guard_clear(T.fx.c, "INBOX") == clear);
	expect(T.fx.peer, "");
	return clear;
}

START_TEST(test_guard_clean_mailbox)
{
	ck_assert(check_with("* SEARCH\r\n3.3 OK done\r\n"));
	ck_assert(!refused());
}
END_TEST

START_TEST(test_guard_clean_esearch)
{
	ck_assert(check_with("* ESEARCH (TAG \"3.3\") UID\r\n3.3 OK done\r\n"));
	ck_assert(!refused());
}
END_TEST

START_TEST(test_guard_foreign_mail)
{
	ck_assert(!check_with("* SEARCH 1 2 3\r\n3.3 OK done\r\n"));
	ck_assert(refused());
}
END_TEST

START_TEST(test_guard_one_foreign_esearch)
{
	ck_assert(!check_with("* ESEARCH (TAG \"3.3\") UID ALL 57\r\n"
			      "3.3 OK done\r\n"));
	ck_assert(refused());
}
END_TEST

START_TEST(test_guard_no)
{
	ck_assert(!check_with("3.3 NO [CANNOT] no header search here\r\n"));
	ck_assert(refused());
}
END_TEST

START_TEST(test_guard_bad)
{
	ck_assert(!check_with("3.3 BAD unknown search key\r\n"));
	ck_assert(refused());
}
END_TEST

START_TEST(test_guard_no_answer)
{
	ck_assert(!check_with("3.3 OK but no SEARCH response\r\n"));
	ck_assert(refused());
}
END_TEST

START_TEST(test_guard_unreadable)
{
	ck_assert(!check_with("* SEARCH 1 two\r\n3.3 OK done\r\n"));
	ck_assert(refused());
}
END_TEST

/* A command in flight: the search waits for it, and no driver command
 * goes out meanwhile (every SEARCH response before the search's tagged
 * reply is then its own), nor while the search runs (a UID command:
 * EXPUNGEs may come during it, and a FETCH by sequence number behind it
 * would be ambiguous, RFC 3501 5.5). */
START_TEST(test_guard_drains_first)
{
	selected(3);
	ck_assert(conn_command(T.fx.c, OP_SEARCH, "SEARCH SEEN", NULL, NULL,
			       NULL));
	expect(T.fx.peer, "3.3 SEARCH SEEN\r\n");
	ck_assert(!conn_guard_clear(T.fx.c, "INBOX"));
	expect(T.fx.peer, "");
	ck_assert(!conn_can_command(T.fx.c));
	ck_assert(!conn_command(T.fx.c, OP_NOOP, "NOOP", NULL, NULL, NULL));
	say(T.fx.peer, "* SEARCH 1 2 3\r\n3.3 OK done\r\n");
	expect(T.fx.peer, "3.4 " SEARCH_LINE);
	ck_assert(!conn_can_command(T.fx.c));
	ck_assert(!conn_command(T.fx.c, OP_FETCH, "FETCH 3 (FLAGS)", NULL,
				NULL, NULL));
	expect(T.fx.peer, "");
	say(T.fx.peer, "* 1 EXPUNGE\r\n* SEARCH\r\n3.4 OK done\r\n");
	ck_assert(conn_can_command(T.fx.c));
	ck_assert(conn_guard_clear(T.fx.c, "INBOX"));
	ck_assert(!refused());
}
END_TEST

/* Empty when first seen: no search at all. */
START_TEST(test_guard_empty_select)
{
	selected(0);
	conn_guard_selected(T.fx.c, "INBOX");
	ck_assert(conn_guard_clear(T.fx.c, "INBOX"));
	expect(T.fx.peer, "");
	/* Not for a mailbox that held mail when first seen. */
	ck_assert(!conn_guard_clear(T.fx.c, "Other"));
	expect(T.fx.peer, "3.3 " SEARCH_LINE);
}
END_TEST

/* A SELECT un-clears the session: the next destructive command asks
 * again (the table answers, no search). */
START_TEST(test_guard_select_unclears)
{
	selected(0);
	conn_guard_selected(T.fx.c, "INBOX");
	ck_assert(conn_guard_clear(T.fx.c, "INBOX"));
	ck_assert(conn_command(T.fx.c, OP_SELECT, "SELECT Spam", NULL, NULL,
			       NULL));
	expect(T.fx.peer, "3.3 SELECT Spam\r\n");
	say(T.fx.peer, "* 2 EXISTS\r\n3.3 OK in\r\n");
	ck_assert(!conn_guard_clear(T.fx.c, "Spam"));
	expect(T.fx.peer, "3.4 " SEARCH_LINE);
}
END_TEST

/* Both sessions with INBOX selected (3 messages); the first has sent
 * the search, the second waits for it. */
static void
two_sessions_one_search(void)
{
	struct bufferevent *pair[2];

	selected(3);
	T.c2 = conn_new(&T.fx.env, 4);
	conn_set_user(T.c2, "tester", "secret");
	ck_assert_int_eq(bufferevent_pair_new(T.fx.base, BEV_OPT_DEFER_CALLBACKS,
					      pair), 0);
	T.peer2 = pair[1];
	bufferevent_enable(T.peer2, EV_READ | EV_WRITE);
	conn_attach(T.c2, pair[0]);
	pump();
	say(T.peer2, "* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n");
	expect(T.peer2, "4.1 LOGIN \"tester\" \"secret\"\r\n");
	say(T.peer2, "4.1 OK [CAPABILITY IMAP4rev1 LITERAL+] in\r\n");
	ck_assert(conn_command(T.c2, OP_SELECT, "SELECT INBOX", NULL, NULL,
			       NULL));
	expect(T.peer2, "4.2 SELECT INBOX\r\n");
	say(T.peer2, "* 3 EXISTS\r\n4.2 OK in\r\n");

	ck_assert(!conn_guard_clear(T.fx.c, "INBOX"));
	expect(T.fx.peer, "3.3 " SEARCH_LINE);
	ck_assert(!conn_guard_clear(T.c2, "INBOX"));
}

/* Two sessions of one user in one worker: one search; the other waits
 * and hears the answer through its ready hook. */
START_TEST(test_guard_shared)
{
	two_sessions_one_search();
	expect(T.peer2, "");			/* no second search */
	unsigned before = T.ready2;
	say(T.fx.peer, "* SEARCH\r\n3.3 OK done\r\n");
	ck_assert_uint_gt(T.ready2, before);	/* woken */
	ck_assert(conn_guard_clear(T.c2, "INBOX"));
	expect(T.peer2, "");
	ck_assert(conn_command(T.c2, OP_EXPUNGE, "EXPUNGE", NULL, NULL, NULL));
	expect(T.peer2, "4.3 EXPUNGE\r\n");
}
END_TEST

/* The searching session dies: the entry is unknown again and the
 * waiter asks itself. */
START_TEST(test_guard_searcher_dies)
{
	two_sessions_one_search();
	say(T.fx.peer, "* BYE going\r\n");
	ck_assert(!conn_guard_clear(T.c2, "INBOX"));
	expect(T.peer2, "4.3 " SEARCH_LINE);
	say(T.peer2, "* SEARCH\r\n4.3 OK done\r\n");
	ck_assert(conn_guard_clear(T.c2, "INBOX"));
	ck_assert(!refused());
}
END_TEST

/* A stop at once (another worker's refusal, a signal): the worker halts
 * every session, which fails the search and wakes its waiters, breaks
 * its loop and frees its connections before the loop runs again
 * (worker_free).  The wake-up must go with the waiter it was for: t_hostile's
 * exists-claim run died of SIGSEGV right after the refusal line, in
 * conn_send_more on a freed connection. */
START_TEST(test_guard_waiter_freed)
{
	two_sessions_one_search();
	unsigned before = T.ready2;
	conn_halt(T.fx.c);
	conn_halt(T.c2);
	conn_free(T.c2);
	T.c2 = NULL;
	pump();
	ck_assert_uint_eq(T.ready2, before);	/* nobody woke it */
}
END_TEST

/* Mailbox DELETE and RENAME: only a mailbox this run created. */
START_TEST(test_guard_mailbox_delete)
{
	selected(0);
	ck_assert(!conn_guard_ours(T.fx.c, "test/1", 6));
	ck_assert(conn_command(T.fx.c, OP_MCREATE, "CREATE \"test/1\"", NULL,
			       NULL, NULL));
	expect(T.fx.peer, "3.3 CREATE \"test/1\"\r\n");
	say(T.fx.peer, "3.3 NO [ALREADYEXISTS] there\r\n");
	ck_assert(!conn_guard_ours(T.fx.c, "test/1", 6));	/* not ours */
	ck_assert(conn_command(T.fx.c, OP_MCREATE, "CREATE \"test/2\"", NULL,
			       NULL, NULL));
	expect(T.fx.peer, "3.4 CREATE \"test/2\"\r\n");
	say(T.fx.peer, "3.4 OK made\r\n");
	ck_assert(conn_guard_ours(T.fx.c, "test/2", 6));
	ck_assert(conn_command(T.fx.c, OP_MRENAME,
			       "RENAME \"test/2\" \"test/3\"", NULL, NULL, NULL));
	expect(T.fx.peer, "3.5 RENAME \"test/2\" \"test/3\"\r\n");
	say(T.fx.peer, "3.5 OK moved\r\n");
	ck_assert(!conn_guard_ours(T.fx.c, "test/2", 6));
	ck_assert(conn_guard_ours(T.fx.c, "test/3", 6));
	ck_assert(conn_command(T.fx.c, OP_MDELETE, "DELETE \"test/3\"", NULL,
			       NULL, NULL));
	expect(T.fx.peer, "3.6 DELETE \"test/3\"\r\n");
	say(T.fx.peer, "3.6 OK gone\r\n");
	ck_assert(!conn_guard_ours(T.fx.c, "test/3", 6));
}
END_TEST

/* THE gate: each destructive kind, sent without the check, aborts before
 * anything leaves.  In a child of the test's own: the sanitizer build runs
 * the suite without Check's fork (CK_FORK=no), where an expected abort
 * would end the whole binary. */
static const char *const unchecked[][2] = {
	{ "EXPUNGE", NULL }, { "UID EXPUNGE 4", NULL },
	{ "STORE 1 +FLAGS (\\Deleted)", NULL },
	{ "UID STORE 9 +FLAGS.SILENT (\\Deleted)", NULL },
	{ "MOVE 1 Spam", NULL }, { "UID MOVE 9 Spam", NULL },
	{ "CLOSE", NULL }, { "DELETE \"test/1\"", NULL },
	/* Under a state the gate trusts to its text (the inline first-octet
	 * test, conn_guard_gate), in lower case, and one too long to stay
	 * inline (the staged text, conn_guard_gate_all). */
	{ "uid store 9 +flags (\\deleted)", NULL },
	{ "STORE 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,"
	  "43,45,47,49,51,53,55,57,59,61,63,65,67,69,71,73,75,77,79,81,83,85,"
	  "87,89,91,93,95,97,99,101,103,105,107,109,111,113,115,117,119,121,"
	  "123,125,127,129,131,133,135,137,139,141,143,145,147,149,151,153,"
	  "155,157,159,161,163,165,167,169 +FLAGS (\\Deleted)", NULL },
};
static const enum op unchecked_op[] = {
	OP_EXPUNGE, OP_EXPUNGE, OP_STORE, OP_STORE, OP_MOVE, OP_MOVE, OP_NOOP,
	OP_MDELETE, OP_FETCH, OP_FETCH,
};
_Static_assert(sizeof(unchecked) / sizeof(unchecked[0]) ==
	       sizeof(unchecked_op) / sizeof(unchecked_op[0]),
	       "an op for every unchecked command");

START_TEST(test_guard_gate_aborts)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		selected(3);
		(void)conn_command(T.fx.c, unchecked_op[_i], unchecked[_i][0],
				   NULL, NULL, NULL);
		_exit(0);	/* sent: the gate let it through */
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		      "sent without the check: %s", unchecked[_i][0]);
}
END_TEST

/* The same commands after the check go out. */
START_TEST(test_guard_gate_passes)
{
	selected(0);
	conn_guard_selected(T.fx.c, "INBOX");
	ck_assert(conn_guard_clear(T.fx.c, "INBOX"));
	for (unsigned i = 0; i < 7; i++)	/* not the mailbox DELETE */
		ck_assert(conn_command(T.fx.c, unchecked_op[i], unchecked[i][0],
				       NULL, NULL, NULL));
	char *got = take(T.fx.peer);
	ck_assert_ptr_nonnull(strstr(got, "3.3 EXPUNGE\r\n"));
	ck_assert_ptr_nonnull(strstr(got, "3.9 CLOSE\r\n"));
	free(got);
}
END_TEST

static Suite *
conn_guard_suite(void)
{
	Suite *s = suite_create("conn_guard");
	TCase *tc = tcase_create("rule");
	tcase_add_test(tc, test_guard_rule);
	tcase_add_test(tc, test_guard_counts);
	tcase_add_test(tc, test_guard_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_guard_clean_mailbox);
	tcase_add_test(tc, test_guard_clean_esearch);
	tcase_add_test(tc, test_guard_foreign_mail);
	tcase_add_test(tc, test_guard_one_foreign_esearch);
	tcase_add_test(tc, test_guard_no);
	tcase_add_test(tc, test_guard_bad);
	tcase_add_test(tc, test_guard_no_answer);
	tcase_add_test(tc, test_guard_unreadable);
	tcase_add_test(tc, test_guard_drains_first);
	tcase_add_test(tc, test_guard_empty_select);
	tcase_add_test(tc, test_guard_select_unclears);
	tcase_add_test(tc, test_guard_shared);
	tcase_add_test(tc, test_guard_searcher_dies);
	tcase_add_test(tc, test_guard_waiter_freed);
	tcase_add_test(tc, test_guard_mailbox_delete);
	tcase_add_test(tc, test_guard_gate_passes);
	tcase_add_loop_test(tc, test_guard_gate_aborts, 0,
			    (int)(sizeof(unchecked_op) / sizeof(unchecked_op[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(conn_guard_suite)
