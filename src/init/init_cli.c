/* init_cli.c: `imapstress init [INIT OPTIONS] [RUN OPTIONS]`.  init's own
 * options (the table) are taken out of argv here; the rest is the run's
 * usual configuration (host=, port=, user=, users=, userfile=, pass=,
 * clients=, procs=, --tls, --msg-size, --profile, --json, ...), parsed by
 * config_parse as for a stress run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/derived.h"
#include "init/init.h"
#include "init/init_report.h"
#include "drivers/init/init_spec.h"
#include "util/escape.h"
#include "util/log.h"
#include "profile/profile.h"
#include "run/setup.h"
#include "conn/shared.h"
#include "config/shard.h"
#include "util/units.h"
#include "config/user_template.h"
#include "config/userfile.h"
#include "util/xmalloc.h"

static const char usage[] =
"usage: imapstress init [--inbox N] [--deleted N] [--deleted-folder NAME]\n"
"         [--folders N] [--folder-messages N] [--folder-prefix NAME]\n"
"         [--calendar N] [--contacts N] [--init-parallel N] [--check]\n"
"         [--no-multiappend] [--trim]\n"
"         [--profile FILE [--profile-users N]] [--msg-size SIZE] [--json FILE]\n"
"         host=H port=P user=TEMPLATE users=A-B | userfile=F [pass=P] ...\n"
"With --profile the users are the profile run's: total_user_count of them,\n"
"or --profile-users N.\n"
"Creates in every user's mailbox the folders and messages asked for (by\n"
"default LoadSim's: INBOX 100, \"Deleted Items\" 1, Folder01..10 of 10, a\n"
"75 KB mean), adding only what is missing (with --trim, first removing\n"
"imapstress's own mail past the table); exit 0 when every folder holds\n"
"it, 1 when some do not (named), 2 on a usage error.  See man imapstress.\n";

enum { T_UINT, T_NAME, T_PARALLEL, T_CHECK, T_NO_MULTI, T_TRIM };

struct init_opt {
	const char *name;
	int kind;
	size_t off;		/* in struct init_table */
	unsigned max;
};

#define TO(f) offsetof(struct init_table, f)
static const struct init_opt init_opts_table[] = {
	{ "inbox", T_UINT, TO(inbox), 1000000 },
	{ "deleted", T_UINT, TO(deleted), 1000000 },
	{ "deleted-folder", T_NAME, TO(deleted_folder), 0 },
	{ "folders", T_UINT, TO(new_folders), 1000 },
	{ "folder-messages", T_UINT, TO(folder_messages), 1000000 },
	{ "folder-prefix", T_NAME, TO(folder_prefix), 0 },
	{ "calendar", T_UINT, TO(calendar), 1000000 },
	{ "contacts", T_UINT, TO(contacts), 1000000 },
	{ "init-parallel", T_PARALLEL, 0, 1000000 },
	{ "check", T_CHECK, 0, 0 },
	{ "no-multiappend", T_NO_MULTI, 0, 0 },
	{ "trim", T_TRIM, 0, 0 },
	{ NULL, 0, 0, 0 }
};

/* Options given, applied over the profile's keys once it is read. */
struct given {
	struct init_table t;
	unsigned set;		/* bit per init_opts_table row */
	unsigned parallel;
	bool check_only;
	bool no_multiappend;
	bool trim;
	bool msg_size;		/* --msg-size was on the command line */
};

static int
usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "imapstress: init: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, " (imapstress init --help)\n");
	return -1;
}

/* Take init's options out of argv (kept in order for config_parse). */
static int
take_options(int *argc, char **argv, struct given *g)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 1;
		}
		if (strcmp(a, "--msg-size") == 0 || strncmp(a, "--msg-size=", 11) == 0)
			g->msg_size = true;
		const struct init_opt *o = NULL;
		const char *val = NULL;
		for (unsigned k = 0; a[0] == '-' && a[1] == '-' &&
		     init_opts_table[k].name != NULL; k++) {
			size_t n = strlen(init_opts_table[k].name);
			if (strncmp(a + 2, init_opts_table[k].name, n) != 0 ||
			    (a[2 + n] != '\0' && a[2 + n] != '='))
				continue;
			o = &init_opts_table[k];
			if (a[2 + n] == '=')
				val = a + 3 + n;
			g->set |= 1u << k;
			break;
		}
		if (o == NULL) {
			argv[out++] = argv[i];
			continue;
		}
		if (o->kind == T_CHECK || o->kind == T_NO_MULTI ||
		    o->kind == T_TRIM) {
			if (val != NULL)
				return usage_error("--%s takes no value%s", o->name, "");
			*(o->kind == T_CHECK ? &g->check_only
			  : o->kind == T_TRIM ? &g->trim
					      : &g->no_multiappend) = true;
			continue;
		}
		if (val == NULL) {
			if (i + 1 >= *argc)
				return usage_error("--%s needs a value%s", o->name, "");
			val = argv[++i];
		}
		const char *why = NULL;
		uint64_t u;
		if (o->kind == T_NAME) {
			char *dst = (char *)&g->t + o->off;
			if (profile_loadsim_folder_name(val, dst, &why) < 0)
				return usage_error("--%s: %s", o->name, why);
			continue;
		}
		if (units_parse_uint(val, o->kind == T_PARALLEL ? 1 : 0, o->max,
				     &u, &why) < 0)
			return usage_error("--%s: %s", o->name, why);
		if (o->kind == T_PARALLEL)
			g->parallel = (unsigned)u;
		else
			*(unsigned *)(void *)((char *)&g->t + o->off) = (unsigned)u;
	}
	if (g->trim && g->check_only)
		return usage_error("--trim with --check: --check changes "
				   "nothing%s%s", "", "");
	argv[out] = NULL;
	*argc = out;
	return 0;
}

/* The table: the seed's, then the profile's init_* keys, then options. */
static int
build_table(const struct config *cfg, const struct given *g,
	    struct init_table *t)
{
	init_table_defaults(t);
	if (cfg->profile_path != NULL) {
		char err[1024];
		struct profile *p = profile_load(cfg->profile_path, err,
						 sizeof(err));
		if (p == NULL) {
			fprintf(stderr, "imapstress: profile %s\n", err);
			return -1;
		}
		init_table_from_profile(t, &p->loadsim.init);
		profile_free(p);
	}
	for (unsigned k = 0; init_opts_table[k].name != NULL; k++) {
		const struct init_opt *o = &init_opts_table[k];
		/* Only the table's own rows: a flag's offset 0 is not a
		 * field of it (--no-multiappend once set INBOX to 0). */
		if (!(g->set & (1u << k)) ||
		    (o->kind != T_UINT && o->kind != T_NAME))
			continue;
		size_t len = o->kind == T_NAME ? INIT_NAME_MAX + 1 : sizeof(unsigned);
		memcpy((char *)t + o->off, (const char *)&g->t + o->off, len);
	}
	if (g->msg_size)
		t->msg_size = cfg->msg_size_mean;
	return 0;
}

/* %d/%i conversions in the user= template (%% is not one). */
static unsigned
template_fields(const char *t)
{
	unsigned n = 0;

	for (const char *p = t; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		n++;
	}
	return n;
}

/* Every user once: the userfile's lines, or each user number (times each
 * domain number when the template has a second field). */
static unsigned
user_names(const struct config *cfg, const struct shared *sh,
	   struct init_results *res, bool fill)
{
	if (sh->users != NULL) {
		for (unsigned i = 0; fill && i < sh->users->n; i++)
			res->names[i] = xstrdup(sh->users->e[i].user);
		return sh->users->n;
	}
	unsigned span = cfg->users_max - cfg->users_min + 1;
	unsigned doms = template_fields(cfg->user_template) >= 2
	    ? cfg->domains_max - cfg->domains_min + 1 : 1;
	for (unsigned d = 0; fill && d < doms; d++)
		for (unsigned u = 0; u < span; u++) {
			char name[256];
			user_template_fill(cfg->user_template, cfg->users_min + u,
					   cfg->domains_min + d, name, sizeof(name));
			res->names[(size_t)d * span + u] = xstrdup(name);
		}
	return span * doms;
}

/* --profile FILE: the users a profile run plays (its username_format or
 * userfile, per block; --profile-users N of them, else the file's
 * total_user_count), so that `init` fills exactly the mailboxes that run
 * will use (before, without --profile-users, init filled users= 1-100
 * instead: 99 mailboxes no profile run reads).  The count, or 0 after a
 * message. */
static unsigned
profile_user_names(const struct config *cfg, struct init_results *res,
		   unsigned n_folders)
{
	char err[1024];
	struct profile *p = profile_load(cfg->profile_path, err, sizeof(err));

	unsigned lo, hi;

	if (p != NULL && cfg->profile_users > 0)
		p->total_users = cfg->profile_users;
	if (p == NULL || profile_expand(p, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: profile %s\n", err);
		profile_free(p);
		return 0;
	}
	if (profile_shard(p, cfg->shard_index, cfg->shard_count, &lo, &hi,
			  err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: init: %s\n", err);
		profile_free(p);
		return 0;
	}
	init_results_init(res, hi - lo, n_folders);
	res->pass = xcalloc(hi - lo, sizeof(*res->pass));
	for (unsigned i = lo; i < hi; i++) {
		res->names[i - lo] = xstrdup(p->u[i].name);
		if (p->u[i].pass != NULL)
			res->pass[i - lo] = xstrdup(p->u[i].pass);
	}
	profile_free(p);
	return hi - lo;
}

int
init_main(int argc, char **argv)
{
	struct given g;
	struct config cfg;
	char err[1024];

	memset(&g, 0, sizeof(g));
	int taken = take_options(&argc, argv, &g);
	if (taken != 0)
		return taken > 0 ? (fflush(stdout) == 0 ? 0 : 1) : 2;
	argv[0] = (char *)"imapstress";
	config_defaults(&cfg);
	int r = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (r == 1) {
		config_free(&cfg);
		return 0;
	}
	if (g.parallel > 0)
		cfg.clients = g.parallel;
	/* A shard fills its slice of the users, as a stress shard plays
	 * it: users= and a userfile as stress slices them (shard_setup,
	 * shared_new), a profile's users by profile_shard. */
	if (r < 0 || config_validate(&cfg, err, sizeof(err)) < 0 ||
	    shard_setup(&cfg, shard_getenv, err, sizeof(err)) < 0) {
		config_free(&cfg);
		fprintf(stderr, "imapstress: %s\n", err);
		return 2;
	}
	/* init fills folders from the generator's mix around its table's
	 * mean, each message drawn alike: a distribution would be ignored. */
	if (cfg.msg_sizes.n > 0) {
		config_free(&cfg);
		(void)usage_error("--msg-sizes: not for init (its sizes come "
				  "from --msg-size, the mean)%s%s", "", "");
		return 2;
	}
	struct init_table t;
	struct init_spec spec;
	if (build_table(&cfg, &g, &t) < 0) {
		config_free(&cfg);
		return 2;
	}
	if (init_spec_build(&spec, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: init: %s\n", err);
		config_free(&cfg);
		return 2;
	}
	/* The pool is the generator's size mix around the table's mean;
	 * APPEND must be "on" for setup to build it at that size. */
	struct derived dv;
	derived_init(&dv, &cfg, false);
	dv.msg_size_mean = t.msg_size;
	dv.states[OP_APPEND].prob = 100;
	struct shared *sh = shared_new(&cfg, &dv);
	struct init_results res;
	if (cfg.profile_path != NULL) {
		if (profile_user_names(&cfg, &res, spec.n) == 0) {
			init_spec_free(&spec);
			shared_free(sh);
			config_free(&cfg);
			return 2;
		}
	} else {
		init_results_init(&res, user_names(&cfg, sh, NULL, false),
				  spec.n);
		user_names(&cfg, sh, &res, true);
	}
	if (cfg.shard_count > 1 && res.n_users > 0) {
		/* Names from a userfile may hold anything: never raw. */
		char a[128], b[128];
		escape_text(a, sizeof(a), res.names[0], strlen(res.names[0]));
		escape_text(b, sizeof(b), res.names[res.n_users - 1],
			    strlen(res.names[res.n_users - 1]));
		log_info("init: shard %u/%u (from %s): users %s .. %s",
			 cfg.shard_index, cfg.shard_count, cfg.shard_from, a, b);
	}
	log_info("init: %u users, %u folders and %llu messages each (mean "
		 "%llu octets), %u connections", res.n_users, spec.n,
		 (unsigned long long)spec.msgs_per_user,
		 (unsigned long long)spec.msg_size, cfg.clients);
	struct init_opts o = {
		.check_only = g.check_only,
		.no_multiappend = g.no_multiappend,
		.trim = g.trim,
		.json_path = cfg.json_path,
		.max_lines = 50,
	};
	int status = init_run(&cfg, sh, &spec, &res, &o);
	init_results_free(&res);
	init_spec_free(&spec);
	shared_free(sh);
	config_free(&cfg);
	return status;
}
