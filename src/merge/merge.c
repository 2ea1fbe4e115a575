/* merge.c: `imapstress merge [--json F] [--csv F] [-q] FILE...`, the
 * report of a sharded run from its result files.
 *
 * Everything printed goes through report.c, fed as a live run feeds it:
 * one report_tick per wall-clock second (each shard's window of that
 * second added up, histograms merged bucket by bucket) and one
 * report_final with the shards' totals added up.  Percentiles therefore
 * come from merged histograms, never from averaged percentiles.
 *
 * The files are read twice: once to check all of them before printing a
 * line (a refused set prints nothing but the reason, exit 2), then again
 * in step, one second at a time, so memory does not grow with the run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "config/derived.h"
#include "merge/merge.h"
#include "run/exit_policy.h"
#include "report/report.h"
#include "report/result.h"
#include "util/xmalloc.h"

struct shard_file {
	const char *path;
	struct result_reader *rd;
	struct result_header h;		/* copied; args_key borrowed from rd */
	double t0_s;			/* wall clock at its start, seconds */
	struct report_run fin;
	char stop_reason[64];
	int64_t first_sec, last_sec;
	unsigned long ticks;
	uint64_t ports_exhausted;	/* its totals' */
};

struct merge {
	struct shard_file *sf;
	unsigned n;
	struct stats_snap tot, win, cum, scratch;
	double t0_min;
	int64_t first_sec, last_sec;
	bool any_tick;
	unsigned clients, workers;
	char err[1024];
};

/* One line on stderr: names and fields come from argv and from files
 * anyone may have written, so they pass through escape_text. */
static void
say(const char *msg)
{
	char safe[4096];
	escape_text(safe, sizeof(safe), msg, strlen(msg));
	fprintf(stderr, "imapstress merge: %s\n", safe);
}

/* Exit status 2: the set is not one run. */
static int
refuse(const char *why)
{
	say(why);
	return 2;
}

/* Pass 1 over one file: every record parsed, totals added to m->tot. */
static int
check_file(struct merge *m, struct shard_file *sf)
{
	enum result_rec kind;
	int64_t sec = 0;
	struct report_run run;
	bool have_final = false;

	sf->rd = result_reader_open(sf->path, m->err, sizeof(m->err));
	if (sf->rd == NULL)
		return -1;
	sf->h = *result_reader_header(sf->rd);
	sf->t0_s = (double)sf->h.t0_wall_us / 1e6;
	for (;;) {
		if (result_reader_next(sf->rd, &kind, &sec, &run, &m->scratch,
				       m->err, sizeof(m->err)) < 0)
			return -1;
		if (kind == RESULT_END)
			break;
		if (kind == RESULT_TICK) {
			if (sf->ticks == 0)
				sf->first_sec = sec;
			else if (sec <= sf->last_sec) {
				snprintf(m->err, sizeof(m->err), "%s: tick seconds "
					 "go backwards", sf->path);
				return -1;
			}
			sf->last_sec = sec;
			sf->ticks++;
			continue;
		}
		if (have_final) {
			snprintf(m->err, sizeof(m->err), "%s: two final records",
				 sf->path);
			return -1;
		}
		have_final = true;
		sf->fin = run;
		snprintf(sf->stop_reason, sizeof(sf->stop_reason), "%s",
			 run.stop_reason ? run.stop_reason : "duration");
		sf->fin.stop_reason = sf->stop_reason;
		sf->ports_exhausted = m->scratch.ports_exhausted;
		stats_snap_add(&m->tot, &m->scratch);
	}
	if (!have_final) {
		snprintf(m->err, sizeof(m->err), "%s: truncated (no final "
			 "record)", sf->path);
		return -1;
	}
	return 0;
}

/* The first option that differs between two args keys, for the message. */
static void
first_difference(const char *a, const char *b, char *out, size_t len)
{
	while (*a != '\0' && *a == *b) {
		const char *sa = strchr(a, ' '), *sb = strchr(b, ' ');
		size_t la = sa ? (size_t)(sa - a) : strlen(a);
		size_t lb = sb ? (size_t)(sb - b) : strlen(b);
		if (la != lb || strncmp(a, b, la) != 0)
			break;
		a += la + (sa != NULL);
		b += lb + (sb != NULL);
	}
	const char *ea = strchr(a, ' '), *eb = strchr(b, ' ');
	snprintf(out, len, "'%.*s' against '%.*s'",
		 (int)(ea ? (size_t)(ea - a) : strlen(a)), *a ? a : "(nothing)",
		 (int)(eb ? (size_t)(eb - b) : strlen(b)), *b ? b : "(nothing)");
}

/* The set must be one run: same writer, same options, each shard once. */
static int
check_set(struct merge *m)
{
	const struct shard_file *f0 = &m->sf[0];
	unsigned n = f0->h.shard_count;
	char what[600];

	for (unsigned i = 1; i < m->n; i++) {
		const struct shard_file *f = &m->sf[i];
		if (strcmp(f->h.program, f0->h.program) != 0) {
			snprintf(what, sizeof(what), "%s: written by imapstress %s, "
				 "but %s by %s", f->path, f->h.program, f0->path,
				 f0->h.program);
			return refuse(what);
		}
		if (strcmp(f->h.mode, f0->h.mode) != 0) {
			snprintf(what, sizeof(what), "%s: a %s run, but %s is a "
				 "%s run", f->path, f->h.mode, f0->path,
				 f0->h.mode);
			return refuse(what);
		}
		if (f->h.shard_count != n) {
			snprintf(what, sizeof(what), "%s: shard %u of %u, but %s "
				 "is of %u", f->path, f->h.shard_index,
				 f->h.shard_count, f0->path, n);
			return refuse(what);
		}
		if (strcmp(f->h.args_key, f0->h.args_key) != 0 ||
		    memcmp(f->h.states, f0->h.states, sizeof(f->h.states)) != 0) {
			char diff[400];
			first_difference(f->h.args_key, f0->h.args_key, diff,
					 sizeof(diff));
			snprintf(what, sizeof(what), "%s: another configuration "
				 "than %s (%s)", f->path, f0->path, diff);
			return refuse(what);
		}
	}
	bool *seen = xcalloc(n, sizeof(*seen));
	const char **by = xcalloc(n, sizeof(*by));
	int r = 0;
	for (unsigned i = 0; i < m->n && r == 0; i++) {
		unsigned k = m->sf[i].h.shard_index;
		if (seen[k]) {
			snprintf(what, sizeof(what), "shard %u/%u given twice: "
				 "%s and %s", k, n, by[k], m->sf[i].path);
			r = refuse(what);
		}
		seen[k] = true;
		by[k] = m->sf[i].path;
	}
	for (unsigned k = 0; k < n && r == 0; k++) {
		if (!seen[k]) {
			snprintf(what, sizeof(what), "shard %u/%u missing (%u of "
				 "%u result files given)", k, n, m->n, n);
			r = refuse(what);
		}
	}
	free(seen);
	free(by);
	return r;
}

static double
maxd(double a, double b)
{
	return a > b ? a : b;
}

/* One wall-clock second: every shard's window of it added up. */
static int
merge_second(struct merge *m, struct report *rep, int64_t sec)
{
	struct report_run rr = { .clients = m->clients, .workers = m->workers };
	enum result_rec kind;
	int64_t s;
	struct report_run run;

	bool any = false;

	stats_snap_clear(&m->win);
	/* A second no shard reported: counted from the first row. */
	rr.elapsed_s = (double)(sec - m->first_sec) + 1.0;
	for (unsigned i = 0; i < m->n; i++) {
		struct shard_file *sf = &m->sf[i];
		if (result_reader_peek(sf->rd, &kind, &s, m->err,
				       sizeof(m->err)) < 0)
			return -1;
		if (kind != RESULT_TICK || s != sec)
			continue;
		if (result_reader_next(sf->rd, &kind, &s, &run, &m->scratch,
				       m->err, sizeof(m->err)) < 0)
			return -1;
		stats_snap_add(&m->win, &m->scratch);
		/* Since the first shard started, to the latest row end. */
		double end = sf->t0_s + run.elapsed_s - m->t0_min;
		rr.elapsed_s = any ? maxd(rr.elapsed_s, end) : end;
		any = true;
		rr.ramping = rr.ramping || run.ramping;
		rr.warmup = rr.warmup || run.warmup;
		/* Only the merged run's last row is partial; a shard that
		 * drained earlier has its drain inside an ordinary second. */
		if (sec == m->last_sec)
			rr.partial_s = maxd(rr.partial_s, run.partial_s);
		rr.self_limited = rr.self_limited || run.self_limited;
		rr.cpu_pct = maxd(rr.cpu_pct, run.cpu_pct);
		if (run.loop_lag_max_us > rr.loop_lag_max_us)
			rr.loop_lag_max_us = run.loop_lag_max_us;
		report_run_take_server(&rr, &run);
	}
	rr.ramp_pct = rr.clients ?
	    (unsigned)(m->win.conns_total * 100 / rr.clients) : 100;
	/* Gauges are what this second shows, not a sum over seconds. */
	struct stats_snap gauges;
#define X(f) gauges.f = m->win.f;
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
	stats_snap_add(&m->cum, &m->win);
#define X(f) m->cum.f = gauges.f;
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
	report_tick(rep, &rr, &m->win, &m->cum);
	return 0;
}

/* The totals' facts: the union of the shards' measured intervals. */
static void
merge_final_run(struct merge *m, struct report *rep, struct report_run *rr)
{
	double from = INFINITY, end = 0;
	int worst = -1;

	memset(rr, 0, sizeof(*rr));
	rr->clients = m->clients;
	rr->workers = m->workers;
	for (unsigned i = 0; i < m->n; i++) {
		const struct shard_file *sf = &m->sf[i];
		const struct report_run *f = &sf->fin;
		double t = sf->t0_s - m->t0_min;
		if (t + f->measured_from_s < from)
			from = t + f->measured_from_s;
		end = maxd(end, t + f->elapsed_s);
		rr->cpu_user_us += f->cpu_user_us;
		rr->cpu_sys_us += f->cpu_sys_us;
		rr->unfinished += f->unfinished;
		if (f->peak_rss_kb > rr->peak_rss_kb)
			rr->peak_rss_kb = f->peak_rss_kb;
		rr->cpu_pct = maxd(rr->cpu_pct, f->cpu_pct);
		if (f->loop_lag_max_us > rr->loop_lag_max_us)
			rr->loop_lag_max_us = f->loop_lag_max_us;
		rr->self_limited = rr->self_limited || f->self_limited;
		report_run_take_server(rr, f);
		if (worst < 0 || f->exit_status > m->sf[worst].fin.exit_status)
			worst = (int)i;
	}
	rr->elapsed_s = end;
	rr->measured_from_s = from;
	rr->measured_s = end - from;
	rr->stop_reason = m->sf[worst].fin.stop_reason;
	unsigned all_unusable = 0, quit = 0;
	for (unsigned i = 0; i < m->n; i++) {
		all_unusable += m->sf[i].fin.exit_status == 3;
		int why = stop_reason_lookup(m->sf[i].stop_reason);
		quit += why == STOP_ERROR_QUIT || why == STOP_DISCONNECT_QUIT;
	}
	rr->sla_failed = report_sla_failures(rep, &m->tot);
	/* The rules of a single run (run.c), on the merged numbers: errors a
	 * healthy server does not cause, SLAs, commands cut off. */
	struct run_outcome o = {
		.unusable = all_unusable == m->n,
		.some_unusable = all_unusable > 0,
		.quit = quit > 0,
		.hard_errors = stats_snap_total_errors(&m->tot) -
		    m->tot.errors[ERR_NO] + m->tot.act.notify_refused,
		.sla_failed = rr->sla_failed, .unfinished = rr->unfinished,
	};
	rr->exit_status = exit_policy_status(&o);
}

static int
usage(void)
{
	fputs("usage: imapstress merge [--json FILE|-] [--csv FILE|-] [-q] "
	      "RESULT-FILE...\n", stderr);
	return 2;
}

/* merge has no config_validate: its config is built here, once, from
 * its own options and the first shard's header (check_set made the
 * shards agree), before anything reads it; the states and action weights
 * go into dv as the shards recorded them. */
static void
merge_config(const struct merge *m, double rate, struct config *cfg,
	     struct derived *dv)
{
	const struct result_header *h0 = &m->sf[0].h;

	cfg->rate = rate;
	memcpy(cfg->slas, h0->slas, sizeof(cfg->slas));
	cfg->n_slas = h0->n_slas;
	memcpy(cfg->score_weights, h0->score_weights,
	       sizeof(cfg->score_weights));
	cfg->score_weights_set = h0->score_weights_set;
	/* Server counters shown when a shard watched one (see
	 * report_run_take_server); the pid itself is not needed here. */
	for (unsigned i = 0; i < m->n; i++)
		if (m->sf[i].h.server_watched)
			cfg->n_server_pids = 1;
	cfg->tick_percentile = h0->tick_percentile;
	cfg->warmup_secs = h0->warmup_secs;
	if (h0->profile_path[0] != '\0') {
		/* The report's profile sections (report_profile.c). */
		cfg->profile_path = xstrdup(h0->profile_path);
		cfg->push_timeout_s = h0->push_timeout_s;
	}
	derived_init(dv, cfg, isatty(STDOUT_FILENO));
	memcpy(dv->states, h0->states, sizeof(dv->states));
	memcpy(dv->act_weights, h0->act_weights, sizeof(dv->act_weights));
	dv->act_weights_set = h0->act_weights_set;
}

static int merge_report(struct merge *m, const struct config *cfg,
			const struct derived *dv);

static int
merge_run(struct merge *m, struct config *cfg)
{
	for (unsigned i = 0; i < m->n; i++)
		if (check_file(m, &m->sf[i]) < 0)
			return refuse(m->err);
	int r = check_set(m);
	if (r != 0)
		return r;
	double rate = cfg->rate;
	m->t0_min = INFINITY;
	for (unsigned i = 0; i < m->n; i++) {
		struct shard_file *sf = &m->sf[i];
		m->clients += sf->fin.clients;
		m->workers += sf->fin.workers;
		rate += sf->h.rate;
		if (sf->t0_s < m->t0_min)
			m->t0_min = sf->t0_s;
		if (sf->ticks > 0) {
			if (!m->any_tick || sf->first_sec < m->first_sec)
				m->first_sec = sf->first_sec;
			if (!m->any_tick || sf->last_sec > m->last_sec)
				m->last_sec = sf->last_sec;
			m->any_tick = true;
		}
		/* Pass 2 reads from the start again. */
		result_reader_free(sf->rd);
		sf->rd = result_reader_open(sf->path, m->err, sizeof(m->err));
		if (sf->rd == NULL)
			return refuse(m->err);
		sf->h.args_key = result_reader_header(sf->rd)->args_key;
	}
	struct derived dv;
	merge_config(m, rate, cfg, &dv);
	return merge_report(m, cfg, &dv);
}

static int
merge_report(struct merge *m, const struct config *cfg, const struct derived *dv)
{
	struct report *rep = report_new(cfg, dv, stdout, m->err, sizeof(m->err));
	if (rep == NULL)
		return refuse(m->err);
	for (int64_t sec = m->first_sec; m->any_tick && sec <= m->last_sec; sec++)
		if (merge_second(m, rep, sec) < 0) {
			report_free(rep);
			return refuse(m->err);
		}
	struct report_run rr;
	merge_final_run(m, rep, &rr);
	report_final(rep, &rr, &m->tot);
	report_free(rep);
	/* The summary's OUT OF LOCAL PORTS line is for the whole run; which
	 * shard needs more source addresses is said here. */
	for (unsigned i = 0; i < m->n; i++) {
		if (m->sf[i].ports_exhausted == 0)
			continue;
		snprintf(m->err, sizeof(m->err), "shard %u/%u (%s) ran out of "
			 "local ports: %" PRIu64 " connects failed",
			 m->sf[i].h.shard_index, m->sf[i].h.shard_count,
			 m->sf[i].path, m->sf[i].ports_exhausted);
		say(m->err);
	}
	return rr.exit_status;
}

int
merge_main(int argc, char **argv)
{
	struct config cfg;
	struct merge m = { 0 };
	int status;

	config_defaults(&cfg);
	m.sf = xcalloc((size_t)argc, sizeof(*m.sf));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char **dst = strcmp(a, "--json") == 0 ? &cfg.json_path :
		    strcmp(a, "--csv") == 0 ? &cfg.csv_path : NULL;
		if (dst != NULL && i + 1 < argc) {
			free(*dst);
			*dst = xstrdup(argv[++i]);
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			cfg.format = OUT_QUIET;
		} else if (a[0] == '-' && a[1] != '\0') {
			free(m.sf);
			config_free(&cfg);
			return usage();
		} else {
			m.sf[m.n++].path = a;
		}
	}
	if (m.n == 0) {
		free(m.sf);
		config_free(&cfg);
		return usage();
	}
	stats_snap_init(&m.tot);
	stats_snap_init(&m.win);
	stats_snap_init(&m.cum);
	stats_snap_init(&m.scratch);
	status = merge_run(&m, &cfg);
	for (unsigned i = 0; i < m.n; i++)
		result_reader_free(m.sf[i].rd);
	stats_snap_free(&m.tot);
	stats_snap_free(&m.win);
	stats_snap_free(&m.cum);
	stats_snap_free(&m.scratch);
	free(m.sf);
	config_free(&cfg);
	return status;
}
