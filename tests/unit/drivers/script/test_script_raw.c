/* test_script_raw.c: a scripted test run through the connection engine
 * over a bufferevent pair (no socket): the state machine (script_run.h)
 * wired to one engine connection in raw mode (conn_hooks.raw), as
 * drivers/script/script_driver.c wires it, with the test playing the
 * server.  The script's own tags ("u1", "s2", "z") reach the state
 * machine untouched, the engine sends nothing of its own (no CAPABILITY,
 * LOGIN, ID or LOGOUT of its tags), the test passes and its connection
 * closes as planned; a line over --max-line is the engine's protocol
 * error, counted, and the test fails with the engine's reason in its
 * verdict (conn_hooks.error), not on standard error.  With compress, the
 * set-up's COMPRESS DEFLATE goes after LOGIN and CAPABILITY, and every
 * octet after its OK is deflated, both ways (the test's server inflates
 * and deflates with the same filter, net/compress.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "conn/conn.h"
#include "conn/conn_fixture.h"
#include "net/compress.h"
#include "script/script.h"
#include "script/script_run.h"
#include "stats/stats.h"

#define MAX_SEEN 16

struct t {
	struct conn_fx fx;
	struct script *s;
	struct script_run *run;
	bool attached, closing;
	unsigned closed;
	enum conn_end end;
	char why[300];
	char seen[MAX_SEEN][64];	/* the client's lines, as sent */
	unsigned n_seen;
	bool long_caps;		/* answer CAPABILITY with an endless line */
	bool compress;		/* offer COMPRESS=DEFLATE; the script asks */
	bool zon;		/* the server's end deflates */
	unsigned z_seen;	/* the client's lines before that */
	struct compress_counts zc;	/* the server's filter */
};

static struct t T;

/* --- the state machine's io: the engine connection ------------------------ */

static void
io_open(void *ctx, unsigned no)
{
	ck_assert_uint_eq(no, 0);
	conn_fx_attach(&T.fx);
	T.attached = true;
	bufferevent_write(T.fx.peer, "* OK ready\r\n", 12);
}

static void
io_send(void *ctx, unsigned no, const char *data, size_t len)
{
	if (!T.closing)
		conn_raw_write(T.fx.c, data, len);
}

static void
io_close(void *ctx, unsigned no)
{
	if (!T.closing) {
		T.closing = true;
		conn_disconnect(T.fx.c);
	}
}

static bool
io_compress(void *ctx, unsigned no)
{
	return conn_raw_compress(T.fx.c);
}

/* --- the engine's hooks ---------------------------------------------------- */

static void
hook_ready(void *arg, struct conn *c)
{
	if (!T.closing)
		script_on_ready(T.run, 0);
}

static void
hook_raw(void *arg, struct conn *c, const struct imap_resp *r)
{
	if (!T.closing)
		script_on_resp(T.run, 0, r);
}

static void
hook_error(void *arg, struct conn *c, enum err_kind kind, const char *line)
{
	snprintf(T.why, sizeof(T.why), "%s", line);
}

static void
hook_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	T.closed++;
	T.end = end;
	conn_finish(c);
	if (!T.closing)
		script_on_closed(T.run, 0, T.why);
}

static const struct conn_hooks hooks = {
	.ready = hook_ready,
	.closed = hook_closed,
	.raw = hook_raw,
	.error = hook_error,
};

/* --- the server ------------------------------------------------------------ */

static void
serve(void)
{
	struct evbuffer *in = bufferevent_get_input(T.fx.peer);
	char *line;

	while ((line = evbuffer_readln(in, NULL, EVBUFFER_EOL_CRLF)) != NULL) {
		char tag[32] = "", cmd[32] = "";
		sscanf(line, "%31s %31s", tag, cmd);
		if (T.n_seen < MAX_SEEN)
			snprintf(T.seen[T.n_seen++], sizeof(T.seen[0]), "%s", line);
		free(line);
		if (strcasecmp(cmd, "CAPABILITY") == 0 && T.long_caps) {
			char big[2048];
			memset(big, 'x', sizeof(big));
			bufferevent_write(T.fx.peer, "* CAPABILITY ", 13);
			bufferevent_write(T.fx.peer, big, sizeof(big));
		} else if (strcasecmp(cmd, "CAPABILITY") == 0) {
			evbuffer_add_printf(bufferevent_get_output(T.fx.peer),
					    "* CAPABILITY IMAP4rev1%s\r\n"
					    "%s OK done\r\n",
					    T.compress ? " COMPRESS=DEFLATE" : "",
					    tag);
		} else if (strcasecmp(cmd, "COMPRESS") == 0 && T.compress) {
			/* The OK in clear, everything after it deflated. */
			char err[160];
			evbuffer_add_printf(bufferevent_get_output(T.fx.peer),
					    "%s OK DEFLATE active\r\n", tag);
			struct bufferevent *z = compress_bev_new(T.fx.peer, 1,
			    &T.zc, err, sizeof(err));
			ck_assert_msg(z != NULL, "%s", err);
			bufferevent_enable(z, EV_READ | EV_WRITE);
			T.fx.peer = z;
			T.zon = true;
			T.z_seen = T.n_seen;
			return;		/* read on from the filter */
		} else if (strcasecmp(cmd, "LOGOUT") == 0) {
			evbuffer_add_printf(bufferevent_get_output(T.fx.peer),
					    "* BYE bye\r\n%s OK done\r\n", tag);
		} else {
			evbuffer_add_printf(bufferevent_get_output(T.fx.peer),
					    "%s OK %s done\r\n", tag, cmd);
		}
	}
}

static void
run_test(void)
{
	script_run_start(T.run, T.s, NULL);
	for (int i = 0; i < 200 && T.closed == 0; i++) {
		conn_fx_pump(&T.fx);
		if (T.attached && T.fx.peer != NULL)
			serve();
	}
	conn_fx_pump(&T.fx);
	ck_assert(script_run_finished(T.run));
}

static void
setup_script(const char *const *extra, const char *text, bool compress)
{
	char err[256];
	struct script_env env = {
		.user = "tester", .password = "secret", .mailbox = "imaptest",
		.host = "127.0.0.1", .port = 143, .compress = compress,
	};
	struct script_io io = { io_open, io_send, io_close, io_compress,
				NULL, NULL };

	memset(&T, 0, sizeof(T));
	T.compress = compress;
	conn_fx_setup(&T.fx, extra, &hooks, NULL, 0);
	T.s = script_parse("raw", text, strlen(text), err, sizeof(err));
	ck_assert_msg(T.s != NULL, "%s", err);
	T.run = script_run_new(&env, &io, NULL);
}

static void
setup_with(const char *const *extra)
{
	setup_script(extra, "state: nonauth\n\nok noop\n", false);
}

static void
setup_compress(void)
{
	setup_script(NULL, "state: auth\n\nok noop\n", true);
}

static void
setup(void)
{
	setup_with(NULL);
}

static void
setup_small_lines(void)
{
	static const char *const extra[] = { "--max-line", "1024", NULL };
	setup_with(extra);
}

static void
teardown(void)
{
	script_run_free(T.run);
	script_free(T.s);
	conn_fx_teardown(&T.fx);
}

START_TEST(test_raw_script_passes)
{
	run_test();
	const struct script_outcome *o = script_run_outcome(T.run);
	ck_assert_msg(o->verdict == SCRIPT_PASS, "%s", o->detail ? o->detail : "");
	ck_assert_uint_eq(o->commands, 1);
	/* The script's lines only, its tags as it wrote them. */
	ck_assert_uint_eq(T.n_seen, 3);
	ck_assert_str_eq(T.seen[0], "u1 CAPABILITY");
	ck_assert_str_eq(T.seen[1], "s2 noop");
	ck_assert_str_eq(T.seen[2], "z LOGOUT");
	/* Closed by the state machine (conn_disconnect), no error. */
	ck_assert_uint_eq(T.closed, 1);
	ck_assert_int_eq(T.end, CONN_END_PLANNED);
	for (int k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->logins), 0);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->imap_sent),
			  strlen("u1 CAPABILITY\r\ns2 noop\r\nz LOGOUT\r\n"));
}
END_TEST

START_TEST(test_raw_script_line_limit)
{
	T.long_caps = true;
	run_test();
	const struct script_outcome *o = script_run_outcome(T.run);
	ck_assert_int_eq(o->verdict, SCRIPT_FAIL);
	ck_assert_uint_eq(T.closed, 1);
	ck_assert_int_eq(T.end, CONN_END_FAILED);
	ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[ERR_PROTOCOL]), 1);
	/* The engine's reason is the verdict's. */
	ck_assert_ptr_nonnull(strstr(o->detail, "connection 1 closed: "));
	ck_assert_msg(T.why[0] != '\0' && strstr(o->detail, T.why) != NULL,
		      "detail '%s' lacks '%s'", o->detail, T.why);
	ck_assert_ptr_nonnull(strstr(T.why, "1024"));
}
END_TEST

START_TEST(test_raw_script_compress)
{
	static const char after[] = "u5 LIST \"\" \"imaptest*\"\r\n"
	    "s6 noop\r\nz LOGOUT\r\n";

	run_test();
	const struct script_outcome *o = script_run_outcome(T.run);
	ck_assert_msg(o->verdict == SCRIPT_PASS, "%s", o->detail ? o->detail : "");
	ck_assert_uint_eq(T.n_seen, 7);
	ck_assert_str_eq(T.seen[1], "u2 LOGIN \"tester\" \"secret\"");
	ck_assert_str_eq(T.seen[2], "u3 CAPABILITY");
	ck_assert_str_eq(T.seen[3], "u4 COMPRESS DEFLATE");
	/* The rest went through the server's inflater, and only it. */
	ck_assert(T.zon);
	ck_assert_uint_eq(T.z_seen, 4);
	ck_assert_str_eq(T.seen[4], "u5 LIST \"\" \"imaptest*\"");
	ck_assert_str_eq(T.seen[6], "z LOGOUT");
	ck_assert_uint_eq(T.zc.plain_in, strlen(after));
	ck_assert_uint_gt(T.zc.wire_in, 0);
	ck_assert_uint_gt(T.zc.plain_out, 0);
	ck_assert_str_eq(T.zc.error, "");
	ck_assert_uint_eq(T.closed, 1);
	ck_assert_int_eq(T.end, CONN_END_PLANNED);
	for (int k = 0; k < ERR_COUNT; k++)
		ck_assert_uint_eq(ctr_get(&T.fx.stats->errors[k]), 0);
}
END_TEST

static Suite *
script_raw_suite(void)
{
	Suite *s = suite_create("script_raw");
	TCase *tc = tcase_create("pass");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_raw_script_passes);
	suite_add_tcase(s, tc);
	tc = tcase_create("limit");
	tcase_add_checked_fixture(tc, setup_small_lines, teardown);
	tcase_add_test(tc, test_raw_script_line_limit);
	suite_add_tcase(s, tc);
	tc = tcase_create("compress");
	tcase_add_checked_fixture(tc, setup_compress, teardown);
	tcase_add_test(tc, test_raw_script_compress);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(script_raw_suite)
