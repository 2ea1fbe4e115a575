/* test_stress_guard.c: the stress mix's destructive states go through the
 * foreign-mail guard (imap/guard.h), one state at a time, over a
 * bufferevent pair with the test as the server: EXPUNGE, DELETE (STORE
 * +FLAGS \Deleted), MOVE and MDELETE.  With foreign mail in the mailbox
 * the search goes out once and no destructive command ever follows (the
 * run's refusal flag is set); in a clean mailbox the search comes first
 * and the state's commands follow it; an empty mailbox at SELECT needs no
 * search at all; MDELETE names only mailboxes the session created. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "conn/conn.h"
#include "conn/conn_fixture.h"
#include "imap/guard.h"
#include "drivers/stress/stress_plan.h"

#define MAX_LINES 4096

struct t {
	struct conn_fx fx;
	struct stress_plans plans;
	struct guard *g;
	char *lines[MAX_LINES];	/* every command the client sent, no tag */
	unsigned n_lines;
	unsigned created;	/* CREATEs answered OK */
};

static struct t T;

static void
hook_logged_in(void *arg, struct conn *c)
{
	stress_plan_logged_in(&T.plans, c);
}

static void
hook_ready(void *arg, struct conn *c)
{
	stress_plan_send(&T.plans, c);
}

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	stress_plan_closed(&T.plans, c);
	conn_finish(c);
}

static const struct conn_hooks hooks = {
	.logged_in = hook_logged_in,
	.ready = hook_ready,
	.closed = hook_closed,
};

static void
setup_state(const char *state, const char *const *extra)
{
	memset(&T, 0, sizeof(T));
	conn_fx_setup_state(&T.fx, state, extra, &hooks, &T, 0);
	T.g = guard_new();
	T.fx.env.guard = T.g;
	stress_plan_init(&T.plans, &T.fx.cfg, &T.fx.sh, T.fx.stats, 0, 1);
}

static void
teardown(void)
{
	conn_fx_teardown(&T.fx);
	stress_plan_free(&T.plans);
	guard_free(T.g);
	for (unsigned i = 0; i < T.n_lines; i++)
		free(T.lines[i]);
}

static void
say(const char *s)
{
	bufferevent_write(T.fx.peer, s, strlen(s));
	conn_fx_pump(&T.fx);
}

/* Answer every line the client wrote so far: SELECT with `exists`
 * messages, the guard's search with `search` (untagged lines), LIST ""
 * "" with the separator, everything else OK.  Returns how many. */
static unsigned
serve(unsigned exists, const char *search)
{
	struct evbuffer *in = bufferevent_get_input(T.fx.peer);
	char *line;
	size_t len;
	unsigned n = 0;
	char out[8192];
	size_t o = 0;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		char *sp = strchr(line, ' ');
		ck_assert_ptr_nonnull(sp);
		*sp = '\0';
		const char *cmd = sp + 1;
		ck_assert_uint_lt(T.n_lines, MAX_LINES);
		T.lines[T.n_lines++] = strdup(cmd);
		n++;
		if (strncmp(cmd, "SELECT", 6) == 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o,
					      "* %u EXISTS\r\n", exists);
		else if (strcmp(cmd, GUARD_SEARCH) == 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s",
					      search);
		else if (strcmp(cmd, "LIST \"\" \"\"") == 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o,
					      "* LIST (\\Noselect) \"/\" \"\"\r\n");
		else if (strncmp(cmd, "CREATE", 6) == 0)
			T.created++;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s OK done\r\n",
				      line);
		free(line);
		ck_assert_uint_lt(o, sizeof(out) - 512);
	}
	if (o > 0)
		say(out);
	return n;
}

/* Greeting, LOGIN, then `rounds` rounds of answers. */
static void
run(const char *caps, unsigned exists, const char *search, unsigned rounds)
{
	char line[256];

	conn_fx_attach(&T.fx);
	conn_fx_pump(&T.fx);
	snprintf(line, sizeof(line), "* OK [CAPABILITY %s] hi\r\n", caps);
	say(line);
	for (unsigned i = 0; i < rounds && serve(exists, search) > 0; i++)
		;
}

/* Lines with this prefix; the index of the first (or -1). */
static unsigned
count_prefix(const char *prefix, int *first)
{
	unsigned n = 0;
	*first = -1;
	for (unsigned i = 0; i < T.n_lines; i++)
		if (strncmp(T.lines[i], prefix, strlen(prefix)) == 0) {
			if (n++ == 0)
				*first = (int)i;
		}
	return n;
}

static unsigned
destructive(int *first)
{
	unsigned n = 0;
	*first = -1;
	for (unsigned i = 0; i < T.n_lines; i++)
		if (strcmp(T.lines[i], GUARD_SEARCH) != 0 &&
		    guard_destructive_text(T.lines[i], strlen(T.lines[i]))) {
			if (n++ == 0)
				*first = (int)i;
		}
	return n;
}

static bool
refused(void)
{
	return atomic_load(&T.fx.live.foreign_refused);
}

#define CAPS "IMAP4rev1 LITERAL+ MOVE UIDPLUS"
#define FOREIGN "* SEARCH 1 2 3 4 5\r\n"
#define CLEAN "* SEARCH\r\n"

/* One destructive state: foreign mail stops it, a clean mailbox lets it
 * through after the search, an empty one needs no search. */
static void
state_case(const char *state, const char *const *extra, const char *prefix)
{
	int s, d;

	setup_state(state, extra);
	run(CAPS, 5, FOREIGN, 40);
	ck_assert_uint_eq(count_prefix(GUARD_SEARCH, &s), 1);
	ck_assert_uint_eq(destructive(&d), 0);
	ck_assert(refused());
	teardown();

	setup_state(state, extra);
	run(CAPS, 5, CLEAN, 40);
	ck_assert_uint_eq(count_prefix(GUARD_SEARCH, &s), 1);
	ck_assert_uint_gt(count_prefix(prefix, &d), 0);
	ck_assert_int_gt(d, s);
	ck_assert_uint_gt(destructive(&d), 0);
	ck_assert_int_gt(d, s);
	ck_assert(!refused());
	teardown();

	/* Empty at SELECT: no search (the state needs messages, so only
	 * its skip is seen; the point is that nothing waited). */
	setup_state(state, extra);
	run(CAPS, 0, FOREIGN, 10);
	ck_assert_uint_eq(count_prefix(GUARD_SEARCH, &s), 0);
	ck_assert(!refused());
}

START_TEST(test_stress_guard_expunge)
{
	state_case("expunge=100", NULL, "EXPUNGE");
}
END_TEST

START_TEST(test_stress_guard_delete)
{
	state_case("delete=100", NULL, "STORE");
}
END_TEST

START_TEST(test_stress_guard_move)
{
	state_case("move=100", ((const char *const[]){ "copybox=Other", NULL }),
		   "MOVE");
}
END_TEST

/* MDELETE and MRENAME name only mailboxes the session created: with
 * CREATE refused (they exist, someone else's) none is sent; with
 * CREATE answered OK they are. */
START_TEST(test_stress_guard_mdelete)
{
	int d;

	setup_state("mdelete=100", ((const char *const[]){ "mrename=100",
							   NULL }));
	run(CAPS, 5, FOREIGN, 60);
	ck_assert_uint_eq(count_prefix("DELETE", &d), 0);
	ck_assert_uint_eq(count_prefix("RENAME", &d), 0);
	teardown();

	setup_state("mdelete=100", ((const char *const[]){ "mcreate=100",
							   "mrename=100",
							   NULL }));
	run(CAPS, 5, FOREIGN, 60);
	ck_assert_uint_gt(T.created, 0);
	ck_assert_uint_gt(count_prefix("DELETE", &d), 0);
	/* Every DELETE names a mailbox created (or renamed to) before it. */
	for (unsigned i = 0; i < T.n_lines; i++) {
		if (strncmp(T.lines[i], "DELETE ", 7) != 0)
			continue;
		const char *name = T.lines[i] + 7;
		bool made = false;
		for (unsigned k = 0; k < i && !made; k++) {
			if (strncmp(T.lines[k], "CREATE ", 7) == 0 &&
			    strcmp(T.lines[k] + 7, name) == 0)
				made = true;
			const char *to = strncmp(T.lines[k], "RENAME ", 7) == 0 ?
			    strrchr(T.lines[k], ' ') : NULL;
			if (to != NULL && strcmp(to + 1, name) == 0)
				made = true;
		}
		ck_assert_msg(made, "DELETE of %s, never created", name);
	}
}
END_TEST

static Suite *
stress_guard_suite(void)
{
	Suite *s = suite_create("stress_guard");
	TCase *tc = tcase_create("states");
	tcase_add_test(tc, test_stress_guard_expunge);
	tcase_add_test(tc, test_stress_guard_delete);
	tcase_add_test(tc, test_stress_guard_move);
	tcase_add_test(tc, test_stress_guard_mdelete);
	/* Each test sets its own up (several times); the last is torn
	 * down here. */
	tcase_add_checked_fixture(tc, NULL, teardown);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(stress_guard_suite)
