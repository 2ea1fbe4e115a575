/* result_write.c: the writer side of result.h.  Each tick is written and
 * flushed when it happens, so a run that is killed leaves a file without
 * its end line, which merge refuses as truncated rather than trusting. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "config/derived.h"
#include "report/result.h"
#include "util/xmalloc.h"

struct result_writer {
	FILE *f;
	char *path;
	bool started;		/* the start line is out */
	uint64_t t0_wall_us;
	int64_t last_second;
	unsigned long ticks;
	bool failed;		/* a write failed: said once */
	bool profile;		/* profile mode: the act lines too */
};

static uint64_t
wall_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void
check(struct result_writer *w)
{
	if (!w->failed && (ferror(w->f) || fflush(w->f) != 0)) {
		w->failed = true;
		log_error("--result %s: write failed: %s (the file is incomplete "
			  "and merge will refuse it)", w->path, strerror(errno));
	}
}

struct result_writer *
result_writer_new(const struct config *cfg, const struct derived *dv,
		  char *err, size_t errlen)
{
	FILE *f = fopen(cfg->result_path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "--result %s: cannot create: %s",
			 cfg->result_path, strerror(errno));
		return NULL;
	}
	struct result_writer *w = xcalloc(1, sizeof(*w));
	char esc[3 * 96 + 1];
	w->f = f;
	w->path = xstrdup(cfg->result_path);
	w->last_second = INT64_MIN;

	fprintf(f, "%s %u\n", RESULT_MAGIC, RESULT_VERSION);
	w->profile = cfg->profile_path != NULL;
	fprintf(f, "program %s\nmode %s\n", imapstress_version,
		w->profile ? "profile" : "stress");
	result_escape(esc, sizeof(esc), cfg->shard_from ? cfg->shard_from : "-");
	fprintf(f, "shard %u %u %s\n", cfg->shard_index,
		cfg->shard_count ? cfg->shard_count : 1, esc);
	fprintf(f, "args %s\n", cfg->args_key ? cfg->args_key : "");
	fputs("states", f);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, " %s=%d,%d", op_table[op].name, dv->states[op].prob,
			dv->states[op].again);
	fprintf(f, "\nreport rate=%.17g tick_percentile=%.17g warmup_secs=%.17g\n",
		cfg->rate, cfg->tick_percentile, cfg->warmup_secs);
	if (w->profile) {
		char path[3 * 256 + 1];
		result_escape(path, sizeof(path), cfg->profile_path);
		fprintf(f, "profile push_timeout_s=%.17g path=%s\n",
			cfg->push_timeout_s, path);
	}
	for (unsigned i = 0; i < cfg->n_slas; i++) {
		const struct sla *s = &cfg->slas[i];
		char text[3 * sizeof(s->text) + 1];
		result_escape(text, sizeof(text), s->text);
		fprintf(f, "sla op=%s percentile=%.17g max_us=%" PRIu64 " text=%s\n",
			s->op >= 0 ? op_table[s->op].name :
			s->op == SLA_OP_SCORE ? "score" : "all", s->percentile,
			s->max_us, text);
	}
	if (cfg->n_server_pids > 0)
		fputs("server_watched\n", f);
	if (cfg->score_weights_set) {
		fputs("score_weights", f);
		for (int op = 0; op < OP_COUNT; op++)
			if (cfg->score_weights[op] > 0)
				fprintf(f, " %s=%.17g", op_table[op].name,
					cfg->score_weights[op]);
		fputc('\n', f);
	}
	if (dv->act_weights_set) {
		/* Unlisted actions weigh 0. */
		fputs("act_weights", f);
		for (int act = 0; act < ACT_COUNT; act++)
			if (dv->act_weights[act] > 0)
				fprintf(f, " %s=%.17g", action_name[act],
					dv->act_weights[act]);
		fputc('\n', f);
	}
	check(w);
	return w;
}

static void
write_hist(FILE *f, const char *name, const struct hist *h)
{
	uint64_t c;

	if (hist_count(h) == 0)
		return;
	fprintf(f, "hist %s n=%" PRIu64 " sum=%" PRIu64 " min=%" PRIu64
		" max=%" PRIu64 " b=", name, hist_count(h), hist_sum(h),
		hist_min(h), hist_max(h));
	const char *sep = "";
	for (unsigned i = 0; hist_next_bucket(h, &i, &c); i++) {
		fprintf(f, "%s%u:%" PRIu64, sep, i, c);
		sep = ",";
	}
	fputc('\n', f);
}

/* One client block (LMTP or submission): PFX counters, PFXfail kinds,
 * PFXcode and PFXesc (enhanced codes) lines with what is not zero. */
static void
write_lmtp(FILE *f, const char *pfx, const struct lmtp_snap *b)
{
	fputs(pfx, f);
#define X(n) fprintf(f, " " #n "=%" PRIu64, b->n);
	LMTP_COUNTERS(X)
	X(sessions_open)
	X(queued_max)
#undef X
	fprintf(f, "\n%sfail", pfx);
	for (int k = 0; k < LMTP_FAIL_SLOTS; k++)
		fprintf(f, " %s=%" PRIu64, lmtp_fail_name[k], b->fails[k]);
	fputc('\n', f);
	bool any = false;
	for (int c = 0; c < LMTP_CODES; c++) {
		if (b->codes[c] == 0)
			continue;
		if (!any)
			fprintf(f, "%scode", pfx);
		fprintf(f, " %d=%" PRIu64, c, b->codes[c]);
		any = true;
	}
	if (any)
		fputc('\n', f);
	char head[16];
	snprintf(head, sizeof(head), "%sesc", pfx);
	lmtp_snap_print_esc(f, head, b);
}

/* The POP3 block (pop3_stats.h), when a POP3 session ran: "pop3"
 * counters, "pop3fail" kinds, one "pop3cmd NAME" line per command used. */
static void
write_pop3(FILE *f, const struct pop3_snap *p)
{
	if (!pop3_snap_any(p))
		return;
	fputs("pop3", f);
#define X(n) fprintf(f, " " #n "=%" PRIu64, p->n);
	POP3_COUNTERS(X)
	X(sessions_open)
#undef X
	fputs("\npop3fail", f);
	for (int k = 0; k < P3F_COUNT; k++)
		fprintf(f, " %s=%" PRIu64, pop3_fail_name[k], p->fails[k]);
	fputc('\n', f);
	for (int c = 0; c < P3_CMD_COUNT; c++)
		if (p->ok[c] + p->err[c] + p->failed[c] > 0)
			fprintf(f, "pop3cmd %s ok=%" PRIu64 " err=%" PRIu64
				" failed=%" PRIu64 "\n", pop3_cmd_name[c],
				p->ok[c], p->err[c], p->failed[c]);
}

/* Profile mode's figures (actions.h): counters, then histograms. */
static void
write_act(FILE *f, const struct act_snap *a)
{
	char name[ACT_HIST_NAME_MAX];
	const struct hist *h;

	fprintf(f, "act profile=%" PRIu64 " push_missed=%" PRIu64, a->profile,
		a->push_missed);
#define X(n) fprintf(f, " " #n "=%" PRIu64, a->n);
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	fputc('\n', f);
	for (int i = 0; i < ACT_COUNT; i++)
		if (a->ok[i] + a->failed[i] > 0)
			fprintf(f, "action %s ok=%" PRIu64 " failed=%" PRIu64 "\n",
				action_name[i], a->ok[i], a->failed[i]);
	write_lmtp(f, "lmtp", &a->lmtp);
	write_lmtp(f, "submit", &a->submit);
	write_pop3(f, &a->pop3);
	for (unsigned i = 0; (h = act_snap_hist(a, i, name)) != NULL; i++)
		write_hist(f, name, h);
}

static void
write_snap(FILE *f, const struct stats_snap *s, bool profile)
{
	fputs("ctr", f);
#define X(n) fprintf(f, " " #n "=%" PRIu64, s->n);
	STATS_COUNTERS(X)
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
	fputs("\nerr", f);
	for (int k = 0; k < ERR_COUNT; k++)
		fprintf(f, " %s=%" PRIu64, err_kind_name[k], s->errors[k]);
	fputs("\nbenign", f);
	for (int k = 0; k < BENIGN_COUNT; k++)
		fprintf(f, " %s=%" PRIu64, benign_code_name[k], s->benign[k]);
	fputs("\nstate", f);
	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		fprintf(f, " %s=%" PRIu64, mbox_err_name((enum mbox_err)k),
			s->state[k]);
	fputc('\n', f);
	for (int op = 0; op < OP_COUNT; op++) {
		if (s->ok[op] + s->no[op] + s->bad[op] + s->failed[op] +
		    hist_count(s->lat[op]) == 0)
			continue;
		fprintf(f, "op %s ok=%" PRIu64 " no=%" PRIu64 " bad=%" PRIu64
			" failed=%" PRIu64 "\n", op_table[op].name, s->ok[op],
			s->no[op], s->bad[op], s->failed[op]);
		write_hist(f, op_table[op].name, s->lat[op]);
	}
	write_hist(f, "tls", s->tls_lat);
	write_hist(f, "connect", s->connect_lat);
	if (profile)
		write_act(f, &s->act);
}

static void
write_run(FILE *f, const struct report_run *run)
{
	fputs("run", f);
	for (size_t i = 0; i < result_n_run_fields; i++) {
		const struct result_field *rf = &result_run_fields[i];
		const char *p = (const char *)run + rf->off;
		fprintf(f, " %s=", rf->name);
		switch (rf->type) {
		case RF_DOUBLE: fprintf(f, "%.17g", *(const double *)p); break;
		case RF_UNSIGNED: fprintf(f, "%u", *(const unsigned *)p); break;
		case RF_BOOL: fprintf(f, "%d", *(const bool *)p ? 1 : 0); break;
		case RF_U64: fprintf(f, "%" PRIu64, *(const uint64_t *)p); break;
		case RF_INT: fprintf(f, "%d", *(const int *)p); break;
		}
	}
	if (run->stop_reason != NULL) {
		char esc[3 * 64 + 1];
		result_escape(esc, sizeof(esc), run->stop_reason);
		fprintf(f, " stop_reason=%s", esc);
	}
	fputc('\n', f);
}

/* The run started elapsed_s ago on the monotonic clock; the wall clock
 * now minus that is its start, taken once so every row is counted from
 * the same instant. */
static void
start(struct result_writer *w, const struct report_run *run)
{
	if (w->started)
		return;
	w->t0_wall_us = wall_us() - (uint64_t)(run->elapsed_s * 1e6);
	fprintf(w->f, "start %" PRIu64 "\n", w->t0_wall_us);
	w->started = true;
}

void
result_writer_tick(struct result_writer *w, const struct report_run *run,
		   const struct stats_snap *win)
{
	start(w, run);
	/* The wall-clock second the window began in: ticks come a second
	 * apart, so whole seconds since the start number them; a shorter
	 * last window (a drain) takes the second after the one before. */
	int64_t sec = (int64_t)(w->t0_wall_us / 1000000u) +
	    (int64_t)run->elapsed_s - 1;
	if (sec <= w->last_second)
		sec = w->last_second + 1;
	w->last_second = sec;
	fprintf(w->f, "tick %" PRId64 "\n", sec);
	write_run(w->f, run);
	write_snap(w->f, win, w->profile);
	w->ticks++;
	check(w);
}

void
result_writer_final(struct result_writer *w, const struct report_run *run,
		    const struct stats_snap *tot)
{
	start(w, run);
	fputs("final\n", w->f);
	write_run(w->f, run);
	write_snap(w->f, tot, w->profile);
	fprintf(w->f, "end ticks=%lu\n", w->ticks);
	check(w);
}

void
result_writer_free(struct result_writer *w)
{
	if (w == NULL)
		return;
	if (fclose(w->f) != 0 && !w->failed)
		log_error("--result %s: close failed: %s", w->path, strerror(errno));
	free(w->path);
	free(w);
}
