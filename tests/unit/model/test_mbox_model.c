/* test_mbox_model.c: the mailbox model on realistic Dovecot transcripts
 * (SELECT, FETCH of every tracked attribute, EXPUNGE and VANISHED
 * renumbering), the shared store, the limits and the checkpoint.  The
 * per-check cases are in test_mbox_checks.c. */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "mbox_test.h"

static uint32_t
kw_mask(const struct mbox_store *s, const char *name)
{
	int k = mbox_store_keyword_index(s, name, strlen(name));
	ck_assert_int_ge(k, 0);
	return (uint32_t)k;
}

static void
assert_uids(const struct mbox_view *v, const uint32_t *uids, uint32_t n)
{
	ck_assert_uint_eq(mbox_view_exists(v), n);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(mbox_view_uid(v, i + 1) == uids[i],
			      "seq %u: UID %u, want %u", i + 1,
			      mbox_view_uid(v, i + 1), uids[i]);
}

START_TEST(test_select_transcript)
{
	static const char *const sel[] = {
		"* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft "
		"$Forwarded $Junk)",
		"* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen "
		"\\Draft $Forwarded $Junk \\*)] Flags permitted.",
		"* 30 EXISTS",
		"* 2 RECENT",
		"* OK [UNSEEN 4] First unseen.",
		"* OK [UIDVALIDITY 1700000000] UIDs valid",
		"* OK [UIDNEXT 43] Predicted next UID",
		"* OK [HIGHESTMODSEQ 77] Highest",
		NULL
	};
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("user7\tINBOX", 0);
	struct mbox_view *v = mkview(s, 7, O_MODSEQ, &e);

	ck_assert_uint_eq(feed_all(v, sel), 0);
	ck_assert_uint_eq(mbox_view_on_resp_text(v, "[READ-WRITE] Select "
				"completed (0.001 + 0.000 secs).", 46), 0);
	ck_assert_uint_eq(mbox_view_select_done(v), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 30);
	ck_assert_uint_eq(mbox_view_recent(v), 2);
	ck_assert_uint_eq(mbox_view_uidvalidity(v), 1700000000u);
	ck_assert_uint_eq(mbox_store_uidvalidity(s), 1700000000u);
	ck_assert_uint_eq(mbox_view_uidnext(v), 43);
	ck_assert_uint_eq(mbox_view_highestmodseq(v), 77);
	ck_assert(mbox_view_keyword_in_flags(v, "$junk"));
	ck_assert(mbox_view_keyword_permanent(v, "$Forwarded"));
	ck_assert(!mbox_view_keyword_in_flags(v, "$Label1"));
	ck_assert(mbox_view_can_create_keywords(v));
	ck_assert_uint_eq(mbox_store_keyword_count(s), 2);
	ck_assert_str_eq(mbox_store_keyword_name(s, 1), "$Junk");
	ck_assert_ptr_null(mbox_store_keyword_name(s, 2));
	ck_assert_uint_eq(mbox_view_conn_id(v), 7);
	ck_assert_ptr_eq(mbox_view_store(v), s);
	ck_assert_str_eq(mbox_store_name(s), "user7\tINBOX");
	/* nothing known per message yet */
	unsigned sys;
	uint64_t kw;
	ck_assert(!mbox_view_flags(v, 1, &sys, &kw));
	ck_assert_uint_eq(mbox_view_uid(v, 1), 0);
	ck_assert_uint_eq(mbox_view_uid(v, 31), 0);
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_fetch_every_attribute)
{
	static const char fetch[] =
		"* 2 FETCH (UID 5 FLAGS (\\Seen $Label1) RFC822.SIZE 1234 "
		"INTERNALDATE \"17-Jul-1996 02:44:25 -0700\" "
		"ENVELOPE (\"Wed, 17 Jul 1996 02:23:25 -0700\" \"Hi\" "
		"((\"Terry\" NIL \"gray\" \"cac.washington.edu\")) NIL NIL NIL "
		"NIL NIL NIL \"<x@y>\") BODYSTRUCTURE (\"text\" \"plain\" "
		"(\"charset\" \"us-ascii\") NIL NIL \"7bit\" 1234 20 NIL NIL "
		"NIL NIL) BODY[HEADER.FIELDS (MESSAGE-ID)] {21}\r\n"
		"Message-ID: <x@y>\r\n\r\n MODSEQ (12))";
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, O_MODSEQ, &e);
	struct mbox_msg_info info;
	unsigned sys;
	uint64_t kw;

	select_box(v, 0, &e);
	ck_assert_uint_eq(feed(v, fetch), 0);
	ck_assert_uint_eq(mbox_view_uid(v, 2), 5);
	ck_assert_uint_eq(mbox_view_seq_of_uid(v, 5), 2);
	ck_assert_uint_eq(mbox_view_seq_of_uid(v, 6), 0);
	ck_assert(mbox_view_flags(v, 2, &sys, &kw));
	ck_assert_uint_eq(sys, MBOX_F_SEEN);
	ck_assert(kw == 1ull << kw_mask(s, "$Label1"));
	ck_assert_uint_eq(mbox_view_modseq(v, 2), 12);
	ck_assert(mbox_store_msg_info(s, 5, &info));
	ck_assert_uint_eq(info.size, 1234);
	ck_assert(info.have_idate);
	ck_assert_int_eq(info.idate, 837596665);	/* 1996-07-17 09:44:25Z */
	ck_assert_int_eq(info.idate_tz, -420);
	ck_assert(info.envelope_hash != 0);
	ck_assert(info.bodystructure_hash != 0);
	ck_assert(info.envelope_hash != info.bodystructure_hash);
	ck_assert_str_eq(info.message_id, "<x@y>");
	ck_assert_uint_eq(info.owner, 0);
	ck_assert(!mbox_store_msg_info(s, 3, &info));
	/* the same message again, fetched by another session of the store */
	struct errs e2 = { 0 };
	struct mbox_view *w = mkview(s, 2, O_MODSEQ, &e2);
	select_box(w, 0, &e2);
	ck_assert_uint_eq(feed(w, fetch), 0);
	ck_assert_uint_eq(mbox_store_msg_count(s), 1);
	/* and a different size there is caught in that session */
	ck_assert_uint_eq(feed(w, "* 2 FETCH (RFC822.SIZE 1000)"), 1);
	ck_assert_str_eq(e2.msg[0], "RFC822.SIZE changed for UID 5: 1234 -> "
			 "1000");
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(w);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_expunge_renumbers)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);
	unsigned sys;
	uint64_t kw;

	select_box(v, O_KNOWN, &e);
	ck_assert_uint_eq(mbox_store_msg_count(s), 5);
	ck_assert_uint_eq(feed(v, "* 3 EXPUNGE"), 0);
	static const uint32_t after3[] = { 3, 5, 9, 10 };
	assert_uids(v, after3, 4);
	ck_assert_uint_eq(mbox_store_msg_count(s), 4);
	ck_assert_uint_eq(mbox_store_msg_owner(s, 7), 0);
	struct mbox_msg_info info;
	ck_assert(!mbox_store_msg_info(s, 7, &info));
	/* the flags moved with their message */
	ck_assert(mbox_view_flags(v, 3, &sys, &kw));
	ck_assert(kw == 1ull << kw_mask(s, "$Label1"));
	ck_assert(mbox_view_flags(v, 2, &sys, &kw));
	ck_assert_uint_eq(sys, MBOX_F_SEEN);
	ck_assert_uint_eq(mbox_view_seq_of_uid(v, 10), 4);
	/* the same message twice over: "* 1 EXPUNGE" x2 drops seq 1 and 2 */
	ck_assert_uint_eq(feed(v, "* 1 EXPUNGE"), 0);
	ck_assert_uint_eq(feed(v, "* 1 EXPUNGE"), 0);
	static const uint32_t after[] = { 9, 10 };
	assert_uids(v, after, 2);
	/* and a new message appended afterwards */
	ck_assert_uint_eq(feed(v, "* 3 EXISTS"), 0);
	ck_assert_uint_eq(feed(v, "* 3 FETCH (UID 11 FLAGS (\\Recent))"), 0);
	static const uint32_t grown[] = { 9, 10, 11 };
	assert_uids(v, grown, 3);
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_vanished_renumbers)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, O_MODSEQ, &e);

	select_box(v, O_KNOWN, &e);
	ck_assert_uint_eq(feed(v, "* VANISHED 5,9"), 0);
	static const uint32_t left[] = { 3, 7, 10 };
	assert_uids(v, left, 3);
	/* EARLIER reports what is gone already: numbers stay */
	ck_assert_uint_eq(feed(v, "* VANISHED (EARLIER) 1:6,9"), 0);
	assert_uids(v, left, 3);
	/* UIDs 4-6 went earlier: naming them again breaks RFC 7162's SHOULD,
	 * reported, but the listed messages that exist still go */
	ck_assert_uint_eq(feed(v, "* VANISHED 3:7"), 1);
	ck_assert_str_eq(e.msg[0], "VANISHED UID 4 not in the mailbox view "
			 "(3 of 5 UIDs unknown)");
	static const uint32_t last[] = { 10 };
	assert_uids(v, last, 1);
	ck_assert_uint_eq(mbox_store_msg_count(s), 1);
	ck_assert_uint_eq(e.n, 1);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* With UIDs unknown, a vanished UID is the unknown slot just before the
 * first known higher UID (imaptest's rule). */
START_TEST(test_vanished_unknown_uids)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	select_box(v, 0, &e);
	feed(v, "* 1 FETCH (UID 3)");
	feed(v, "* 5 FETCH (UID 10)");
	ck_assert_uint_eq(feed(v, "* VANISHED 7"), 0);
	static const uint32_t a[] = { 3, 0, 0, 10 };
	assert_uids(v, a, 4);
	ck_assert_uint_eq(feed(v, "* VANISHED 3,4"), 0);
	static const uint32_t b[] = { 0, 10 };
	assert_uids(v, b, 2);
	ck_assert_uint_eq(feed(v, "* VANISHED 11"), 1);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_EXPUNGE);
	ck_assert_str_eq(e.msg[0], "VANISHED UID 11 not found");
	assert_uids(v, b, 2);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_recent_count)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	select_box(v, 0, &e);
	feed(v, "* 2 RECENT");
	feed(v, "* 5 FETCH (UID 10 FLAGS (\\Recent))");
	feed(v, "* 5 EXPUNGE");
	ck_assert_uint_eq(mbox_view_recent(v), 1);	/* it was \Recent */
	feed(v, "* 4 FETCH (UID 9 FLAGS ())");
	feed(v, "* 4 EXPUNGE");
	ck_assert_uint_eq(mbox_view_recent(v), 1);	/* it was not */
	feed(v, "* 3 RECENT");
	feed(v, "* 1 EXPUNGE");	/* all 3 were recent: exact */
	ck_assert_uint_eq(mbox_view_recent(v), 2);
	/* a RECENT after an EXISTS says the count (Cyrus sends one with
	 * every EXISTS; test_mbox_recent.c: Dovecot's EXISTS without one) */
	feed(v, "* 3 EXISTS");
	feed(v, "* 1 RECENT");
	ck_assert_uint_eq(mbox_view_recent(v), 1);
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_dispatch_and_closed)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);
	struct imap_resp tagged;

	select_box(v, O_KNOWN, &e);
	memset(&tagged, 0, sizeof(tagged));
	tagged.kind = IMAP_TAGGED;
	tagged.cond = IMAP_COND_OK;
	tagged.keyword = "OK";
	tagged.keyword_len = 2;
	tagged.text = "[UIDVALIDITY 9] x";
	tagged.text_len = 17;
	ck_assert_uint_eq(mbox_view_untagged(v, &tagged), 0);
	ck_assert_uint_eq(feed(v, "* CAPABILITY IMAP4rev1 QRESYNC"), 0);
	ck_assert_uint_eq(feed(v, "* 3 FOO bar"), 0);
	ck_assert_uint_eq(feed(v, "* OK no code here"), 0);
	ck_assert_uint_eq(feed(v, "* OK [ALERT] hello"), 0);
	ck_assert_uint_eq(feed(v, "* OK [UNTERMINATED"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 5);
	ck_assert_uint_eq(feed(v, "* OK [CLOSED] Previous mailbox closed."), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	ck_assert_uint_eq(mbox_view_uidvalidity(v), 0);
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_view_free(NULL);
	mbox_store_free(s);
	mbox_store_free(NULL);
}
END_TEST

START_TEST(test_limits)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 3);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	ck_assert_uint_eq(feed(v, "* 4 EXISTS"), 1);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_LIMIT);
	ck_assert_str_eq(e.msg[0], "EXISTS 4 exceeds the tracking limit 3: "
			 "not tracking this mailbox until the next SELECT");
	/* disabled: nothing is checked, nothing allocated */
	ck_assert_uint_eq(feed(v, "* 9 FETCH (UID 1)"), 0);
	ck_assert_uint_eq(feed(v, "* 9 EXPUNGE"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	mbox_view_reset(v);
	ck_assert_uint_eq(feed(v, "* 3 EXISTS"), 0);
	feed(v, "* 1 FETCH (UID 1)");
	feed(v, "* 2 FETCH (UID 2)");
	feed(v, "* 3 FETCH (UID 3)");
	ck_assert_uint_eq(mbox_store_msg_count(s), 3);
	/* a second session that sees another UID (the store is full) */
	struct errs e2 = { 0 };
	struct mbox_view *w = mkview(s, 2, 0, &e2);
	feed(w, "* 3 EXISTS");
	ck_assert_uint_eq(feed(w, "* 3 FETCH (UID 4)"), 1);
	ck_assert_str_eq(e2.msg[0], "Message limit 3 reached: metadata of "
			 "UID 4 and later new UIDs not tracked");
	ck_assert_uint_eq(feed(w, "* 2 FETCH (UID 3)"), 0);	/* told once */
	ck_assert_uint_eq(e.n, 1);
	mbox_view_free(w);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_keyword_limit)
{
	char line[2048];
	size_t n = (size_t)snprintf(line, sizeof(line), "* FLAGS (\\Seen");
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	for (int i = 0; i < MBOX_MAX_KEYWORDS + 2; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " $K%d", i);
	snprintf(line + n, sizeof(line) - n, ")");
	ck_assert_uint_eq(feed(v, line), 1);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_LIMIT);
	ck_assert_str_eq(e.msg[0], "More than 64 keywords: $K64 and later "
			 "ones not tracked");
	ck_assert_uint_eq(mbox_store_keyword_count(s), MBOX_MAX_KEYWORDS);
	ck_assert(mbox_view_keyword_in_flags(v, "$K63"));
	feed(v, "* 1 EXISTS");
	ck_assert_uint_eq(feed(v, "* 1 FETCH (FLAGS ($K63 $K65))"), 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* Many UIDs in and out of the hash table: lookups stay exact after the
 * backward-shift deletions and the growth. */
START_TEST(test_store_many_uids)
{
	enum { N = 3000 };
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);
	char line[96];
	struct mbox_msg_info info;

	snprintf(line, sizeof(line), "* %d EXISTS", N);
	feed(v, line);
	for (int i = 1; i <= N; i++) {
		snprintf(line, sizeof(line), "* %d FETCH (UID %d RFC822.SIZE "
			 "%d)", i, i * 7, 100 + i);
		ck_assert_uint_eq(feed(v, line), 0);
	}
	ck_assert_uint_eq(mbox_store_msg_count(s), N);
	/* expunge every third message, from the end */
	for (int i = N; i >= 1; i--) {
		if (i % 3 != 0)
			continue;
		snprintf(line, sizeof(line), "* %d EXPUNGE", i);
		ck_assert_uint_eq(feed(v, line), 0);
	}
	ck_assert_uint_eq(mbox_store_msg_count(s), N - N / 3);
	ck_assert_uint_eq(mbox_view_exists(v), N - N / 3);
	for (int i = 1; i <= N; i++) {
		bool there = mbox_store_msg_info(s, (uint32_t)i * 7, &info);
		ck_assert_msg(there == (i % 3 != 0), "UID %d", i * 7);
		if (there)
			ck_assert_uint_eq(info.size, (uint64_t)(100 + i));
		ck_assert(!mbox_store_msg_info(s, (uint32_t)i * 7 + 1, &info));
	}
	ck_assert_uint_eq(mbox_view_uid(v, 3), 4 * 7);
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_uidvalidity_resets_store)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	select_box(v, O_KNOWN, &e);
	feed(v, "* 1 FETCH (RFC822.SIZE 10)");
	ck_assert_uint_eq(feed(v, "* OK [UIDVALIDITY 42] new"), 1);
	ck_assert_uint_eq(mbox_store_uidvalidity(s), 42);
	ck_assert_uint_eq(mbox_store_msg_count(s), 0);
	ck_assert_uint_eq(mbox_view_uid(v, 1), 0);	/* UIDs forgotten */
	/* UID 3 is a new message now: its size is not compared */
	ck_assert_uint_eq(feed(v, "* 1 FETCH (UID 3 RFC822.SIZE 11)"), 0);
	ck_assert_uint_eq(e.n, 1);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* ---- checkpoint ---- */

enum { NV = 4 };

struct cp {
	struct mbox_store *s;
	struct mbox_view *v[NV];
	struct errs e[NV], out;
};

/* Four sessions that all selected the same 5 messages. */
static void
cp_setup(struct cp *c)
{
	memset(c, 0, sizeof(*c));
	c->s = mbox_store_new("u\tINBOX", 0);
	for (int i = 0; i < NV; i++) {
		c->v[i] = mkview(c->s, (uint32_t)i + 1, 0, &c->e[i]);
		select_box(c->v[i], O_KNOWN, &c->e[i]);
	}
}

static unsigned
cp_run(struct cp *c, unsigned n, bool reliable)
{
	memset(&c->out, 0, sizeof(c->out));
	unsigned r = mbox_view_checkpoint_compare(c->v, n, reliable, errs_cb,
						  &c->out);
	ck_assert_uint_eq(r, c->out.n);
	return r;
}

static void
cp_free(struct cp *c)
{
	for (int i = 0; i < NV; i++) {
		ck_assert_msg(c->e[i].n == 0, "view %d: %s", i, c->e[i].msg[0]);
		mbox_view_free(c->v[i]);
	}
	mbox_store_free(c->s);
}

START_TEST(test_checkpoint_agree)
{
	struct cp c;

	cp_setup(&c);
	ck_assert_uint_eq(cp_run(&c, NV, false), 0);
	ck_assert_uint_eq(cp_run(&c, NV, true), 0);
	ck_assert_uint_eq(mbox_view_checkpoint_compare(c.v, 0, true, NULL,
						       NULL), 0);
	cp_free(&c);
}
END_TEST

START_TEST(test_checkpoint_flags_differ)
{
	struct cp c;

	cp_setup(&c);
	feed(c.v[3], "* 2 FETCH (FLAGS ())");
	ck_assert_uint_eq(cp_run(&c, 3, true), 0);	/* the three agree */
	ck_assert_uint_eq(cp_run(&c, NV, true), 1);
	ck_assert_int_eq(c.out.kind[0], MBOX_ERR_CHECKPOINT);
	ck_assert_str_eq(c.out.msg[0], "Checkpoint: client 4: Message seq=2 "
			 "UID=5 flags differ: () vs (\\Seen) of client 1");
	feed(c.v[3], "* 4 FETCH (FLAGS ())");
	ck_assert_uint_eq(cp_run(&c, NV, true), 2);
	ck_assert_str_eq(c.out.msg[1], "Checkpoint: client 4: Message seq=4 "
			 "UID=9 keywords differ: () vs ($Label1) of client 1");
	/* flags it does not know (yet) are not compared */
	mbox_view_store_begin(c.v[3], "2", 1, false, true);
	mbox_view_store_end(c.v[3]);
	ck_assert_uint_eq(cp_run(&c, NV, true), 1);
	cp_free(&c);
}
END_TEST

/* Client 4 alone differs from the other three; the checkpoint says how. */
START_TEST(test_checkpoint_count_uid_keyword)
{
	static const struct {
		bool reselect;	/* client 4 first selects again: UIDs unknown */
		const char *lines[3];
		const char *msg;
	} cases[] = {
		{ false, { "* 5 EXPUNGE" },
		  "Checkpoint: client 4: Mailbox has only 4 of 5 messages" },
		{ true, { "* 1 FETCH (UID 3 FLAGS ())",
			  "* 3 FETCH (UID 8 FLAGS ())" },
		  "Checkpoint: client 4: Message seq=3 UID 8 != 7" },
	};
	struct cp c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cp_setup(&c);
		if (cases[i].reselect) {
			mbox_view_reset(c.v[3]);
			feed_all(c.v[3], select_lines);
		}
		feed_all(c.v[3], cases[i].lines);
		ck_assert_uint_eq(cp_run(&c, NV, false), 1);
		ck_assert_str_eq(c.out.msg[0], cases[i].msg);
		cp_free(&c);
	}
}
END_TEST

/* A keyword in one session's FLAGS only: an error when a message carries
 * it (the others were never told of a keyword in use), none while no
 * message does (Dovecot tells only the session whose STORE -FLAGS named
 * a keyword nobody had; see cp_keywords_carried). */
START_TEST(test_checkpoint_keyword_announced)
{
	struct cp c;

	cp_setup(&c);
	feed(c.v[3], "* FLAGS (\\Seen $Label1 $New)");
	ck_assert_uint_eq(cp_run(&c, NV, false), 0);
	feed(c.v[3], "* 3 FETCH (FLAGS ($New))");
	ck_assert_uint_eq(cp_run(&c, NV, false), 2);
	ck_assert_str_eq(c.out.msg[0], "Checkpoint: client 1: Missing keyword "
			 "$New");
	ck_assert_str_eq(c.out.msg[1], "Checkpoint: client 4: Message seq=3 "
			 "UID=7 keywords differ: ($New) vs () of client 1");
	/* known to the others too, and on their message: they agree */
	for (int i = 0; i < 3; i++) {
		feed(c.v[i], "* FLAGS (\\Seen $Label1 $New)");
		feed(c.v[i], "* 3 FETCH (FLAGS ($New))");
	}
	ck_assert_uint_eq(cp_run(&c, NV, false), 0);
	cp_free(&c);
}
END_TEST

/* Two sessions of a mailbox that was empty and then got two messages,
 * \Recent in the first session only. */
START_TEST(test_checkpoint_recent)
{
	static const char *const empty[] = {
		"* FLAGS (\\Seen)", "* 0 EXISTS", "* 0 RECENT",
		"* OK [UIDVALIDITY 5] x", "* OK [UIDNEXT 1] x", "!done", NULL
	};
	static const char *const a_new[] = {
		"* 2 EXISTS", "* 2 RECENT", "* 1 FETCH (UID 1 FLAGS (\\Recent))",
		"* 2 FETCH (UID 2 FLAGS (\\Recent))", NULL
	};
	static const char *const b_new[] = {
		"* 2 EXISTS", "* 0 RECENT", "* 1 FETCH (UID 1 FLAGS ())",
		"* 2 FETCH (UID 2 FLAGS ())", NULL
	};
	struct cp c;

	memset(&c, 0, sizeof(c));
	c.s = mbox_store_new("u\tINBOX", 0);
	for (int i = 0; i < 2; i++)
		c.v[i] = mkview(c.s, (uint32_t)i + 1, 0, &c.e[i]);
	feed_all(c.v[0], empty);
	feed_all(c.v[1], empty);
	feed_all(c.v[0], a_new);
	feed_all(c.v[1], b_new);
	ck_assert_uint_eq(cp_run(&c, 2, true), 0);

	feed(c.v[1], "* 1 FETCH (FLAGS (\\Recent))");
	ck_assert_uint_eq(cp_run(&c, 2, true), 1);
	ck_assert_int_eq(c.out.kind[0], MBOX_ERR_RECENT);
	ck_assert_str_eq(c.out.msg[0], "Checkpoint: Message seq=1 UID=1 has "
			 "\\Recent flag in multiple sessions: clients 1 and 2");

	feed(c.v[1], "* 1 FETCH (FLAGS ())");
	feed(c.v[0], "* 1 RECENT");
	feed(c.v[0], "* 2 FETCH (FLAGS ())");
	ck_assert_uint_eq(cp_run(&c, 2, true), 2);
	ck_assert_str_eq(c.out.msg[0], "Checkpoint: Total RECENT count 1 != 2");
	ck_assert_str_eq(c.out.msg[1], "Checkpoint: Message seq=2 UID=2 isn't "
			 "\\Recent anywhere");
	/* a session ended (or lives elsewhere): no RECENT arithmetic */
	ck_assert_uint_eq(cp_run(&c, 2, false), 0);

	feed(c.v[1], "* 2 RECENT");
	ck_assert_uint_eq(cp_run(&c, 2, true), 2);
	ck_assert_str_eq(c.out.msg[0], "Checkpoint: Total RECENT count 3 larger "
			 "than current message count 2");
	ck_assert_uint_eq(c.e[0].n + c.e[1].n, 0);
	cp_free(&c);
}
END_TEST

static Suite *
mbox_model_suite(void)
{
	Suite *s = suite_create("mbox_model");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_select_transcript);
	tcase_add_test(tc, test_fetch_every_attribute);
	tcase_add_test(tc, test_expunge_renumbers);
	tcase_add_test(tc, test_vanished_renumbers);
	tcase_add_test(tc, test_vanished_unknown_uids);
	tcase_add_test(tc, test_recent_count);
	tcase_add_test(tc, test_dispatch_and_closed);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_keyword_limit);
	tcase_add_test(tc, test_store_many_uids);
	tcase_add_test(tc, test_uidvalidity_resets_store);
	tcase_add_test(tc, test_checkpoint_agree);
	tcase_add_test(tc, test_checkpoint_flags_differ);
	tcase_add_test(tc, test_checkpoint_count_uid_keyword);
	tcase_add_test(tc, test_checkpoint_keyword_announced);
	tcase_add_test(tc, test_checkpoint_recent);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(mbox_model_suite)
