/* profile_cli.c: profile=FILE at startup: the file is parsed, checked and
 * expanded before anything connects; --profile-check stops there. */
#include <stdio.h>

#include "profile/profile.h"
#include "profile/profile_cli.h"

int
profile_cli(const struct config *cfg, struct profile **run)
{
	char err[1024];
	struct profile *p = profile_load(cfg->profile_path, err, sizeof(err));

	*run = NULL;
	/* --profile-users: the same day for another number of users (what
	 * scripts/capacity steps); the blocks' count= shares still apply. */
	if (p != NULL && cfg->profile_users > 0)
		p->total_users = cfg->profile_users;
	if (p != NULL && cfg->pop3_port > 0)	/* --pop3-port */
		p->pop3_port = cfg->pop3_port;
	/* Without either, the port follows the TLS mode as IMAP's does
	 * (143 or 993): 110, or 995 for POP3S. */
	if (p != NULL && p->pop3_port == 0)
		p->pop3_port = cfg->tls == TLS_IMPLICIT ?
		    PROFILE_POP3S_PORT_DEFAULT : PROFILE_POP3_PORT_DEFAULT;
	if (p != NULL && profile_submit_cli(p, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: profile %s\n", err);
		profile_free(p);
		return 2;
	}
	/* Without seed= the plan is still the same on every check, so the
	 * output can be compared between two edits of a file. */
	if (p == NULL || profile_expand(p, cfg->have_seed ? cfg->seed : 0, err,
					sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: profile %s\n", err);
		profile_free(p);
		return 2;
	}
	/* A shard plays a slice of the plan's users (profile_shard.c). */
	unsigned lo, hi;
	if (profile_shard(p, cfg->shard_index, cfg->shard_count, &lo, &hi,
			  err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: %s\n", err);
		profile_free(p);
		return 2;
	}
	if (cfg->profile_check) {
		profile_print_plan(p, stdout);
		if (cfg->shard_from != NULL)
			profile_print_shard(p, cfg->shard_index,
					    cfg->shard_count, lo, hi, stdout);
		profile_free(p);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	*run = p;		/* the user driver plays it (src/users/) */
	return 0;
}
