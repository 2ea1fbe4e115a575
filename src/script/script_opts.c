/* script_opts.c: see script_opts.h.  A shard plays a slice of the users;
 * a scripted test has no users to slice (its user= and user2= are the
 * whole test), so N shards would run every test N times against the same
 * mailboxes and fail each other's expectations.  Refused by name rather
 * than run wrong.
 *
 * A user= template with '%' likewise: every connection of a test logs in
 * as user= itself (unless a "user N:" line names another), and imaptest
 * refuses a '%' in it with test= ("Don't use % in username with tests",
 * its imaptest.c), where we would log in as "u%d" to the letter. */
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
	if (strchr(cfg->user_template, '%') != NULL) {
		snprintf(err, errlen, "user=%s: scripted tests (test=) log in as "
			 "user= itself, without %%d or %%i (imaptest refuses '%%' "
			 "in it with tests too); give one user, and user2= or "
			 "'user N:' lines for others", cfg->user_template);
		return -1;
	}
	return 0;
}
