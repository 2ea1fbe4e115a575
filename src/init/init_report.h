/* init_report.h: what `imapstress init` found and did, per user, and the
 * lines it prints about it: the progress line while it runs, the check at
 * the end (every folder of every user against the table), the summary and
 * its --json form.  The workers write a user's slot (only the worker
 * owning that user at the time); the main thread reads the counters while
 * they run and everything after they are joined. */
#ifndef IMAPSTRESS_INIT_REPORT_H
#define IMAPSTRESS_INIT_REPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "init/init_spec.h"

#define INIT_HAVE_NONE UINT32_MAX	/* STATUS said NO: no such folder */

enum init_user_state {
	INIT_U_PENDING,		/* not reached, or cut short (SIGTERM) */
	INIT_U_CHECKED,		/* STATUS after the APPENDs: have[] is set */
	INIT_U_FAILED		/* gave up: err says why */
};

struct init_results {
	unsigned n_users, n_folders;
	char **names;			/* the users, in order */
	char **pass;			/* NULL, or per user (NULL = pass=):
					 * the profile's users (--profile-users) */
	uint32_t *have;			/* [user * n_folders + folder] */
	_Atomic unsigned char *state;	/* enum init_user_state */
	char **err;			/* INIT_U_FAILED: the reason */
	/* Running totals, for the progress line and the summary. */
	_Atomic uint64_t users_done;	/* checked or failed */
	_Atomic uint64_t appended, bytes, created;
	_Atomic uint64_t append_cmds;	/* APPEND commands OK'd (MULTIAPPEND:
					 * fewer than messages) */
};

void init_results_init(struct init_results *r, unsigned n_users,
		       unsigned n_folders);
void init_results_free(struct init_results *r);

/* What the progress line shows; rate over the last interval. */
struct init_progress {
	uint64_t users_done, users_total;
	uint64_t appended;
	double msgs_per_sec;
	double elapsed_s;
};
/* "init: 37/200 users, 4521 messages appended (812/s), ETA 0:42"; the ETA
 * from the users' pace so far ("ETA ?" before the first is done). */
void init_progress_format(char *buf, size_t n, const struct init_progress *p);

/* How the users came out of the check. */
struct init_tally {
	unsigned users_ok, users_bad, users_pending, users_failed;
	unsigned folders_fewer, folders_missing, folders_more;
};

/* Print the check's findings: one line per folder that does not hold
 * what was asked and per user that failed or was never reached (at most
 * `max_lines`, then how many more), then the summary line.  The tally
 * says whether all is well (users_bad == 0). */
void init_report(FILE *out, const struct init_spec *s,
		 const struct init_results *r, double secs, unsigned max_lines,
		 struct init_tally *t);

/* The summary as one JSON object on one line: 0, or -1 (errno) when the
 * file cannot be written. */
int init_report_json(const char *path, const struct init_spec *s,
		     const struct init_results *r, const struct init_tally *t,
		     double secs);

#endif
