/* profile_cli.h: what main() does first with profile=FILE / --profile FILE. */
#ifndef IMAPSTRESS_PROFILE_CLI_H
#define IMAPSTRESS_PROFILE_CLI_H

#include "config/config.h"

struct profile;

/* Load, validate and expand the profile.  With --profile-check, print the
 * plan on stdout and return 0 (*run NULL).  Otherwise *run is the
 * expanded profile for the user driver (the caller frees it), and 0.  Any
 * error in the file: one line on stderr, 2, *run NULL. */
int profile_cli(const struct config *cfg, struct profile **run);

#endif
