/* test_config_good.c: every imaptest word and GNU long option with a
 * good value lands in its struct config field (split from test_config.c:
 * the table alone is 250 lines). */
#include <stdbool.h>
#include <stdint.h>

#include "check_main.h"
#include "config_fixture.h"

/* --- every word and option with a good value ------------------------- */

enum ftype { T_STR, T_UINT, T_INT, T_U64, T_SIZE, T_DBL, T_BOOL, T_TLS,
	     T_FMT, T_PROB, T_AGAIN };

struct good {
	const char *argv[5];
	enum ftype t;
	size_t off;		/* field offset, or the op for T_PROB/T_AGAIN */
	const char *s;
	uint64_t u;
	double d;
};

#define G_STR(f, want, ...) { { __VA_ARGS__ }, T_STR, OFF(f), .s = want }
#define G_UINT(f, want, ...) { { __VA_ARGS__ }, T_UINT, OFF(f), .u = want }
#define G_INT(f, want, ...) { { __VA_ARGS__ }, T_INT, OFF(f), .u = want }
#define G_U64(f, want, ...) { { __VA_ARGS__ }, T_U64, OFF(f), .u = want }
#define G_SIZE(f, want, ...) { { __VA_ARGS__ }, T_SIZE, OFF(f), .u = want }
#define G_DBL(f, want, ...) { { __VA_ARGS__ }, T_DBL, OFF(f), .d = want }
#define G_BOOL(f, ...) { { __VA_ARGS__ }, T_BOOL, OFF(f), .u = 1 }
#define G_TLS(want, ...) { { __VA_ARGS__ }, T_TLS, 0, .u = want }
#define G_FMT(want, ...) { { __VA_ARGS__ }, T_FMT, 0, .u = want }
#define G_PROB(op, want, ...) { { __VA_ARGS__ }, T_PROB, op, .u = want }
#define G_AGAIN(op, want, ...) { { __VA_ARGS__ }, T_AGAIN, op, .u = want }

static const struct good goods[] = {
	/* connection */
	G_STR(host, "imap.example", "host=imap.example"),
	G_STR(host, "h2", "--host", "h2"),
	G_STR(host, "h3", "--host=h3"),
	G_STR(host, "h4", "-H", "h4"),
	G_STR(host, "h5", "-Hh5"),
	G_STR(hostip, "127.0.0.2", "hostip=127.0.0.2"),
	G_STR(hostip, "127.0.0.3", "--hostip", "127.0.0.3"),
	G_INT(port, 1143, "port=1143"),
	G_INT(port, 993, "--port", "993"),
	G_INT(port, 10143, "-p", "10143"),
	G_INT(port, 65535, "--port=65535"),
	G_INT(port, 1, "port=1"),
	G_UINT(clients, 100, "clients=100"),
	G_UINT(clients, 1, "--clients", "1"),
	G_UINT(clients, 1000000, "-c", "1000000"),
	G_UINT(clients, 5, "-c5"),
	G_UINT(workers, 4, "procs=4"),
	G_UINT(workers, 8, "--workers", "8"),
	G_UINT(workers, 0, "-w", "0"),
	G_UINT(workers, 3, "--procs", "3"),
	G_DBL(connect_rate, 50, "--connect-rate", "50"),
	G_DBL(connect_rate, 2.5, "--connect-rate=2.5"),
	/* authentication */
	G_STR(user_template, "u%d", "user=u%d"),
	G_STR(user_template, "u%d@d%i.example", "user=u%d@d%i.example"),
	G_STR(user_template, "100%%u%i", "user=100%%u%i"),
	G_STR(user_template, "u%04d", "user=u%04d"),
	G_STR(user_template, "user%04d@d%2i", "user=user%04d@d%2i"),
	G_STR(user_template, "bob", "--user", "bob"),
	G_STR(user_template, "al", "-u", "al"),
	G_UINT(users_min, 1, "users=100"),
	G_UINT(users_max, 100, "users=100"),
	G_UINT(users_min, 5, "users=5-10"),
	G_UINT(users_max, 10, "users=5-10"),
	G_UINT(users_min, 0, "users=0-0"),
	G_UINT(users_max, 4, "--users", "3-4"),
	G_UINT(domains_min, 1, "domains=7"),
	G_UINT(domains_max, 7, "domains=7"),
	G_UINT(domains_min, 2, "domains=2-3"),
	G_UINT(domains_max, 6, "--domains", "4-6"),
	G_STR(user2, "other", "user2=other"),
	G_STR(user2, "o2", "--user2", "o2"),
	G_STR(userfile, "/tmp/u", "userfile=/tmp/u"),
	G_STR(userfile, "/tmp/v", "--userfile", "/tmp/v"),
	G_STR(pass, "secret", "pass=secret"),
	G_STR(pass, "pw", "--password", "pw"),
	G_STR(pass, "a=b", "--password=a=b"),
	/* imaptest takes an empty pass= (a CI action's default). */
	G_STR(pass, "", "pass="),
	G_STR(pass, "", "--password="),
	G_STR(master, "admin", "master=admin"),
	G_PROB(OP_AUTHENTICATE, 100, "master=admin"),
	G_STR(master, "root", "--master", "root"),
	G_PROB(OP_AUTHENTICATE, 100, "--master=root"),
	G_STR(mech, "PLAIN", "mech=PLAIN"),
	G_STR(mech, "XOAUTH2", "--mech", "XOAUTH2"),
	/* TLS and compression */
	G_TLS(TLS_IMPLICIT, "ssl"),
	G_TLS(TLS_IMPLICIT, "ssl=any-cert"),
	G_BOOL(tls_insecure, "ssl=any-cert"),
	G_TLS(TLS_IMPLICIT, "--tls"),
	G_TLS(TLS_STARTTLS, "--starttls"),
	G_TLS(TLS_STARTTLS, "--tls", "--starttls"),
	G_TLS(TLS_IMPLICIT, "--starttls", "ssl"),
	G_BOOL(tls_insecure, "--insecure"),
	G_STR(ca_file, "ca.pem", "ssl_ca_file=ca.pem"),
	G_STR(ca_file, "ca2.pem", "--ca-file", "ca2.pem"),
	G_BOOL(tls_resume, "--tls-resume"),
	G_BOOL(compress, "compress"),
	G_BOOL(compress, "--compress"),
	G_PROB(OP_COMPRESS, 0, "compress"),	/* the flag, not the state */
	/* workload */
	G_STR(box, "Test", "box=Test"),
	G_STR(box, "Other", "--mailbox", "Other"),
	G_STR(box, "Third", "--box", "Third"),
	G_STR(copybox, "Copy", "copybox=Copy"),
	G_STR(copybox, "C2", "--copybox", "C2"),
	G_STR(mbox_path, "/m/dovecot-crlf", "mbox=/m/dovecot-crlf"),
	G_STR(mbox_path, "/m/x", "--mbox", "/m/x"),
	G_U64(random_msg_size, 10000, "random_msg_size=10000"),
	G_U64(random_msg_size, 4096, "random_msg_size=4k"),
	G_U64(random_msg_size, 8192, "--random-msg-size", "8k"),
	G_U64(msg_size_mean, 1536, "--msg-size", "1.5k"),
	G_U64(msg_size_mean, 75 * 1024, "--msg-size=75KB"),
	G_UINT(msgs, 1000000, "msgs=1000000"),
	G_UINT(msgs, 0, "--msgs", "0"),
	G_DBL(secs, 30, "secs=30"),
	G_DBL(secs, 120, "secs=2m"),
	G_DBL(secs, 30, "secs=30,5"),
	G_DBL(grace_secs, 5, "secs=30,5"),
	G_DBL(grace_secs, 30, "secs=30"),
	G_DBL(secs, 30, "--duration", "30"),
	G_DBL(secs, 30, "--duration=30s"),
	G_DBL(secs, 120, "-d", "2m"),
	G_DBL(secs, 0.5, "-d500ms"),
	G_DBL(grace_secs, 10, "--grace", "10s"),
	G_DBL(stall_timeout, 2, "--stall-timeout", "2s"),
	G_DBL(stall_timeout, 0.5, "--stall-timeout=500ms"),
	G_UINT(seed, 1, "seed=1"),
	G_BOOL(have_seed, "seed=1"),
	G_UINT(seed, 4294967295U, "--seed", "4294967295"),
	G_UINT(checkpoint_secs, 5, "checkpoint=5"),
	G_UINT(checkpoint_secs, 7, "--checkpoint", "7"),
	G_UINT(stalled_disconnect_timeout, 60, "stalled_disconnect_timeout=60"),
	G_UINT(stalled_disconnect_timeout, 90,
	       "--stalled-disconnect-timeout=90"),
	G_BOOL(random_states, "random"),
	G_BOOL(random_states, "--random"),
	G_BOOL(no_pipelining, "no_pipelining"),
	G_BOOL(no_pipelining, "--no-pipelining"),
	G_UINT(pipeline_max, 1, "--pipeline", "1"),
	G_UINT(pipeline_max, 62, "--pipeline=62"),
	G_BOOL(no_tracking, "no_tracking"),
	G_BOOL(disconnect_quit, "disconnect_quit"),
	G_BOOL(error_quit, "error_quit"),
	G_BOOL(no_tracking, "--no-tracking"),
	G_BOOL(disconnect_quit, "--disconnect-quit"),
	G_BOOL(error_quit, "--error-quit"),
	G_BOOL(rawlog, "rawlog"),
	G_BOOL(rawlog, "--rawlog"),
	G_STR(rawlog_dir, "/tmp/r", "--rawlog-dir", "/tmp/r"),
	G_BOOL(own_msgs, "own_msgs"),
	G_BOOL(own_flags, "own_flags"),
	G_BOOL(qresync, "qresync"),
	G_BOOL(imap4rev2, "imap4rev2"),
	G_BOOL(qresync, "imap4rev2"),
	G_BOOL(own_msgs, "--own-msgs"),
	G_BOOL(own_flags, "--own-flags"),
	G_BOOL(qresync, "--qresync"),
	G_BOOL(imap4rev2, "--imap4rev2"),
	G_BOOL(qresync, "--imap4rev2"),
	/* timeouts and limits */
	G_DBL(connect_timeout, 5, "--connect-timeout", "5s"),
	G_DBL(greeting_timeout, 0.5, "--greeting-timeout", "500ms"),
	G_DBL(cmd_timeout, 120, "--cmd-timeout=2m"),
	G_DBL(push_timeout_s, 0.25, "--push-timeout", "250ms"),
	G_DBL(push_settle_s, 0, "--push-settle", "0"),
	G_DBL(push_settle_s, 2.5, "--push-settle", "2.5s"),
	G_UINT(submission_port, 587, "--submission-port", "587"),
	G_UINT(pop3_port, 1110, "--pop3-port", "1110"),
	G_STR(submission_host, "::1", "--submission-host", "::1"),
	G_STR(submission_auth, "login", "--submission-auth", "login"),
	G_SIZE(max_line, 1048576, "--max-line", "1m"),
	G_SIZE(max_line, 128, "--max-line", "128"),
	G_U64(max_literal, GIB, "--max-literal", "1g"),
	G_UINT(track_max, 1000, "--track-max", "1000"),
	G_UINT(track_max, 0, "--track-max=0"),
	G_UINT(track_max, 4294967295u, "--track-max", "4294967295"),
	/* output */
	G_UINT(errors_shown, 50, "--errors-shown", "50"),
	G_UINT(errors_shown, 0, "--errors-shown=0"),
	G_UINT(errors_shown, 1000000, "--errors-shown", "1000000"),
	G_STR(output_path, "out.tsv", "output=out.tsv"),
	G_STR(output_path, "o2.tsv", "--output", "o2.tsv"),
	G_STR(json_path, "-", "--json", "-"),
	G_STR(json_path, "r.json", "--json=r.json"),
	G_STR(csv_path, "-", "--csv", "-"),
	G_STR(report_path, "r.html", "--report", "r.html"),
	G_FMT(OUT_QUIET, "--quiet"),
	G_FMT(OUT_QUIET, "-q"),
	G_FMT(OUT_TEXT, "clients=1"),
	G_DBL(tick_percentile, 99, "--tick-percentile", "99"),
	G_DBL(tick_percentile, 99.9, "--tick-percentile=99.9"),
	G_DBL(tick_percentile, 100, "--tick-percentile", "100"),
	G_DBL(warmup_secs, 5, "--warmup", "5s"),
	G_DBL(rate, 1000, "--rate", "1000"),
	G_DBL(rate, 0.5, "--rate", "0.5"),
	/* state words */
	G_PROB(OP_APPEND, 50, "append=50"),
	G_AGAIN(OP_APPEND, 5, "append=50"),
	G_AGAIN(OP_APPEND, 0, "append=100,0"),
	G_PROB(OP_APPEND, 100, "Appe=100,7"),
	G_AGAIN(OP_APPEND, 7, "APPE=100,7"),
	G_PROB(OP_FETCH2, 50, "Fet2=50"),
	G_AGAIN(OP_FETCH2, 30, "Fet2=50"),
	G_PROB(OP_LOGOUT, 0, "logout=0"),
	G_PROB(OP_NOOP, 100, "noop"),
	G_PROB(OP_NOOP, 100, "NOOP"),
	G_PROB(OP_COMPRESS, 50, "compress=50"),
	G_PROB(OP_COMPRESS, 50, "Comp=50"),
	G_PROB(OP_CHECKPOINT, 100, "checkpoint"),
	G_PROB(OP_CHECKPOINT, 10, "ChkP=10"),
	G_PROB(OP_CHECKPOINT, 20, "CHECKPOINT!=20"),
	G_PROB(OP_LMTP, 1, "lmtp=1"),
	G_PROB(OP_APPEND, 20, "--state", "APPEND=20,7"),
	G_AGAIN(OP_APPEND, 7, "--state", "APPEND=20,7"),
	G_PROB(OP_NOOP, 100, "--state", "noop"),
	G_PROB(OP_SELECT, 0, "--state=Sele=0"),
	G_PROB(OP_LIST, 100, "-", "list"),
	G_PROB(OP_LIST, 0, "list", "-"),
	/* last one wins, across both syntaxes */
	G_UINT(clients, 7, "clients=5", "clients=7"),
	G_UINT(clients, 9, "--clients", "5", "clients=9"),
	G_UINT(clients, 3, "clients=9", "-c", "3"),
	G_STR(host, "b", "host=a", "--host", "b"),
};

START_TEST(test_good)
{
	const struct good *g = &goods[_i];
	char *base = (char *)&cfg;

	ck_assert_msg(parse(g->argv) == 0, "%s: %s", g->argv[0], err);
	switch (g->t) {
	case T_STR: {
		char *v = *(char **)(void *)(base + g->off);
		ck_assert_ptr_nonnull(v);
		ck_assert_str_eq(v, g->s);
		break;
	}
	case T_UINT:
		ck_assert_uint_eq(*(unsigned *)(void *)(base + g->off), g->u);
		break;
	case T_INT:
		ck_assert_int_eq(*(int *)(void *)(base + g->off), (int)g->u);
		break;
	case T_U64:
		ck_assert(*(uint64_t *)(void *)(base + g->off) == g->u);
		break;
	case T_SIZE:
		ck_assert(*(size_t *)(void *)(base + g->off) == g->u);
		break;
	case T_DBL: {
		double v = *(double *)(void *)(base + g->off);
		ck_assert_msg(v > g->d - 1e-9 && v < g->d + 1e-9, "%s: %g",
			      g->argv[0], v);
		break;
	}
	case T_BOOL:
		ck_assert(*(bool *)(void *)(base + g->off));
		break;
	case T_TLS:
		ck_assert_int_eq(cfg.tls, (int)g->u);
		break;
	case T_FMT:
		ck_assert_int_eq(cfg.format, (int)g->u);
		break;
	case T_PROB:
		ck_assert_int_eq(cfg.states[g->off].prob, (int)g->u);
		break;
	case T_AGAIN:
		ck_assert_int_eq(cfg.states[g->off].again, (int)g->u);
		break;
	}
}
END_TEST

static Suite *
config_good_suite(void)
{
	Suite *s = suite_create("config_good");
	TCase *tc = tcase_create("good");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_good, 0, N(goods));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(config_good_suite)
