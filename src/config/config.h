/* config.h: every knob of a run, in one struct (no globals).
 *
 * Filled by config_parse() from argv, which accepts both imaptest's words
 * (`key=value`, bare flags, `-`, state words `name[=P[,R]]`) and GNU long
 * options (`--clients 100`, `--clients=100`).  Validation errors are written
 * into a caller buffer naming the option and the value; the caller exits 2. */
#ifndef IMAPSTRESS_CONFIG_H
#define IMAPSTRESS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg/msg_sizes.h"
#include "plan/ops.h"

#define CONFIG_ACT_WEIGHTS 32	/* >= ACT_COUNT (score.c asserts it) */

enum tls_mode {
	TLS_NONE,
	TLS_IMPLICIT,	/* `ssl`, --tls: TLS from the first byte */
	TLS_STARTTLS	/* --starttls */
};

enum out_format {
	OUT_TEXT,	/* imaptest's layout (default) */
	OUT_QUIET	/* --quiet: totals only */
};

struct state_prob {
	int prob;	/* 0..100: percent chance the state runs */
	int again;	/* 0..100: percent chance it repeats at once */
};

#define CONFIG_MAX_SLA 16
#define CONFIG_MAX_SOURCES 64

/* --sla 'APPEND.p95<500ms': op (or -1 for "all commands", SLA_OP_SCORE
 * for 'score<1s', the LoadSim score of src/stats/score.h), percentile
 * (e.g. 95.0; 0 means the mean; 100 the max), and the bound in us. */
#define SLA_OP_ALL (-1)
#define SLA_OP_SCORE (-2)
#define CONFIG_MAX_SERVER_PIDS 16
struct sla {
	int op;
	double percentile;
	uint64_t max_us;
	char text[64];		/* as given, for the report */
};

/* How a session logs in (mech=): the LOGIN command, or AUTHENTICATE with
 * one of these SASL mechanisms. */
enum auth_mech {
	MECH_LOGIN,
	MECH_PLAIN,
	MECH_SCRAM_SHA1,
	MECH_SCRAM_SHA256
};

/* The mechanism's IANA name ("SCRAM-SHA-1"). */
const char *config_mech_name(enum auth_mech m);

struct config {
	/* --- connection --- */
	char *host;		/* host=, --host; default "127.0.0.1" */
	char *hostip;		/* hostip=: connect here, TLS name stays host */
	int port;		/* port=, --port; 0 = 143 (993 with implicit TLS) */
	char *sources[CONFIG_MAX_SOURCES]; /* --source a,b,c local addrs */
	unsigned n_sources;
	unsigned clients;	/* clients=, --clients, -c; default 10 */
	bool clients_given;	/* clients= was given (profile mode: the
				 * cap on its connections, as imaptest) */
	unsigned workers;	/* procs=, --workers, -w; 0 = online CPUs */
	double connect_rate;	/* --connect-rate N/s; 0 = imaptest's ramp */

	/* --- authentication --- */
	char *user_template;	/* user=, --user; default $USER; %d/%i = user no */
	unsigned users_min, users_max;	/* users=N or A-B; default 1-99 */
	unsigned domains_min, domains_max; /* domains=; default 1-99 */
	char *user2;		/* user2= (scripted tests; parsed, kept) */
	char *userfile;		/* userfile=, --userfile: user or user:pass lines */
	char *pass;		/* pass=, --password; default "pass" */
	char *password_file;	/* --password-file */
	char *master;		/* master= (imaptest: forces AUTHENTICATE) */
	char *mech;		/* mech=, --mech; default "LOGIN" */
	enum auth_mech mech_id;	/* mech, resolved by config_validate */

	/* --- TLS / compression --- */
	enum tls_mode tls;
	bool tls_insecure;	/* ssl=any-cert, --insecure */
	char *ca_file;		/* ssl_ca_file=, --ca-file */
	bool tls_resume;	/* --tls-resume */
	bool compress;		/* compress, --compress */

	/* --- workload --- */
	char *box;		/* box=, --mailbox; default "INBOX" */
	char *copybox;		/* copybox=; NULL disables COPY/MOVE */
	char *mbox_path;	/* mbox=, --mbox; NULL = built-in generator */
	uint64_t random_msg_size; /* random_msg_size=: uniform 1..S; 0 = off */
	uint64_t msg_size_mean;	/* --msg-size: generator mean; default 4 KiB */
	struct msg_sizes msg_sizes; /* --msg-sizes; .n == 0: not given */
	/* What the message pool may take (memlimit_budget() at
	 * config_defaults; unit tests set their own): config_validate
	 * refuses sizes whose pool would not fit. */
	uint64_t mem_budget;
	unsigned msgs;		/* msgs=, --msgs; default 30 */
	double secs;		/* secs=N, --duration; 0 = until SIGINT */
	double grace_secs;	/* secs=N,F; --grace; default 30 */
	/* --stall-timeout; default 5 s: when the run's time is up, a
	 * connection the server has sent nothing for this long is cut
	 * instead of being given the grace (run ends by secs + 10 s) */
	double stall_timeout;
	bool have_seed;
	unsigned seed;		/* seed=, --seed */
	unsigned checkpoint_secs; /* checkpoint= */
	unsigned stalled_disconnect_timeout; /* stalled_disconnect_timeout= (s) */
	struct state_prob states[OP_COUNT];
	bool random_states;	/* random */
	bool no_pipelining;	/* no_pipelining, --no-pipelining */
	unsigned pipeline_max;	/* --pipeline N; default 10 (imaptest's) */
	bool no_tracking;	/* no_tracking */
	bool disconnect_quit;	/* disconnect_quit */
	bool error_quit;	/* error_quit */
	bool rawlog;		/* rawlog, --rawlog */
	bool send_id;		/* send ID with a session id; --no-id clears */
	char *rawlog_dir;	/* --rawlog-dir; default "." */
	bool own_msgs, own_flags; /* own_msgs, own_flags */
	/* allow_foreign_mail: destroy mail imapstress did not put there
	 * (the foreign-mail guard off, imap/guard.h) */
	bool allow_foreign_mail;
	bool qresync;		/* qresync */
	bool imap4rev2;		/* imap4rev2 (implies qresync) */

	/* --- timeouts and limits (run-time faults, counted) --- */
	double connect_timeout;	/* --connect-timeout; default 10 s */
	double greeting_timeout; /* --greeting-timeout; default 10 s */
	double cmd_timeout;	/* --cmd-timeout; default 60 s */
	size_t max_line;	/* --max-line; default 64 KiB */
	uint64_t max_literal;	/* --max-literal; default 256 MiB */
	/* --track-max: message entries a mailbox view keeps (0 = no bound);
	 * default MBOX_DEFAULT_TRACK.  Not a fault: FETCH answers past it
	 * are counted (untracked_fetches) and said once. */
	unsigned track_max;

	/* --- output --- */
	/* --errors-shown: full error lines printed per error kind, and per
	 * sub-kind of the state errors (default 5); the rest are counted */
	unsigned errors_shown;
	enum out_format format;
	char *output_path;	/* output=: imaptest's per-second TSV */
	char *json_path;	/* --json FILE|- */
	/* --report FILE: the HTML page drawn from the JSON lines at the end
	 * (src/htmlreport/); json_path is FILE.json when not given. */
	char *report_path;
	char *csv_path;		/* --csv FILE|- */
	double tick_percentile;	/* --tick-percentile P; 0 = imaptest's avg */
	double warmup_secs;	/* --warmup */
	double rate;		/* --rate N commands/s (open loop); 0 = closed */
	struct sla slas[CONFIG_MAX_SLA];
	unsigned n_slas;
	/* --score-weights 'FETCH=0.5,SELECT=0.2': the LoadSim score's
	 * weight per command; unset: 1 for each command that ran */
	double score_weights[OP_COUNT];
	bool score_weights_set;
	/* --server-pid PID[,PID]: the server's own counters (src/srv/) */
	int server_pids[CONFIG_MAX_SERVER_PIDS];
	unsigned n_server_pids;
	char *hdr_log_path;	/* --hdr-log FILE: HdrHistogram interval log */
	char *test_path;	/* test=, --test: scripted tests (src/script/) */
	char *metrics_listen;	/* --metrics-listen [HOST:]PORT */
	double metrics_linger_s; /* --metrics-linger T: wait for a last scrape */

	/* --- one of several cooperating processes (shard.c, result*.c) --- */
	unsigned shard_index, shard_count; /* --shard I/N; count 0 = not given */
	unsigned shards;	/* --shards N: the count for an index-only launcher */
	const char *shard_from;	/* where the shard came from, for the report */
	double start_at;	/* --start-at: epoch seconds; 0 = at once */
	char *result_path;	/* --result FILE */
	char *latency_log;	/* --latency-log FILE: every sample (testing) */
	/* The options as parsed, "name=value" each (values %-escaped),
	 * leaving out those that may differ between the shards of one run;
	 * merge refuses result files whose keys differ. */
	char *args_key;

	/* --- profile mode (src/profile/) --- */
	char *profile_path;	/* profile=, --profile FILE: imaptest's format */
	bool profile_check;	/* --profile-check: print the plan and exit */
	/* --profile-users N: play N users, not the file's total_user_count
	 * (scripts/capacity steps it; init takes its users from the profile
	 * with it); 0 = the file's */
	unsigned profile_users;
	char *profile_counts;	/* --profile-counts FILE: what the run claims
				 * each user's folders hold (src/users/) */
	/* --push-timeout: a delivery its IDLE user has not seen by then is
	 * "push missed"; default 30 s (PUSH_TIMEOUT_DEFAULT_S, actions.h) */
	double push_timeout_s;
	/* --push-settle: at the run's end, how long the users' IDLE and
	 * NOTIFY sessions stay up for the deliveries not yet announced
	 * (users_settle.c); not given: PUSH_SETTLE_DEFAULT_S; 0: none */
	double push_settle_s;
	bool push_settle_given;
	/* --submission-host/-port/-auth/-tls/-rcpts and --lmtp-host: the
	 * profile's submission_* and lmtp_host keys (profile_submit.c),
	 * which these override; NULL/0 = the file's */
	char *submission_host;
	unsigned submission_port;
	char *submission_auth;
	char *submission_tls;
	unsigned submission_rcpts;
	char *lmtp_host;
	char *pop3_host;	/* --pop3-host: the profile's pop3_host, overridden */
	char *pop3_auth;	/* --pop3-auth: the profile's pop3_auth, overridden */
	/* --pop3-port: the profile's pop3_port, overridden; 0 = the file's */
	unsigned pop3_port;
};

extern const char imapstress_version[];	/* IMAPSTRESS_VERSION (version.h) */

/* Fill *cfg with the defaults (imaptest's where it has one). */
void config_defaults(struct config *cfg);

/* Parse argv[1..argc-1] on top of the defaults.  Returns 0 on success.
 * On error returns -1 with a one-line message in err naming the word and
 * the value (e.g. "clients=abc: not a number").  Returns 1 when --help or
 * --version was given and printed (caller exits 0). */
int config_parse(struct config *cfg, int argc, char **argv,
		 char *err, size_t errlen);

/* Cross-field checks after parsing (e.g. copy without copybox), and
 * what the options mean for the state table (copy without copybox, the
 * LOGIN/AUTHENTICATE split, a bare `compress`, --profile's states).
 * Same convention as config_parse.  From here on the config is read
 * only (const everywhere); what a run works out from it is in struct
 * derived (derived.h). */
int config_validate(struct config *cfg, char *err, size_t errlen);

/* Free the strings config_parse allocated. */
void config_free(struct config *cfg);

/* The effective port (port= or the TLS-mode default). */
int config_port(const struct config *cfg);

/* --metrics-listen: "PORT", "HOST:PORT" or "[V6]:PORT"; HOST defaults to
 * 127.0.0.1.  Fills host (numeric, without brackets) and port, and
 * *loopback when the address is in 127.0.0.0/8 or ::1; -1 with the problem
 * in err (without the option's name) otherwise. */
int config_parse_listen(const char *s, char *host, size_t hostlen,
			unsigned *port, bool *loopback, char *err, size_t errlen);

/* Every long option (without "--") and imaptest word, with whether it
 * takes a value, for tools that list them (the bash completion). */
enum config_name_kind { CONFIG_NAME_LONG, CONFIG_NAME_WORD };
enum config_val { CONFIG_VAL_NONE, CONFIG_VAL_REQ, CONFIG_VAL_OPT };
typedef void (*config_name_fn)(enum config_name_kind kind, const char *name,
			       int val, void *arg);
void config_each_name(config_name_fn fn, void *arg);

/* Would a pool of these buckets (at least 8 messages each) fit in what
 * this machine can spare?  0, or -1 with a message in err starting with
 * what ("--msg-sizes", "profile F: msg_sizes"). */
int config_msg_sizes_fit(const struct config *cfg, const struct msg_sizes *s,
			 const char *what, char *err, size_t errlen);

/* --push-settle's default: enough for a server's push and a quiet MTA's
 * queue; not --push-timeout, since a settle that long turns what a server
 * never announces (Dovecot 2.3's NOTIFY, now and then its IDLE, until the
 * mailbox's next change) into push missed. */
#define PUSH_SETTLE_DEFAULT_S 5.0

/* --push-settle's bound in seconds, its default resolved. */
double config_push_settle_s(const struct config *cfg);

#endif
