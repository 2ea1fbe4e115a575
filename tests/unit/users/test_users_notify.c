/* test_users_notify.c: a push = notify session's untagged responses
 * (users_notify.c): INBOX's STATUS while another folder is selected is a
 * push under NOTIFY's name (MESSAGES grown past what the session knew),
 * other folders' STATUS and INBOX's while it is selected are not, a
 * lower count is an expunge elsewhere; NOTIFICATIONOVERFLOW is counted
 * and asks for a new NOTIFY SET; a session not under NOTIFY ignores all. */
#include <string.h>

#include "check_main.h"
#include "imap/imap.h"
#include "stats/push_track.h"
#include "stats/stats.h"
#include "users/users_int.h"
#include "users/users_notify.h"

static unsigned woken;

static void
wake_stub(struct user *u)
{
	woken++;
}

struct rig {
	struct stats *st;
	struct users r;
	struct uworker uw;
	struct profile_client_block cb;
	struct user u;
	struct uconn uc;
};

static void
rig_init(struct rig *g)
{
	memset(g, 0, sizeof(*g));
	g->st = stats_new();
	for (unsigned f = 0; f < UF_COUNT; f++)
		g->r.folder[f] = ubase_folder_name[f];
	g->r.wake = wake_stub;
	g->uw.run = &g->r;
	g->uw.act = &g->st->act;
	g->cb.push = PROFILE_PUSH_NOTIFY;
	g->u.uw = &g->uw;
	g->u.cb = &g->cb;
	g->u.push = push_track_new();
	push_track_set_mech(g->u.push, PUSH_M_NOTIFY);
	g->uc.u = &g->u;
	g->uc.notify = UNOTIFY_ON;
	g->uc.sel = UF_DRAFTS;
	g->uc.exists = 3;
	woken = 0;
}

static void
rig_free(struct rig *g)
{
	push_track_free(g->u.push);
	stats_free(g->st);
}

static void
feed(struct rig *g, enum imap_kw kw, const char *text)
{
	struct imap_resp r;

	memset(&r, 0, sizeof(r));
	r.kind = IMAP_UNTAGGED;
	r.kw_id = kw;
	r.text = text;
	r.text_len = strlen(text);
	r.line = text;
	r.line_len = r.text_len;
	unotify_untagged(&g->uc, &r);
}

START_TEST(test_status_push)
{
	struct rig g;
	rig_init(&g);
	push_track_delivered(g.u.push, g.uw.act, 1);
	push_track_delivered(g.u.push, g.uw.act, 2);

	feed(&g, IMAP_KW_STATUS, "Spam (MESSAGES 9 UIDNEXT 10)");
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 0);
	feed(&g, IMAP_KW_STATUS, "INBOX (UIDNEXT 10)");	/* no MESSAGES */
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 0);
	ck_assert_uint_eq(woken, 0);

	feed(&g, IMAP_KW_STATUS, "\"INBOX\" (MESSAGES 5 UIDNEXT 9)");
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 2);
	ck_assert_uint_eq(hist_count(g.st->act.push[PUSH_NOTIFY_EXISTS]), 2);
	ck_assert_uint_eq(hist_count(g.st->act.push[PUSH_EXISTS]), 0);
	ck_assert_uint_eq(g.uc.exists, 5);
	ck_assert(g.u.need_fetch);
	ck_assert_uint_eq(woken, 1);

	/* The same count again, then fewer (expunged elsewhere), then one
	 * more: only the growth past the known count is new mail. */
	feed(&g, IMAP_KW_STATUS, "INBOX (MESSAGES 5)");
	feed(&g, IMAP_KW_STATUS, "INBOX (MESSAGES 4)");
	ck_assert_uint_eq(g.uc.exists, 4);
	push_track_delivered(g.u.push, g.uw.act, 3);
	feed(&g, IMAP_KW_STATUS, "inbox (MESSAGES 5)");
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 3);

	/* INBOX selected: its news are EXISTS (users_resp.c), not STATUS. */
	g.uc.sel = UF_INBOX;
	push_track_delivered(g.u.push, g.uw.act, 4);
	feed(&g, IMAP_KW_STATUS, "INBOX (MESSAGES 6)");
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 3);
	ck_assert_uint_eq(g.uc.exists, 5);
	rig_free(&g);
}
END_TEST

START_TEST(test_overflow)
{
	struct rig g;
	rig_init(&g);
	feed(&g, IMAP_KW_OK, "[ALERT] not this one");
	ck_assert_int_eq(g.uc.notify, UNOTIFY_ON);
	feed(&g, IMAP_KW_OK, "[NOTIFICATIONOVERFLOW] too many");
	ck_assert_int_eq(g.uc.notify, UNOTIFY_RESET);
	ck_assert_uint_eq(ctr_get(&g.st->act.notify_overflow), 1);

	/* Not under NOTIFY (reset, refused): nothing is taken. */
	push_track_delivered(g.u.push, g.uw.act, 1);
	feed(&g, IMAP_KW_STATUS, "INBOX (MESSAGES 9)");
	feed(&g, IMAP_KW_OK, "[NOTIFICATIONOVERFLOW] again");
	g.uc.notify = UNOTIFY_REFUSED;
	feed(&g, IMAP_KW_STATUS, "INBOX (MESSAGES 9)");
	ck_assert_uint_eq(push_track_counts(g.u.push)->announced, 0);
	ck_assert_uint_eq(ctr_get(&g.st->act.notify_overflow), 1);
	ck_assert_uint_eq(g.uc.exists, 3);
	rig_free(&g);
}
END_TEST

static Suite *
users_notify_suite(void)
{
	Suite *s = suite_create("users_notify");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_status_push);
	tcase_add_test(tc, test_overflow);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(users_notify_suite)
