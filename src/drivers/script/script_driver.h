/* script_driver.h: `imapstress test=PATH` as a driver of the runner
 * (run/driver.h).  The tests of a list run one after another, each a
 * state machine (script/script_run.h) over the engine's connections in
 * their raw mode (conn/conn.h, conn_hooks.raw: the script writes its own
 * tags, LOGIN and LOGOUT; the engine keeps TCP, TLS and STARTTLS, the
 * rawlog, the parser's limits, the connect and greeting timeouts and the
 * error kinds).  One worker holds as many connections as the largest
 * test asks for; a test's connections are started when it begins and
 * closed when it ends.  Its work is finite: the run ends after the last
 * test, when the foreign-mail guard refuses (nothing after it runs), or
 * at a signal (the test under way fails, "stopped"). */
#ifndef IMAPSTRESS_SCRIPT_DRIVER_H
#define IMAPSTRESS_SCRIPT_DRIVER_H

#include <stdbool.h>

struct config;
struct driver;
struct script_driver;
struct script_env;
struct script_list;
struct script_report;

/* What a run of tests is about; everything outlives the driver. */
struct script_job {
	const struct config *cfg;
	const struct script_list *list;
	struct script_report *rep;	/* each test's verdict, as it ends */
	const struct script_env *env;
};

struct script_driver *script_driver_new(const struct script_job *job);
const struct driver *script_driver_driver(struct script_driver *d);
/* After the run: the foreign-mail guard refused (its line was said). */
bool script_driver_foreign(const struct script_driver *d);
void script_driver_free(struct script_driver *d);	/* NULL is a no-op */

/* The mode itself (script_mode.c): runs every test under cfg->test_path
 * on the runner, prints one line per test and the totals, writes --json,
 * and returns the exit status: 0 when no test failed, 1 when one did, 2
 * for a malformed test file or option, or a refusal of the guard. */
int script_mode_main(const struct config *cfg);

#endif
