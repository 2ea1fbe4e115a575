/* config_int.h: private between config.c (the argv driver, defaults and
 * checks), config_value.c (the shared value parsers and error format) and
 * config_opts.c with the handlers' files (the option table, its handlers
 * and --help).  No other module includes this; they use config.h. */
#ifndef IMAPSTRESS_CONFIG_INT_H
#define IMAPSTRESS_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

struct pctx {
	struct config *cfg;
	char *err;
	size_t errlen;
	const char *name;	/* "clients", "--clients" or "-c" */
	const char *val;	/* NULL when none was given */
	const char *sep;	/* between name and value as typed */
};

enum arg_kind {
	ARG_NONE,	/* flag */
	ARG_REQ,	/* needs a value */
	ARG_REQ_EMPTY,	/* needs a value, which may be empty (pass=) */
	ARG_OPT		/* imaptest's `ssl` and `ssl=any-cert` */
};

struct opt;
typedef int (*opt_fn)(struct pctx *c, const struct opt *o);

struct opt {
	const char *word;	/* imaptest word, or NULL */
	const char *lng;	/* long option without "--", or NULL */
	char shrt;		/* short option letter, or 0 */
	enum arg_kind arg;
	opt_fn fn;
	size_t off;		/* field for the generic handlers */
	uint64_t min, max;	/* limits for the generic handlers */
};

/* A second long name for a row whose long option is spelled unlike its
 * imaptest word (--box for --mailbox); both reach the one row. */
struct opt_alias {
	const char *alias;	/* without "--" */
	const char *lng;	/* the row's lng */
};

/* config_opts.c */
extern const struct opt config_opts[];
extern const size_t config_n_opts;
extern const struct opt_alias config_opt_aliases[];
extern const size_t config_n_opt_aliases;

/* config_value.c (a leaf: the handlers and config.c call down into it):
 * every failure goes through config_fail so that each message reads
 * "<word as typed>: <problem>" on one line; it returns -1. */
void config_clean_err(char *err, size_t errlen);
int config_fail(struct pctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void config_set_str(char **dst, const char *val);
int config_parse_decimal(struct pctx *c, double *out);
int config_parse_uint(struct pctx *c, const char *s, uint64_t min,
		      uint64_t max, uint64_t *out);
int config_parse_size(struct pctx *c, const struct opt *o, uint64_t *out);
int config_parse_dur(struct pctx *c, const char *s, bool positive,
		     double *out);
int config_state_set(struct pctx *c, int op, const char *val);

/* config_measure.c: --sla, --score-weights, --server-pid */
int config_h_sla(struct pctx *c, const struct opt *o);
int config_h_score_weights(struct pctx *c, const struct opt *o);
int config_h_server_pid(struct pctx *c, const struct opt *o);

/* config_login.c: user=, user2=, master=, pass=, --password-file; and
 * the defaults from $USER and $IMAPSTRESS_PASSWORD (config_validate). */
int config_h_user(struct pctx *c, const struct opt *o);
int config_h_user2(struct pctx *c, const struct opt *o);
int config_h_master(struct pctx *c, const struct opt *o);
int config_h_pass(struct pctx *c, const struct opt *o);
int config_h_password_file(struct pctx *c, const struct opt *o);
int config_check_login_env(const struct config *cfg, char *err,
			   size_t errlen);

/* config_shard.c: --shard, --start-at, and the args key (config.h) */
int config_h_shard(struct pctx *c, const struct opt *o);
int config_h_start_at(struct pctx *c, const struct opt *o);
/* Called for every option and word that config_parse accepted. */
void config_key_note(struct config *cfg, const char *name, const char *val);

#endif
