/* script_net.h: `imapstress test=PATH` (STOPGAP driver, script_net.c).
 * Runs every test under PATH against cfg's server, prints one line per
 * test and the totals, writes --json, and returns the exit status: 0 when
 * no test failed, 1 when one did, 2 for a malformed test file or option. */
#ifndef IMAPSTRESS_SCRIPT_NET_H
#define IMAPSTRESS_SCRIPT_NET_H

struct config;

int script_net_main(const struct config *cfg);

#endif
