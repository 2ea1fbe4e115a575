/* test_config.c: argv -> struct config, both imaptest words and GNU long
 * options: whole command lines, defaults, files, SLAs, validation.  Every
 * good value of every option is in test_config_good.c, every kind of bad
 * one in test_config_bad.c. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "config_fixture.h"
#include "util/memlimit.h"
#include "config/user_template.h"
#include "version.h"

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
	ck_assert(cfg.stall_timeout == 5);
	ck_assert(cfg.push_timeout_s == 30);
	ck_assert(cfg.max_line == 65536);
	ck_assert(cfg.max_literal == 256ULL * 1024 * 1024);
	ck_assert_uint_eq(cfg.track_max, 16384);
	ck_assert_uint_eq(cfg.errors_shown, 5);
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

/* --msg-sizes: kept as parsed; its buckets (at least 8 messages each)
 * against what the machine can spare; one source of messages only.
 * (parse() adds to the same cfg: each step keeps the ones before.) */
START_TEST(test_msg_sizes_validate)
{
	ck_assert_int_eq(parse(ARGS("--msg-sizes", "4k:40,1k:30,32k:20,256k:10")),
			 0);
	ck_assert_uint_eq(cfg.msg_sizes.n, 4);
	ck_assert_uint_eq(cfg.msg_sizes.size[0], 1024);
	ck_assert_uint_eq(cfg.msg_sizes.cum[3], 100);
	ck_assert_msg(config_validate(&cfg, err, sizeof(err)) == 0, "%s", err);

	ck_assert_int_eq(parse(ARGS("--msg-sizes", "60m:1,4m:1")), 0);
	cfg.mem_budget = 1ull << 30;
	ck_assert_msg(config_validate(&cfg, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(parse(ARGS("--msg-sizes", "61m:1,4m:1")), 0);
	cfg.mem_budget = 1ull << 30;
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, "--msg-sizes, its buckets' sizes summed, "
			      "65.0 MiB: the message pool would need up to "
			      "1.0 GiB", 82) == 0, "%s", err);

	ck_assert_int_eq(parse(ARGS("random_msg_size=2k", "--msg-sizes", "1k:1")),
			 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--msg-sizes: not with random_msg_size= (the "
			 "messages come from one source)");
	ck_assert_int_eq(parse(ARGS("--msg-sizes", "1k:1", "mbox=/dev/null")), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--msg-sizes: not with mbox= (the messages come "
			 "from one source)");
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
	ck_assert_str_eq(out, "imapstress " IMAPSTRESS_VERSION "\n");
	ck_assert_int_eq(parse_capture(ARGS("-V"), out, sizeof(out)), 1);
	ck_assert_str_eq(out, "imapstress " IMAPSTRESS_VERSION "\n");
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
	{ { "--report", "-" }, "--report '-': give a file name" },
	{ { "--report", "r.html", "--json", "-" }, "--report needs the JSON "
	  "lines in a file" },
	{ { "--report", "r.html", "--test", "t.imap" }, "--report: a scripted "
	  "test" },
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

/* --report keeps the JSON lines it draws from: --json's file, or one
 * beside the page. */
START_TEST(test_report_json)
{
	ck_assert_int_eq(parse(ARGS("--report", "r.html")), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.report_path, "r.html");
	ck_assert_str_eq(cfg.json_path, "r.html.json");
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(parse(ARGS("--report", "r.html", "--json", "j")), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.json_path, "j");
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
	tcase_add_test(tc, test_seed_line);
	tcase_add_test(tc, test_dash_clears_between_login_and_logout);
	tcase_add_test(tc, test_mixed_syntax);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_defaults_from_environment);
	tcase_add_test(tc, test_password_file);
	tcase_add_test(tc, test_pool_size_budget);
	tcase_add_test(tc, test_msg_sizes_validate);
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
	tcase_add_test(tc, test_report_json);
	tcase_add_test(tc, test_validate_login_states);
	tcase_add_test(tc, test_port);
	tcase_add_test(tc, test_zero_err_buffer);
	tcase_add_test(tc, test_validate_err_one_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(config_suite)
