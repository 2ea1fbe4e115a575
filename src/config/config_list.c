/* config_list.c: the option table as lists of names, for the generated
 * bash completion (tools/gen_completion.c), so the completion is made from
 * the same rows argv is parsed with and cannot drift from them. */
#include <string.h>

#include "config/config_int.h"

static int
val_of(const struct opt *o)
{
	return o->arg == ARG_NONE ? CONFIG_VAL_NONE :
	    o->arg == ARG_REQ ? CONFIG_VAL_REQ : CONFIG_VAL_OPT;
}

void
config_each_name(config_name_fn fn, void *arg)
{
	for (size_t i = 0; i < config_n_opts; i++) {
		const struct opt *o = &config_opts[i];
		int v = val_of(o);
		if (o->lng != NULL)
			fn(CONFIG_NAME_LONG, o->lng, v, arg);
		if (o->word != NULL)
			fn(CONFIG_NAME_WORD, o->word, v, arg);
	}
	for (size_t i = 0; i < config_n_opt_aliases; i++)
		for (size_t k = 0; k < config_n_opts; k++)
			if (config_opts[k].lng != NULL &&
			    strcmp(config_opts[k].lng, config_opt_aliases[i].lng) == 0)
				fn(CONFIG_NAME_LONG, config_opt_aliases[i].alias,
				   val_of(&config_opts[k]), arg);
}
