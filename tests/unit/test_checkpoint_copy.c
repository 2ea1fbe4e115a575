/* test_checkpoint_copy.c: a checkpoint over several workers compares
 * copies of views kept in different stores (one per worker): keywords are
 * mapped by name, so stores that learnt them in another order agree, and
 * a real difference between two workers' sessions is still found. */
#include "mbox_test.h"

struct two {
	struct mbox_store *a, *b, *dst;	/* worker 0's, worker 1's, copies */
	struct mbox_view *va, *vb;
	struct errs ea, eb, out;
};

static void
two_setup(struct two *t)
{
	memset(t, 0, sizeof(*t));
	t->a = mbox_store_new("u\tINBOX", 0);
	t->b = mbox_store_new("u\tINBOX", 0);
	t->dst = mbox_store_new("u\tINBOX\t", 0);
	/* Worker 1 met another keyword first: $Label1 has index 1 there. */
	ck_assert(mbox_store_claim_flag(t->b, "$Other", 6, 99));	/* interns */
	ck_assert_int_eq(mbox_store_keyword_index(t->b, "$Other", 6), 0);
	t->va = mkview(t->a, 1, 0, &t->ea);
	t->vb = mkview(t->b, 2, 0, &t->eb);
	select_box(t->va, O_KNOWN, &t->ea);
	select_box(t->vb, O_KNOWN, &t->eb);
}

static unsigned
two_compare(struct two *t)
{
	struct mbox_view *v[2] = {
		mbox_view_checkpoint_copy(t->va, t->dst),
		mbox_view_checkpoint_copy(t->vb, t->dst),
	};
	memset(&t->out, 0, sizeof(t->out));
	unsigned n = mbox_view_checkpoint_compare(v, 2, true, errs_cb, &t->out);
	mbox_view_free(v[0]);
	mbox_view_free(v[1]);
	return n;
}

static void
two_free(struct two *t)
{
	mbox_view_free(t->va);
	mbox_view_free(t->vb);
	mbox_store_free(t->a);
	mbox_store_free(t->b);
	mbox_store_free(t->dst);
}

START_TEST(test_copies_agree_across_stores)
{
	struct two t;

	two_setup(&t);
	ck_assert_int_ne(mbox_store_keyword_index(t.a, "$Label1", 7),
			 mbox_store_keyword_index(t.b, "$Label1", 7));
	ck_assert_uint_eq(two_compare(&t), 0);
	two_free(&t);
}
END_TEST

START_TEST(test_copies_differ_across_stores)
{
	struct two t;

	two_setup(&t);
	feed(t.vb, "* 4 FETCH (FLAGS ())");
	ck_assert_uint_eq(two_compare(&t), 1);
	ck_assert_int_eq(t.out.kind[0], MBOX_ERR_CHECKPOINT);
	ck_assert_str_eq(t.out.msg[0], "Checkpoint: client 2: Message seq=4 "
			 "UID=9 keywords differ: () vs ($Label1) of client 1");
	feed(t.vb, "* 6 EXISTS");
	ck_assert_uint_eq(two_compare(&t), 2);	/* and the keywords still */
	ck_assert_str_eq(t.out.msg[0], "Checkpoint: client 1: Mailbox has "
			 "only 5 of 6 messages");
	two_free(&t);
}
END_TEST

/* RECENT is summed over the copies of both workers' views. */
START_TEST(test_recent_summed_across_stores)
{
	struct two t;

	two_setup(&t);
	feed(t.va, "* 2 RECENT");
	feed(t.vb, "* 3 RECENT");
	mbox_store_set_seen_all_recent(t.dst, true);
	ck_assert_uint_eq(two_compare(&t), 0);	/* 2 + 3 == 5 */
	feed(t.vb, "* 2 RECENT");
	ck_assert_uint_eq(two_compare(&t), 1);
	ck_assert_int_eq(t.out.kind[0], MBOX_ERR_RECENT);
	ck_assert_str_eq(t.out.msg[0], "Checkpoint: Total RECENT count 4 != 5");
	two_free(&t);
}
END_TEST

static Suite *
checkpoint_copy_suite(void)
{
	Suite *s = suite_create("checkpoint_copy");
	TCase *tc = tcase_create("copy");
	tcase_add_test(tc, test_copies_agree_across_stores);
	tcase_add_test(tc, test_copies_differ_across_stores);
	tcase_add_test(tc, test_recent_summed_across_stores);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(checkpoint_copy_suite)
