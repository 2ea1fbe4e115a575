/* test_config.c: argv -> struct config, both imaptest words and GNU long
 * options, every good value and every kind of bad one. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config.h"
#include "memlimit.h"
#include "user_template.h"

#define OFF(f) offsetof(struct config, f)
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define GIB (1ULL << 30)

static struct config cfg;
static char err[256];

static void
setup(void)
{
	config_defaults(&cfg);
	memset(err, 'X', sizeof(err));	/* catch a missing terminator */
	err[sizeof(err) - 1] = '\0';
}

static void
teardown(void)
{
	config_free(&cfg);
}

/* argv[0] is the program, then up to 30 words, NULL-terminated. */
static int
parse(const char *const *words)
{
	char *av[32] = { (char *)"imapstress" };
	int ac = 1;
	while (ac < 31 && words[ac - 1] != NULL) {
		av[ac] = (char *)words[ac - 1];
		ac++;
	}
	return config_parse(&cfg, ac, av, err, sizeof(err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

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
	G_SIZE(max_line, 1048576, "--max-line", "1m"),
	G_SIZE(max_line, 128, "--max-line", "128"),
	G_U64(max_literal, GIB, "--max-literal", "1g"),
	/* output */
	G_STR(output_path, "out.tsv", "output=out.tsv"),
	G_STR(output_path, "o2.tsv", "--output", "o2.tsv"),
	G_STR(json_path, "-", "--json", "-"),
	G_STR(json_path, "r.json", "--json=r.json"),
	G_STR(csv_path, "-", "--csv", "-"),
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

/* --- every option with bad values ------------------------------------ */

struct bad {
	const char *argv[5];	/* NULL-terminated */
	const char *want;	/* the whole message, or its start */
};

static const struct bad bads[] = {
	{ { "host=" }, "host=: empty value" },
	{ { "--host" }, "--host: missing value" },
	{ { "--host=" }, "--host=: empty value" },
	{ { "--host", "" }, "--host=: empty value" },
	{ { "host" }, "host: missing value" },
	{ { "hostip=" }, "hostip=: empty value" },
	{ { "port=70000" }, "port=70000: must be between 1 and 65535" },
	{ { "port=0" }, "port=0: must be between 1 and 65535" },
	{ { "port=abc" }, "port=abc: not a number" },
	{ { "port=-1" }, "port=-1: negative" },
	{ { "port=143x" }, "port=143x: not a number" },
	{ { "port=0x8f" }, "port=0x8f: not a number" },
	{ { "port= 143" }, "port= 143: not a number" },
	{ { "--port" }, "--port: missing value" },
	{ { "-p", "x" }, "-p x: not a number" },
	{ { "-px" }, "-px: not a number" },
	{ { "clients=abc" }, "clients=abc: not a number" },
	{ { "clients=0" }, "clients=0: must be between 1 and 1000000" },
	{ { "clients=1000001" }, "clients=1000001: must be between 1 and 1000000" },
	{ { "clients=-5" }, "clients=-5: negative" },
	{ { "clients=99999999999999999999" },
	  "clients=99999999999999999999: too large" },
	{ { "clients=1.5" }, "clients=1.5: not a number" },
	{ { "clients=" }, "clients=: empty value" },
	{ { "clients" }, "clients: missing value" },
	{ { "-c" }, "-c: missing value" },
	{ { "--clients", "10x" }, "--clients 10x: not a number" },
	{ { "--clients=+10" }, "--clients=+10: not a number" },
	{ { "procs=2000" }, "procs=2000: must be between 0 and 1024" },
	{ { "--procs=2000" }, "--procs=2000: must be between 0 and 1024" },
	{ { "--workers", "-1" }, "--workers -1: negative" },
	{ { "-w", "many" }, "-w many: not a number" },
	{ { "--connect-rate", "0" }, "--connect-rate 0: must be greater than 0" },
	{ { "--connect-rate", "abc" }, "--connect-rate abc: not a number" },
	{ { "--connect-rate", "-1" }, "--connect-rate -1: negative" },
	{ { "--connect-rate", "1e5" }, "--connect-rate 1e5: not a number" },
	{ { "--connect-rate", "1." }, "--connect-rate 1.: not a number" },
	{ { "--connect-rate", "9999999999999999" },
	  "--connect-rate 9999999999999999: too large" },
	{ { "--source", "10.0.0.1" },
	  "--source 10.0.0.1: only loopback source addresses are allowed" },
	{ { "--source", "127.0.0.1,10.0.0.1" },
	  "--source 10.0.0.1: only loopback source addresses are allowed" },
	{ { "--source", "::2" },
	  "--source ::2: only loopback source addresses are allowed" },
	{ { "--source", "::ffff:127.0.0.1" },
	  "--source ::ffff:127.0.0.1: only loopback source addresses" },
	{ { "--source", "localhost" }, "--source localhost: not an IP address" },
	{ { "--source", "127.0.0.1,,127.0.0.2" },
	  "--source 127.0.0.1,,127.0.0.2: empty address in the list" },
	{ { "--source", "127.0.0.1," }, "--source 127.0.0.1,: empty address" },
	{ { "--source=" }, "--source=: empty value" },
	{ { "user=" }, "user=: empty value" },
	{ { "user=u%s" }, "user=u%s: '%s' is not supported" },
	{ { "user=%d%i%d" }, "user=%d%i%d: more than two %d/%i" },
	{ { "user=abc%" }, "user=abc%: '%' at the end" },
	{ { "user=abc%04" }, "user=abc%04: '%04' at the end" },
	{ { "user=u%-4d" }, "user=u%-4d: '%-' is not supported" },
	{ { "user=u%021d" }, "user=u%021d: field width over 20" },
	{ { "user=u%4s" }, "user=u%4s: '%4s' is not supported" },
	{ { "--user=%x" }, "--user=%x: '%x' is not supported" },
	{ { "-u", "%n" }, "-u %n: '%n' is not supported" },
	{ { "users=0" }, "users=0: must be between 1 and 4294967295" },
	{ { "users=5-3" }, "users=5-3: range start is greater than its end" },
	{ { "users=a-3" }, "users=a-3: not a number" },
	{ { "users=1-x" }, "users=1-x: not a number" },
	{ { "users=-3" }, "users=-3: negative" },
	{ { "users=1-" }, "users=1-: empty value" },
	{ { "users=1-99999999999" },
	  "users=1-99999999999: must be between 0 and 4294967295" },
	{ { "users=1-99999999999999999999" },
	  "users=1-99999999999999999999: too large" },
	{ { "--users", "x" }, "--users x: not a number" },
	{ { "domains=0" }, "domains=0: must be between 1 and" },
	{ { "domains=9-1" }, "domains=9-1: range start is greater" },
	{ { "user2=" }, "user2=: empty value" },
	{ { "userfile=" }, "userfile=: empty value" },
	{ { "--password" }, "--password: missing value" },
	{ { "--password-file", "/nonexistent/imapstress-pw" },
	  "--password-file /nonexistent/imapstress-pw: cannot open: "
	  "No such file or directory" },
	{ { "--password-file", "/" },
	  "--password-file /: not a regular file (a directory)" },
	{ { "--password-file", "/dev/null" },
	  "--password-file /dev/null: not a regular file (a character device)" },
	{ { "--password-file", "/dev/zero" },
	  "--password-file /dev/zero: not a regular file (a character device)" },
	{ { "master=" }, "master=: empty value" },
	{ { "mech=" }, "mech=: empty value" },
	{ { "ssl=yes" }, "ssl=yes: expected bare 'ssl' or 'ssl=any-cert'" },
	{ { "ssl=" }, "ssl=: expected bare 'ssl'" },
	{ { "--tls=1" }, "--tls=1: takes no value" },
	{ { "--starttls=yes" }, "--starttls=yes: takes no value" },
	{ { "--insecure=yes" }, "--insecure=yes: takes no value" },
	{ { "ssl_ca_file=" }, "ssl_ca_file=: empty value" },
	{ { "--ca-file" }, "--ca-file: missing value" },
	{ { "--compress=1" }, "--compress=1: takes no value" },
	{ { "box=" }, "box=: empty value" },
	{ { "--box", "" }, "--box=: empty value" },
	{ { "--mailbox", "" }, "--mailbox=: empty value" },
	{ { "copybox=" }, "copybox=: empty value" },
	{ { "mbox=" }, "mbox=: empty value" },
	{ { "random_msg_size=5x" }, "random_msg_size=5x: unknown unit 'x'" },
	{ { "random_msg_size=2g" },
	  "random_msg_size=2g: must be between 0 B and 1.0 GiB" },
	{ { "random_msg_size=-1" }, "random_msg_size=-1: negative" },
	{ { "--msg-size", "0" }, "--msg-size 0: must be between 1 B and 1.0 GiB" },
	{ { "--msg-size", "abc" }, "--msg-size abc: not a number" },
	{ { "--msg-size", "1.5" }, "--msg-size 1.5: not a whole number of bytes" },
	{ { "msgs=99999999999999999999" }, "msgs=99999999999999999999: too large" },
	{ { "msgs=5000000000" }, "msgs=5000000000: must be between 0 and 4294967295" },
	{ { "msgs=-1" }, "msgs=-1: negative" },
	{ { "--msgs", "x" }, "--msgs x: not a number" },
	{ { "secs=-1" }, "secs=-1: negative" },
	{ { "secs=5x" }, "secs=5x: unknown unit 'x'" },
	{ { "secs=30,x" }, "secs=30,x: not a number" },
	{ { "secs=30," }, "secs=30,: empty value" },
	{ { "secs=,5" }, "secs=,5: empty value" },
	{ { "secs=30,-2" }, "secs=30,-2: negative" },
	{ { "secs=99999999999999999999" }, "secs=99999999999999999999: too large" },
	{ { "--duration", "5x" }, "--duration 5x: unknown unit 'x'" },
	{ { "-d", "-1" }, "-d -1: negative" },
	{ { "--duration" }, "--duration: missing value" },
	{ { "--grace", "x" }, "--grace x: not a number" },
	{ { "seed=-1" }, "seed=-1: negative" },
	{ { "seed=4294967296" }, "seed=4294967296: must be between 0 and 4294967295" },
	{ { "seed=x" }, "seed=x: not a number" },
	{ { "checkpoint=x" }, "checkpoint=x: not a number" },
	{ { "stalled_disconnect_timeout=-1" },
	  "stalled_disconnect_timeout=-1: negative" },
	{ { "output=" }, "output=: empty value" },
	{ { "test=" }, "test=: empty value" },
	{ { "--test" }, "--test: missing value" },
	{ { "profile=" }, "profile=: empty value" },
	{ { "--profile" }, "--profile: missing value" },
	{ { "random=1" }, "random=1: takes no value" },
	{ { "--random=1" }, "--random=1: takes no value" },
	/* unlike the bare word, the long option is never the state */
	{ { "--checkpoint" }, "--checkpoint: missing value" },
	{ { "no_pipelining=yes" }, "no_pipelining=yes: takes no value" },
	{ { "--no-pipelining=1" }, "--no-pipelining=1: takes no value" },
	{ { "no_tracking=1" }, "no_tracking=1: takes no value" },
	{ { "disconnect_quit=1" }, "disconnect_quit=1: takes no value" },
	{ { "error_quit=1" }, "error_quit=1: takes no value" },
	{ { "rawlog=1" }, "rawlog=1: takes no value" },
	{ { "own_msgs=1" }, "own_msgs=1: takes no value" },
	{ { "own_flags=1" }, "own_flags=1: takes no value" },
	{ { "qresync=1" }, "qresync=1: takes no value" },
	{ { "imap4rev2=1" }, "imap4rev2=1: takes no value" },
	{ { "--pipeline", "0" }, "--pipeline 0: must be between 1 and 62" },
	{ { "--pipeline", "63" }, "--pipeline 63: must be between 1 and 62" },
	{ { "--rawlog-dir", "" }, "--rawlog-dir=: empty value" },
	{ { "--connect-timeout", "0" }, "--connect-timeout 0: must be greater than 0" },
	{ { "--greeting-timeout", "5x" }, "--greeting-timeout 5x: unknown unit 'x'" },
	{ { "--cmd-timeout", "-1" }, "--cmd-timeout -1: negative" },
	{ { "--max-line", "100" },
	  "--max-line 100: must be between 128 B and 1.0 GiB" },
	{ { "--max-line", "2g" }, "--max-line 2g: must be between 128 B and 1.0 GiB" },
	{ { "--max-literal", "0" }, "--max-literal 0: must be between 1 B and" },
	{ { "--max-literal", "5q" }, "--max-literal 5q: unknown unit 'q'" },
	{ { "--json" }, "--json: missing value" },
	{ { "--csv", "" }, "--csv=: empty value" },
	{ { "--quiet=1" }, "--quiet=1: takes no value" },
	{ { "-qx" }, "-qx: unknown option (see --help)" },
	{ { "--tick-percentile", "0" },
	  "--tick-percentile 0: must be greater than 0 and at most 100" },
	{ { "--tick-percentile", "101" }, "--tick-percentile 101: must be greater" },
	{ { "--tick-percentile", "p99" }, "--tick-percentile p99: not a number" },
	{ { "--warmup", "x" }, "--warmup x: not a number" },
	{ { "--rate", "0" }, "--rate 0: must be greater than 0" },
	{ { "--rate", "-5" }, "--rate -5: negative" },
	{ { "--sla", "APPEND-p95<5ms" },
	  "--sla APPEND-p95<5ms: expected OP.METRIC<DURATION" },
	{ { "--sla", "APPEND.p95" }, "--sla APPEND.p95: expected OP.METRIC<DURATION" },
	{ { "--sla", ".p95<5ms" }, "--sla .p95<5ms: expected OP.METRIC<DURATION" },
	{ { "--sla", "FOO.p95<5ms" }, "--sla FOO.p95<5ms: unknown state 'FOO'" },
	{ { "--sla", "APPEND.p97x<5ms" },
	  "--sla APPEND.p97x<5ms: unknown metric 'p97x'" },
	{ { "--sla", "APPEND.p5<5ms" }, "--sla APPEND.p5<5ms: unknown metric 'p5'" },
	{ { "--sla", "APPEND.<5ms" }, "--sla APPEND.<5ms: unknown metric ''" },
	{ { "--sla", "APPEND.p95<5x" }, "--sla APPEND.p95<5x: unknown unit 'x'" },
	{ { "--sla", "APPEND.p95<0" },
	  "--sla APPEND.p95<0: the bound must be greater than 0" },
	{ { "--sla", "APPEND.p95<" }, "--sla APPEND.p95<: empty value" },
	{ { "--sla", "ALL.p99<99999999999999999999" },
	  "--sla ALL.p99<99999999999999999999: too large" },
	{ { "--sla", "ALL.p99<1000000000000000000000000000000000000000000000000000000ms" },
	  "--sla ALL.p99<1000000000000000000000000000000000000000000000000000000ms: "
	  "too long" },
	{ { "--state", "foo=1" }, "--state foo=1: unknown state 'foo'" },
	{ { "--state", "append=150" }, "--state append=150: percent must be 0..100" },
	{ { "--state", "append=" }, "--state append=: empty value" },
	{ { "--state", "append=50,200" },
	  "--state append=50,200: repeat: percent must be 0..100" },
	{ { "append=150" }, "append=150: percent must be 0..100" },
	{ { "append=-1" }, "append=-1: percent must be 0..100" },
	{ { "append=x" }, "append=x: not a number" },
	{ { "append=50,x" }, "append=50,x: repeat: not a number" },
	{ { "append=50," }, "append=50,: repeat: empty value" },
	{ { "append=" }, "append=: empty value" },
	{ { "Fet2=1,2,3" }, "Fet2=1,2,3: repeat: not a number" },
	{ { "compress=abc" }, "compress=abc: not a number" },
	{ { "foo=1" }, "foo=1: unknown word (see --help)" },
	{ { "foo" }, "foo: unknown word (see --help)" },
	{ { "=5" }, "=5: unknown word (see --help)" },
	{ { "Host=x" }, "Host=x: unknown word (see --help)" },
	{ { "--foo" }, "--foo: unknown option (see --help)" },
	{ { "--foo=1" }, "--foo=1: unknown option (see --help)" },
	{ { "-x" }, "-x: unknown option (see --help)" },
	{ { "--" }, "--: unknown option (see --help)" },
	/* the error stops the parse where it is */
	{ { "clients=5", "clients=x", "clients=6" }, "clients=x: not a number" },
	{ { "host=ok", "--port", "1", "bogus" }, "bogus: unknown word" },
};

START_TEST(test_bad)
{
	const struct bad *b = &bads[_i];
	ck_assert_int_eq(parse(b->argv), -1);
	ck_assert_msg(strncmp(err, b->want, strlen(b->want)) == 0,
		      "got \"%s\", want \"%s\"", err, b->want);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* --- whole command lines --------------------------------------------- */

/* A line from a mailing-list report must mean exactly what it meant to
 * imaptest. */
START_TEST(test_seed_line)
{
	ck_assert_int_eq(parse(ARGS("-", "append=100", "seed=1", "secs=30",
				    "msgs=1000000", "logout=0", "select=0",
				    "clients=100")), 0);
	for (int i = 0; i < OP_COUNT; i++) {
		int want = (i == OP_LOGIN || i == OP_APPEND) ? 100 : 0;
		ck_assert_msg(cfg.states[i].prob == want, "%s prob %d",
			      op_table[i].name, cfg.states[i].prob);
	}
	ck_assert_int_eq(cfg.states[OP_APPEND].again, 5);
	ck_assert_int_eq(cfg.states[OP_FETCH2].again, 30);
	ck_assert(cfg.secs == 30);
	ck_assert_uint_eq(cfg.msgs, 1000000);
	ck_assert_uint_eq(cfg.clients, 100);
	ck_assert(cfg.have_seed);
	ck_assert_uint_eq(cfg.seed, 1);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_dash_clears_between_login_and_logout)
{
	ck_assert_int_eq(parse(ARGS("-")), 0);
	for (int i = 0; i < OP_COUNT; i++) {
		int want = op_table[i].def_prob;
		if (i > OP_LOGIN && i < OP_LOGOUT && i != OP_SELECT)
			want = 0;
		ck_assert_msg(cfg.states[i].prob == want, "%s",
			      op_table[i].name);
		ck_assert_int_eq(cfg.states[i].again, op_table[i].def_again);
	}
}
END_TEST

START_TEST(test_mixed_syntax)
{
	ck_assert_int_eq(parse(ARGS("host=127.0.0.5", "--port", "10143",
				    "-c", "50", "user=u%d", "--users=1-500",
				    "secs=1m,10", "--state", "Fet2=10,0")), 0);
	ck_assert_str_eq(cfg.host, "127.0.0.5");
	ck_assert_int_eq(cfg.port, 10143);
	ck_assert_uint_eq(cfg.clients, 50);
	ck_assert_str_eq(cfg.user_template, "u%d");
	ck_assert_uint_eq(cfg.users_min, 1);
	ck_assert_uint_eq(cfg.users_max, 500);
	ck_assert(cfg.secs == 60 && cfg.grace_secs == 10);
	ck_assert_int_eq(cfg.states[OP_FETCH2].prob, 10);
	ck_assert_int_eq(cfg.states[OP_FETCH2].again, 0);
	/* a value that looks like an option is still the value */
	ck_assert_int_eq(parse(ARGS("--host", "-weird")), 0);
	ck_assert_str_eq(cfg.host, "-weird");
}
END_TEST

START_TEST(test_defaults)
{
	ck_assert_str_eq(cfg.host, "127.0.0.1");
	ck_assert_ptr_null(cfg.hostip);
	ck_assert_int_eq(cfg.port, 0);
	ck_assert_int_eq(config_port(&cfg), 143);
	ck_assert_uint_eq(cfg.clients, 10);
	ck_assert_uint_eq(cfg.workers, 0);
	ck_assert_uint_eq(cfg.users_min, 1);
	ck_assert_uint_eq(cfg.users_max, 99);
	ck_assert_uint_eq(cfg.domains_min, 1);
	ck_assert_uint_eq(cfg.domains_max, 99);
	ck_assert_str_eq(cfg.mech, "LOGIN");
	ck_assert_str_eq(cfg.box, "INBOX");
	ck_assert_ptr_null(cfg.copybox);
	ck_assert_ptr_null(cfg.mbox_path);
	ck_assert_uint_eq(cfg.msgs, 30);
	ck_assert(cfg.secs == 0 && cfg.grace_secs == 30);
	ck_assert(cfg.msg_size_mean == 4096);
	ck_assert_uint_eq(cfg.pipeline_max, 10);
	ck_assert(cfg.connect_timeout == 10 && cfg.greeting_timeout == 10);
	ck_assert(cfg.cmd_timeout == 60);
	ck_assert(cfg.max_line == 65536);
	ck_assert(cfg.max_literal == 256ULL * 1024 * 1024);
	ck_assert_str_eq(cfg.rawlog_dir, ".");
	ck_assert(cfg.tick_percentile == 0);
	ck_assert_int_eq(cfg.tls, TLS_NONE);
	ck_assert_int_eq(cfg.format, OUT_TEXT);
	ck_assert(!cfg.have_seed);
	ck_assert_uint_eq(cfg.n_slas, 0);
	ck_assert_uint_eq(cfg.n_sources, 0);
	for (int i = 0; i < OP_COUNT; i++) {
		ck_assert_int_eq(cfg.states[i].prob, op_table[i].def_prob);
		ck_assert_int_eq(cfg.states[i].again, op_table[i].def_again);
	}
	/* no words at all is a valid run */
	ck_assert_int_eq(parse(ARGS(NULL)), 0);
}
END_TEST

START_TEST(test_defaults_from_environment)
{
	struct config c;

	setenv("USER", "alice", 1);
	setenv("IMAPSTRESS_PASSWORD", "envpw", 1);
	config_defaults(&c);
	ck_assert_str_eq(c.user_template, "alice");
	ck_assert_str_eq(c.pass, "envpw");
	config_free(&c);

	unsetenv("USER");
	unsetenv("IMAPSTRESS_PASSWORD");
	config_defaults(&c);
	ck_assert_str_eq(c.user_template, "imapstress");
	ck_assert_str_eq(c.pass, "pass");
	config_free(&c);

	/* pass= still overrides the environment */
	setenv("IMAPSTRESS_PASSWORD", "envpw", 1);
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(parse(ARGS("pass=cli")), 0);
	ck_assert_str_eq(cfg.pass, "cli");
	unsetenv("IMAPSTRESS_PASSWORD");
}
END_TEST

START_TEST(test_password_file)
{
	char path[] = "/tmp/imapstress-pw-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "s3cret\r\nsecond\n", 15), 15);
	close(fd);

	ck_assert_int_eq(parse(ARGS("--password-file", path)), 0);
	ck_assert_str_eq(cfg.pass, "s3cret");
	ck_assert_str_eq(cfg.password_file, path);
	/* left to right: a later pass= wins, a later file wins again */
	ck_assert_int_eq(parse(ARGS("--password-file", path, "pass=x")), 0);
	ck_assert_str_eq(cfg.pass, "x");
	ck_assert_int_eq(parse(ARGS("pass=x", "--password-file", path)), 0);
	ck_assert_str_eq(cfg.pass, "s3cret");

	/* no newline at all, and an empty first line */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "nonl", 4), 4);
	close(fd);
	ck_assert_int_eq(parse(ARGS("--password-file", path)), 0);
	ck_assert_str_eq(cfg.pass, "nonl");
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "\r\nlater\n", 8), 8);
	close(fd);
	ck_assert_int_eq(parse(ARGS("--password-file", path)), -1);
	ck_assert_ptr_nonnull(strstr(err, "first line"));
	ck_assert_ptr_nonnull(strstr(err, path));
	unlink(path);
}
END_TEST

/* Sizes against what the machine can spare (cfg.mem_budget, set here so
 * the test does not depend on the machine): a pool needs 16 times the
 * size, so with 1 GiB to spare 64 MiB fits and one octet more does not.
 * main at 1a4eff3 took --msg-size 1g and aborted in xmalloc. */
START_TEST(test_pool_size_budget)
{
	ck_assert_int_eq(parse(ARGS("--msg-size", "64m")), 0);
	cfg.mem_budget = 1ull << 30;
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	cfg.msg_size_mean++;
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, "--msg-size 64.0 MiB: the message pool would "
			      "need up to 1.0 GiB, more than this machine can "
			      "spare (1.0 GiB", 96) == 0, "%s", err);
	ck_assert_msg(strstr(err, "at most 64.0 MiB here") != NULL, "%s", err);

	ck_assert_int_eq(parse(ARGS("random_msg_size=1g")), 0);
	cfg.mem_budget = 16ull << 30;
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	cfg.mem_budget--;
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, "random_msg_size=1.0 GiB: ", 25) == 0, "%s",
		      err);
	/* random_msg_size=0 is "off": nothing to hold. */
	ck_assert_int_eq(parse(ARGS("random_msg_size=0", "--msg-size", "4k")), 0);
	cfg.mem_budget = 1ull << 20;
	ck_assert_msg(config_validate(&cfg, err, sizeof(err)) == 0, "%s", err);
}
END_TEST

/* The rule: a quarter of the memory, half of a ulimit. */
START_TEST(test_memlimit_rule)
{
	const uint64_t G = 1ull << 30, none = UINT64_MAX;
	ck_assert_uint_eq(memlimit_budget_of(16 * G, none, none), 4 * G);
	ck_assert_uint_eq(memlimit_budget_of(16 * G, 4 * G, none), 2 * G);
	ck_assert_uint_eq(memlimit_budget_of(16 * G, none, 2 * G), 1 * G);
	ck_assert_uint_eq(memlimit_budget_of(16 * G, 4 * G, 6 * G), 2 * G);
	ck_assert_uint_eq(memlimit_budget_of(0, none, none), none);
	ck_assert_uint_eq(memlimit_budget_of(0, 8 * G, none), 4 * G);
	ck_assert_uint_gt(memlimit_budget(), 0);
}
END_TEST

START_TEST(test_sources)
{
	ck_assert_int_eq(parse(ARGS("--source", "127.0.0.1,127.0.0.2,::1")), 0);
	ck_assert_uint_eq(cfg.n_sources, 3);
	ck_assert_str_eq(cfg.sources[0], "127.0.0.1");
	ck_assert_str_eq(cfg.sources[1], "127.0.0.2");
	ck_assert_str_eq(cfg.sources[2], "::1");
	/* repeated: the last list replaces the first */
	ck_assert_int_eq(parse(ARGS("--source=127.255.0.9")), 0);
	ck_assert_uint_eq(cfg.n_sources, 1);
	ck_assert_str_eq(cfg.sources[0], "127.255.0.9");
	/* a failed list leaves the previous one alone */
	ck_assert_int_eq(parse(ARGS("--source", "127.0.0.3,8.8.8.8")), -1);
	ck_assert_uint_eq(cfg.n_sources, 1);

	char list[CONFIG_MAX_SOURCES * 12 + 16] = "";
	for (int i = 0; i <= CONFIG_MAX_SOURCES; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s127.0.0.%d", i ? "," : "", i + 1);
	ck_assert_int_eq(parse(ARGS("--source", list)), -1);
	ck_assert_str_eq(err, "--source: too many addresses (at most 64)");
	list[strrchr(list, ',') - list] = '\0';
	ck_assert_int_eq(parse(ARGS("--source", list)), 0);
	ck_assert_uint_eq(cfg.n_sources, CONFIG_MAX_SOURCES);
}
END_TEST

static const struct {
	const char *expr;
	int op;
	double pct;
	uint64_t max_us;
} slas[] = {
	{ "APPEND.p95<500ms", OP_APPEND, 95, 500000 },
	{ "ALL.p99<1s", -1, 99, 1000000 },
	{ "all.max<2", -1, 100, 2000000 },
	{ "Fet2.mean<250us", OP_FETCH2, 0, 250 },
	{ "select.p999<1.5s", OP_SELECT, 99.9, 1500000 },
	{ "LOGIN.p50<10ms", OP_LOGIN, 50, 10000 },
	{ "Logi.P90<1m", OP_LOGIN, 90, 60000000 },
	{ "CHECKPOINT!.MAX<1h", OP_CHECKPOINT, 100, 3600000000ULL },
};

START_TEST(test_sla)
{
	ck_assert_int_eq(parse(ARGS("--sla", slas[_i].expr)), 0);
	ck_assert_uint_eq(cfg.n_slas, 1);
	ck_assert_int_eq(cfg.slas[0].op, slas[_i].op);
	ck_assert(cfg.slas[0].percentile > slas[_i].pct - 1e-9 &&
		  cfg.slas[0].percentile < slas[_i].pct + 1e-9);
	ck_assert(cfg.slas[0].max_us == slas[_i].max_us);
	ck_assert_str_eq(cfg.slas[0].text, slas[_i].expr);
}
END_TEST

START_TEST(test_sla_repeats)
{
	for (int i = 0; i < CONFIG_MAX_SLA; i++)
		ck_assert_int_eq(parse(ARGS("--sla=ALL.p99<1s")), 0);
	ck_assert_uint_eq(cfg.n_slas, CONFIG_MAX_SLA);
	ck_assert_int_eq(parse(ARGS("--sla", "ALL.p50<1s")), -1);
	ck_assert_ptr_nonnull(strstr(err, "too many --sla"));
	ck_assert_uint_eq(cfg.n_slas, CONFIG_MAX_SLA);
}
END_TEST

/* Runs parse with stdout captured into out. */
static int
parse_capture(const char *const *words, char *out, size_t outlen)
{
	char path[] = "/tmp/imapstress-out-XXXXXX";
	int fd = mkstemp(path), saved = dup(1);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	dup2(fd, 1);
	int r = parse(words);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	ssize_t n = pread(fd, out, outlen - 1, 0);
	out[n < 0 ? 0 : n] = '\0';
	close(fd);
	unlink(path);
	return r;
}

START_TEST(test_help_and_version)
{
	static char out[8192];
	const char *const *forms[] = { ARGS("--help"), ARGS("-h"),
				       ARGS("clients=5", "--help", "bogus") };

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		ck_assert_int_eq(parse_capture(forms[f], out, sizeof(out)), 1);
		ck_assert_ptr_nonnull(strstr(out, "--clients"));
		ck_assert_ptr_nonnull(strstr(out, "--duration"));
		ck_assert_ptr_nonnull(strstr(out, "imaptest"));
		ck_assert_ptr_nonnull(strstr(out, "man imapstress"));
		int lines = 0;
		for (const char *p = out; *p; p++) {
			lines += *p == '\n';
			ck_assert(*p == '\n' || (*p >= ' ' && *p < 127));
		}
		ck_assert_int_le(lines, 45);
		ck_assert_int_ge(lines, 20);
	}
	ck_assert_int_eq(parse_capture(ARGS("--version"), out, sizeof(out)), 1);
	ck_assert_str_eq(out, "imapstress 0.1.0\n");
	ck_assert_int_eq(parse_capture(ARGS("-V"), out, sizeof(out)), 1);
	ck_assert_str_eq(out, "imapstress 0.1.0\n");
	ck_assert_int_eq(parse_capture(ARGS("--version=1"), out, sizeof(out)), -1);
}
END_TEST

/* --- validation ------------------------------------------------------ */

START_TEST(test_validate_copy_without_copybox)
{
	ck_assert_int_eq(parse(ARGS("copy=50", "move=20")), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	ck_assert_int_eq(cfg.states[OP_COPY].prob, 0);
	ck_assert_int_eq(cfg.states[OP_MOVE].prob, 0);

	ck_assert_int_eq(parse(ARGS("copybox=Trash", "copy=50", "move=20")), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	ck_assert_int_eq(cfg.states[OP_COPY].prob, 50);
	ck_assert_int_eq(cfg.states[OP_MOVE].prob, 20);
}
END_TEST

static const struct bad vbads[] = {
	{ { "--insecure" }, "--insecure needs --tls or --starttls" },
	{ { "ssl_ca_file=ca.pem" }, "--ca-file needs --tls or --starttls" },
	{ { "--tls-resume" }, "--tls-resume needs --tls or --starttls" },
	{ { "secs=10", "--warmup", "10s" }, "--warmup 10: must be shorter" },
	{ { "-d", "10", "--warmup", "20" }, "--warmup 20: must be shorter" },
	{ { "--json", "-", "--csv", "-" }, "--json - and --csv -: only one" },
	{ { "mech=cram-md5" }, "mech=cram-md5: unknown mechanism (imapstress "
	  "has LOGIN, PLAIN, SCRAM-SHA-1 and SCRAM-SHA-256)" },
	{ { "--mech", "SCRAM-SHA-512" }, "mech=SCRAM-SHA-512: unknown" },
};

START_TEST(test_validate_bad)
{
	ck_assert_int_eq(parse(vbads[_i].argv), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, vbads[_i].want, strlen(vbads[_i].want)) == 0,
		      "got \"%s\"", err);
}
END_TEST

START_TEST(test_validate_good)
{
	const char *const *lines[] = {
		ARGS("--insecure", "--tls"),
		ARGS("ssl=any-cert", "ssl_ca_file=ca.pem"),
		ARGS("--starttls", "--ca-file", "ca.pem", "--tls-resume"),
		ARGS("--warmup", "100"),		/* no duration: fine */
		ARGS("secs=10", "--warmup", "9.9"),
		ARGS("--json", "-", "--csv", "out.csv"),
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		config_free(&cfg);
		config_defaults(&cfg);
		ck_assert_int_eq(parse(lines[i]), 0);
		ck_assert_msg(config_validate(&cfg, err, sizeof(err)) == 0,
			      "%zu: %s", i, err);
	}
	cfg.clients = 0;		/* built by hand, not by parse */
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "clients"));
}
END_TEST

/* imaptest's AUTHENTICATE and LOGIN chances add up to 100, and mech=
 * (any case) names the mechanism without touching them. */
START_TEST(test_validate_login_states)
{
	const struct {
		const char *const *argv;
		int auth, login;
		enum auth_mech mech;
	} rows[] = {
		{ ARGS("secs=1"), 0, 100, MECH_LOGIN },
		{ ARGS("auth=100"), 100, 0, MECH_LOGIN },
		{ ARGS("auth=30"), 30, 70, MECH_LOGIN },
		{ ARGS("auth=10", "login=100"), 10, 90, MECH_LOGIN },
		{ ARGS("login=50"), 50, 50, MECH_LOGIN },
		{ ARGS("master=m"), 100, 0, MECH_LOGIN },
		{ ARGS("mech=plain"), 0, 100, MECH_PLAIN },
		{ ARGS("mech=scram-sha-1"), 0, 100, MECH_SCRAM_SHA1 },
		{ ARGS("--mech", "Scram-Sha-256"), 0, 100, MECH_SCRAM_SHA256 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		config_free(&cfg);
		config_defaults(&cfg);
		ck_assert_int_eq(parse(rows[i].argv), 0);
		ck_assert_msg(config_validate(&cfg, err, sizeof(err)) == 0,
			      "%zu: %s", i, err);
		ck_assert_int_eq(cfg.states[OP_AUTHENTICATE].prob, rows[i].auth);
		ck_assert_int_eq(cfg.states[OP_LOGIN].prob, rows[i].login);
		ck_assert_int_eq(cfg.mech_id, rows[i].mech);
	}
	ck_assert_str_eq(config_mech_name(MECH_SCRAM_SHA256), "SCRAM-SHA-256");
}
END_TEST

START_TEST(test_port)
{
	ck_assert_int_eq(config_port(&cfg), 143);
	ck_assert_int_eq(parse(ARGS("--starttls")), 0);
	ck_assert_int_eq(config_port(&cfg), 143);
	ck_assert_int_eq(parse(ARGS("ssl")), 0);
	ck_assert_int_eq(config_port(&cfg), 993);
	ck_assert_int_eq(parse(ARGS("port=1993")), 0);
	ck_assert_int_eq(config_port(&cfg), 1993);
}
END_TEST

/* Found by fuzzing: a zero-length (NULL) error buffer must not be
 * touched. */
START_TEST(test_zero_err_buffer)
{
	char *av[] = { (char *)"imapstress", (char *)"clients=abc" };
	ck_assert_int_eq(config_parse(&cfg, 2, av, NULL, 0), -1);
}
END_TEST

/* Found by fuzzing: a value with control octets still gives one line. */
START_TEST(test_validate_err_one_line)
{
	char *av[] = { (char *)"imapstress", (char *)"rawlog",
		       (char *)"--rawlog-dir", (char *)"no\nsuch\033dir" };
	ck_assert_int_eq(config_parse(&cfg, 4, av, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_ptr_null(strchr(err, '\n'));
	ck_assert_ptr_null(strchr(err, '\033'));
	ck_assert_msg(strstr(err, "--rawlog-dir no\\x0asuch\\x1bdir") != NULL,
		      "%s", err);
}
END_TEST

START_TEST(test_small_err_buffer)
{
	char small[12];
	char *av[] = { (char *)"imapstress",
		       (char *)"clients=abcdefghijklmnopqrstuvwxyz" };
	memset(small, 'X', sizeof(small));
	ck_assert_int_eq(config_parse(&cfg, 2, av, small, sizeof(small)), -1);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert_int_eq(strncmp(small, "clients=abc", 11), 0);
}
END_TEST

START_TEST(test_err_is_one_line)
{
	ck_assert_int_eq(parse(ARGS("host=", "x")), -1);
	ck_assert_int_eq(parse(ARGS("foo=a\nb\rc")), -1);
	ck_assert_str_eq(err, "foo=a\\x0ab\\x0dc: unknown word (see --help)");
}
END_TEST

START_TEST(test_free_is_idempotent)
{
	ck_assert_int_eq(parse(ARGS("hostip=::1", "copybox=X", "--json", "-",
				    "--source", "::1", "master=m")), 0);
	config_free(&cfg);
	config_free(&cfg);	/* teardown frees a third time */
	config_free(NULL);
	ck_assert_ptr_null(cfg.host);
	ck_assert_uint_eq(cfg.n_sources, 0);
}
END_TEST

/* user=u%04d gives u0001, as imaptest's printf does. */
START_TEST(test_user_template_fill)
{
	static const struct { const char *t; unsigned u, d; const char *want; }
	rows[] = {
		{ "u%d", 7, 1, "u7" },
		{ "u%04d", 1, 1, "u0001" },
		{ "user%04d", 12345, 1, "user12345" },
		{ "u%4d", 7, 1, "u   7" },
		{ "u%03d@d%02i", 5, 3, "u005@d03" },
		{ "100%%u%i", 9, 1, "100%u9" },
		{ "plain", 1, 1, "plain" },
	};
	char out[64], small[5];

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(user_template_check(rows[i].t, err,
						     sizeof(err)), 0);
		user_template_fill(rows[i].t, rows[i].u, rows[i].d, out,
				   sizeof(out));
		ck_assert_str_eq(out, rows[i].want);
	}
	user_template_fill("u%020d", 1, 1, small, sizeof(small));
	ck_assert_str_eq(small, "u000");	/* cut, still terminated */
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_good, 0, N(goods));
	tcase_add_loop_test(tc, test_bad, 0, N(bads));
	tcase_add_test(tc, test_seed_line);
	tcase_add_test(tc, test_dash_clears_between_login_and_logout);
	tcase_add_test(tc, test_mixed_syntax);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_defaults_from_environment);
	tcase_add_test(tc, test_password_file);
	tcase_add_test(tc, test_pool_size_budget);
	tcase_add_test(tc, test_memlimit_rule);
	tcase_add_test(tc, test_sources);
	tcase_add_loop_test(tc, test_sla, 0, N(slas));
	tcase_add_test(tc, test_sla_repeats);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_small_err_buffer);
	tcase_add_test(tc, test_err_is_one_line);
	tcase_add_test(tc, test_free_is_idempotent);
	tcase_add_test(tc, test_user_template_fill);
	suite_add_tcase(s, tc);
	tc = tcase_create("validate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_validate_copy_without_copybox);
	tcase_add_loop_test(tc, test_validate_bad, 0, N(vbads));
	tcase_add_test(tc, test_validate_good);
	tcase_add_test(tc, test_validate_login_states);
	tcase_add_test(tc, test_port);
	tcase_add_test(tc, test_zero_err_buffer);
	tcase_add_test(tc, test_validate_err_one_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(config_suite)
