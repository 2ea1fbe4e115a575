/* config.c: argv -> struct config, the driver half.
 *
 * Owns the walk over argv (GNU options versus imaptest words, keys and flags
 * versus state words), and config_defaults, config_validate, config_free
 * and config_port.  The option table, its handlers and the --help text are
 * in config_opts.c; the one-line error format, the value parsers the
 * handlers share and a state word's P[,R] are in config_value.c, below
 * both (config.c only calls down into the folder's other files). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/infile.h"
#include "model/mbox_model.h"
#include "util/memlimit.h"
#include "msg/msg.h"
#include "plan/workload.h"
#include "config/config_int.h"
#include "util/units.h"
#include "util/xmalloc.h"

/* --- state words ----------------------------------------------------- */

/* `-`: imaptest's "only what I name", keeping SELECT so that the named
 * mailbox commands still have a mailbox. */
static void
states_clear(struct config *cfg)
{
	for (int i = OP_LOGIN + 1; i < OP_LOGOUT; i++)
		if (i != OP_SELECT)
			cfg->states[i].prob = 0;
}

/* --- the walk over argv ---------------------------------------------- */

/* Runs one option once its value (if any) is known. */
static int
opt_run(struct pctx *c, const struct opt *o)
{
	if (o->arg == ARG_NONE && c->val != NULL)
		return config_fail(c, "takes no value");
	bool needs_val = o->arg == ARG_REQ || o->arg == ARG_REQ_EMPTY;

	if (needs_val && c->val == NULL)
		return config_fail(c, "missing value");
	if (o->arg == ARG_REQ && c->val[0] == '\0')
		return config_fail(c, "empty value");
	int r = o->fn(c, o);
	if (r == 0)
		config_key_note(c->cfg, o->lng ? o->lng : o->word, c->val);
	return r;
}

/* An imaptest word: a key, a flag, `-` or a state. */
static int
parse_word(struct pctx *c, const char *word)
{
	const char *eq = strchr(word, '=');
	size_t klen = eq ? (size_t)(eq - word) : strlen(word);
	char key[64];

	if (strcmp(word, "-") == 0) {
		states_clear(c->cfg);
		config_key_note(c->cfg, "-", NULL);
		return 0;
	}
	c->sep = "=";
	c->name = word;
	c->val = NULL;
	if (klen < sizeof(key)) {
		memcpy(key, word, klen);
		key[klen] = '\0';
		c->name = key;
		c->val = eq ? eq + 1 : NULL;
		for (size_t i = 0; i < config_n_opts; i++) {
			const struct opt *o = &config_opts[i];
			if (o->word == NULL || strcmp(o->word, key) != 0)
				continue;
			/* "compress=50" is the COMPRESS state, not the flag;
			 * "checkpoint" alone is the CHECKPOINT! state. */
			if ((o->arg == ARG_NONE && eq != NULL) ||
			    ((o->arg == ARG_REQ || o->arg == ARG_REQ_EMPTY) &&
			     eq == NULL)) {
				if (op_lookup(key, (unsigned)klen) >= 0)
					break;
			}
			return opt_run(c, o);
		}
	}
	int op = op_lookup(word, (unsigned)klen);
	if (op < 0) {
		c->name = word;
		c->val = NULL;
		return config_fail(c, "unknown word (see --help)");
	}
	if (c->val != NULL && c->val[0] == '\0')
		return config_fail(c, "empty value");
	if (config_state_set(c, op, c->val) < 0)
		return -1;
	config_key_note(c->cfg, op_table[op].name, c->val);
	return 0;
}

/* The row for a long option name (without "--"), through its aliases. */
static const struct opt *
opt_by_long(const char *lng)
{
	const struct opt *o = NULL;

	for (size_t k = 0; k < config_n_opt_aliases; k++)
		if (strcmp(config_opt_aliases[k].alias, lng) == 0)
			lng = config_opt_aliases[k].lng;
	for (size_t k = 0; k < config_n_opts; k++)
		if (config_opts[k].lng != NULL &&
		    strcmp(config_opts[k].lng, lng) == 0)
			o = &config_opts[k];
	return o;
}

/* A long or short option; may consume argv[*i + 1] as its value. */
static int
parse_option(struct pctx *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const struct opt *o = NULL;
	char name[64];
	bool attached;

	c->val = NULL;
	if (arg[1] == '-') {
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		snprintf(name, sizeof(name), "%.*s", (int)len, arg);
		c->name = name;
		if (len < sizeof(name))
			o = opt_by_long(name + 2);
		attached = eq != NULL;
		c->sep = attached ? "=" : " ";
		if (attached)
			c->val = eq + 1;
	} else {
		snprintf(name, sizeof(name), "-%c", arg[1]);
		c->name = name;
		for (size_t k = 0; k < config_n_opts; k++)
			if (config_opts[k].shrt == arg[1])
				o = &config_opts[k];
		attached = arg[2] != '\0';
		c->sep = attached ? "" : " ";
		if (attached)
			c->val = arg + 2;
	}
	if (o == NULL) {
		c->name = arg;
		c->val = NULL;
		return config_fail(c, "unknown option (see --help)");
	}
	if (o->arg == ARG_NONE && attached && arg[1] != '-') {
		c->name = arg;
		c->val = NULL;
		return config_fail(c, "unknown option (see --help)");
	}
	if ((o->arg == ARG_REQ || o->arg == ARG_REQ_EMPTY) && !attached &&
	    *i + 1 < argc)
		c->val = argv[++*i];
	return opt_run(c, o);
}

int
config_parse(struct config *cfg, int argc, char **argv,
	     char *err, size_t errlen)
{
	struct pctx c = { .cfg = cfg, .err = err, .errlen = errlen };

	if (errlen > 0)
		err[0] = '\0';
	for (int i = 1; i < argc; i++) {
		int r;
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			r = parse_option(&c, argc, argv, &i);
		else
			r = parse_word(&c, argv[i]);
		if (r != 0)
			return r;
	}
	return 0;
}

void
config_defaults(struct config *cfg)
{
	const char *user = getenv("USER");
	const char *pass = getenv("IMAPSTRESS_PASSWORD");

	memset(cfg, 0, sizeof(*cfg));
	cfg->host = xstrdup("127.0.0.1");
	cfg->clients = 10;
	cfg->user_template = xstrdup(user != NULL && *user != '\0' ? user
								   : "imapstress");
	cfg->users_min = cfg->domains_min = 1;
	cfg->users_max = cfg->domains_max = 99;
	cfg->pass = xstrdup(pass != NULL && *pass != '\0' ? pass : "pass");
	cfg->mech = xstrdup("LOGIN");
	cfg->box = xstrdup("INBOX");
	cfg->msg_size_mean = 4096;
	cfg->mem_budget = memlimit_budget();
	cfg->msgs = 30;
	cfg->grace_secs = 30;
	cfg->stall_timeout = 5;
	for (int i = 0; i < OP_COUNT; i++) {
		cfg->states[i].prob = op_table[i].def_prob;
		cfg->states[i].again = op_table[i].def_again;
	}
	cfg->pipeline_max = 10;
	cfg->send_id = true;
	cfg->rawlog_dir = xstrdup(".");
	cfg->connect_timeout = 10;
	cfg->greeting_timeout = 10;
	cfg->cmd_timeout = 60;
	cfg->push_timeout_s = 30;
	cfg->max_line = 64 * 1024;
	cfg->max_literal = 256ULL << 20;
	cfg->track_max = MBOX_DEFAULT_TRACK;
	cfg->errors_shown = 5;
	cfg->format = OUT_TEXT;
}

static const char *const mech_names[] = {
	[MECH_LOGIN] = "LOGIN",
	[MECH_PLAIN] = "PLAIN",
	[MECH_SCRAM_SHA1] = "SCRAM-SHA-1",
	[MECH_SCRAM_SHA256] = "SCRAM-SHA-256",
};

const char *
config_mech_name(enum auth_mech m)
{
	return (unsigned)m < sizeof(mech_names) / sizeof(mech_names[0]) ?
	    mech_names[m] : "?";
}

/* mech= is matched without regard to case, as SASL names are. */
static int
resolve_mech(struct config *cfg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < sizeof(mech_names) / sizeof(mech_names[0]); i++) {
		if (strcasecmp(cfg->mech, mech_names[i]) == 0) {
			cfg->mech_id = (enum auth_mech)i;
			return 0;
		}
	}
	snprintf(err, errlen, "mech=%s: unknown mechanism (imapstress has "
		 "LOGIN, PLAIN, SCRAM-SHA-1 and SCRAM-SHA-256)", cfg->mech);
	return -1;
}

/* imaptest's AUTHENTICATE and LOGIN states are one draw: a new session
 * logs in with one or the other, so their chances add up to 100 (auth=30
 * shows Logi 70%, login=50 shows Auth 50%, auth=100 hides Logi). */
static void
split_login_chance(struct config *cfg)
{
	int *auth = &cfg->states[OP_AUTHENTICATE].prob;
	int *login = &cfg->states[OP_LOGIN].prob;

	if (*auth > 0)
		*login = *auth >= 100 ? 0 : 100 - *auth;
	else
		*auth = *login >= 100 ? 0 : 100 - *login;
}

/* Profile mode: the state table is the commands its users send (the
 * columns shown; LOGIN through the plan is how a session starts, until
 * logging in is an engine step of its own), and no mailbox models. */
static void
profile_states(struct config *cfg)
{
	static const enum op used[] = {
		OP_LOGIN, OP_LIST, OP_MCREATE, OP_SELECT, OP_UIDFETCH,
		OP_STORE, OP_EXPUNGE, OP_APPEND, OP_MOVE, OP_COPY, OP_NOOP,
		OP_IDLE, OP_LOGOUT, OP_FETCH, OP_SEARCH,	/* LoadSim */
	};
	for (unsigned op = 0; op < OP_COUNT; op++)
		cfg->states[op].prob = 0;
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		cfg->states[used[i]].prob = 100;
	cfg->no_tracking = true;
}

static int config_validate_inner(struct config *cfg, char *err, size_t errlen);

/* --report draws its page from the run's JSON lines, so they go to a
 * file: --json's, or FILE.json beside the page. */
static int
config_report_paths(struct config *cfg, char *err, size_t errlen)
{
	if (cfg->report_path == NULL)
		return 0;
	if (cfg->test_path != NULL) {
		snprintf(err, errlen, "--report: a scripted test (--test) "
			 "writes no JSON lines to draw from");
		return -1;
	}
	if (strcmp(cfg->report_path, "-") == 0 || cfg->report_path[0] == '\0') {
		snprintf(err, errlen, "--report '%s': give a file name (the "
			 "page is written at the end of the run)",
			 cfg->report_path);
		return -1;
	}
	if (cfg->json_path != NULL && strcmp(cfg->json_path, "-") == 0) {
		snprintf(err, errlen, "--report needs the JSON lines in a "
			 "file, and --json - sends them to standard output: "
			 "give --json FILE, or no --json (then %s.json)",
			 cfg->report_path);
		return -1;
	}
	if (cfg->json_path == NULL) {
		size_t len = strlen(cfg->report_path) + sizeof(".json");
		cfg->json_path = xmalloc(len);
		snprintf(cfg->json_path, len, "%s.json", cfg->report_path);
	}
	return 0;
}

int
config_validate(struct config *cfg, char *err, size_t errlen)
{
	int r = config_validate_inner(cfg, err, errlen);
	if (r < 0)
		config_clean_err(err, errlen);
	return r;
}

/* A size the message pool must hold, against what this machine can
 * spare (memlimit.h): a usage error naming the option, not an abort in
 * xmalloc after minutes of swapping. */
static int
config_check_pool_size(const struct config *cfg, const char *opt,
		       uint64_t size, char *err, size_t errlen)
{
	uint64_t need = msg_pool_peak(size);
	if (size == 0 || need <= cfg->mem_budget)
		return 0;
	char sz[32], nd[32], bud[32], most[32];
	units_fmt_size(sz, sizeof(sz), size);
	units_fmt_size(nd, sizeof(nd), need);
	units_fmt_size(bud, sizeof(bud), cfg->mem_budget);
	units_fmt_size(most, sizeof(most), cfg->mem_budget / msg_pool_peak(1));
	snprintf(err, errlen, "%s%s: the message pool would need up to %s, more "
		 "than this machine can spare (%s: a quarter of its memory, or "
		 "half the ulimit -v/-d); at most %s here", opt, sz, nd, bud,
		 most);
	return -1;
}

/* The pool holds at least MSG_POOL_MIN_COUNT messages of each bucket,
 * so the buckets' sizes summed must fit as --msg-size's mean does. */
int
config_msg_sizes_fit(const struct config *cfg, const struct msg_sizes *s,
		     const char *what, char *err, size_t errlen)
{
	char opt[256];
	uint64_t sum = 0;

	for (unsigned b = 0; b < s->n; b++)
		sum += s->size[b];
	snprintf(opt, sizeof(opt), "%s, its buckets' sizes summed, ", what);
	return config_check_pool_size(cfg, opt, sum, err, errlen);
}

/* --msg-sizes replaces the generator, so a pool from elsewhere
 * conflicts. */
static int
config_check_msg_sizes(const struct config *cfg, char *err, size_t errlen)
{
	if (cfg->msg_sizes.n == 0)
		return 0;
	if (cfg->mbox_path != NULL || cfg->random_msg_size > 0) {
		snprintf(err, errlen, "--msg-sizes: not with %s (the messages "
			 "come from one source)", cfg->mbox_path != NULL ?
			 "mbox=" : "random_msg_size=");
		return -1;
	}
	return config_msg_sizes_fit(cfg, &cfg->msg_sizes, "--msg-sizes", err,
				    errlen);
}

static int
config_validate_inner(struct config *cfg, char *err, size_t errlen)
{
	if (config_check_login_env(cfg, err, errlen) < 0)
		return -1;
	if (config_check_pool_size(cfg, "--msg-size ", cfg->msg_size_mean,
				   err, errlen) < 0 ||
	    config_check_pool_size(cfg, "random_msg_size=", cfg->random_msg_size,
				   err, errlen) < 0 ||
	    config_check_msg_sizes(cfg, err, errlen) < 0)
		return -1;
	if (cfg->rawlog) {
		struct stat st;
		if (stat(cfg->rawlog_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    access(cfg->rawlog_dir, W_OK) != 0) {
			snprintf(err, errlen, "--rawlog-dir %s: not a writable "
				 "directory", cfg->rawlog_dir);
			return -1;
		}
	}
	if (cfg->profile_check && cfg->profile_path == NULL) {
		snprintf(err, errlen, "--profile-check: needs --profile FILE");
		return -1;
	}
	if (cfg->profile_users > 0 && cfg->profile_path == NULL) {
		snprintf(err, errlen, "--profile-users: needs --profile FILE");
		return -1;
	}
	/* imaptest silently disables COPY when there is nowhere to copy to;
	 * pasted command lines rely on that. */
	if (cfg->copybox == NULL) {
		cfg->states[OP_COPY].prob = 0;
		cfg->states[OP_MOVE].prob = 0;
	}
	if (cfg->clients == 0) {
		snprintf(err, errlen, "clients=0: must be at least 1");
		return -1;
	}
	if (resolve_mech(cfg, err, errlen) < 0)
		return -1;
	split_login_chance(cfg);
	if (cfg->tls == TLS_NONE) {
		/* A profile's submission_tls uses them too: checked once the
		 * profile is read (profile_submit_cli). */
		bool sub = cfg->profile_path != NULL;
		const char *what = cfg->tls_insecure && !sub ? "--insecure"
			: cfg->ca_file != NULL && !sub ? "--ca-file"
			: cfg->tls_resume ? "--tls-resume" : NULL;
		if (what != NULL) {
			snprintf(err, errlen, "%s needs --tls or --starttls",
				 what);
			return -1;
		}
	}
	/* OpenSSL would read a FIFO or /dev/zero without end. */
	char why[128];
	if (cfg->ca_file != NULL &&
	    infile_check_regular(cfg->ca_file, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--ca-file/ssl_ca_file=%s: %s", cfg->ca_file,
			 why);
		return -1;
	}
	if (cfg->secs > 0 && cfg->warmup_secs >= cfg->secs) {
		snprintf(err, errlen, "--warmup %g: must be shorter than the "
			 "run (%g s)", cfg->warmup_secs, cfg->secs);
		return -1;
	}
	if (cfg->n_sources > CONFIG_MAX_SOURCES) {
		snprintf(err, errlen, "--source: at most %d addresses",
			 CONFIG_MAX_SOURCES);
		return -1;
	}
	if (cfg->users_min > cfg->users_max ||
	    cfg->domains_min > cfg->domains_max) {
		snprintf(err, errlen, "users=/domains=: range start is "
			 "greater than its end");
		return -1;
	}
	if (cfg->pipeline_max < 1 || cfg->pipeline_max > 1000) {
		snprintf(err, errlen, "--pipeline %u: must be between 1 and "
			 "1000", cfg->pipeline_max);
		return -1;
	}
	if (cfg->json_path != NULL && cfg->csv_path != NULL &&
	    strcmp(cfg->json_path, "-") == 0 &&
	    strcmp(cfg->csv_path, "-") == 0) {
		snprintf(err, errlen, "--json - and --csv -: only one of them "
			 "can write to stdout");
		return -1;
	}
	if (config_report_paths(cfg, err, errlen) < 0)
		return -1;
	if (cfg->profile_path != NULL)
		profile_states(cfg);
	/* A bare `compress` is imaptest's COMPRESS state at 100%: every
	 * session compresses right after login.  Not when nothing else
	 * runs: main() then says "nothing to do" (a session that only
	 * compresses would skip COMPRESS for ever once on). */
	if (cfg->compress && cfg->states[OP_COMPRESS].prob == 0 &&
	    plan_has_work(cfg))
		cfg->states[OP_COMPRESS].prob = 100;
	return 0;
}

void
config_free(struct config *cfg)
{
	if (cfg == NULL)
		return;
	char **strs[] = {
		&cfg->host, &cfg->hostip, &cfg->user_template, &cfg->user2,
		&cfg->userfile, &cfg->pass, &cfg->password_file, &cfg->master,
		&cfg->mech, &cfg->ca_file, &cfg->box, &cfg->copybox,
		&cfg->mbox_path, &cfg->rawlog_dir, &cfg->output_path,
		&cfg->json_path, &cfg->csv_path, &cfg->result_path,
		&cfg->report_path,
		&cfg->latency_log, &cfg->args_key, &cfg->hdr_log_path,
		&cfg->metrics_listen, &cfg->profile_path, &cfg->test_path,
		&cfg->profile_counts, &cfg->submission_host,
		&cfg->submission_auth, &cfg->submission_tls, &cfg->lmtp_host,
		&cfg->pop3_host, &cfg->pop3_auth,
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	for (unsigned i = 0; i < cfg->n_sources && i < CONFIG_MAX_SOURCES; i++)
		free(cfg->sources[i]);
	cfg->n_sources = 0;
}

int
config_port(const struct config *cfg)
{
	if (cfg->port != 0)
		return cfg->port;
	return cfg->tls == TLS_IMPLICIT ? 993 : 143;
}
