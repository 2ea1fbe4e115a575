/* derived.h: what a run works out from its options once they are valid,
 * kept apart from struct config so that the config says only what was
 * asked for and is read-only from config_validate() on.
 *
 * Each mode builds one struct derived before anything runs (main.c for
 * stress and profile mode, init_cli.c, merge.c) and hands it out const:
 * derived_init() gives the config's own figures, then the mode fills in
 * what only it knows (profile mode: users_derive() in src/users/; init:
 * its table's message size; merge: the first shard's recorded states). */
#ifndef IMAPSTRESS_DERIVED_H
#define IMAPSTRESS_DERIVED_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

struct derived {
	/* Connections the run opens: clients=, or every profile user's
	 * connection_max_count (users_conn_count). */
	unsigned clients;
	/* The states as the report shows them (a column per state above
	 * 0%) and result files record them: the config's, plus ChkP when
	 * checkpoints run (after LOGOUT, so the plan never walks it), STATUS
	 * for a LoadSim profile that cleans its inbox, APPEND in init. */
	struct state_prob states[OP_COUNT];
	/* The message pool's generator mean (--msg-size; init: its table's) */
	uint64_t msg_size_mean;
	/* The pool's size distribution: --msg-sizes, else a profile's
	 * msg_sizes key (users_derive); .n == 0: none. */
	struct msg_sizes msg_sizes;
	bool color;		/* bold latency line: stdout is a terminal */
	/* Profile mode with LoadSim keys: the score is over actions
	 * (actions.h's enum action) with these weights, from the profile's
	 * score_weight_* or score_action_defaults() (users_derive). */
	double act_weights[CONFIG_ACT_WEIGHTS];
	bool act_weights_set;
};

/* The figures of a validated config on its own; color as given (main
 * passes isatty(stdout)). */
void derived_init(struct derived *d, const struct config *cfg, bool color);

#endif
