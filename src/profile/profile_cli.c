/* profile_cli.c: profile=FILE at startup: the file is parsed and checked
 * now, so a profile can be written and validated before the driver that
 * plays it exists. */
#include <stdio.h>
#include <string.h>

#include "escape.h"

#include "profile/profile.h"
#include "profile/profile_cli.h"

int
profile_cli(const struct config *cfg)
{
	char err[1024];
	struct profile *p = profile_load(cfg->profile_path, err, sizeof(err));

	/* Without seed= the plan is still the same on every check, so the
	 * output can be compared between two edits of a file. */
	if (p == NULL || profile_expand(p, cfg->have_seed ? cfg->seed : 0, err,
					sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: profile %s\n", err);
		profile_free(p);
		return 2;
	}
	if (cfg->profile_check) {
		profile_print_plan(p, stdout);
		profile_free(p);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	char path[512];
	escape_text(path, sizeof(path), cfg->profile_path,
		    strlen(cfg->profile_path));
	fprintf(stderr, "imapstress: profile %s is valid, but profile mode's "
		"user driver is not built yet (--profile-check prints the "
		"plan)\n", path);
	profile_free(p);
	return 2;
}
