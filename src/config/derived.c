/* derived.c: see derived.h. */
#include <string.h>

#include "config/derived.h"

void
derived_init(struct derived *d, const struct config *cfg, bool color)
{
	memset(d, 0, sizeof(*d));
	d->clients = cfg->clients;
	memcpy(d->states, cfg->states, sizeof(d->states));
	/* Show the ChkP column when checkpoints run. */
	if (cfg->checkpoint_secs > 0)
		d->states[OP_CHECKPOINT].prob = 100;
	d->msg_size_mean = cfg->msg_size_mean;
	d->msg_sizes = cfg->msg_sizes;
	d->color = color;
}
