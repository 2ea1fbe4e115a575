/* report_fixture.h: helpers shared by test_report.c (the text layout) and
 * test_report_json.c (the machine formats): Timo's imaptest run as a
 * config and as one second of stats, a report writing into memory, and
 * reading back a line of it or a whole output file. */
#ifndef IMAPSTRESS_REPORT_FIXTURE_H
#define IMAPSTRESS_REPORT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "config/derived.h"
#include "report/report.h"
#include "stats/stats.h"

/* Timo's 2007 run: `./imaptest - append=100 ... logout=0 select=0`. */
void seed_config(struct config *cfg);

/* A FILE whose text stays in memory, for report_new to write into. */
struct memout {
	char *buf;
	size_t len;
	FILE *f;
};

void memout_open(struct memout *m);
/* Everything written so far (flushed first, so len is current too). */
const char *memout_text(struct memout *m);
void memout_close(struct memout *m);

/* One second of Timo's run: 100 logins, 1642 APPENDs at lat_us each. */
void seed_window(struct stats_snap *w, uint64_t logins, uint64_t appends,
		 uint64_t lat_us);

/* A closed-loop run of t seconds, all of them measured. */
struct report_run plain_run(double t);

/* Line number n (0-based) of text, into buf; NULL past the end. */
const char *line_at(const char *text, int n, char *buf, size_t len);

/* The whole file at path, NUL-terminated; the caller frees it. */
char *slurp(const char *path);

/* Same count, sum, min, max and buckets (a histogram through a file). */
bool same_hist(const struct hist *a, const struct hist *b);

#endif
