/* metrics.h: --metrics-listen ADDR, live Prometheus text exposition.
 *
 * The HTTP server (libevent's evhttp) runs on an event base of the main
 * thread's own, which run.c turns while it waits between ticks.  It serves
 * a page rendered once a tick from the summed snapshot the main thread has
 * already taken, so a scrape never touches a worker or its shard. */
#ifndef IMAPSTRESS_METRICS_H
#define IMAPSTRESS_METRICS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config/config.h"
#include "stats/stats.h"

struct metrics;

/* Binds cfg->metrics_listen (see config_parse_listen).  NULL with a
 * message on error. */
struct metrics *metrics_new(const struct config *cfg, char *err, size_t errlen);
void metrics_free(struct metrics *m);		/* NULL is a no-op */

/* Facts a scrape shows besides the counters. */
struct metrics_run {
	double elapsed_s;
	unsigned clients;	/* clients= asked for */
	bool finished;		/* the final totals: the run is over */
};

/* Renders the page that scrapes get until the next call. */
void metrics_publish(struct metrics *m, const struct stats_snap *cum,
		     const struct metrics_run *run);

/* Serves scrapes for up to us microseconds, then takes a pending signal
 * from sigs without waiting: returns its number, or 0. */
int metrics_wait(struct metrics *m, const sigset_t *sigs, uint64_t us);

/* After the final metrics_publish: serve until one scrape has received
 * the final page in full, --metrics-linger has passed, or a signal. */
void metrics_linger(struct metrics *m, const sigset_t *sigs);

#endif
