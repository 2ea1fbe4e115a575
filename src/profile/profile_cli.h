/* profile_cli.h: what main() does with profile=FILE / --profile FILE
 * until the profile user driver exists. */
#ifndef IMAPSTRESS_PROFILE_CLI_H
#define IMAPSTRESS_PROFILE_CLI_H

#include "config.h"

/* Load, validate and expand the profile.  With --profile-check, print the
 * plan on stdout and return 0; otherwise say on stderr that profile mode's
 * user driver is not built yet and return 2.  Any error in the file: one
 * line on stderr, 2. */
int profile_cli(const struct config *cfg);

#endif
