/* shard.h: one run split over N processes.  Which shard this process is
 * (--shard, or the launcher's environment), its part of the run (a
 * disjoint slice of the users, 1/N of the clients and of the rates, its
 * own seed) and the common start time (--start-at). */
#ifndef IMAPSTRESS_SHARD_H
#define IMAPSTRESS_SHARD_H

#include <stddef.h>

#include "config/config.h"

/* Which shard this process is: cfg->shard_* from --shard, else the
 * environment (through getenv_fn so tests can supply one), checked
 * against --shards; "%i" expanded (shard_expand_paths).  Nothing else of
 * cfg changes: what a mode that slices its own users calls (a profile
 * run: profile_shard; scripted tests, which refuse shards).  Without any
 * shard: 0 of 1.  -1 with a message naming the variable or option. */
int shard_locate(struct config *cfg, const char *(*getenv_fn)(const char *),
		 char *err, size_t errlen);

/* getenv, for shard_locate and shard_setup's getenv_fn. */
const char *shard_getenv(const char *name);

/* shard_locate, then narrows cfg to this shard's part of a stress run or
 * an init (users=, clients, rates, seed; a userfile is sliced once it is
 * loaded).  -1 with a message naming the variable or option on error. */
int shard_setup(struct config *cfg, const char *(*getenv_fn)(const char *),
		char *err, size_t errlen);

/* "%i" in --result, --latency-log and --profile-counts becomes the shard
 * index ("%%" a '%'), so one command line serves every shard
 * (shard_locate does it). */
void shard_expand_paths(struct config *cfg);

/* Shard i of n of the items [0, total): [*lo, *hi).  Every item is in
 * exactly one shard, and the sizes differ by at most one. */
void shard_slice(unsigned long long total, unsigned i, unsigned n,
		 unsigned long long *lo, unsigned long long *hi);

/* Sleep until cfg->start_at (wall clock).  SIGINT/SIGTERM must already be
 * blocked; one arriving during the wait ends the process with status 1.
 * A start time in the past starts at once, with a warning. */
void shard_wait_start(const struct config *cfg);

#endif
