/* script_mode.c: `imapstress test=PATH` on the runner of every mode (see
 * script_driver.h): the options and the test files checked before
 * anything connects, the run's struct shared (the server's addresses,
 * TLS), one worker with the script driver, the runner's loop (run_wait:
 * signals, stop and exit policy), then the totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/derived.h"
#include "conn/shared.h"
#include "drivers/script/script_driver.h"
#include "imap/guard.h"
#include "run/exit_policy.h"
#include "run/run.h"
#include "run/setup.h"
#include "run/worker.h"
#include "script/script_opts.h"
#include "script/script_report.h"
#include "script/script_run.h"
#include "util/log.h"

int
script_mode_main(const struct config *cfg)
{
	struct script_list list;
	char err[1024];

	if (script_check_options(cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: %s\n", err);
		return EXIT_USAGE;
	}
	if (script_list_load(&list, cfg->test_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: test=%s\n", err);
		return EXIT_USAGE;
	}
	struct script_report *rep = script_report_new(cfg, err, sizeof(err));
	if (rep == NULL) {
		fprintf(stderr, "imapstress: %s\n", err);
		script_list_free(&list);
		return EXIT_USAGE;
	}
	/* box= left at INBOX (which cannot be deleted): "imaptest", under
	 * the personal namespace when the server names one. */
	bool box_auto = strcmp(cfg->box, "INBOX") == 0;
	struct script_env env = {
		.user = cfg->user_template, .user2 = cfg->user2,
		.password = cfg->pass, .mailbox = box_auto ? "imaptest" : cfg->box,
		.mailbox_auto = box_auto, .host = cfg->host,
		.port = config_port(cfg),
		.guard = cfg->allow_foreign_mail ? NULL : guard_new(),
		.compress = cfg->compress,
	};
	/* The server's addresses and TLS (a bad one: exit 2 naming it); no
	 * message pool to speak of (the tests bring their own mbox). */
	struct derived dv;
	derived_init(&dv, cfg, false);
	dv.states[OP_APPEND].prob = 0;
	/* One worker (shared_new picks no more workers than clients): a
	 * test's connections share one loop, the state machine's. */
	dv.clients = 1;
	struct shared *sh = shared_new(cfg, &dv);
	env.run_id = sh->run_id;	/* the marker on the set-up's APPENDs */
	struct script_job job = { .cfg = cfg, .list = &list, .rep = rep,
				  .env = &env };
	struct script_driver *d = script_driver_new(&job);

	run_signals_block();	/* before the worker exists */
	struct worker_group wg = { .latency_log_fd = -1 };
	struct worker *w = worker_new(0, sh, &wg, script_driver_driver(d));
	if (worker_start(w) != 0)
		fatal(1, "cannot start the worker thread");
	run_wait(&w, 1, cfg, NULL);
	worker_free(w);

	int status = script_report_end(rep);
	if (script_driver_foreign(d))
		status = EXIT_USAGE;
	/* A rawlog that could not be written is lost output, as in any
	 * mode. */
	else if (atomic_load(&sh->live->rawlog_failures) > 0)
		status = exit_policy_fail(status);
	script_driver_free(d);
	guard_free(env.guard);
	shared_free(sh);
	script_report_free(rep);
	script_list_free(&list);
	return status;
}
