/* script_report.h: which tests to run (a directory or one file) and what
 * to say about them.
 *
 * Text on stdout, one line per test:
 *   NAME: ok
 *   NAME: FAILED (line L)        followed by the diff, indented
 *   NAME: skipped: missing capability X
 * then "N passed, N failed, N skipped".  The clean-up run after the last
 * test has no line: only when it fails, a warning on stderr.  With --json FILE (or -), one
 * JSON object per test ({"test","result":"ok|failed|skipped","line"
 * (the first failure's),"commands" (of the steps that passed),"total"
 * (in the file),"groups" and "failures" (imaptest's counts:
 * script_outcome),"extension" (it has capabilities:),"detail"}) and a
 * last one with the totals.  A failed test's detail holds each of its
 * failures (script_run.h: a failure does not end a test). */
#ifndef IMAPSTRESS_SCRIPT_REPORT_H
#define IMAPSTRESS_SCRIPT_REPORT_H

#include <stddef.h>

#include "msg/msg.h"
#include "script/script.h"
#include "script/script_run.h"

struct config;

struct script_list {
	struct script **v;
	struct msg_pool **pools;	/* each test's NAME.mbox, or NULL */
	unsigned n;
};

/* A directory: every regular file in it whose name neither begins with
 * '.' nor ends in ".mbox", in name order; then the clean-up run
 * (script_cleanup_new), which script_report_test does not count.  Any
 * malformed file: -1 with "PATH: FILE:LINE: why" in err. */
int script_list_load(struct script_list *l, const char *path, char *err,
		     size_t errlen);
void script_list_free(struct script_list *l);

struct script_report;

struct script_report *script_report_new(const struct config *cfg, char *err,
					size_t errlen);
void script_report_test(struct script_report *r, const struct script *s,
			const struct script_outcome *o);
/* A test's !output line (len octets, control characters escaped) where
 * the verdicts go, at once. */
void script_report_output(struct script_report *r, const char *line,
			  size_t len);
/* Print the totals; the exit status (0 none failed, 1 otherwise). */
int script_report_end(struct script_report *r);
void script_report_free(struct script_report *r);	/* NULL is a no-op */

#endif
