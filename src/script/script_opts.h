/* script_opts.h: the run options a scripted test refuses (shards, a
 * user= template with '%'), checked before anything is loaded or
 * connects (whichever loop runs the tests). */
#ifndef IMAPSTRESS_SCRIPT_OPTS_H
#define IMAPSTRESS_SCRIPT_OPTS_H

#include <stddef.h>

struct config;

/* 0, or -1 with a message naming the option (or the launcher's
 * variables) in err: a usage error, exit 2. */
int script_check_options(const struct config *cfg, char *err, size_t errlen);

#endif
