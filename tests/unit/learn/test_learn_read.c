/* test_learn_read.c: the readers of `imapstress learn` (src/learn/), one
 * format at a time: Dovecot's rawlog with and without times (the same
 * session must give the same commands), imapstress's own rawlog (its C:
 * and S: lines interleaved around a literal, a cut line, its "# stopping"
 * note), a literal's lines joined back, and the state each command shape
 * is counted under. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "learn/learn_int.h"
#include "learn/learn_lines.h"
#include "plan/ops.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/learn-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void
put(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static int
learn_one(struct learn *l, const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return learn_file(l, path);
}

/* One session: SELECT, a MULTIAPPEND of two messages (the first literal
 * over three lines, the second following on its last), a FETCH of a body, a STORE adding \Deleted, LOGOUT;
 * the server's FETCH answer holds a literal that ends mid-line. */
static const char *const in_lines[] = {
	"a1 SELECT \"INBOX\"\r\n",
	"a2 APPEND Drafts (\\Seen) {12}\r\n",
	"ab\r\n", "cd\r\n", "efgh {3}\r\n",	/* the literal ends mid-line */
	"xyz\r\n",
	"a3 UID FETCH 7 (UID BODY.PEEK[])\r\n",
	"a4 STORE 1:3 +FLAGS.SILENT (\\Deleted)\r\n",
	"a5 LOGOUT\r\n",
};
static const char *const out_lines[] = {
	"* 3 EXISTS\r\n", "a1 OK done\r\n", "+ OK\r\n", "* 4 EXISTS\r\n",
	"a2 OK done\r\n", "* 1 FETCH (UID 7 RFC822.SIZE 321 BODY[] {5}\r\n",
	"hello)\r\n", "a3 OK done\r\n", "a4 OK done\r\n", "a5 OK done\r\n",
};
#define NL(a) (sizeof(a) / sizeof((a)[0]))

static void
check_session(const struct learn *l)
{
	const struct lmix *m = &l->mix;
	ck_assert_uint_eq(l->sessions, 1);
	ck_assert_uint_eq(l->commands, 5);
	ck_assert_uint_eq(m->runs[OP_SELECT], 1);
	ck_assert_uint_eq(m->runs[OP_APPEND], 2);	/* messages */
	ck_assert_uint_eq(m->inner_repeats[OP_APPEND], 1);
	ck_assert_uint_eq(m->runs[OP_FETCH2], 1);
	ck_assert_uint_eq(m->runs[OP_DELETE], 1);
	ck_assert_uint_eq(m->runs[OP_LOGOUT], 1);
	ck_assert_uint_eq(l->append_sizes.n, 2);
	ck_assert(l->append_sizes.sum == 15.0);
	ck_assert_uint_eq(l->fetch_sizes.n, 1);
	ck_assert(l->fetch_sizes.sum == 321.0);
	ck_assert_uint_eq(l->deleted, 3);
	ck_assert_uint_eq(l->read, 1);
	ck_assert_uint_eq(l->boxes.n, 2);		/* INBOX, Drafts */
	ck_assert_str_eq(l->items.v[0], "BODY.PEEK[] UID");
	ck_assert_uint_eq(l->truncated, 0);
}

static void
write_joined(const char *name, const char *const *lines, size_t n, bool ts)
{
	char buf[4096];
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (ts)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o,
					      "1796500000.%06zu ", i);
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", lines[i]);
	}
	put(name, buf);
}

START_TEST(dovecot_with_times)
{
	static struct learn l;
	memset(&l, 0, sizeof(l));
	write_joined("s.in", in_lines, NL(in_lines), true);
	write_joined("s.out", out_lines, NL(out_lines), true);
	ck_assert_int_eq(learn_one(&l, "s.in"), 0);
	check_session(&l);
	ck_assert_uint_eq(l.formats[LFMT_DOVECOT_TS], 1);
	ck_assert_uint_eq(l.timed_sessions, 1);
	learn_free(&l);
}
END_TEST

START_TEST(dovecot_without_times)
{
	static struct learn l;
	memset(&l, 0, sizeof(l));
	write_joined("s.in", in_lines, NL(in_lines), false);
	write_joined("s.out", out_lines, NL(out_lines), false);
	ck_assert_int_eq(learn_one(&l, "s.in"), 0);
	check_session(&l);
	ck_assert_uint_eq(l.formats[LFMT_DOVECOT], 1);
	ck_assert_uint_eq(l.untimed_sessions, 1);
	learn_free(&l);
}
END_TEST

/* As imapstress writes it: one newline per line, the server's "+ OK"
 * between the APPEND line and its literal, a line cut after 2048 octets
 * inside the literal, and a second session after "# stopping" whose
 * LOGOUT is not the mix's. */
START_TEST(imapstress_rawlog)
{
	static struct learn l;
	static char buf[16384];
	char big[2049];
	memset(big, 'x', 2048);
	big[2048] = '\0';
	memset(&l, 0, sizeof(l));
	/* the literal: 2048 + 952 cut + CRLF, "ab" + CRLF = 3006 octets */
	snprintf(buf, sizeof(buf),
		 "# connection 1: connecting as u1\n"
		 "S: * OK ready\n"
		 "C: 1.1 LOGIN u1 <secret redacted>\n"
		 "S: 1.1 OK logged in\n"
		 "C: 1.2 SELECT INBOX\n"
		 "S: * 0 EXISTS\n"
		 "S: 1.2 OK done\n"
		 "C: 1.3 APPEND INBOX {3006}\n"
		 "S: + OK\n"
		 "C: %s <952 more octets>\n"
		 "C: ab\n"
		 "C: \n"
		 "C: 1.4 NOOP\n"
		 "S: * 1 EXISTS\n"
		 "S: 1.3 OK done\n"
		 "S: 1.4 OK done\n"
		 "C: 1.5 LOGOUT\n"
		 "S: 1.5 OK bye\n"
		 "# connection 2: connecting as u2\n"
		 "C: 1.6 LOGIN u2 <secret redacted>\n"
		 "C: 1.7 SELECT INBOX\n"
		 "# stopping: the run is over\n"
		 "C: 1.8 LOGOUT\n", big);
	put("rawlog.1", buf);
	ck_assert_int_eq(learn_one(&l, "rawlog.1"), 0);
	ck_assert_uint_eq(l.formats[LFMT_IMAPSTRESS], 1);
	ck_assert_uint_eq(l.sessions, 2);
	ck_assert_uint_eq(l.users.n, 2);
	ck_assert_uint_eq(l.mix.runs[OP_LOGIN], 2);
	ck_assert_uint_eq(l.mix.runs[OP_APPEND], 1);
	ck_assert(l.append_sizes.sum == 3006.0);
	ck_assert_uint_eq(l.mix.runs[OP_NOOP], 1);
	/* the stopped session's LOGOUT is left out: that session is cut */
	ck_assert_uint_eq(l.mix.runs[OP_LOGOUT], 1);
	ck_assert_uint_eq(l.mix.cut, 1);
	ck_assert_uint_eq(l.mix.runs[OP_SELECT], 2);
	ck_assert_uint_eq(l.truncated, 0);
	learn_free(&l);
}
END_TEST

/* A LOGIN with both arguments as literals, fed as a log holds it: one
 * command, its text with {N} in place, each literal's size and text. */
START_TEST(literals_joined)
{
	static const char *const lines[] = { "7 LOGIN {5}", "alice {3}", "pw!" };
	struct ldir d = { .capture = true };
	int done = 0;
	for (size_t i = 0; i < NL(lines); i++)
		done += ldir_feed(&d, lines[i], strlen(lines[i]), 2, 0,
				  (unsigned)i + 1, -1);
	ck_assert_int_eq(done, 1);
	ck_assert_str_eq(d.buf, "7 LOGIN {5} {3}");
	ck_assert_uint_eq(d.n_lits, 2);
	ck_assert_str_eq(d.lits[0].text, "alice");
	ck_assert_str_eq(d.lits[1].text, "pw!");
	ck_assert_uint_eq(d.line0, 1);
	ck_assert(!ldir_pending(&d) || d.len > 0);
	ldir_free(&d);
}
END_TEST

/* A literal that claims more than came: still pending at the end. */
START_TEST(literal_short_is_pending)
{
	struct ldir d = { 0 };
	ck_assert(!ldir_feed(&d, "1 APPEND INBOX {100}", 20, 2, 0, 1, -1));
	ck_assert(!ldir_feed(&d, "short", 5, 2, 0, 2, -1));
	ck_assert(ldir_pending(&d));
	ck_assert_uint_eq(d.lit_left, 93);
	ldir_free(&d);
}
END_TEST

struct shape {
	const char *cmd;
	int op;
};

static const struct shape shapes[] = {
	{ "t LIST \"\" *", OP_LIST },
	{ "t LIST \"\" %", OP_LISTROOT },
	{ "t LSUB \"\" *", OP_LIST },
	{ "t CREATE \"test/1\"", OP_MCREATE },
	{ "t DELETE \"test/1\"", OP_MDELETE },
	{ "t RENAME a b", OP_MRENAME },
	{ "t UNSUBSCRIBE a", OP_MSUBS },
	{ "t STATUS INBOX (MESSAGES UNSEEN RECENT)", OP_STATUS },
	{ "t EXAMINE INBOX", OP_SELECT },
	{ "t UID FETCH 1:* (FLAGS)", OP_UIDFETCH },
	{ "t FETCH 1,4:6 (UID ENVELOPE BODY.PEEK[HEADER.FIELDS (From To)])", OP_FETCH },
	{ "t FETCH 3 (UID RFC822.HEADER)", OP_FETCH2 },
	{ "t FETCH 3 (UID BODY.PEEK[1])", OP_FETCH2 },
	{ "t UID FETCH 9 (BODY.PEEK[])", OP_FETCH2 },
	{ "t UID FETCH 5:* (UID FLAGS ENVELOPE)", OP_FETCH },
	{ "t SEARCH SUBJECT \"x\"", OP_SEARCH },
	{ "t UID SORT (DATE) US-ASCII ALL", OP_SORT },
	{ "t THREAD REFERENCES US-ASCII ALL", OP_THREAD },
	{ "t COPY 1:3 Trash", OP_COPY },
	{ "t UID MOVE 9 Junk", OP_MOVE },
	{ "t STORE 2 -FLAGS (\\Seen)", OP_STORE },
	{ "t STORE 2 -FLAGS (\\Deleted)", OP_STORE },
	{ "t STORE 2 +FLAGS.SILENT \\Deleted", OP_DELETE },
	{ "t UID STORE 2 FLAGS (\\Seen \\Deleted)", OP_DELETE },
	{ "t UID EXPUNGE 4", OP_EXPUNGE },
	{ "t APPEND INBOX {10}", OP_APPEND },
	{ "t NOOP", OP_NOOP },
	{ "t IDLE", OP_IDLE },
	{ "t CHECK", OP_CHECK },
	{ "t LOGOUT", OP_LOGOUT },
	{ "t COMPRESS DEFLATE", OP_COMPRESS },
	{ "t AUTHENTICATE PLAIN", OP_AUTHENTICATE },
	{ "t ID NIL", LOP_IGNORED },
	{ "t GETQUOTAROOT INBOX", LOP_UNMAPPED },
	{ "t X-WEIRD\x1b[2J", LOP_UNMAPPED },
};

START_TEST(command_shapes)
{
	const struct shape *sh = &shapes[_i];
	static struct learn l;
	struct lsession s;
	struct lcmd c;
	struct llit lit = { .size = 10 };
	memset(&l, 0, sizeof(l));
	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	s.user = -1;
	learn_cmd_classify(&l, &s, &c, sh->cmd, strlen(sh->cmd), &lit, 1);
	ck_assert_msg(c.op == sh->op, "%s: op %d, want %d", sh->cmd, c.op,
		      sh->op);
	ck_assert_str_eq(c.tag, "t");
	/* a verb that is no atom is never kept as it came */
	for (const char *v = c.verb; *v; v++)
		ck_assert(*v >= 0x20 && *v < 0x7f);
	learn_free(&l);
}
END_TEST

static Suite *
learn_read_suite(void)
{
	Suite *s = suite_create("learn_read");
	TCase *tc = tcase_create("formats");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dovecot_with_times);
	tcase_add_test(tc, dovecot_without_times);
	tcase_add_test(tc, imapstress_rawlog);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("parse");
	tcase_add_test(tp, literals_joined);
	tcase_add_test(tp, literal_short_is_pending);
	tcase_add_loop_test(tp, command_shapes, 0,
			    (int)(sizeof(shapes) / sizeof(shapes[0])));
	suite_add_tcase(s, tp);
	return s;
}

TEST_SUITE(learn_read_suite)
