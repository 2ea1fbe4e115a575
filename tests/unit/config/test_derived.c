/* struct derived (src/config/derived.c, users_derive): what a run works
 * out from its options is built once, apart from the config, and the
 * config is not written after config_validate; and what the options mean
 * for the state table is settled in config_validate (a bare `compress`,
 * --profile's states). */
#include <string.h>

#include "check_main.h"
#include "config/config.h"
#include "config/derived.h"
#include "plan/workload.h"
#include "profile/profile.h"
#include "stats/actions.h"
#include "stats/score.h"
#include "users/users.h"

static void
validated(struct config *c, const char *const *words)
{
	char *av[16] = { (char *)"imapstress" };
	int ac = 1;
	char err[256];

	while (*words != NULL && ac < 15)
		av[ac++] = (char *)*words++;
	config_defaults(c);
	ck_assert_msg(config_parse(c, ac, av, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(config_validate(c, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_stress_derived)
{
	static const char *const w[] = { "clients=7", "checkpoint=5",
					 "--msg-size", "8k", NULL };
	struct config c;
	struct derived d;

	validated(&c, w);
	derived_init(&d, &c, true);
	ck_assert_uint_eq(d.clients, 7);
	ck_assert(d.color);
	ck_assert(d.msg_size_mean == 8192);
	ck_assert(!d.act_weights_set);
	/* The config's states, and the ChkP column shown... */
	ck_assert_int_eq(d.states[OP_CHECKPOINT].prob, 100);
	for (int op = 0; op < OP_COUNT; op++)
		if (op != OP_CHECKPOINT)
			ck_assert_msg(d.states[op].prob == c.states[op].prob &&
				      d.states[op].again == c.states[op].again,
				      "op %d", op);
	/* ...which the config itself does not get. */
	ck_assert_int_eq(c.states[OP_CHECKPOINT].prob, 0);
	derived_init(&d, &c, false);
	ck_assert(!d.color);
	config_free(&c);

	static const char *const plain[] = { NULL };
	validated(&c, plain);
	derived_init(&d, &c, false);
	ck_assert_int_eq(d.states[OP_CHECKPOINT].prob, 0);
	config_free(&c);
}
END_TEST

/* A bare `compress` is the COMPRESS state at 100% (the plan reads it);
 * compress=P is the state as given. */
START_TEST(test_validate_compress)
{
	static const char *const bare[] = { "compress", NULL };
	static const char *const half[] = { "compress", "compress=50", NULL };
	static const char *const none[] = { NULL };
	static const char *const only[] = { "-", "select=0", "logout=0",
					    "compress", NULL };
	struct config c;

	validated(&c, bare);
	ck_assert_int_eq(c.states[OP_COMPRESS].prob, 100);
	config_free(&c);
	validated(&c, half);
	ck_assert_int_eq(c.states[OP_COMPRESS].prob, 50);
	config_free(&c);
	validated(&c, none);
	ck_assert_int_eq(c.states[OP_COMPRESS].prob, 0);
	config_free(&c);
	/* Nothing else to do: still nothing to do (main exits 2). */
	validated(&c, only);
	ck_assert_int_eq(c.states[OP_COMPRESS].prob, 0);
	ck_assert(!plan_has_work(&c));
	config_free(&c);
}
END_TEST

/* --profile: the users' commands are the states, whatever state words
 * were given; no mailbox models; `compress` still compresses. */
START_TEST(test_validate_profile)
{
	static const char *const w[] = { "--profile", "x.profile", "delay=50",
					 "status=70", "compress", NULL };
	static const enum op on[] = {
		OP_LOGIN, OP_LIST, OP_MCREATE, OP_SELECT, OP_UIDFETCH,
		OP_STORE, OP_EXPUNGE, OP_APPEND, OP_MOVE, OP_COPY, OP_NOOP,
		OP_IDLE, OP_LOGOUT, OP_FETCH, OP_SEARCH, OP_COMPRESS,
	};
	struct config c;

	validated(&c, w);
	ck_assert(c.no_tracking);
	for (int op = 0; op < OP_COUNT; op++) {
		bool want = false;
		for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
			want = want || on[i] == (enum op)op;
		ck_assert_msg(c.states[op].prob == (want ? 100 : 0), "op %s: %d",
			      op_table[op].name, c.states[op].prob);
	}
	config_free(&c);
}
END_TEST

/* Profile mode's connections, STATUS column and action weights come from
 * its users, into the derived figures; the config stays as validated. */
START_TEST(test_users_derive)
{
	static const char *const w[] = { "--profile",
					 "profiles/loadsim-online.conf", NULL };
	struct config c, before;
	struct derived d;
	char err[512];

	validated(&c, w);
	struct profile *p = profile_load(c.profile_path, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_msg(profile_expand(p, 1, err, sizeof(err)) == 0, "%s", err);
	struct users *u = users_new(&c, p, err, sizeof(err));
	ck_assert_msg(u != NULL, "%s", err);
	memcpy(&before, &c, sizeof(c));

	derived_init(&d, &c, false);
	ck_assert_int_eq(d.states[OP_STATUS].prob, 0);
	users_derive(u, &d);
	ck_assert_uint_eq(d.clients, users_conn_count(u));
	ck_assert_uint_gt(d.clients, c.clients);
	/* The file cleans its inbox: the STATUS column. */
	ck_assert_int_eq(d.states[OP_STATUS].prob, 100);
	/* No score_weight_* keys: the defaults, over actions. */
	double def[CONFIG_ACT_WEIGHTS] = { 0 };
	score_action_defaults(def);
	ck_assert(d.act_weights_set);
	for (int a = 0; a < ACT_COUNT; a++)
		ck_assert_msg(d.act_weights[a] == def[a], "action %d", a);
	/* Not a byte of the config changed. */
	ck_assert(memcmp(&before, &c, sizeof(c)) == 0);
	ck_assert_int_eq(c.states[OP_STATUS].prob, 0);

	users_free(u);
	profile_free(p);
	config_free(&c);
}
END_TEST

static Suite *
derived_suite(void)
{
	Suite *s = suite_create("derived");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_stress_derived);
	tcase_add_test(tc, test_validate_compress);
	tcase_add_test(tc, test_validate_profile);
	tcase_add_test(tc, test_users_derive);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(derived_suite)
