/* init_run.c: the threads of `imapstress init`.  clients= connections
 * spread over the worker threads (procs=, or one per CPU), each with its
 * own event base and stats shard as in a stress run; every connection
 * takes the next user from one shared queue, so a slow mailbox never
 * holds up the others.  The main thread prints the progress line and, at
 * the end, the check (init_report.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "util/clock.h"
#include "config/config.h"
#include "init/init.h"
#include "init/init_int.h"
#include "util/log.h"
#include "conn/shared.h"
#include "run/exit_policy.h"
#include "stats/stats.h"
#include "util/xmalloc.h"

static void
init_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct init_worker *w = arg;
	struct conn_gauges g = { 0 };
	uint64_t now = clock_us();

	for (unsigned i = 0; i < w->n_conns; i++)
		if (!conn_finished(w->ic[i].c))
			conn_tick(w->ic[i].c, now, &g);
	/* Stopping: what is in flight is answered and counted (the server
	 * may store it either way), then LOGOUT; a second signal closes. */
	int stop = atomic_load(&w->run->stop);
	if (stop > w->stopped) {
		w->stopped = stop;
		for (unsigned i = 0; i < w->n_conns; i++) {
			if (conn_finished(w->ic[i].c))
				continue;
			if (stop == 1)
				conn_drain(w->ic[i].c);
			else
				conn_halt(w->ic[i].c);
		}
	}
	if (w->n_active == 0)
		event_base_loopbreak(w->base);
}

static void *
init_thread(void *arg)
{
	struct init_worker *w = arg;

	for (unsigned i = 0; i < w->n_conns; i++) {
		if (init_user_next(&w->ic[i])) {
			w->n_active++;
			conn_start(w->ic[i].c);
		} else {
			conn_finish(w->ic[i].c);
		}
	}
	if (w->n_active > 0)
		event_base_dispatch(w->base);
	atomic_fetch_sub(&w->run->running, 1);
	return NULL;
}

static struct init_worker *
init_worker_new(struct init_run *run, unsigned id, unsigned n_workers)
{
	const struct config *cfg = run->cfg;
	struct init_worker *w = xcalloc(1, sizeof(*w));
	const struct init_spec *s = run->spec;

	w->id = id;
	w->run = run;
	w->base = event_base_new();
	if (w->base == NULL)
		fatal(1, "cannot create an event base");
	w->stats = stats_new();
	w->rbuf = xmalloc(CONN_MAX_READ);
	w->env = (struct conn_env){
		.cfg = cfg, .sh = run->sh, .base = w->base, .stats = w->stats,
		.rbuf = w->rbuf, .stores = NULL, .msg_seq = &w->msg_seq,
		.worker_id = id, .hooks = &init_hooks, .hook_arg = w,
	};
	/* Slots id, id+W, ...: conn_slot(c) / W is the index here. */
	w->n_conns = (cfg->clients - id + n_workers - 1) / n_workers;
	w->ic = xcalloc(w->n_conns, sizeof(*w->ic));
	for (unsigned i = 0; i < w->n_conns; i++) {
		struct init_conn *ic = &w->ic[i];
		ic->w = w;
		ic->c = conn_new(&w->env, id + i * n_workers);
		ic->have = xcalloc(s->n, sizeof(*ic->have));
		ic->todo = xcalloc(s->n, sizeof(*ic->todo));
		ic->refs = xcalloc(s->n, sizeof(*ic->refs));
		for (unsigned f = 0; f < s->n; f++)
			ic->refs[f].ic = ic;
		for (unsigned k = 0; k < INIT_WINDOW; k++)
			ic->arefs[k].ic = ic;
		ic->rng = 2463534242u ^ (id + i * n_workers + 1) * 2654435761u;
		if (ic->rng == 0)
			ic->rng = 1;
	}
	struct timeval tv = { 0, 100000 };
	w->tick_ev = event_new(w->base, -1, EV_PERSIST, init_tick_cb, w);
	event_add(w->tick_ev, &tv);
	return w;
}

static void
init_worker_free(struct init_worker *w)
{
	for (unsigned i = 0; i < w->n_conns; i++) {
		conn_free(w->ic[i].c);
		free(w->ic[i].have);
		free(w->ic[i].todo);
		free(w->ic[i].refs);
	}
	free(w->ic);
	event_free(w->tick_ev);
	event_base_free(w->base);
	stats_free(w->stats);
	free(w->rbuf);
	free(w);
}

/* The progress line: redrawn in place on a terminal; otherwise a plain
 * line every 10 s and at each tenth of the users (a log file gets no
 * carriage returns, and a script can wait for "N/M users"). */
static void
init_progress(const struct init_run *run, bool tty, uint64_t t0,
	      uint64_t *last_t, uint64_t *last_appended, bool final)
{
	uint64_t now = clock_us();
	uint64_t appended = atomic_load(&run->res->appended);
	double dt = (double)(now - *last_t) / 1e6;
	struct init_progress p = {
		.users_done = atomic_load(&run->res->users_done),
		.users_total = run->res->n_users,
		.appended = appended,
		.msgs_per_sec = dt > 0 ? (double)(appended - *last_appended) / dt : 0,
		.elapsed_s = (double)(now - t0) / 1e6,
	};
	char line[256];

	init_progress_format(line, sizeof(line), &p);
	if (tty)
		fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
	*last_t = now;
	*last_appended = appended;
}

/* Wait for the workers: progress meanwhile, SIGINT/SIGTERM stop them. */
static void
init_wait(struct init_run *run, struct init_worker **w, unsigned n)
{
	bool tty = isatty(STDERR_FILENO);
	uint64_t t0 = clock_us(), last_t = t0, last_appended = 0;
	uint64_t every = tty ? 500000 : 10000000, next = t0 + every;
	uint64_t tenth = run->res->n_users / 10 ? run->res->n_users / 10 : 1;
	uint64_t next_users = tenth;
	sigset_t sigs;
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	uint64_t t_signal = 0;	/* when the first signal came (0: none) */
	for (;;) {
		if (atomic_load(&run->running) == 0)
			break;
		int sig = sigtimedwait(&sigs, NULL, &ts);
		int stop = atomic_load(&run->stop);
		enum stop_signal ss = STOP_SIG_SAME;
		if ((sig == SIGINT || sig == SIGTERM) && stop < 2)
			ss = exit_policy_signal(stop > 0, t_signal == 0 ?
			    UINT64_MAX : clock_us() - t_signal);
		if (ss != STOP_SIG_SAME) {
			bool first = ss == STOP_SIG_DRAIN;
			if (first)
				t_signal = clock_us();
			atomic_fetch_add(&run->stop, 1);
			log_warn("init: %s: %s (run init again to finish: it "
				 "adds only what is missing)",
				 sig == SIGINT ? "SIGINT" : "SIGTERM", first
				 ? "stopping once the commands in flight are "
				 "answered (again: at once)" : "stopping now");
		}
		uint64_t done = atomic_load(&run->res->users_done);
		if (clock_us() >= next || (!tty && done >= next_users)) {
			init_progress(run, tty, t0, &last_t, &last_appended, false);
			next = clock_us() + every;
			while (next_users <= done)
				next_users += tenth;
		}
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(w[i]->thread, NULL);
	init_progress(run, tty, t0, &last_t, &last_appended, true);
}

int
init_run(const struct config *cfg, const struct shared *sh,
	 const struct init_spec *spec, struct init_results *res,
	 const struct init_opts *o)
{
	struct init_run run = {
		.cfg = cfg, .sh = sh, .spec = spec, .res = res,
		.check_only = o->check_only,
		.multiappend = !o->no_multiappend,
	};
	unsigned n = sh->n_workers;
	struct init_worker **w = xcalloc(n, sizeof(*w));
	sigset_t sigs;
	uint64_t t0 = clock_us();

	/* Signals are the main thread's (sigtimedwait): blocked before any
	 * worker exists, so every thread inherits the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (unsigned i = 0; i < n; i++)
		w[i] = init_worker_new(&run, i, n);
	atomic_store(&run.running, n);
	for (unsigned i = 0; i < n; i++)
		if (pthread_create(&w[i]->thread, NULL, init_thread, w[i]) != 0)
			fatal(1, "cannot start worker thread %u", i);
	init_wait(&run, w, n);

	/* What the server took: the connections count OK'd APPENDs' octets. */
	uint64_t bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		bytes += ctr_get(&w[i]->stats->append_bytes);
		init_worker_free(w[i]);
	}
	free(w);
	atomic_store(&res->bytes, bytes);

	struct init_tally t;
	double secs = (double)(clock_us() - t0) / 1e6;
	init_report(stdout, spec, res, secs, o->max_lines, &t);
	struct run_outcome out = { .failed = t.users_bad };
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
