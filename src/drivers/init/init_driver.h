/* init_driver.h: `imapstress init` as a driver of the runner
 * (run/driver.h): clients= connections spread over the run's workers,
 * each taking the next user from one queue shared by all of them, so a
 * slow mailbox never holds up the others, and filling that user's mailbox
 * (init_user.c).  The work is finite (driver.finite): a connection that
 * finds the queue empty finishes, and the run ends once they all have.
 * A stop (the runner's: a signal) takes no new user; a drain lets what is
 * in flight be answered, then logs out; a halt closes. */
#ifndef IMAPSTRESS_INIT_DRIVER_H
#define IMAPSTRESS_INIT_DRIVER_H

#include <stdbool.h>

struct config;
struct driver;
struct init_driver;
struct init_results;
struct init_spec;
struct shared;

/* What a run of init is about; everything outlives the driver. */
struct init_job {
	const struct config *cfg;
	const struct shared *sh;	/* its n_workers: the run's workers */
	const struct init_spec *spec;
	struct init_results *res;	/* the users, filled in as they go */
	bool check_only;		/* --check: STATUS, nothing else */
	bool multiappend;		/* when offered (not --no-multiappend) */
	bool trim;			/* --trim: remove our own mail past the
					 * table first */
};

struct init_driver *init_driver_new(const struct init_job *job);
const struct driver *init_driver_driver(struct init_driver *d);
/* After the workers are freed.  NULL is a no-op. */
void init_driver_free(struct init_driver *d);

#endif
