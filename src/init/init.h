/* init.h: `imapstress init`, the mailbox initialization before a run
 * (LoadSim's first step): per user, the folders and messages of the init
 * table (init_spec.h), added only where missing, then checked. */
#ifndef IMAPSTRESS_INIT_H
#define IMAPSTRESS_INIT_H

#include <stdbool.h>

struct config;
struct init_results;
struct init_spec;
struct shared;

struct init_opts {
	bool check_only;	/* --check: STATUS and report, change nothing */
	bool no_multiappend;	/* --no-multiappend: one message per APPEND */
	bool trim;		/* --trim: our own mail past the table goes */
	const char *json_path;	/* --json FILE: the summary object */
	unsigned max_lines;	/* problem lines shown before "... and N more" */
};

/* argv[0] is "init".  Exit status: 0 all users hold the table, 1 some do
 * not (or output failed), 2 usage error. */
int init_main(int argc, char **argv);

/* The run itself (init_run.c), after init_main() has parsed everything. */
int init_run(const struct config *cfg, const struct shared *sh,
	     const struct init_spec *spec, struct init_results *res,
	     const struct init_opts *o);

#endif
