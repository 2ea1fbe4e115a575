/* profile_shard.c: a profile run split over shards (--shard I/N, or a
 * launcher).  Every shard expands the same plan (the same file and seed:
 * the same names and client kinds; shard_locate leaves the seed alone)
 * and plays one contiguous slice of its users, as a stress shard takes a
 * slice of users=: no mailbox is used by two shards, and the slices
 * together are the plan.  A user keeps its number in the plan, so its
 * ramp-up start and its random draws are those of an unsharded run. */
#include <stdio.h>
#include <string.h>

#include "config/shard.h"
#include "profile/profile.h"
#include "util/escape.h"

int
profile_shard(const struct profile *p, unsigned i, unsigned n, unsigned *lo,
	      unsigned *hi, char *err, size_t errlen)
{
	unsigned long long l, h;
	char path[256];

	if (n <= 1) {
		*lo = 0;
		*hi = p->n_u;
		return 0;
	}
	if (p->n_u < n) {
		escape_text(path, sizeof(path), p->path, strlen(p->path));
		snprintf(err, errlen, "profile %s: %u users, fewer than the %u "
			 "shards", path, p->n_u, n);
		return -1;
	}
	shard_slice(p->n_u, i, n, &l, &h);
	*lo = (unsigned)l;
	*hi = (unsigned)h;
	return 0;
}

void
profile_print_shard(const struct profile *p, unsigned i, unsigned n,
		    unsigned lo, unsigned hi, FILE *out)
{
	char name[256];

	fprintf(out, "shard %u/%u: users %u-%u of %u (%u users):\n", i,
		n ? n : 1, lo + 1, hi, p->n_u, hi - lo);
	for (unsigned k = lo; k < hi; k++) {
		const struct profile_user *u = &p->u[k];
		const char *b = p->users[u->block].name;
		const char *c = p->clients[u->client].name;
		/* Names from a userfile may hold anything: never raw. */
		escape_text(name, sizeof(name), u->name, strlen(u->name));
		fprintf(out, "  %s (user %s, client %s)\n", name,
			b[0] ? b : "(unnamed)", c[0] ? c : "(unnamed)");
	}
}
