/* test_plan_may_send.c: plan_may_send, the pipelining rule (which
 * command may go out behind those in flight), case by case and for every
 * op behind LOGIN; CHECK needs a selected mailbox.  Split from
 * test_workload.c. */
#include <stdbool.h>
#include <stdint.h>

#include "check_main.h"
#include "config/config.h"
#include "plan/ops.h"
#include "plan/workload.h"
#include "workload_fixture.h"

struct may_case {
	const char *what;
	enum lstate cur;
	uint8_t pending[4];
	unsigned n_pending;
	enum op head;
	bool want;
};

static const struct may_case may_cases[] = {
	{ "idle NONAUTH: LOGIN", LSTATE_NONAUTH, { 0 }, 0, OP_LOGIN, true },
	{ "idle AUTH: LIST", LSTATE_AUTH, { 0 }, 0, OP_LIST, true },
	{ "idle AUTH: SELECT", LSTATE_AUTH, { 0 }, 0, OP_SELECT, true },
	{ "idle SELECTED: FETCH", LSTATE_SELECTED, { 0 }, 0, OP_FETCH, true },
	{ "idle SELECTED: EXPUNGE", LSTATE_SELECTED, { 0 }, 0, OP_EXPUNGE, true },
	{ "idle SELECTED: LOGOUT", LSTATE_SELECTED, { 0 }, 0, OP_LOGOUT, true },

	{ "SELECT pending: FETCH", LSTATE_AUTH, { OP_SELECT }, 1, OP_FETCH, false },
	{ "SELECT pending: SELECT", LSTATE_AUTH, { OP_SELECT }, 1, OP_SELECT, false },
	{ "SELECT pending: LOGOUT", LSTATE_AUTH, { OP_SELECT }, 1, OP_LOGOUT, false },
	{ "SELECT pending: LIST", LSTATE_AUTH, { OP_SELECT }, 1, OP_LIST, true },
	{ "SELECT pending: STATUS", LSTATE_AUTH, { OP_SELECT }, 1, OP_STATUS, true },
	{ "reSELECT pending: FETCH", LSTATE_SELECTED, { OP_SELECT }, 1, OP_FETCH, false },
	{ "reSELECT pending: STORE", LSTATE_SELECTED, { OP_SELECT }, 1, OP_STORE, false },

	{ "APPEND pending: FETCH", LSTATE_SELECTED, { OP_APPEND }, 1, OP_FETCH, false },
	{ "APPEND pending: STORE", LSTATE_SELECTED, { OP_APPEND }, 1, OP_STORE, false },
	{ "APPEND pending: COPY", LSTATE_SELECTED, { OP_APPEND }, 1, OP_COPY, false },
	{ "APPEND pending: STATUS", LSTATE_SELECTED, { OP_APPEND }, 1, OP_STATUS, true },
	{ "APPEND pending: APPEND", LSTATE_SELECTED, { OP_APPEND }, 1, OP_APPEND, true },
	{ "APPEND pending: EXPUNGE", LSTATE_SELECTED, { OP_APPEND }, 1, OP_EXPUNGE, true },
	{ "FETCH pending: STORE", LSTATE_SELECTED, { OP_FETCH }, 1, OP_STORE, true },
	{ "FETCH+APPEND pending: FETCH", LSTATE_SELECTED, { OP_FETCH, OP_APPEND }, 2,
	  OP_FETCH, false },
	{ "FETCH+APPEND pending: LIST", LSTATE_SELECTED, { OP_FETCH, OP_APPEND }, 2,
	  OP_LIST, true },

	/* RFC 3501 5.5: during a UID command the server may send EXPUNGE
	 * (only FETCH, STORE and SEARCH forbid it), so sequence numbers may
	 * shift under whatever follows it (issue 11 item 3). */
	{ "UID FETCH pending: STORE", LSTATE_SELECTED, { OP_UIDFETCH }, 1, OP_STORE, false },
	{ "UID FETCH pending: FETCH", LSTATE_SELECTED, { OP_UIDFETCH }, 1, OP_FETCH, false },
	{ "UID FETCH pending: DELETE", LSTATE_SELECTED, { OP_UIDFETCH }, 1, OP_DELETE, false },
	{ "UID FETCH pending: LIST", LSTATE_SELECTED, { OP_UIDFETCH }, 1, OP_LIST, true },

	{ "FETCH pending: reSELECT", LSTATE_SELECTED, { OP_FETCH }, 1, OP_SELECT, false },
	{ "EXPUNGE pending: reSELECT", LSTATE_SELECTED, { OP_EXPUNGE }, 1, OP_SELECT, false },
	{ "LIST pending: SELECT", LSTATE_AUTH, { OP_LIST }, 1, OP_SELECT, true },
	{ "APPEND pending: SELECT", LSTATE_AUTH, { OP_APPEND }, 1, OP_SELECT, true },

	{ "FETCH pending: LOGOUT", LSTATE_SELECTED, { OP_FETCH }, 1, OP_LOGOUT, false },
	{ "STORE pending: LOGOUT", LSTATE_SELECTED, { OP_STORE }, 1, OP_LOGOUT, false },
	{ "EXPUNGE pending: LOGOUT", LSTATE_SELECTED, { OP_EXPUNGE }, 1, OP_LOGOUT, false },
	{ "APPEND pending: LOGOUT", LSTATE_SELECTED, { OP_APPEND }, 1, OP_LOGOUT, false },
	{ "LIST pending: LOGOUT", LSTATE_AUTH, { OP_LIST }, 1, OP_LOGOUT, false },
	{ "STATUS pending: LOGOUT", LSTATE_AUTH, { OP_STATUS }, 1, OP_LOGOUT, false },
	{ "APPEND pending (AUTH): LOGOUT", LSTATE_AUTH, { OP_APPEND }, 1, OP_LOGOUT, false },
	{ "LOGIN pending: LOGOUT", LSTATE_NONAUTH, { OP_LOGIN }, 1, OP_LOGOUT, false },
	{ "LOGOUT pending: LOGOUT", LSTATE_SELECTED, { OP_LOGOUT }, 1, OP_LOGOUT, false },
	{ "LOGOUT pending: LIST", LSTATE_SELECTED, { OP_LOGOUT }, 1, OP_LIST, false },
};

START_TEST(test_may_send_table)
{
	const struct may_case *c = &may_cases[_i];
	struct plan_pending pend = pending_of(c->cur, c->pending, c->n_pending);
	ck_assert_msg(plan_may_send(c->head, c->cur, &pend) == c->want,
		      "%s: want %s", c->what, c->want ? "true" : "false");
}
END_TEST

/* With LOGIN in flight only what is valid before and after it may
 * follow: the non-auth pseudo-states, never a command needing a login,
 * never another state change. */
START_TEST(test_may_send_behind_login)
{
	const uint8_t fl[] = { OP_LOGIN };
	struct plan_pending pend = pending_of(LSTATE_NONAUTH, fl, N(fl));

	for (int op = 0; op < OP_COUNT; op++) {
		bool want = op_table[op].need == OP_NEED_NONAUTH &&
		    !(op_table[op].flags & OPF_STATECHANGE);
		ck_assert_msg(plan_may_send((enum op)op, LSTATE_NONAUTH, &pend) == want,
			      "%s behind LOGIN: want %s", op_table[op].name,
			      want ? "true" : "false");
	}
}
END_TEST

/* CHECK is a selected-state command (RFC 3501 6.4.1): the plan must not
 * send it before SELECT, where servers answer BAD (issue 11 item 2). */
START_TEST(test_check_needs_selected)
{
	ck_assert_int_eq(op_table[OP_CHECK].need, OP_NEED_SELECTED);
}
END_TEST

static Suite *
plan_may_send_suite(void)
{
	Suite *s = suite_create("plan_may_send");
	TCase *tc = tcase_create("may_send");

	tcase_add_loop_test(tc, test_may_send_table, 0, (int)N(may_cases));
	tcase_add_test(tc, test_may_send_behind_login);
	tcase_add_test(tc, test_check_needs_selected);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(plan_may_send_suite)
