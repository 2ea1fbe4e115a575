/* test_mbox_bounds.c: what a server's claims cost the mailbox model
 * (issue 13), and VANISHED against views with unknown UIDs (issue 11).
 * The paged seq map (src/mbox_seqs.c) is checked against a flat array
 * under random operations. */
#include <stdlib.h>

#include "model/mbox_private.h"
#include "mbox_test.h"

static struct mbox_view *
cyrus_select(struct mbox_store *s, struct errs *e)
{
	struct mbox_view *v = mkview(s, 1, 0, e);
	static const char *const lines[] = {
		"!reset",
		"* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)",
		"* 3 EXISTS",
		"* OK [UIDVALIDITY 1234] ok",
		"* OK [UIDNEXT 263] ok",
		"* 1 FETCH (UID 257 FLAGS ())",
		"* 2 FETCH (UID 261 FLAGS ())",
		"!done",
		NULL
	};
	feed_all(v, lines);
	ck_assert_uint_eq(e->n, 0);
	return v;
}

/* Issue 11 item 1, the Cyrus rawlog: SELECT shows 3 messages (UIDNEXT
 * 263) and UIDs 257 and 261; one message arrives; all three old ones
 * vanish.  262 was below UIDNEXT at SELECT: it is the old unknown seq 3,
 * not the arrival, so seq 1 is now the new UID 263. */
START_TEST(test_vanished_cyrus_arrival)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = cyrus_select(s, &e);

	ck_assert_uint_eq(feed(v, "* 4 EXISTS"), 0);
	ck_assert_uint_eq(feed(v, "* VANISHED 257,261:262"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 1);
	ck_assert_uint_eq(feed(v, "* 1 EXISTS"), 0);
	ck_assert_uint_eq(feed(v, "* 1 FETCH (UID 263 FLAGS (\\Recent))"), 0);
	ck_assert_msg(e.n == 0, "%s", e.msg[0]);
	ck_assert_uint_eq(mbox_view_uid(v, 1), 263);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* The other way round: a UID at or above UIDNEXT vanishing takes the
 * arrival's slot, and the old unknown one stays. */
START_TEST(test_vanished_new_takes_arrival)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = cyrus_select(s, &e);

	feed(v, "* 4 EXISTS");
	ck_assert_uint_eq(feed(v, "* VANISHED 263"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 3);
	ck_assert_uint_eq(feed(v, "* 3 FETCH (UID 262 FLAGS ())"), 0);
	ck_assert_uint_eq(e.n, 0);
	/* every UID known now: UIDs the view never had are named */
	ck_assert_uint_eq(feed(v, "* VANISHED 258:260"), 1);
	ck_assert_str_eq(e.msg[0], "VANISHED UID 258 not in the mailbox view "
			 "(3 of 3 UIDs unknown)");
	ck_assert_uint_eq(mbox_view_exists(v), 3);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* `* 1000000 EXISTS` is 40 bytes: it must cost pages of bookkeeping, no
 * message memory; EXISTS at the tracking limit is tracked, one past it
 * is refused by name. */
START_TEST(test_exists_claim_costs_no_messages)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 1000000);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	feed(v, "!reset");
	ck_assert_uint_eq(feed(v, "* 1000000 EXISTS"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 1000000);
	uint32_t real = 0;
	for (uint32_t p = 0; p < v->n_pages; p++)
		real += v->pages[p].m != NULL;
	ck_assert_uint_eq(real, 0);
	ck_assert_uint_le(v->n_pages, 1000000 / MBOX_PAGE + 1);
	ck_assert_uint_eq(feed(v, "* 999999 FETCH (UID 77 FLAGS ())"), 0);
	ck_assert_uint_eq(mbox_view_uid(v, 999999), 77);
	ck_assert_uint_eq(mbox_view_seq_of_uid(v, 77), 999999);
	ck_assert_uint_eq(feed(v, "* 1000001 EXISTS"), 1);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_LIMIT);
	ck_assert_str_eq(e.msg[0], "EXISTS 1000001 exceeds the tracking limit "
			 "1000000: not tracking this mailbox until the next "
			 "SELECT");
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	ck_assert_uint_eq(feed(v, "* 1 FETCH (UID 1)"), 0);	/* ignored */
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* An expunge storm (every message as `* 1 EXPUNGE`), descending FETCH
 * order and `VANISHED 1:N`: each used to be quadratic in N. */
START_TEST(test_storms)
{
	enum { N = 50000 };	/* seconds under ASan at 100000 */
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);
	char line[80];

	feed(v, "!reset");
	snprintf(line, sizeof(line), "* %u EXISTS", (unsigned)N);
	feed(v, line);
	for (unsigned seq = N; seq >= 1; seq--) {
		snprintf(line, sizeof(line), "* %u FETCH (UID %u FLAGS ())", seq,
			 seq * 2);
		feed(v, line);
	}
	ck_assert_msg(e.n == 0, "%s", e.msg[0]);
	ck_assert_uint_eq(v->known_uids, N);
	ck_assert_uint_eq(feed(v, "* 5 FETCH (UID 4 FLAGS ())"), 2);
	ck_assert_str_eq(e.msg[0], "UID changed for seq 5: 10 -> 4");
	ck_assert_str_eq(e.msg[1], "UIDs not ascending: seq 4 has UID 8 but "
			 "seq 5 has UID 4");
	feed(v, "* 5 FETCH (UID 10)");
	e.n = 0;
	for (unsigned i = 0; i < N / 2; i++)
		feed(v, "* 1 EXPUNGE");
	ck_assert_uint_eq(mbox_view_exists(v), N / 2);
	ck_assert_uint_eq(mbox_view_uid(v, 1), N + 2);
	snprintf(line, sizeof(line), "* VANISHED 1:%u", (unsigned)N * 2);
	ck_assert_uint_eq(feed(v, line), 1);	/* names UIDs it never had */
	ck_assert_str_eq(e.msg[0], "VANISHED UID 1 not in the mailbox view "
			 "(75000 of 100000 UIDs unknown)");
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	snprintf(line, sizeof(line), "* %u EXISTS", (unsigned)N);
	feed(v, line);
	ck_assert_uint_eq(feed(v, "* VANISHED 1:4294967295"), 1);
	ck_assert_str_eq(e.msg[1], "VANISHED lists 4294967295 UIDs but only "
			 "50000 messages exist");
	snprintf(line, sizeof(line), "* VANISHED 1:%u", (unsigned)N);
	ck_assert_uint_eq(feed(v, line), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* fuzz_model findings.  RECENT 2 of 2, then a message known not to be
 * \Recent is expunged: RECENT must not stay above EXISTS. */
START_TEST(test_recent_never_above_exists)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	feed(v, "!reset");
	feed(v, "* 2 EXISTS");
	feed(v, "* 2 RECENT");
	feed(v, "* 1 FETCH (UID 1 FLAGS ())");
	ck_assert_uint_eq(feed(v, "* 1 EXPUNGE"), 0);
	ck_assert_uint_eq(mbox_view_exists(v), 1);
	ck_assert_uint_le(mbox_view_recent(v), 1);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* An EXISTS past the tracking limit stops tracking: nothing of the old
 * selection (old_count, RECENT) may outlive the messages. */
START_TEST(test_disabled_view_keeps_nothing)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 100);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	feed(v, "!reset");
	feed(v, "* 50 EXISTS");
	feed(v, "* 3 RECENT");
	feed(v, "* OK [UIDNEXT 60] x");
	feed(v, "!done");
	ck_assert_uint_eq(feed(v, "* 100 EXISTS"), 0);	/* at the limit */
	ck_assert_uint_eq(feed(v, "* 101 EXISTS"), 1);	/* one past it */
	ck_assert_int_eq(e.kind[0], MBOX_ERR_LIMIT);
	ck_assert_uint_eq(mbox_view_exists(v), 0);
	ck_assert_uint_eq(mbox_view_recent(v), 0);
	ck_assert_uint_eq(v->old_count, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* ---- the paged map against a flat array ---- */

struct flat {
	uint32_t *uid;
	uint32_t n;
};

/* Plain compares: a Check assertion costs a write to the runner. */
static void
check_same(struct mbox_view *v, const struct flat *f)
{
	uint32_t known = 0, sum = 0;

	ck_assert_uint_eq(v->count, f->n);
	for (uint32_t seq = 1; seq <= f->n; seq++) {
		if (mbox_msg_get(v, seq)->uid != f->uid[seq - 1])
			ck_abort_msg("seq %u: UID %u, want %u", seq,
				     mbox_msg_get(v, seq)->uid, f->uid[seq - 1]);
		known += f->uid[seq - 1] != 0;
	}
	ck_assert_uint_eq(v->known_uids, known);
	for (uint32_t p = 0; p < v->n_pages; p++) {
		const struct mbox_page *pg = &v->pages[p];
		if (pg->n == 0 || pg->n > MBOX_PAGE)
			ck_abort_msg("page %u holds %u", p, pg->n);
		/* a real page holds room for its entries, no more than a
		 * page, and the room past n is zero */
		if (pg->m != NULL && (pg->cap < pg->n || pg->cap > MBOX_PAGE))
			ck_abort_msg("page %u: %u entries in room for %u", p,
				     pg->n, pg->cap);
		for (uint32_t k = pg->n; pg->m != NULL && k < pg->cap; k++)
			if (memcmp(&pg->m[k], &(struct mbox_msg){ 0 },
				   sizeof(pg->m[k])) != 0)
				ck_abort_msg("page %u entry %u past n is set", p, k);
		if (p + 1 < v->n_pages &&
		    v->pages[p].n + v->pages[p + 1].n <= MBOX_PAGE / 2)
			ck_abort_msg("pages %u and %u hold %u + %u", p, p + 1,
				     v->pages[p].n, v->pages[p + 1].n);
		sum += v->pages[p].n;
	}
	if (v->n_pages > 4 * f->n / MBOX_PAGE + 1)
		ck_abort_msg("%u pages for %u messages", v->n_pages, f->n);
	ck_assert_uint_eq(sum, f->n);
}

static void
flat_drop(void *arg, const struct mbox_msg *m, uint32_t old_seq)
{
	(*(uint32_t *)arg)++;
}

/* Loop 0: EXISTS adds up to 1,500 at once; loop 1: up to 5, with rarer
 * truncations and compactions, so that real pages grow entry by entry
 * through every size of their room up to a full page. */
START_TEST(test_seqs_random)
{
	const uint32_t grow_max = _i == 0 ? 1500 : 6;
	const uint32_t cut_every = _i == 0 ? 16 : 512;
	uint32_t most = 0;
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mbox_view_new(s, 1, NULL);
	struct flat f = { calloc(40000, sizeof(uint32_t)), 0 };
	uint64_t r = 88172645463325252ull;

	for (int op = 0; op < 20000; op++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		uint32_t x = (uint32_t)(r >> 32);
		uint32_t seq = f.n ? x % f.n + 1 : 0;
		switch (r % 8) {
		case 0:	/* EXISTS growth */
			if (f.n < 30000) {
				uint32_t add = x % grow_max;
				memset(&f.uid[f.n], 0, add * sizeof(uint32_t));
				f.n += add;
				mbox_msgs_grow(v, f.n);
			}
			break;
		case 1:
			if (x % cut_every == 0) {
				f.n = x % (f.n + 1);
				mbox_msgs_truncate(v, f.n);
			}
			break;
		case 2: case 3:
			if (seq && (_i == 0 || x % 4 == 0)) {
				memmove(&f.uid[seq - 1], &f.uid[seq],
					(f.n - seq) * sizeof(uint32_t));
				f.n--;
				mbox_msgs_delete(v, seq);
			}
			break;
		case 4: case 5:
			if (seq) {
				uint32_t u = x % 3 ? x | 1 : 0;
				f.uid[seq - 1] = u;
				mbox_msg_set_uid(v, seq, u);
			}
			break;
		case 6:
			if (seq) {
				uint32_t want = 0;
				for (uint32_t k = seq - 1; k >= 1; k--)
					if (f.uid[k - 1]) { want = k; break; }
				if (mbox_msgs_prev_known(v, seq) != want)
					ck_abort_msg("prev_known(%u) != %u", seq, want);
				want = 0;
				for (uint32_t k = seq + 1; k <= f.n; k++)
					if (f.uid[k - 1]) { want = k; break; }
				if (mbox_msgs_next_known(v, seq) != want)
					ck_abort_msg("next_known(%u) != %u", seq, want);
			}
			break;
		default:	/* compaction: one range of seqs */
			if (seq && x % (cut_every / 2) == 0) {
				uint32_t hi = seq + x % 700;
				if (hi > f.n)
					hi = f.n;
				struct mbox_range d = { seq, hi };
				uint32_t dropped = 0;
				mbox_msgs_compact(v, &d, 1, flat_drop, &dropped);
				if (dropped != hi - seq + 1)
					ck_abort_msg("dropped %u", dropped);
				memmove(&f.uid[seq - 1], &f.uid[hi],
					(f.n - hi) * sizeof(uint32_t));
				f.n -= hi - seq + 1;
			}
			break;
		}
		if (op % 500 == 0 || r % 8 == 7)
			check_same(v, &f);
		if (f.n > most)
			most = f.n;
	}
	check_same(v, &f);
	ck_assert_uint_gt(most, 2 * MBOX_PAGE);
	free(f.uid);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* SELECT's end checks that every message with a UID known by then (QRESYNC
 * FETCHes during the SELECT) is below UIDNEXT.  It visits only those
 * messages, pages without one skipped: the ones over the line, on
 * different pages of a 3,000-message mailbox and at seq 1, are each still
 * reported, in seq order. */
START_TEST(test_select_done_known_uids)
{
	static const char *const spread[] = {
		"!reset", "* 3000 EXISTS", "* OK [UIDVALIDITY 1] ok",
		"* OK [UIDNEXT 5000] ok", "* 1 FETCH (UID 10 FLAGS ())",
		"* 600 FETCH (UID 3000 FLAGS ())",
		"* 700 FETCH (UID 5000 FLAGS ())",
		"* 2999 FETCH (UID 6000 FLAGS ())", "!done", NULL
	};
	static const char *const first[] = {
		"!reset", "* 3000 EXISTS", "* OK [UIDVALIDITY 1] ok",
		"* OK [UIDNEXT 5000] ok", "* 1 FETCH (UID 5000 FLAGS ())",
		"!done", NULL
	};
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, 0, &e);

	feed_all(v, spread);
	ck_assert_uint_eq(e.n, 2);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_UIDNEXT);
	ck_assert_str_eq(e.msg[0], "UID 5000 not below UIDNEXT 5000 (seq 700 "
			 "existed at SELECT)");
	ck_assert_str_eq(e.msg[1], "UID 6000 not below UIDNEXT 5000 (seq 2999 "
			 "existed at SELECT)");
	mbox_view_free(v);
	mbox_store_free(s);

	memset(&e, 0, sizeof(e));
	s = mbox_store_new("u\tINBOX", 0);
	v = mkview(s, 1, 0, &e);
	feed_all(v, first);
	ck_assert_uint_eq(e.n, 1);
	ck_assert_str_eq(e.msg[0], "UID 5000 not below UIDNEXT 5000 (seq 1 "
			 "existed at SELECT)");
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* Issue 34: 200000 FETCH answers from the top of a claimed million down
 * (a million timed out under load), against a view
 * bounded to 4096 entries, cost at most those entries and the store
 * records of what was kept (O(kept), not O(claimed) nor O(answers));
 * what is kept is still checked. */
START_TEST(test_fetch_storm_costs_what_is_kept)
{
	enum { TRACK = 4096, N = 1000000, ANSWERS = 200000 };
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	mbox_store_set_track_max(s, TRACK);
	struct mbox_view *v = mkview(s, 1, 0, &e);
	char line[80];

	feed(v, "!reset");
	ck_assert_uint_eq(feed(v, "* 1000 EXISTS"), 0);
	ck_assert_uint_eq(mbox_view_entries(v), 0);
	ck_assert_uint_eq(feed(v, "* 1000000 EXISTS"), 0);
	ck_assert_uint_eq(mbox_view_entries(v), 0);	/* as for 1000 */
	ck_assert_uint_eq(feed(v, "* 1 FETCH (UID 1 FLAGS ())"), 0);
	for (unsigned seq = N; seq > N - ANSWERS; seq--) {
		snprintf(line, sizeof(line), "* %u FETCH (UID %u FLAGS ())",
			 seq, seq);
		ck_assert_uint_eq(feed(v, line), 0);
	}
	ck_assert_uint_le(mbox_view_entries(v), TRACK);
	ck_assert_uint_ge(mbox_view_entries(v), TRACK - MBOX_PAGE);
	ck_assert_uint_le(mbox_store_msg_count(s), mbox_view_entries(v));
	/* Every answer not kept is told: seq 1's page (512 entries), the
	 * last page (1000000 % 512 = 64) and six full pages below it fill
	 * 3648 of the 4096; the seventh would pass them.  Kept: 64 + 6 *
	 * 512 = 3136 of the answers from the top. */
	ck_assert_uint_eq(mbox_view_entries(v), 512 + 64 + 6 * 512);
	ck_assert_uint_eq(e.untracked, ANSWERS - (64 + 6 * 512));
	/* seq 1 and the top pages are kept: a changed UID is seen */
	ck_assert_uint_eq(mbox_view_uid(v, 1), 1);
	ck_assert_uint_eq(mbox_view_uid(v, N), N);
	ck_assert_uint_eq(feed(v, "* 1000000 FETCH (UID 1000001)"), 1);
	ck_assert_int_eq(e.kind[0], MBOX_ERR_UID_CHANGED);
	/* seq 500000 is not kept: its answer is checked (syntax, seq) and
	 * forgotten */
	ck_assert_uint_eq(mbox_view_uid(v, 500000), 0);
	ck_assert_uint_eq(feed(v, "* 500000 FETCH (UID 500000 FLAGS ())"), 0);
	ck_assert_uint_eq(feed(v, "* 500000 FETCH (UID 500000 FLAGS (\\Bogus))"),
			  1);
	ck_assert_int_eq(e.kind[1], MBOX_ERR_SYNTAX);
	ck_assert_uint_eq(mbox_view_uid(v, 500000), 0);
	ck_assert_uint_eq(e.untracked, ANSWERS - (64 + 6 * 512) + 2);
	ck_assert_uint_le(mbox_view_entries(v), TRACK);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* The answers the fake server's track-max scenario sends (t_track_max.sh:
 * `* 5000 EXISTS`, then seq 1 and 5000 down to 1), against a view kept to
 * 1000 entries, to 1024 and to none: the count of answers not kept is
 * exact and the entries never pass the bound (the pages are 512 each, the
 * last one's 392 take 512). */
START_TEST(test_track_max_counts_untracked)
{
	static const struct { uint32_t max, entries, untracked; } t[] = {
		{ 1000, 512, 5000 - 512 },		/* seq 1's page only */
		{ 1024, 1024, 5000 - 512 - 392 },	/* and the last */
		{ 0, 10 * 512, 0 },			/* no bound */
	};
	char line[80];

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct errs e = { 0 };
		struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
		if (t[i].max != 0)
			mbox_store_set_track_max(s, t[i].max);
		struct mbox_view *v = mkview(s, 1, 0, &e);
		feed(v, "!reset");
		ck_assert_uint_eq(feed(v, "* 5000 EXISTS"), 0);
		ck_assert_uint_eq(feed(v, "* 1 FETCH (UID 1 FLAGS ())"), 0);
		for (unsigned seq = 5000; seq >= 1; seq--) {
			snprintf(line, sizeof(line),
				 "* %u FETCH (UID %u FLAGS ())", seq, seq);
			ck_assert_uint_eq(feed(v, line), 0);
		}
		ck_assert_uint_eq(e.n, 0);
		ck_assert_uint_eq(mbox_view_entries(v), t[i].entries);
		ck_assert_uint_eq(e.untracked, t[i].untracked);
		mbox_view_free(v);
		mbox_store_free(s);
	}
}
END_TEST

static Suite *
mbox_bounds_suite(void)
{
	Suite *s = suite_create("mbox_bounds");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_vanished_cyrus_arrival);
	tcase_add_test(tc, test_vanished_new_takes_arrival);
	tcase_add_test(tc, test_exists_claim_costs_no_messages);
	tcase_add_test(tc, test_fetch_storm_costs_what_is_kept);
	tcase_add_test(tc, test_track_max_counts_untracked);
	tcase_add_test(tc, test_storms);
	tcase_add_test(tc, test_recent_never_above_exists);
	tcase_add_test(tc, test_disabled_view_keeps_nothing);
	tcase_add_loop_test(tc, test_seqs_random, 0, 2);
	tcase_add_test(tc, test_select_done_known_uids);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(mbox_bounds_suite)
