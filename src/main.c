/* main.c: parse the configuration, build what the workers share, start
 * them, hand over to run_loop() and exit with its status.  Nothing else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/clock.h"
#include "compare/compare.h"
#include "config/config.h"
#include "config/derived.h"
#include "drivers/script/script_driver.h"
#include "drivers/stress/stress.h"
#include "init/init.h"
#include "learn/learn.h"
#include "stats/latency_log.h"
#include "util/log.h"
#include "merge/merge.h"
#include "htmlreport/htmlreport.h"
#include "msg/msg.h"
#include "profile/profile.h"
#include "profile/profile_cli.h"
#include "report/report.h"
#include "run/exit_policy.h"
#include "run/run.h"
#include "run/setup.h"
#include "config/shard.h"
#include "users/users.h"
#include "plan/workload.h"
#include "run/worker.h"
#include "util/xmalloc.h"

static void
raise_nofile(unsigned clients)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	if ((rlim_t)clients + 64 > rl.rlim_cur)
		fatal(2, "clients=%u needs %u file descriptors, but the limit is "
		      "%llu (raise the hard limit: ulimit -Hn)", clients,
		      clients + 64, (unsigned long long)rl.rlim_cur);
}

/* After config_validate and shard_setup, the run works with `c` (const)
 * and `dv`: nothing writes the config again. */
static int run_main(const struct config *c, char *err, size_t errlen);

int
main(int argc, char **argv)
{
	struct config cfg;
	char err[1024];

	/* Subcommands that read files instead of running. */
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return compare_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "latency") == 0)
		return latency_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "init") == 0)
		return init_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "learn") == 0)
		return learn_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return htmlreport_main(argc - 1, argv + 1);

	config_defaults(&cfg);
	int r = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (r == 1) {
		/* --help, --version: output that cannot be written is an
		 * error here too. */
		config_free(&cfg);
		if (fflush(stdout) != 0 || ferror(stdout))
			fatal(1, "standard output: cannot write: %s",
			      strerror(errno != 0 ? errno : EIO));
		return 0;
	}
	/* A profile run slices its plan's users (profile_shard) and keeps
	 * the seed, so every shard expands the same plan; scripted tests
	 * refuse shards: neither takes stress's slicing of cfg. */
	bool own_slice = cfg.profile_path != NULL || cfg.test_path != NULL;
	if (r < 0 || config_validate(&cfg, err, sizeof(err)) < 0 ||
	    (own_slice ? shard_locate : shard_setup)(&cfg, shard_getenv, err,
						     sizeof(err)) < 0) {
		config_free(&cfg);
		fatal(2, "%s", err);
	}
	int status = run_main(&cfg, err, sizeof(err));
	config_free(&cfg);
	return status;
}

static int
run_main(const struct config *c, char *err, size_t errlen)
{
	struct derived dv;

	derived_init(&dv, c, isatty(STDOUT_FILENO));
	/* Profile mode: the users of the file are the driver (src/users/). */
	struct profile *prof = NULL;
	struct users *users = NULL;
	if (c->profile_path != NULL) {
		int rc = profile_cli(c, &prof);
		if (prof == NULL)
			return rc;
		users = users_new(c, prof, err, errlen);
		if (users == NULL)
			fatal(2, "%s", err);
		users_derive(users, &dv);
	}
	/* Scripted tests: a driver of the runner (drivers/script/). */
	if (c->test_path != NULL)
		return script_mode_main(c);
	if (c->shard_count > 1 && users != NULL)
		log_info("shard %u/%u (from %s): profile users %u-%u of %u, "
			 "%u connections", c->shard_index, c->shard_count,
			 c->shard_from, users_first(users) + 1,
			 users_first(users) + users_count(users), prof->n_u,
			 dv.clients);
	else if (c->shard_count > 1)
		log_info("shard %u/%u (from %s): %u clients, users %u-%u%s",
			 c->shard_index, c->shard_count, c->shard_from,
			 dv.clients, c->users_min, c->users_max,
			 c->userfile ? " (userfile: its slice)" : "");
	if (users == NULL && !plan_has_work(c))
		fatal(2, "nothing to do: every state after LOGIN has probability 0");

	/* Signals are taken by run_loop(): blocked before any thread. */
	run_signals_block();
	raise_nofile(dv.clients);

	struct shared *sh = shared_new(c, &dv);

	struct report *rep = report_new(c, &dv, stdout, err, errlen);
	if (rep == NULL)
		fatal(2, "%s", err);

	/* Bound and created before any worker starts, so a bad address or
	 * file is a usage error with nothing to stop. */
	struct run_sinks sinks = { NULL, NULL, NULL };
	if (c->n_server_pids > 0 &&
	    (sinks.srv = srv_watch_new(c->server_pids, c->n_server_pids,
				       err, errlen)) == NULL)
		fatal(2, "%s", err);
	if (c->metrics_listen != NULL &&
	    (sinks.metrics = metrics_new(c, err, errlen)) == NULL)
		fatal(2, "%s", err);
	if (c->hdr_log_path != NULL &&
	    (sinks.hdr = hdrlog_open(c->hdr_log_path, clock_us(), err,
				     errlen)) == NULL)
		fatal(2, "%s", err);

	struct worker_group *wg = worker_group_new(c);
	struct worker **w = xcalloc(sh->n_workers, sizeof(*w));
	/* Every mode is a driver of the same workers (run/driver.h). */
	struct stress_run *stress = NULL;
	const struct driver *drv;
	if (users != NULL) {
		users_set_workers(users, sh->n_workers);
		drv = users_driver(users);
	} else {
		stress = stress_run_new(c, sh->n_workers);
		drv = stress_driver(stress);
	}
	for (unsigned i = 0; i < sh->n_workers; i++)
		w[i] = worker_new(i, sh, wg, drv);
	shard_wait_start(c);
	for (unsigned i = 0; i < sh->n_workers; i++)
		if (worker_start(w[i]) != 0)
			fatal(1, "cannot start worker thread %u", i);

	int status = run_loop(w, sh->n_workers, c, &dv, rep, &sinks);
	if (hdrlog_close(sinks.hdr) != 0)
		status = exit_policy_fail(status);
	metrics_free(sinks.metrics);
	srv_watch_free(sinks.srv);

	for (unsigned i = 0; i < sh->n_workers; i++)
		worker_free(w[i]);
	free(w);
	if (users != NULL) {
		/* What the run claims the server holds, for a test to check. */
		users_log_totals(users);
		if (c->profile_counts != NULL &&
		    users_write_counts(users, c->profile_counts, err,
				       errlen) < 0) {
			log_error("%s", err);
			status = 1;
		}
		users_free(users);
		profile_free(prof);
	}
	stress_run_free(stress);
	worker_group_free(wg);
	/* Closing the rawlogs is their last write: a failure there counts
	 * like any other lost output. */
	if (atomic_load(&sh->live->rawlog_failures) > 0)
		status = exit_policy_fail(status);
	report_free(rep);
	/* The page is drawn from the JSON lines, complete now; the summary
	 * above it ends with where the page is. */
	if (c->report_path != NULL) {
		long n = htmlreport_run(c->json_path, c->args_key,
					c->report_path, err, errlen);
		if (n < 0) {
			log_error("--report: %s", err);
			status = exit_policy_fail(status);
		} else {
			printf("report: %s (%ld bytes)\n", c->report_path, n);
		}
	}
	shared_free(sh);
	return status;
}
