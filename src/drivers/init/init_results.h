/* init_results.h: what `imapstress init` found and did, per user, and its
 * running totals.  The init driver's connections write a user's slot
 * (only the connection owning that user at the time) and the totals
 * (atomics); the main thread reads the totals while the run runs (the
 * progress line) and everything after the workers are joined (the check,
 * init_report.h). */
#ifndef IMAPSTRESS_INIT_RESULTS_H
#define IMAPSTRESS_INIT_RESULTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

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
	bool trim;			/* --trim was given */
	_Atomic uint64_t trimmed;	/* --trim: untagged EXPUNGEs of its
					 * EXPUNGE commands */
};

void init_results_init(struct init_results *r, unsigned n_users,
		       unsigned n_folders);
void init_results_free(struct init_results *r);

#endif
