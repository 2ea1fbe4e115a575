/* run.c: the main thread during a run.  It owns the clock: one report
 * line per second on a deadline no worker can delay (it sleeps in
 * sigtimedwait, so signals are handled here too), the stop policy
 * (secs=, grace, signals, error_quit, a server that never lets anyone in)
 * and the final totals. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "conn/conn_log.h"
#include "util/log.h"
#include "util/peak_rss.h"
#include "report/report.h"
#include "run/exit_policy.h"
#include "run/run_int.h"
#include "run/setup.h"
#include "util/self_cpu.h"
#include "util/xmalloc.h"

#define POLL_US 100000		/* stop checks between ticks */

/* The server's counters for this tick (sinks->srv NULL: none asked) and
 * the per-user divisor; measured ticks also feed the summary's peaks. */
static void
run_srv_tick(struct run_state *rs, struct report_run *rr, uint64_t now,
	     double secs)
{
	rr->net_users = (double)rs->cum.conns_open;
	if (!rr->warmup) {
		rs->users_sum += rr->net_users;
		rs->users_ticks++;
	}
	if (rs->sinks->srv == NULL)
		return;
	struct srv_sample *s = &rs->srv;
	srv_watch_sample(rs->sinks->srv, now, s);
	rr->srv = s->alive;
	rr->srv_io = s->io_ok;
	rr->srv_pss = s->mem_pss;
	rr->srv_procs = s->procs;
	rr->srv_cpu_pct = s->cpu_pct;
	rr->srv_mem_kb = s->mem_kb;
	rr->srv_read_bytes = s->read_bytes;
	rr->srv_write_bytes = s->write_bytes;
	if (rr->warmup || !s->alive)
		return;
	rs->srv_secs += secs;
	rs->srv_io_any = rs->srv_io_any || s->io_ok;
	rs->srv_pss_any = rs->srv_pss_any || s->mem_pss;
	if (s->cpu_pct > rs->srv_cpu_max)
		rs->srv_cpu_max = s->cpu_pct;
	if (s->mem_kb > rs->srv_mem_max)
		rs->srv_mem_max = s->mem_kb;
	if (s->procs > rs->srv_procs_max)
		rs->srv_procs_max = s->procs;
}

/* The measured interval's server table (see report.h). */
static void
run_srv_final(const struct run_state *rs, struct report_run *rr)
{
	rr->net_users = rs->users_ticks ?
	    rs->users_sum / (double)rs->users_ticks : 0;
	if (rs->sinks->srv == NULL || !(rs->srv_secs > 0))
		return;
	rr->srv = true;
	rr->srv_io = rs->srv_io_any;
	rr->srv_pss = rs->srv_pss_any;
	rr->srv_secs = rs->srv_secs;
	rr->srv_cpu_pct = 100.0 * (rs->srv.cpu_s - rs->srv_warm.cpu_s) /
	    rs->srv_secs;
	rr->srv_cpu_max = rs->srv_cpu_max;
	rr->srv_cpu_capped = rs->srv.cpu_capped - rs->srv_warm.cpu_capped;
	rr->srv_mem_kb = rs->srv_mem_max;
	rr->srv_procs = rs->srv_procs_max;
	rr->srv_read_bytes = rs->srv.read_total - rs->srv_warm.read_total;
	rr->srv_write_bytes = rs->srv.write_total - rs->srv_warm.write_total;
}

static void
run_fill(struct run_state *rs, struct report_run *rr, uint64_t now)
{
	memset(rr, 0, sizeof(*rr));
	rr->elapsed_s = (double)(now - rs->t0) / 1e6;
	rr->clients = rs->dv->clients;
	rr->workers = rs->n;
	rr->ramp_pct = rs->dv->clients ?
	    (unsigned)(rs->cum.conns_total * 100 / rs->dv->clients) : 100;
	/* Ramp-up only: while stopping, connections leave on purpose. */
	rr->ramping = rs->cum.conns_total < rs->dv->clients && !rs->stopping;
	rr->warmup = rs->cfg->warmup_secs > 0 &&
	    rr->elapsed_s <= rs->cfg->warmup_secs;
}

/* The live metrics get everything since the start; the HdrHistogram log
 * gets the same intervals as the totals (warm-up left out), so its
 * intervals add up to the summary. */
static void
run_feed_sinks(struct run_state *rs, const struct report_run *rr, uint64_t now,
	       bool finished)
{
	struct metrics_run mr = { rr->elapsed_s, rs->dv->clients, finished };
	metrics_publish(rs->sinks->metrics, &rs->cum, &mr);
	if (rs->cfg->warmup_secs <= 0 || rs->warm_taken)
		hdrlog_window(rs->sinks->hdr, &rs->win, now);
	else
		hdrlog_skip(rs->sinks->hdr, now);
}

static void
run_tick(struct run_state *rs, uint64_t now)
{
	struct report_run rr;
	uint64_t cpu = self_cpu_us(NULL, NULL);

	run_collect(rs, false, run_tick_what(rs, now));
	run_fill(rs, &rr, now);
	/* Counts that the warm-up snapshot will hold, so not the totals'. */
	rr.warmup = rs->cfg->warmup_secs > 0 && !rs->warm_taken;

	/* Self-check: CPU of the whole process against the cores its
	 * workers can use, and the worst event-loop lag seen. */
	double wall = (double)(now - rs->t_cpu_prev);
	rr.cpu_pct = wall > 0 ? 100.0 * (double)(cpu - rs->cpu_prev_us) / wall /
	    (double)rs->n : 0;
	rs->cpu_prev_us = cpu;
	rs->t_cpu_prev = now;
	rr.loop_lag_max_us = rs->win.loop_lag_max_us;
	rr.self_limited = rr.cpu_pct > 80.0 || rr.loop_lag_max_us > 10000;
	run_srv_tick(rs, &rr, now, wall / 1e6);
	rs->ticks++;
	if (rr.self_limited)
		rs->self_limited_ticks++;
	if (rr.loop_lag_max_us > rs->lag_max_ever)
		rs->lag_max_ever = rr.loop_lag_max_us;
	if (rr.cpu_pct > rs->cpu_max)
		rs->cpu_max = rr.cpu_pct;
	report_tick(rs->rep, &rr, &rs->win, &rs->cum);
	run_feed_sinks(rs, &rr, now, false);

	if (!rs->warm_taken && rs->cfg->warmup_secs > 0 &&
	    rr.elapsed_s >= rs->cfg->warmup_secs && run_taken_hists(rs)) {
		run_sum_all(rs);
		stats_snap_copy(&rs->warm, &rs->cum);
		rs->warm_taken = true;
		/* CPU per command must leave the warm-up out on both sides. */
		self_cpu_us(&rs->warm_user_us, &rs->warm_sys_us);
		rs->srv_warm = rs->srv;
	}
}

/* After the workers are joined: everything since the last tick (the
 * drain's replies, mostly) in one last, partial tick, so that the ticks
 * add up to the totals.  No self-check: a fraction of a second of
 * draining says nothing about saturation. */
static void
run_final_tick(struct run_state *rs, uint64_t now, uint64_t last_tick)
{
	struct report_run rr;

	/* the last second's changes; a run that reads no second's histograms
	 * asks for none (run_collect) */
	run_collect(rs, true, STATS_PUB_CHANGES);
	run_fill(rs, &rr, now);
	rr.warmup = rs->cfg->warmup_secs > 0 && !rs->warm_taken;
	rr.partial_s = (double)(now - last_tick) / 1e6;
	if (!(rr.partial_s > 0))
		rr.partial_s = 1e-6;
	run_srv_tick(rs, &rr, now, rr.partial_s);
	report_tick(rs->rep, &rr, &rs->win, &rs->cum);
}

static void
run_stop_all(struct run_state *rs, enum worker_stop how)
{
	for (unsigned i = 0; i < rs->n; i++)
		worker_request_stop(rs->w[i], how);
}

static bool
run_all_done(struct run_state *rs)
{
	for (unsigned i = 0; i < rs->n; i++)
		if (!atomic_load_explicit(&rs->w[i]->done, memory_order_acquire))
			return false;
	return true;
}

/* Errors that a healthy server does not cause (NO replies are ordinary
 * IMAP and do not fail a run), and sessions of push = notify clients
 * that could not have NOTIFY: the run did not measure what the profile
 * asked for. */
static uint64_t
run_hard_errors(const struct stats_snap *s)
{
	uint64_t n = s->act.notify_refused;
	for (int k = 0; k < ERR_COUNT; k++)
		if (k != ERR_NO && k != ERR_LOGIN)
			n += s->errors[k];
	/* POP3 sessions cut by a timeout, a close or a protocol error, as
	 * IMAP's (a -ERR is a reply, like NO; the end of the run is not). */
	for (int k = 0; k < P3F_COUNT; k++)
		if (k != P3F_SHUTDOWN)
			n += s->act.pop3.fails[k];
	return n;
}

/* What the stop checks (exit_policy.c) see of the run so far. */
static struct stop_view
run_stop_view(const struct run_state *rs, uint64_t now)
{
	const struct shared_live *live = rs->w[0]->sh->live;
	return (struct stop_view){
		.elapsed_us = now - rs->t0,
		.errors = stats_snap_total_errors(&rs->cum),
		.disconnects = rs->cum.errors[ERR_DISCONNECT] +
		    rs->cum.errors[ERR_BYE] + rs->cum.errors[ERR_TIMEOUT],
		.logins = rs->cum.logins,
		.oks = stats_snap_total_ok(&rs->cum),
		.conns_open = rs->cum.conns_open,
		.since_connect_us = rs->t_first_connect && now > rs->t_first_connect ?
		    now - rs->t_first_connect : 0,
		.refused_logins = rs->cum.no[OP_LOGIN] + rs->cum.no[OP_AUTHENTICATE],
		.tls_refused = atomic_load(&live->tls_verify_failed),
		.login_disabled = atomic_load(&live->login_disabled),
		/* run_wait (init) has no driver view: its clients are its work */
		.no_clients = rs->dv != NULL && rs->dv->clients == 0,
		.foreign_refused = atomic_load(&live->foreign_refused),
		.finite = rs->finite,
	};
}

/* Whether anything between ticks could stop the run: the stop checks
 * other than secs= (whose end is a wake-up of its own), or a mode's
 * poll hook.  Once someone has logged in and no error stops the run,
 * nothing can until the next tick, so a steady run wakes once a second,
 * not ten times. */
static bool
run_needs_poll(const struct run_state *rs)
{
	if (rs->phase != PHASE_RUN || rs->rep == NULL)
		return true;	/* waiting for the workers; a mode's poll */
	struct stop_view v = run_stop_view(rs, rs->t0);
	return exit_policy_needs_poll(rs->cfg, &v);
}

/* Both ways of running: the workers, the clock and the snapshots. */
static void
run_state_init(struct run_state *rs, struct worker **w, unsigned n,
	       const struct config *cfg)
{
	rs->w = w;
	rs->n = n;
	rs->cfg = cfg;
	rs->finite = w[0]->drv->finite;
	rs->phase = PHASE_RUN;
	rs->why = STOP_DURATION;
	rs->pubs = xcalloc(n ? n : 1, sizeof(*rs->pubs));
	for (unsigned i = 0; i < n; i++)
		rs->pubs[i] = w[i]->pub;
	stats_snap_init(&rs->cum);
	stats_snap_init(&rs->prev);
	stats_snap_init(&rs->win);
	stats_snap_init(&rs->warm);
	rs->t0 = clock_us();
	rs->t_cpu_prev = rs->t0;
	rs->cpu_prev_us = self_cpu_us(NULL, NULL);
	rs->last_tick = rs->t0;
}

static void
run_state_free(struct run_state *rs)
{
	stats_snap_free(&rs->cum);
	stats_snap_free(&rs->prev);
	stats_snap_free(&rs->win);
	stats_snap_free(&rs->warm);
	free(rs->pubs);
}

/* The drain begins (a signal, a stop check): no new commands, what is in
 * flight answered until `deadline`. */
static void
run_drain(struct run_state *rs, uint64_t *deadline, uint64_t at)
{
	rs->phase = PHASE_DRAIN;
	*deadline = at;
	rs->stopping = true;
	run_stop_all(rs, WORKER_DRAIN);
}

/* A SIGINT or SIGTERM the wait took, as the exit policy rules it; the
 * line saying so is the mode's when it has a hook for it. */
static void
run_signal(struct run_state *rs, int sig, uint64_t t_came, uint64_t *t_signal,
	   uint64_t *drain_deadline)
{
	const struct run_hooks *h = rs->hooks;
	enum stop_signal ss = exit_policy_signal(rs->phase == PHASE_DRAIN,
	    *t_signal == 0 ? UINT64_MAX : t_came > *t_signal ?
	    t_came - *t_signal : 0);

	if (ss == STOP_SIG_SAME)
		return;
	if (h != NULL && h->stopping != NULL)
		h->stopping(h->arg, sig, ss == STOP_SIG_DRAIN);
	if (ss == STOP_SIG_DRAIN) {
		*t_signal = clock_us();
		if (h == NULL || h->stopping == NULL)
			log_info("Received %s - stopping clients (send it again "
				 "to stop at once)",
				 sig == SIGINT ? "SIGINT" : "SIGTERM");
		rs->why = STOP_SIGNAL;
		run_drain(rs, drain_deadline, exit_policy_drain_deadline(
		    rs->cfg, rs->finite, clock_us()));
	} else {
		if (h == NULL || h->stopping == NULL)
			log_info("Received a second signal - stopping now");
		rs->phase = PHASE_HALT;
		run_stop_all(rs, WORKER_HALT);
	}
}

/* The main thread's loop, for every mode: it sleeps in sigtimedwait until
 * the next tick, secs= or a poll, takes the signals, ticks the report
 * once a second (a mode without one: its poll hook every turn), runs the
 * stop checks and the drain's grace, and returns when every worker is
 * done (stopped, or its finite work ended): the time it saw that. */
static uint64_t
run_turns(struct run_state *rs, const sigset_t *sigs)
{
	const struct config *cfg = rs->cfg;
	const struct run_hooks *h = rs->hooks;
	struct metrics *metrics = rs->sinks != NULL ? rs->sinks->metrics : NULL;
	uint64_t next_tick = rs->t0 + 1000000, drain_deadline = 0;
	/* When the signal that began the drain was taken (0: none was), and
	 * when the loop last stopped waiting for signals. */
	uint64_t t_signal = 0, t_listen_end = clock_us();

	for (;;) {
		uint64_t now = clock_us();
		uint64_t wake = rs->rep != NULL ? next_tick : now + POLL_US;
		if (rs->phase == PHASE_RUN && cfg->secs > 0 && !rs->finite) {
			uint64_t end = rs->t0 + (uint64_t)(cfg->secs * 1e6);
			if (end < wake)
				wake = end;
		}
		if (run_needs_poll(rs) && now + POLL_US < wake)
			wake = now + POLL_US;
		if (wake > now) {
			struct timespec ts = { (time_t)((wake - now) / 1000000),
				(long)((wake - now) % 1000000) * 1000 };
			bool was_pending = exit_policy_stop_pending();
			/* With --metrics-listen the wait serves scrapes. */
			int sig = metrics != NULL ?
			    metrics_wait(metrics, sigs, wake - now) :
			    sigtimedwait(sigs, NULL, &ts);
			uint64_t t_came = exit_policy_arrival(was_pending,
			    t_listen_end, clock_us());
			t_listen_end = clock_us();
			if (sig > 0 && rs->phase != PHASE_HALT)
				run_signal(rs, sig, t_came, &t_signal,
					   &drain_deadline);
		}
		now = clock_us();
		if (rs->rep != NULL && now >= next_tick) {
			run_tick(rs, now);
			rs->last_tick = now;
			/* Catch up without printing a burst if we were
			 * suspended: one line per real second. */
			while (next_tick <= now)
				next_tick += 1000000;
		} else {
			run_collect_counts(rs);
		}
		if (h != NULL && h->poll != NULL)
			h->poll(h->arg, now);

		if (rs->t_first_connect == 0 && rs->cum.connects > 0)
			rs->t_first_connect = now;
		if (rs->phase == PHASE_RUN) {
			struct stop_view v = run_stop_view(rs, now);
			struct stop_verdict s = exit_policy_stop(cfg, &v);
			if (cfg->error_quit && v.errors > 0 && !v.finite)
				log_error("error_quit: stopping at the first error");
			if (cfg->disconnect_quit && v.disconnects > 0 && !v.finite)
				log_error("disconnect_quit: a client was disconnected");
			if (s.stop) {
				rs->why = (enum stop_reason)s.why;
				rs->quit = s.quit;
				rs->unusable = s.unusable;
				run_drain(rs, &drain_deadline, s.at_once ? now :
				    exit_policy_drain_deadline(cfg, rs->finite, now));
			}
		}
		if (rs->phase == PHASE_DRAIN && now >= drain_deadline) {
			/* A refusal of the foreign-mail guard stops at once
			 * by design: its one line says all (issue 31). */
			if (!run_all_done(rs) && !rs->unusable &&
			    rs->why != STOP_FOREIGN)
				log_warn("grace time over: closing connections "
					 "with commands still in flight");
			rs->phase = PHASE_HALT;
			run_stop_all(rs, WORKER_HALT);
		}
		if ((rs->phase != PHASE_RUN || rs->finite) && run_all_done(rs))
			return clock_us();
	}
}

void
run_signals_block(void)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
run_join(struct run_state *rs)
{
	for (unsigned i = 0; i < rs->n; i++)
		worker_join(rs->w[i]);
	conn_stall_said(rs->w[0]->sh);
}

void
run_wait(struct worker **w, unsigned n, const struct config *cfg,
	 const struct run_hooks *hooks)
{
	struct run_state rs = { .hooks = hooks };
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	run_state_init(&rs, w, n, cfg);
	run_turns(&rs, &sigs);
	run_join(&rs);
	run_state_free(&rs);
}

int
run_loop(struct worker **w, unsigned n, const struct config *cfg,
	 const struct derived *dv, struct report *rep, const struct run_sinks *sinks)
{
	const struct shared *sh = w[0]->sh;
	struct run_state rs = { .dv = dv, .rep = rep, .sinks = sinks,
				.tick_hists = run_tick_hists_wanted(cfg) };
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	run_state_init(&rs, w, n, cfg);
	if (sinks->srv != NULL)		/* the first window starts now */
		srv_watch_sample(sinks->srv, rs.t0, &rs.srv);
	/* A scrape before the first tick gets zeros, not an empty page. */
	struct metrics_run mr0 = { 0, dv->clients, false };
	metrics_publish(sinks->metrics, &rs.cum, &mr0);

	uint64_t t_end = run_turns(&rs, &sigs);
	run_join(&rs);
	bool unusable = rs.unusable, quit = rs.quit;

	/* Totals: everything acknowledged, including replies to commands
	 * that finished during the drain (the last tick's cum), minus the
	 * warm-up.  Without one, cum itself: a copy of its histograms, at
	 * the run's peak, was 200 KB of RSS in the default mix (issue 19). */
	run_final_tick(&rs, t_end, rs.last_tick);
	struct stats_snap diff;
	const struct stats_snap *tot = &rs.cum;
	stats_snap_init(&diff);
	if (rs.warm_taken) {
		stats_snap_diff(&diff, &rs.cum, &rs.warm);
		tot = &diff;
	}

	struct report_run rr;
	bool sla_ok[CONFIG_MAX_SLA] = { false };
	uint64_t sla_actual[CONFIG_MAX_SLA] = { 0 };
	run_fill(&rs, &rr, t_end);
	rr.measured_from_s = rs.warm_taken ? cfg->warmup_secs : 0;
	rr.measured_s = rr.elapsed_s - rr.measured_from_s;
	self_cpu_us(&rr.cpu_user_us, &rr.cpu_sys_us);
	rr.cpu_user_us -= rs.warm_user_us;
	rr.cpu_sys_us -= rs.warm_sys_us;
	rr.peak_rss_kb = peak_rss_kb(NULL);
	for (unsigned i = 0; i < n; i++)
		rr.unfinished += w[i]->unfinished;
	/* One late wake-up (the server's processes share our cores) is
	 * noise; saturation is when it keeps happening. */
	rr.self_limited = rs.self_limited_ticks >= 2 &&
	    rs.self_limited_ticks * 10 >= rs.ticks;
	rr.cpu_pct = rs.cpu_max;
	rr.loop_lag_max_us = rs.lag_max_ever;
	rr.stop_reason = stop_reason_name(rs.why);
	run_srv_final(&rs, &rr);
	if (!sla_eval(cfg, dv, tot, sla_ok, sla_actual)) {
		for (unsigned i = 0; i < cfg->n_slas; i++)
			rr.sla_failed += !sla_ok[i];
	}
	rr.sla_ok = sla_ok;
	rr.sla_actual_us = sla_actual;

	/* A run too short for the 5 s rule in which nobody ever got in
	 * is just as unusable. */
	if (!unusable && !quit &&
	    exit_policy_unusable_at_end(tot->logins, stats_snap_total_ok(tot),
					tot->connects))
		unusable = true;
	if (unusable && atomic_load(&sh->live->tls_verify_failed)) {
		log_error("server unusable: its TLS certificate was refused; give "
			  "the CA with ssl_ca_file=/--ca-file, or skip verification "
			  "with ssl=any-cert/--insecure");
	} else if (unusable && atomic_load(&sh->live->login_disabled)) {
		log_error("server unusable: it says LOGINDISABLED, and LOGIN or "
			  "AUTHENTICATE PLAIN in clear would give away the "
			  "password; use --starttls (or --tls on a TLS port)");
	} else if (unusable) {
		log_error("server unusable: no session got in after %.1f s "
			  "(connect errors %llu, refused logins %llu, timeouts %llu, "
			  "protocol errors %llu)",
			  rr.elapsed_s,
			  (unsigned long long)tot->errors[ERR_CONNECT],
			  (unsigned long long)(tot->no[OP_LOGIN] + tot->no[OP_AUTHENTICATE]),
			  (unsigned long long)tot->errors[ERR_TIMEOUT],
			  (unsigned long long)tot->errors[ERR_PROTOCOL]);
	}
	/* Output that could not be written (a full disk under --json or
	 * the rawlog) is an error too: what was measured is not all there. */
	struct run_outcome out = {
		.unusable = unusable, .quit = quit,
		.hard_errors = run_hard_errors(tot),
		.sla_failed = rr.sla_failed, .unfinished = rr.unfinished,
		.output_failed = report_failed(rep) ||
		    atomic_load(&sh->live->rawlog_failures) > 0,
		.foreign = atomic_load(&sh->live->foreign_refused),
	};
	int status = exit_policy_status(&out);
	rr.exit_status = status;
	if (report_final(rep, &rr, tot) < 0)
		status = exit_policy_fail(status);
	/* The drain's replies close the last interval (rs.win still holds
	 * the last, partial tick's window); then the final page, and a last
	 * scrape of it if --metrics-linger asks. */
	run_feed_sinks(&rs, &rr, t_end, true);
	metrics_linger(sinks->metrics, &sigs);

	stats_snap_free(&diff);
	run_state_free(&rs);
	return status;
}
