/* config_opts.c: the option table, one handler per kind of value, and the
 * --help text.
 *
 * One table drives both syntaxes: each row names an imaptest word and/or a
 * GNU long (and short) option and the handler that stores the value, so an
 * imaptest word and its long option can never drift apart.  config.c walks
 * argv and finds the row; handlers report through config_fail()
 * (config_value.c) so every message has the same "<word as typed>:
 * <problem>" shape. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_int.h"
#include "util/infile.h"
#include "util/units.h"
#include "version.h"
#include "config/user_template.h"
#include "util/xmalloc.h"

const char imapstress_version[] = IMAPSTRESS_VERSION;

#define GIB (1ULL << 30)

#define FIELD(c, o, type) ((type *)(void *)((char *)(c)->cfg + (o)->off))

/* --- generic handlers ------------------------------------------------ */

static int
h_str(struct pctx *c, const struct opt *o)
{
	config_set_str(FIELD(c, o, char *), c->val);
	return 0;
}

static int
h_flag(struct pctx *c, const struct opt *o)
{
	*FIELD(c, o, bool) = true;
	return 0;
}

static int
h_noflag(struct pctx *c, const struct opt *o)
{
	*FIELD(c, o, bool) = false;
	return 0;
}

static int
h_uint(struct pctx *c, const struct opt *o)
{
	uint64_t v;

	if (config_parse_uint(c, c->val, o->min, o->max, &v) < 0)
		return -1;
	*FIELD(c, o, unsigned) = (unsigned)v;
	return 0;
}

/* clients=: also whether it was given (profile mode caps with it). */
static int
h_clients(struct pctx *c, const struct opt *o)
{
	if (h_uint(c, o) < 0)
		return -1;
	c->cfg->clients_given = true;
	return 0;
}

static int
h_size64(struct pctx *c, const struct opt *o)
{
	return config_parse_size(c, o, FIELD(c, o, uint64_t));
}

static int
h_size_t(struct pctx *c, const struct opt *o)
{
	uint64_t v;

	if (config_parse_size(c, o, &v) < 0)
		return -1;
	*FIELD(c, o, size_t) = (size_t)v;
	return 0;
}

/* Durations; o->min != 0 means zero is not allowed. */
static int
h_dur(struct pctx *c, const struct opt *o)
{
	return config_parse_dur(c, c->val, o->min != 0, FIELD(c, o, double));
}

/* --push-settle: remember that it was given (0 is a value: no settle). */
static int
h_settle(struct pctx *c, const struct opt *o)
{
	c->cfg->push_settle_given = true;
	return h_dur(c, o);
}

double
config_push_settle_s(const struct config *cfg)
{
	return cfg->push_settle_given ? cfg->push_settle_s : PUSH_SETTLE_DEFAULT_S;
}

static int
h_rate(struct pctx *c, const struct opt *o)
{
	double v;

	if (config_parse_decimal(c, &v) < 0)
		return -1;
	if (v <= 0)
		return config_fail(c, "must be greater than 0");
	*FIELD(c, o, double) = v;
	return 0;
}

/* --msg-sizes SPEC (msg_sizes.h); the last one given counts. */
static int
h_msg_sizes(struct pctx *c, const struct opt *o)
{
	char why[160];

	(void)o;
	if (msg_sizes_parse(c->val, &c->cfg->msg_sizes, why, sizeof(why)) < 0)
		return config_fail(c, "%s", why);
	return 0;
}

/* --- connection and authentication ----------------------------------- */

static int
h_port(struct pctx *c, const struct opt *o)
{
	uint64_t v;

	if (config_parse_uint(c, c->val, 1, 65535, &v) < 0)
		return -1;
	c->cfg->port = (int)v;
	return 0;
}

/* users=N means 1-N; users=A-B a range. */
static int
parse_range(struct pctx *c, unsigned *min, unsigned *max)
{
	const char *dash = strchr(c->val, '-');
	uint64_t a = 1, b;

	if (c->val[0] == '-')
		return config_fail(c, "negative");
	if (dash == NULL) {
		if (config_parse_uint(c, c->val, 1, UINT_MAX, &b) < 0)
			return -1;
	} else {
		char *first = xstrndup(c->val, (size_t)(dash - c->val));
		int r = config_parse_uint(c, first, 0, UINT_MAX, &a);
		free(first);
		if (r < 0 ||
		    config_parse_uint(c, dash + 1, 0, UINT_MAX, &b) < 0)
			return -1;
		if (a > b)
			return config_fail(c, "range start is greater than "
					   "its end");
	}
	*min = (unsigned)a;
	*max = (unsigned)b;
	return 0;
}

static int
h_users(struct pctx *c, const struct opt *o)
{
	return parse_range(c, &c->cfg->users_min, &c->cfg->users_max);
}

static int
h_domains(struct pctx *c, const struct opt *o)
{
	return parse_range(c, &c->cfg->domains_min, &c->cfg->domains_max);
}

static int
h_ssl(struct pctx *c, const struct opt *o)
{
	if (c->val != NULL && strcmp(c->val, "any-cert") != 0)
		return config_fail(c, "expected bare 'ssl' or 'ssl=any-cert'");
	c->cfg->tls = TLS_IMPLICIT;
	if (c->val != NULL)
		c->cfg->tls_insecure = true;
	return 0;
}

static int
h_tls(struct pctx *c, const struct opt *o)
{
	c->cfg->tls = (enum tls_mode)o->min;
	return 0;
}

static int
h_source(struct pctx *c, const struct opt *o)
{
	struct config *cfg = c->cfg;
	char *list = xstrdup(c->val), *save = NULL;
	const char *bad = NULL;
	char *addrs[CONFIG_MAX_SOURCES];
	unsigned n = 0;
	int r = -1;

	if (strstr(c->val, ",,") != NULL || c->val[0] == ',' ||
	    c->val[strlen(c->val) - 1] == ',') {
		config_fail(c, "empty address in the list");
		goto out;
	}
	for (char *a = strtok_r(list, ",", &save); a != NULL;
	     a = strtok_r(NULL, ",", &save)) {
		struct in_addr v4;
		struct in6_addr v6;
		if (n == CONFIG_MAX_SOURCES) {
			c->val = NULL;	/* the list itself would not fit */
			config_fail(c, "too many addresses (at most %d)",
				    CONFIG_MAX_SOURCES);
			goto out;
		}
		if (inet_pton(AF_INET, a, &v4) == 1) {
			if ((ntohl(v4.s_addr) >> 24) != 127)
				bad = a;
		} else if (inet_pton(AF_INET6, a, &v6) == 1) {
			if (!IN6_IS_ADDR_LOOPBACK(&v6))
				bad = a;
		} else {
			c->val = a;
			config_fail(c, "not an IP address");
			goto out;
		}
		if (bad != NULL) {
			c->val = bad;
			config_fail(c, "only loopback source addresses are "
				    "allowed");
			goto out;
		}
		addrs[n++] = a;
	}
	for (unsigned i = 0; i < cfg->n_sources; i++)
		free(cfg->sources[i]);
	for (unsigned i = 0; i < n; i++)
		cfg->sources[i] = xstrdup(addrs[i]);
	cfg->n_sources = n;
	r = 0;
out:
	free(list);
	return r;
}

/* --- workload -------------------------------------------------------- */

/* secs=N[,F]: run time, then the grace period before a hard stop. */
static int
h_secs(struct pctx *c, const struct opt *o)
{
	const char *comma = strchr(c->val, ',');
	double secs, grace = c->cfg->grace_secs;
	char *first = xstrndup(c->val, comma ? (size_t)(comma - c->val)
					      : strlen(c->val));
	int r = config_parse_dur(c, first, false, &secs);

	free(first);
	if (r < 0 || (comma != NULL &&
		      config_parse_dur(c, comma + 1, false, &grace) < 0))
		return -1;
	c->cfg->secs = secs;
	c->cfg->grace_secs = grace;
	return 0;
}

static int
h_seed(struct pctx *c, const struct opt *o)
{
	uint64_t v;

	if (config_parse_uint(c, c->val, 0, UINT_MAX, &v) < 0)
		return -1;
	c->cfg->seed = (unsigned)v;
	c->cfg->have_seed = true;
	return 0;
}

static int
h_imap4rev2(struct pctx *c, const struct opt *o)
{
	c->cfg->imap4rev2 = true;
	c->cfg->qresync = true;
	return 0;
}

static int
h_state(struct pctx *c, const struct opt *o)
{
	const char *eq = strchr(c->val, '=');
	unsigned len = (unsigned)(eq ? (size_t)(eq - c->val) : strlen(c->val));
	int op = op_lookup(c->val, len);

	if (op < 0)
		return config_fail(c, "unknown state '%.*s'", (int)len, c->val);
	if (eq != NULL && eq[1] == '\0')
		return config_fail(c, "empty value");
	return config_state_set(c, op, eq ? eq + 1 : NULL);
}

/* --- output ---------------------------------------------------------- */

static int
h_quiet(struct pctx *c, const struct opt *o)
{
	c->cfg->format = OUT_QUIET;
	return 0;
}

static int
h_tick_percentile(struct pctx *c, const struct opt *o)
{
	double v;

	if (config_parse_decimal(c, &v) < 0)
		return -1;
	if (v <= 0 || v > 100)
		return config_fail(c, "must be greater than 0 and at most 100");
	c->cfg->tick_percentile = v;
	return 0;
}

static const char usage[] =
"Usage: imapstress [OPTION]... [IMAPTEST-WORD]...\n"
"Load generator for IMAP servers.  imaptest words (host= clients= secs=\n"
"user= pass= msgs= - append=100,5 ...) work unchanged.\n"
"\n"
"Connection:\n"
"  -H, --host ADDR        server address (127.0.0.1)\n"
"  -p, --port N           port (143; 993 with --tls)\n"
"      --tls, --starttls  implicit TLS / STARTTLS\n"
"      --insecure         accept any certificate; --ca-file FILE\n"
"  -c, --clients N        concurrent connections (10)\n"
"  -w, --workers N        worker threads (0: one per CPU)\n"
"      --connect-rate N   new connections per second\n"
"Authentication:\n"
"  -u, --user TEMPLATE    user name, %d = user number ($USER)\n"
"      --users A-B        user numbers (1-99)\n"
"      --password PW      password (pass; or $IMAPSTRESS_PASSWORD)\n"
"      --password-file F  read the password from the first line of F\n"
"      --userfile F       one user or user:pass per line\n"
"      --mech MECH        LOGIN, PLAIN, SCRAM-SHA-1, SCRAM-SHA-256 (LOGIN)\n"
"Workload:\n"
"  -d, --duration T       run time, e.g. 30s or 5m (until Ctrl-C)\n"
"      --stall-timeout T  at the end, cut a server silent this long (5s)\n"
"      --mailbox BOX      mailbox (INBOX); --copybox BOX enables COPY\n"
"      --msgs N           messages to keep in the mailbox (30)\n"
"      --msg-size S       mean message size (4k); --msg-sizes 1k:30,4k:70\n"
"      --mbox FILE        take messages from an mbox file\n"
"      --state NAME=P[,R] command percent and repeat, e.g. APPEND=100,5\n"
"      --pipeline N       commands in flight per connection (10)\n"
"      --rate N           open loop: N commands per second; --seed N\n"
"      --profile FILE     imaptest profile; --profile-check, --profile-users N\n"
"      --profile-counts FILE  per user and folder, what the run confirmed\n"
"Output:\n"
"  -q, --quiet            totals only; --report FILE: one HTML page of it\n"
"      --json FILE|-      results as JSON Lines; --csv FILE|- as CSV\n"
"      --sla 'APPEND.p95<500ms'  latency bound checked at the end\n"
"      --score-weights 'FETCH=0.5,SELECT=0.2'  LoadSim score; --sla 'score<1s'\n"
"      --server-pid PID   the server's CPU, memory, disk (Linux /proc)\n"
"Several processes (man imapstress: SHARDS):\n"
"      --shard I/N        be shard I of N (else from Slurm, MPI, k8s...)\n"
"      --start-at T       begin at epoch T or +Ns; --result FILE for merge\n"
"  imapstress merge FILE... | compare BASE... -- NEW... | report -o F.html IN\n"
"      --metrics-listen [H:]P  Prometheus metrics; --hdr-log FILE\n"
"  -h, --help             this help;  -V, --version\n"
"\n"
"Timeouts, limits, TLS, rawlog and every imaptest word: man imapstress\n";

/* Checked here so that a bad address is a usage error like any other. */
static int
h_metrics_listen(struct pctx *c, const struct opt *o)
{
	char host[64], err[200];
	unsigned port;
	bool lb;

	if (config_parse_listen(c->val, host, sizeof(host), &port, &lb, err,
				sizeof(err)) != 0)
		return config_fail(c, "%s", err);
	return h_str(c, o);
}

static int
h_help(struct pctx *c, const struct opt *o)
{
	fputs(usage, stdout);
	return 1;
}

static int
h_version(struct pctx *c, const struct opt *o)
{
	printf("imapstress %s\n", imapstress_version);
	return 1;
}

#define OFF(f) offsetof(struct config, f)

const struct opt config_opts[] = {
	/* connection */
	{ "host", "host", 'H', ARG_REQ, h_str, OFF(host), 0, 0 },
	{ "hostip", "hostip", 0, ARG_REQ, h_str, OFF(hostip), 0, 0 },
	{ "port", "port", 'p', ARG_REQ, h_port, 0, 0, 0 },
	{ "clients", "clients", 'c', ARG_REQ, h_clients, OFF(clients), 1, 1000000 },
	{ "procs", "workers", 'w', ARG_REQ, h_uint, OFF(workers), 0, 1024 },
	{ NULL, "connect-rate", 0, ARG_REQ, h_rate, OFF(connect_rate), 0, 0 },
	{ NULL, "source", 0, ARG_REQ, h_source, 0, 0, 0 },
	/* authentication */
	{ "user", "user", 'u', ARG_REQ, config_h_user, 0, 0, 0 },
	{ "users", "users", 0, ARG_REQ, h_users, 0, 0, 0 },
	{ "domains", "domains", 0, ARG_REQ, h_domains, 0, 0, 0 },
	{ "user2", "user2", 0, ARG_REQ, config_h_user2, 0, 0, 0 },
	{ "userfile", "userfile", 0, ARG_REQ, h_str, OFF(userfile), 0, 0 },
	/* An empty pass= is imaptest's: a CI action uses it as its default. */
	{ "pass", "password", 0, ARG_REQ_EMPTY, config_h_pass, 0, 0, 0 },
	{ NULL, "password-file", 0, ARG_REQ, config_h_password_file, 0, 0,
	  0 },
	{ "master", "master", 0, ARG_REQ, config_h_master, 0, 0, 0 },
	{ "mech", "mech", 0, ARG_REQ, h_str, OFF(mech), 0, 0 },
	/* TLS and compression */
	{ "ssl", NULL, 0, ARG_OPT, h_ssl, 0, 0, 0 },
	/* h_tls takes the mode from min */
	{ NULL, "tls", 0, ARG_NONE, h_tls, 0, TLS_IMPLICIT, 0 },
	{ NULL, "starttls", 0, ARG_NONE, h_tls, 0, TLS_STARTTLS, 0 },
	{ NULL, "insecure", 0, ARG_NONE, h_flag, OFF(tls_insecure), 0, 0 },
	{ "ssl_ca_file", "ca-file", 0, ARG_REQ, h_str, OFF(ca_file), 0, 0 },
	{ NULL, "tls-resume", 0, ARG_NONE, h_flag, OFF(tls_resume), 0, 0 },
	{ "compress", "compress", 0, ARG_NONE, h_flag, OFF(compress), 0, 0 },
	/* workload */
	{ "box", "mailbox", 0, ARG_REQ, h_str, OFF(box), 0, 0 },
	{ "copybox", "copybox", 0, ARG_REQ, h_str, OFF(copybox), 0, 0 },
	{ "mbox", "mbox", 0, ARG_REQ, h_str, OFF(mbox_path), 0, 0 },
	{ "random_msg_size", "random-msg-size", 0, ARG_REQ, h_size64,
	  OFF(random_msg_size), 0, GIB },
	{ NULL, "msg-size", 0, ARG_REQ, h_size64, OFF(msg_size_mean), 1, GIB },
	{ NULL, "msg-sizes", 0, ARG_REQ, h_msg_sizes, 0, 0, 0 },
	{ "msgs", "msgs", 0, ARG_REQ, h_uint, OFF(msgs), 0, UINT_MAX },
	{ "secs", NULL, 0, ARG_REQ, h_secs, 0, 0, 0 },
	{ NULL, "duration", 'd', ARG_REQ, h_dur, OFF(secs), 0, 0 },
	{ NULL, "grace", 0, ARG_REQ, h_dur, OFF(grace_secs), 0, 0 },
	{ NULL, "stall-timeout", 0, ARG_REQ, h_dur, OFF(stall_timeout), 1, 0 },
	{ "seed", "seed", 0, ARG_REQ, h_seed, 0, 0, 0 },
	{ "checkpoint", "checkpoint", 0, ARG_REQ, h_uint, OFF(checkpoint_secs),
	  0, UINT_MAX },
	{ "stalled_disconnect_timeout", "stalled-disconnect-timeout", 0,
	  ARG_REQ, h_uint, OFF(stalled_disconnect_timeout), 0, UINT_MAX },
	{ "test", "test", 0, ARG_REQ, h_str, OFF(test_path), 0, 0 },
	{ "profile", "profile", 0, ARG_REQ, h_str, OFF(profile_path), 0, 0 },
	{ NULL, "profile-check", 0, ARG_NONE, h_flag, OFF(profile_check), 0, 0 },
	{ NULL, "profile-counts", 0, ARG_REQ, h_str, OFF(profile_counts), 0, 0 },
	{ NULL, "profile-users", 0, ARG_REQ, h_uint, OFF(profile_users), 1,
	  50000000 },	/* PROFILE_MAX_USERS */
	{ NULL, "push-timeout", 0, ARG_REQ, h_dur, OFF(push_timeout_s), 1, 0 },
	{ NULL, "push-settle", 0, ARG_REQ, h_settle, OFF(push_settle_s), 0, 0 },
	{ NULL, "submission-host", 0, ARG_REQ, h_str, OFF(submission_host), 0, 0 },
	{ NULL, "submission-port", 0, ARG_REQ, h_uint, OFF(submission_port),
	  1, 65535 },
	{ NULL, "submission-auth", 0, ARG_REQ, h_str, OFF(submission_auth), 0, 0 },
	{ NULL, "submission-tls", 0, ARG_REQ, h_str, OFF(submission_tls), 0, 0 },
	{ NULL, "submission-rcpts", 0, ARG_REQ, h_uint, OFF(submission_rcpts),
	  1, 100 },	/* PROFILE_MAX_RCPTS */
	{ NULL, "lmtp-host", 0, ARG_REQ, h_str, OFF(lmtp_host), 0, 0 },
	{ NULL, "pop3-host", 0, ARG_REQ, h_str, OFF(pop3_host), 0, 0 },
	{ NULL, "pop3-port", 0, ARG_REQ, h_uint, OFF(pop3_port), 1, 65535 },
	{ NULL, "pop3-auth", 0, ARG_REQ, h_str, OFF(pop3_auth), 0, 0 },
	{ "random", "random", 0, ARG_NONE, h_flag, OFF(random_states), 0, 0 },
	{ "no_pipelining", "no-pipelining", 0, ARG_NONE, h_flag,
	  OFF(no_pipelining), 0, 0 },
	/* A connection keeps at most 64 commands in flight (two are kept
	 * for its own CAPABILITY/CREATE). */
	{ NULL, "pipeline", 0, ARG_REQ, h_uint, OFF(pipeline_max), 1, 62 },
	{ "no_tracking", "no-tracking", 0, ARG_NONE, h_flag, OFF(no_tracking),
	  0, 0 },
	{ "disconnect_quit", "disconnect-quit", 0, ARG_NONE, h_flag,
	  OFF(disconnect_quit), 0, 0 },
	{ "error_quit", "error-quit", 0, ARG_NONE, h_flag, OFF(error_quit),
	  0, 0 },
	{ "rawlog", "rawlog", 0, ARG_NONE, h_flag, OFF(rawlog), 0, 0 },
	{ NULL, "no-id", 0, ARG_NONE, h_noflag, OFF(send_id), 0, 0 },
	{ NULL, "rawlog-dir", 0, ARG_REQ, h_str, OFF(rawlog_dir), 0, 0 },
	{ "own_msgs", "own-msgs", 0, ARG_NONE, h_flag, OFF(own_msgs), 0, 0 },
	{ "own_flags", "own-flags", 0, ARG_NONE, h_flag, OFF(own_flags), 0, 0 },
	{ "allow_foreign_mail", "allow-foreign-mail", 0, ARG_NONE, h_flag,
	  OFF(allow_foreign_mail), 0, 0 },
	{ "qresync", "qresync", 0, ARG_NONE, h_flag, OFF(qresync), 0, 0 },
	{ "imap4rev2", "imap4rev2", 0, ARG_NONE, h_imap4rev2, 0, 0, 0 },
	{ NULL, "state", 0, ARG_REQ, h_state, 0, 0, 0 },
	{ NULL, "rate", 0, ARG_REQ, h_rate, OFF(rate), 0, 0 },
	/* timeouts and limits; min 1 = zero not allowed */
	{ NULL, "connect-timeout", 0, ARG_REQ, h_dur, OFF(connect_timeout),
	  1, 0 },
	{ NULL, "greeting-timeout", 0, ARG_REQ, h_dur, OFF(greeting_timeout),
	  1, 0 },
	{ NULL, "cmd-timeout", 0, ARG_REQ, h_dur, OFF(cmd_timeout), 1, 0 },
	{ NULL, "max-line", 0, ARG_REQ, h_size_t, OFF(max_line), 128, GIB },
	{ NULL, "max-literal", 0, ARG_REQ, h_size64, OFF(max_literal),
	  1, INT64_MAX },
	{ NULL, "track-max", 0, ARG_REQ, h_uint, OFF(track_max), 0, UINT_MAX },
	/* output */
	{ "output", "output", 0, ARG_REQ, h_str, OFF(output_path), 0, 0 },
	{ NULL, "json", 0, ARG_REQ, h_str, OFF(json_path), 0, 0 },
	{ NULL, "csv", 0, ARG_REQ, h_str, OFF(csv_path), 0, 0 },
	{ NULL, "report", 0, ARG_REQ, h_str, OFF(report_path), 0, 0 },
	{ NULL, "quiet", 'q', ARG_NONE, h_quiet, 0, 0, 0 },
	{ NULL, "errors-shown", 0, ARG_REQ, h_uint, OFF(errors_shown), 0,
	  1000000 },
	{ NULL, "tick-percentile", 0, ARG_REQ, h_tick_percentile, 0, 0, 0 },
	{ NULL, "warmup", 0, ARG_REQ, h_dur, OFF(warmup_secs), 0, 0 },
	{ NULL, "sla", 0, ARG_REQ, config_h_sla, 0, 0, 0 },
	{ NULL, "score-weights", 0, ARG_REQ, config_h_score_weights, 0, 0, 0 },
	{ NULL, "server-pid", 0, ARG_REQ, config_h_server_pid, 0, 0, 0 },
	/* several processes */
	{ NULL, "shard", 0, ARG_REQ, config_h_shard, 0, 0, 0 },
	{ NULL, "shards", 0, ARG_REQ, h_uint, OFF(shards), 1, 1000000 },
	{ NULL, "start-at", 0, ARG_REQ, config_h_start_at, 0, 0, 0 },
	{ NULL, "result", 0, ARG_REQ, h_str, OFF(result_path), 0, 0 },
	{ NULL, "latency-log", 0, ARG_REQ, h_str, OFF(latency_log), 0, 0 },
	{ NULL, "hdr-log", 0, ARG_REQ, h_str, OFF(hdr_log_path), 0, 0 },
	{ NULL, "metrics-listen", 0, ARG_REQ, h_metrics_listen,
	  OFF(metrics_listen), 0, 0 },
	{ NULL, "metrics-linger", 0, ARG_REQ, h_dur, OFF(metrics_linger_s), 0, 0 },
	{ NULL, "help", 'h', ARG_NONE, h_help, 0, 0, 0 },
	{ NULL, "version", 'V', ARG_NONE, h_version, 0, 0, 0 },
};

const size_t config_n_opts = sizeof(config_opts) / sizeof(config_opts[0]);

/* imaptest users reach for the word they know, so these long names work
 * too; --help lists only the main spelling. */
const struct opt_alias config_opt_aliases[] = {
	{ "box", "mailbox" },
	{ "procs", "workers" },
};

const size_t config_n_opt_aliases =
	sizeof(config_opt_aliases) / sizeof(config_opt_aliases[0]);
