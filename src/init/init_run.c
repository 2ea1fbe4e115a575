/* init_run.c: `imapstress init` on the runner of every mode: its driver
 * (drivers/init/) on the run's workers (run/worker.h, procs= or one per
 * CPU, clients= connections spread over them as in a stress run), and the
 * main thread in the runner's loop (run_wait: signals, stop and exit
 * policy), which calls back here for the progress line; at the end, the
 * check (init_report.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "config/config.h"
#include "drivers/init/init_driver.h"
#include "init/init.h"
#include "init/init_report.h"
#include "util/log.h"
#include "conn/shared.h"
#include "run/exit_policy.h"
#include "run/run.h"
#include "run/worker.h"
#include "util/xmalloc.h"

/* The progress line's state, between the runner's calls. */
struct init_watch {
	const struct init_results *res;
	bool tty;
	uint64_t t0, last_t, last_appended;
	uint64_t every, next;		/* a line at least this often */
	uint64_t tenth, next_users;	/* without a terminal: each tenth */
};

/* The progress line: redrawn in place on a terminal; otherwise a plain
 * line every 10 s and at each tenth of the users (a log file gets no
 * carriage returns, and a script can wait for "N/M users"). */
static void
init_progress(struct init_watch *iw, bool final)
{
	uint64_t now = clock_us();
	uint64_t appended = atomic_load(&iw->res->appended);
	double dt = (double)(now - iw->last_t) / 1e6;
	struct init_progress p = {
		.users_done = atomic_load(&iw->res->users_done),
		.users_total = iw->res->n_users,
		.appended = appended,
		.msgs_per_sec = dt > 0 ? (double)(appended - iw->last_appended) / dt : 0,
		.elapsed_s = (double)(now - iw->t0) / 1e6,
	};
	char line[256];

	init_progress_format(line, sizeof(line), &p);
	if (iw->tty)
		fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
	iw->last_t = now;
	iw->last_appended = appended;
}

/* The runner's poll hook: a line when one is due. */
static void
init_poll(void *arg, uint64_t now)
{
	struct init_watch *iw = arg;
	uint64_t done = atomic_load(&iw->res->users_done);

	if (now >= iw->next || (!iw->tty && done >= iw->next_users)) {
		init_progress(iw, false);
		iw->next = clock_us() + iw->every;
		while (iw->next_users <= done)
			iw->next_users += iw->tenth;
	}
}

/* The runner's stopping hook: init's own words for the two steps. */
static void
init_stopping(void *arg, int sig, bool first)
{
	log_warn("init: %s: %s (run init again to finish: it adds only what "
		 "is missing)", sig == SIGINT ? "SIGINT" : "SIGTERM", first
		 ? "stopping once the commands in flight are answered (again: "
		 "at once)" : "stopping now");
}

int
init_run(const struct config *cfg, const struct shared *sh,
	 const struct init_spec *spec, struct init_results *res,
	 const struct init_opts *o)
{
	struct init_job job = {
		.cfg = cfg, .sh = sh, .spec = spec, .res = res,
		.check_only = o->check_only,
		.multiappend = !o->no_multiappend,
		.trim = o->trim,
	};
	res->trim = o->trim;
	unsigned n = sh->n_workers;
	/* init writes no latency log (--latency-log is the stress run's). */
	struct worker_group wg = { .latency_log_fd = -1 };
	uint64_t t0 = clock_us();
	bool tty = isatty(STDERR_FILENO);
	struct init_watch iw = {
		.res = res, .tty = tty, .t0 = t0, .last_t = t0,
		.every = tty ? 500000 : 10000000,
		.tenth = res->n_users / 10 ? res->n_users / 10 : 1,
	};
	iw.next = t0 + iw.every;
	iw.next_users = iw.tenth;

	run_signals_block();	/* before any worker exists */
	struct init_driver *d = init_driver_new(&job);
	struct worker **w = xcalloc(n, sizeof(*w));
	for (unsigned i = 0; i < n; i++)
		w[i] = worker_new(i, sh, &wg, init_driver_driver(d));
	for (unsigned i = 0; i < n; i++)
		if (worker_start(w[i]) != 0)
			fatal(1, "cannot start worker thread %u", i);
	struct run_hooks hooks = {
		.poll = init_poll, .stopping = init_stopping, .arg = &iw,
	};
	run_wait(w, n, cfg, &hooks);
	init_progress(&iw, true);
	/* What the server took: each worker's OK'd APPEND octets, summed as
	 * the driver detaches. */
	for (unsigned i = 0; i < n; i++)
		worker_free(w[i]);
	free(w);
	init_driver_free(d);

	struct init_tally t;
	double secs = (double)(clock_us() - t0) / 1e6;
	init_report(stdout, spec, res, secs, o->max_lines, &t);
	struct run_outcome out = {
		.failed = t.users_bad,
		.foreign = atomic_load(&sh->live->foreign_refused),
	};
	if (o->json_path != NULL &&
	    init_report_json(o->json_path, spec, res, &t, secs) < 0) {
		log_error("--json %s: cannot write: %s", o->json_path,
			  strerror(errno));
		out.output_failed = true;
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		out.output_failed = true;
	return exit_policy_status(&out);
}
