/* test_conn_stall.c: the stall bound at the end of a run (conn_stall.c).
 * The decision on its own: silence counts from the later of the last
 * byte heard and the last thing asked, and only past the bound.  Then one
 * connection over a bufferevent pair: a NOOP in flight is never cut
 * during the run, nor while draining as long as the server keeps sending
 * within the bound, and is cut once it has been silent for longer (a
 * timeout error, the NOOP failed, the cut counted for the run's line). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "check_main.h"
#include "util/clock.h"
#include "conn_fixture.h"
#include "conn/conn_int.h"
#include "stats/stats.h"

#define S 1000000ull

START_TEST(test_stall_stale)
{
	/* heard at 10 s, asked at 10 s: stale only past 15 s */
	ck_assert(!conn_stall_stale(12 * S, 10 * S, 10 * S, 5 * S));
	ck_assert(!conn_stall_stale(15 * S, 10 * S, 10 * S, 5 * S));
	ck_assert(conn_stall_stale(15 * S + 1, 10 * S, 10 * S, 5 * S));
	/* a byte heard late restarts it (progress), whatever was asked */
	ck_assert(!conn_stall_stale(20 * S, 16 * S, 1 * S, 5 * S));
	ck_assert(conn_stall_stale(22 * S, 16 * S, 1 * S, 5 * S));
	/* a DONE or LOGOUT just sent after a long silence is not stale */
	ck_assert(!conn_stall_stale(20 * S, 1 * S, 19 * S, 5 * S));
	ck_assert(conn_stall_stale(25 * S, 1 * S, 19 * S, 5 * S));
	/* never asked (0): from the last byte */
	ck_assert(conn_stall_stale(7 * S, 1 * S, 0, 5 * S));
	/* a time before either (another thread's clock): not stale */
	ck_assert(!conn_stall_stale(1 * S, 2 * S, 3 * S, 0));
}
END_TEST

static struct conn_fx fx;
static unsigned closed;
static enum err_kind closed_err;

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	closed++;
	closed_err = err;
	conn_finish(c);
}

/* A driver of one command at a time: SELECT, then NOOPs. */
static void
hook_ready(void *arg, struct conn *c)
{
	if (conn_in_flight(c) > 0)
		return;
	if (conn_lstate(c) == LSTATE_SELECTED)
		(void)conn_command(c, OP_NOOP, "NOOP", NULL, NULL, NULL);
	else
		(void)conn_command(c, OP_SELECT, "SELECT INBOX", NULL, NULL,
				   NULL);
}

static const struct conn_hooks hooks = {
	.ready = hook_ready,
	.closed = hook_closed,
};

static void
setup(void)
{
	closed = 0;
	conn_fx_setup(&fx, ((const char *const[]){ "--pipeline", "1", NULL }),
		      &hooks, NULL, 0);
}

static void
teardown(void)
{
	conn_fx_teardown(&fx);
}

/* The tag of the client's last line, which must be `cmd`. */
static void
last_line(const char *cmd, char *tag, size_t tag_len)
{
	struct evbuffer *in = bufferevent_get_input(fx.peer);
	char *line, *last = NULL;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		free(last);
		last = line;
	}
	ck_assert_ptr_nonnull(last);
	char *sp = strchr(last, ' ');
	ck_assert_ptr_nonnull(sp);
	*sp = '\0';
	ck_assert_msg(strncmp(sp + 1, cmd, strlen(cmd)) == 0, "sent %s", sp + 1);
	snprintf(tag, tag_len, "%s", last);
	free(last);
}

static void
peer_says(const char *fmt, const char *tag)
{
	char buf[256];
	snprintf(buf, sizeof(buf), fmt, tag);
	bufferevent_write(fx.peer, buf, strlen(buf));
	conn_fx_pump(&fx);
}

/* Greeting, LOGIN, SELECT answered: the first NOOP is in flight. */
static void
to_noop(void)
{
	char tag[32];

	conn_fx_attach(&fx);
	conn_fx_pump(&fx);
	peer_says("* OK [CAPABILITY IMAP4rev1 LITERAL+] hi\r\n", "");
	last_line("LOGIN", tag, sizeof(tag));
	peer_says("%s OK [CAPABILITY IMAP4rev1 LITERAL+] in\r\n", tag);
	last_line("SELECT", tag, sizeof(tag));
	peer_says("* 0 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n%s OK selected\r\n",
		  tag);
	last_line("NOOP", tag, sizeof(tag));
	ck_assert_uint_eq(conn_in_flight(fx.c), 1);
}

START_TEST(test_stall_cut_at_end_only)
{
	struct conn_gauges g;
	uint64_t bound = (uint64_t)(fx.cfg.stall_timeout * 1e6);

	ck_assert(fx.cfg.stall_timeout == 5);
	to_noop();
	/* During the run the bound does not apply (--cmd-timeout does). */
	memset(&g, 0, sizeof(g));
	conn_tick(fx.c, clock_us() + bound + S, &g);
	ck_assert_uint_eq(closed, 0);

	conn_drain(fx.c);
	conn_fx_pump(&fx);
	ck_assert_uint_eq(closed, 0);
	conn_tick(fx.c, clock_us() + bound - S / 10, &g);
	ck_assert_uint_eq(closed, 0);
	/* Progress: an untagged line restarts the clock. */
	peer_says("* OK still working\r\n", "");
	uint64_t heard = clock_us();
	conn_tick(fx.c, heard + bound - S / 10, &g);
	ck_assert_uint_eq(closed, 0);
	ck_assert_uint_eq(conn_in_flight(fx.c), 1);
	/* Silent past the bound: cut, as a timeout. */
	conn_tick(fx.c, clock_us() + bound + S / 10, &g);
	ck_assert_uint_eq(closed, 1);
	ck_assert_int_eq(closed_err, ERR_TIMEOUT);
	ck_assert(conn_finished(fx.c));
	ck_assert_uint_eq(ctr_get(&fx.stats->errors[ERR_TIMEOUT]), 1);
	ck_assert_uint_eq(ctr_get(&fx.stats->failed[OP_NOOP]), 1);
	ck_assert_uint_eq(ctr_get(&fx.stats->ok[OP_NOOP]), 0);
	ck_assert_uint_eq(atomic_load(&fx.live.stall_cuts), 1);
}
END_TEST

static Suite *
conn_stall_suite(void)
{
	Suite *s = suite_create("conn_stall");
	TCase *tc = tcase_create("stall");
	tcase_add_checked_fixture(tc, setup, teardown);	/* for the second */
	tcase_add_test(tc, test_stall_stale);
	tcase_add_test(tc, test_stall_cut_at_end_only);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(conn_stall_suite)
