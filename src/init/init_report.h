/* init_report.h: the lines `imapstress init` prints about what it found
 * and did (init_results.h): the progress line while it runs, the check at
 * the end (every folder of every user against the table), the summary and
 * its --json form. */
#ifndef IMAPSTRESS_INIT_REPORT_H
#define IMAPSTRESS_INIT_REPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "drivers/init/init_results.h"
#include "drivers/init/init_spec.h"

/* What the progress line shows; rate over the last interval. */
struct init_progress {
	uint64_t users_done, users_total;
	uint64_t appended;
	double msgs_per_sec;
	double elapsed_s;
};
/* "init: 37/200 users, 4521 messages appended (812/s), ETA 0:42"; the ETA
 * from the users' pace so far ("ETA ?" before the first is done). */
void init_progress_format(char *buf, size_t n, const struct init_progress *p);

/* How the users came out of the check. */
struct init_tally {
	unsigned users_ok, users_bad, users_pending, users_failed;
	unsigned folders_fewer, folders_missing, folders_more;
};

/* Print the check's findings: one line per folder that does not hold
 * what was asked and per user that failed or was never reached (at most
 * `max_lines`, then how many more), then the summary line.  The tally
 * says whether all is well (users_bad == 0). */
void init_report(FILE *out, const struct init_spec *s,
		 const struct init_results *r, double secs, unsigned max_lines,
		 struct init_tally *t);

/* The summary as one JSON object on one line: 0, or -1 (errno) when the
 * file cannot be written. */
int init_report_json(const char *path, const struct init_spec *s,
		     const struct init_results *r, const struct init_tally *t,
		     double secs);

#endif
