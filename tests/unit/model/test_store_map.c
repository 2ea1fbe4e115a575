/* test_store_map.c: a worker's stores, found by name (store_map.c), and
 * the parse workspaces they share: FETCH responses of two mailboxes fed
 * in turn, one with a BODYSTRUCTURE (the second workspace) between the
 * other's, leave each model with its own flags, and freeing the map frees
 * the shared workspaces once (ASan/valgrind would see a double free). */
#include <string.h>

#include "check_main.h"
#include "model/mbox_model.h"
#include "mbox_test.h"
#include "model/store_map.h"

START_TEST(test_stores_by_name)
{
	struct store_map *m = store_map_new(0);
	struct mbox_store *a = store_map_get(m, "u1", "INBOX");
	struct mbox_store *b = store_map_get(m, "u2", "INBOX");

	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(store_map_get(m, "u1", "INBOX"), a);
	ck_assert_ptr_ne(store_map_get(m, "u1", "Other"), a);
	ck_assert_str_eq(mbox_store_name(a), "u1\tINBOX");
	store_map_free(m);
	store_map_free(NULL);
}
END_TEST

START_TEST(test_shared_workspaces)
{
	struct store_map *m = store_map_new(0);
	struct errs ea = { 0 }, eb = { 0 };
	struct mbox_view *va = mkview(store_map_get(m, "u1", "INBOX"), 1, 0, &ea);
	struct mbox_view *vb = mkview(store_map_get(m, "u2", "INBOX"), 2, 0, &eb);
	unsigned sys;
	uint64_t kw;

	select_box(va, O_KNOWN, &ea);
	select_box(vb, O_KNOWN, &eb);
	/* a's FETCH, b's with a BODYSTRUCTURE (parsed in the second
	 * workspace), a's again: each lands in its own model. */
	ck_assert_uint_eq(feed(va, "* 1 FETCH (FLAGS (\\Seen $Label1))"), 0);
	ck_assert_uint_eq(feed(vb, "* 3 FETCH (FLAGS (\\Flagged) BODYSTRUCTURE "
			       "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"us-ascii\") "
			       "NIL NIL \"7BIT\" 12 1))"), 0);
	ck_assert_uint_eq(feed(va, "* 2 FETCH (FLAGS ())"), 0);
	ck_assert_msg(ea.n == 0 && eb.n == 0, "%s", ea.n ? ea.msg[0] : eb.msg[0]);
	ck_assert(mbox_view_flags(va, 1, &sys, &kw));
	ck_assert_uint_ne(kw, 0);
	ck_assert(mbox_view_flags(va, 2, &sys, &kw));
	ck_assert_uint_eq(sys, 0);
	ck_assert(mbox_view_flags(vb, 1, &sys, &kw));
	ck_assert_uint_eq(kw, 0);
	ck_assert(mbox_view_flags(vb, 3, &sys, &kw));
	ck_assert_uint_ne(sys, 0);
	ck_assert(mbox_view_flags(vb, 2, &sys, &kw));
	ck_assert_uint_ne(sys, 0);	/* \Seen, from the SELECT */
	mbox_view_free(va);
	mbox_view_free(vb);
	store_map_free(m);
}
END_TEST

static Suite *
store_map_suite(void)
{
	Suite *s = suite_create("store_map");
	TCase *tc = tcase_create("store_map");
	tcase_add_test(tc, test_stores_by_name);
	tcase_add_test(tc, test_shared_workspaces);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(store_map_suite)
