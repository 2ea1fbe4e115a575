/* init_results.c: see init_results.h. */
#include <stdlib.h>
#include <string.h>

#include "drivers/init/init_results.h"
#include "util/xmalloc.h"

void
init_results_init(struct init_results *r, unsigned n_users, unsigned n_folders)
{
	memset(r, 0, sizeof(*r));
	r->n_users = n_users;
	r->n_folders = n_folders;
	r->names = xcalloc(n_users, sizeof(*r->names));
	r->have = xcalloc((size_t)n_users * n_folders, sizeof(*r->have));
	r->state = xcalloc(n_users, sizeof(*r->state));
	r->err = xcalloc(n_users, sizeof(*r->err));
}

void
init_results_free(struct init_results *r)
{
	for (unsigned i = 0; i < r->n_users; i++) {
		free(r->names[i]);
		free(r->err[i]);
		if (r->pass != NULL)
			free(r->pass[i]);
	}
	free(r->pass);
	free(r->names);
	free(r->have);
	free((void *)r->state);
	free(r->err);
	memset(r, 0, sizeof(*r));
}
