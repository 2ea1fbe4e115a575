/* users.h: profile mode's user driver.  The users of an expanded profile
 * (profile.h) live their mail day on the worker threads: each user and its
 * LMTP deliveries belong to one worker (user i to worker i % workers), and
 * so do the connection slots that serve it (slot s to worker s % workers:
 * clients= of them, or every user's connections), so nothing about a user
 * is shared between threads.
 *
 * main() builds it, starts the workers with users_driver() instead of the
 * stress mix, runs the usual report loop, then (workers joined) writes
 * what the run claims the server now holds (users_write_counts). */
#ifndef IMAPSTRESS_USERS_H
#define IMAPSTRESS_USERS_H

#include <stddef.h>

struct config;
struct derived;
struct profile;
struct users;
struct driver;

/* NULL with a message in err when the profile cannot be run. */
struct users *users_new(const struct config *cfg, const struct profile *p,
			char *err, size_t errlen);
/* How many workers the run has (before any is made). */
void users_set_workers(struct users *r, unsigned n_workers);
/* What profile mode works out from its users, into d (after
 * derived_init): the connections of the whole run; with LoadSim keys the
 * STATUS column of clean inbox and the score's action weights (its
 * score_weight_* keys, else score_action_defaults()).  The state table
 * itself is config_validate's (--profile). */
void users_derive(const struct users *r, struct derived *d);
void users_free(struct users *r);		/* NULL is a no-op */

const struct driver *users_driver(struct users *r);
/* Connection slots of the run: clients= (this shard's part), or every
 * user's connection_max_count without it. */
unsigned users_conn_count(const struct users *r);
/* This shard's users are the plan's [users_first, + users_count). */
unsigned users_first(const struct users *r);
unsigned users_count(const struct users *r);

/* --profile-counts FILE: per user and folder, what the run delivered,
 * appended, moved and expunged with the server's confirmation, as JSON.
 * 0, or -1 with a message in err. */
int users_write_counts(const struct users *r, const char *path, char *err,
		       size_t errlen);
/* One stderr summary line of the totals (until the report carries them). */
void users_log_totals(const struct users *r);

#endif
