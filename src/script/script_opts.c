/* script_opts.c: see script_opts.h.  A shard plays a slice of the users;
 * a scripted test has no users to slice (its user= and user2= are the
 * whole test), so N shards would run every test N times against the same
 * mailboxes and fail each other's expectations.  Refused by name rather
 * than run wrong. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "script/script_opts.h"

int
script_check_options(const struct config *cfg, char *err, size_t errlen)
{
	if (cfg->shard_count > 1) {
		const char *from = cfg->shard_from != NULL ? cfg->shard_from
		    : "--shard";
		if (strcmp(from, "--shard") == 0)
			snprintf(err, errlen, "--shard %u/%u: scripted tests "
				 "(test=) run as one process, not in shards",
				 cfg->shard_index, cfg->shard_count);
		else
			snprintf(err, errlen, "shard %u/%u (from %s): scripted "
				 "tests (test=) run as one process, not in "
				 "shards", cfg->shard_index, cfg->shard_count,
				 from);
		return -1;
	}
	return 0;
}
