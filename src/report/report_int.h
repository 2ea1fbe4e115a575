/* report_int.h: what report.c, report_text.c, report_json.c and
 * report_csv.c share.  Not part of the report.h contract.  Calls go
 * down only: report.c to the writers, the writers to their sections
 * (server, score, profile, and profile's POP3 and push), and all of them
 * to the shared pieces below (report_calc.c, report_sla.c, json_stats.c,
 * json_write.c, text_fmt.c), which call no writer. */
#ifndef IMAPSTRESS_REPORT_INT_H
#define IMAPSTRESS_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "config/derived.h"
#include "stats/hist.h"
#include "report/json_write.h"
#include "report/report.h"
#include "stats/stats.h"

struct report {
	const struct config *cfg;
	struct derived dv;	/* the run's (report_new), a copy */
	/* Human text; NULL when stdout carries JSON/CSV/TSV instead, so
	 * that a pipe into a parser never sees a stray text line. */
	FILE *out;
	FILE *json, *csv, *tsv;
	bool json_own, csv_own, tsv_own;	/* ours to fclose */
	/* A stream whose write, flush or close failed: named once on
	 * stderr, then given nothing more (report.c, report_check). */
	bool out_failed, json_failed, csv_failed, tsv_failed;
	bool failed;				/* any of them */
	unsigned ticks;				/* report_tick calls so far */
	/* imaptest's ms/cmd line: latency since the last such line. */
	uint64_t lat_sum_us[OP_COUNT];
	uint64_t lat_cnt[OP_COUNT];
	struct hist *scratch;			/* for merging over ops */
	struct result_writer *result;		/* --result, else NULL */
};

/* text: imaptest's terminal layout plus the extended summary */
void report_text_tick(struct report *r, const struct report_run *run,
		      const struct stats_snap *win,
		      const struct stats_snap *cum);
void report_text_final(struct report *r, const struct report_run *run,
		       const struct stats_snap *tot);

/* --json: JSON Lines */
void report_json_tick(struct report *r, const struct report_run *run,
		      const struct stats_snap *win,
		      const struct stats_snap *cum);
void report_json_final(struct report *r, const struct report_run *run,
		       const struct stats_snap *tot);

/* --csv and imaptest's output= TSV */
void report_csv_header(struct report *r);
void report_csv_tick(struct report *r, const struct report_run *run,
		     const struct stats_snap *win,
		     const struct stats_snap *cum);
void report_tsv_header(struct report *r);
void report_tsv_tick(struct report *r, const struct stats_snap *win);

/* report_server.c: --server-pid's counters and the network Kbps */
bool report_server_shown(const struct config *cfg);
void report_server_text_tick(struct report *r, const struct report_run *run,
			     const struct stats_snap *win);
void report_server_text_final(const struct report_run *run,
			      const struct stats_snap *tot, FILE *o);
/* ",\"server\":{...}" over s, which spans secs */
void report_server_json(FILE *f, const struct report_run *run,
			const struct stats_snap *s, double secs, bool final);
void report_server_csv_header(FILE *f);
void report_server_csv_row(FILE *f, const struct report_run *run,
			   const struct stats_snap *win);

/* report_score.c: the LoadSim score in the summary */
bool report_score_shown(const struct config *cfg, const struct derived *dv);
struct score;
/* The score of tot: over actions in profile mode with LoadSim weights,
 * else over commands (the summary and --sla 'score<T' use this). */
void report_score_of(const struct config *cfg, const struct derived *dv,
		     const struct stats_snap *tot,
		     struct score *sc);
void report_score_text(struct report *r, const struct stats_snap *tot,
		       FILE *o);
/* ",\"score\":{...}", or nothing when not shown */
void report_score_json(struct report *r, FILE *f,
		       const struct stats_snap *tot);
/* Profile mode (report_profile.c): its sections, only when the run was
 * one (report_profile_on); stress-mode output does not change. */
bool report_profile_on(const struct report *r);
void report_profile_text_tick(struct report *r, const struct stats_snap *win,
			      const struct stats_snap *cum);
void report_profile_text_final(struct report *r, const struct report_run *run,
			       const struct stats_snap *tot);
void report_profile_json_tick(struct report *r, const struct stats_snap *win,
			      const struct stats_snap *cum);
void report_profile_json_final(struct report *r, const struct report_run *run,
			       const struct stats_snap *tot);
void report_profile_csv_header(struct report *r);
void report_profile_csv_tick(struct report *r, const struct stats_snap *win,
			     const struct stats_snap *cum);
/* Its POP3 part (report_pop3.c), called from report_profile.c: text and
 * JSON only when a POP3 session ran; JSON's ",\"pop3\":{...}", a tick's
 * (run NULL) or the summary's (json_cmd). */
void report_pop3_text_tick(struct report *r, const struct stats_snap *win);
void report_pop3_text_final(struct report *r, const struct report_run *run,
			    const struct stats_snap *tot);
void report_pop3_json(struct report *r, const struct stats_snap *s,
		      const struct report_run *run);
void report_pop3_csv_header(struct report *r);
void report_pop3_csv_tick(struct report *r, const struct stats_snap *win);

/* report_push.c: IDLE against NOTIFY, when a NOTIFY client took part. */
bool report_push_notify_on(const struct act_snap *a);
void report_push_text(const struct act_snap *a, FILE *o);
/* ,"notify":{"push_missed_notify":N,"notify_refused":N,
 * "notify_overflow":N} */
void report_push_json(FILE *f, const struct act_snap *a);
void report_push_csv_header(FILE *f);
/* hist_cols: count,p50,p95,p99,max of one histogram (report_profile.c) */
void report_push_csv_row(FILE *f, const struct act_snap *a,
			 void (*hist_cols)(FILE *, const struct hist *));

/* text_fmt.c: shared by the text writers (report_text.c, report_profile.c,
 * report_pop3.c). */
void print_lat_row(FILE *o, const char *name, uint64_t count, double per_s,
		   const struct hist *h);
void fmt_us_compact(char *buf, size_t n, uint64_t us);	/* "12.3ms" */
/* Requests per second with about three significant digits. */
void fmt_rate(char *buf, size_t n, double v);

/* json_stats.c: shared by the JSON writers (report_json.c,
 * report_profile.c, report_pop3.c). */
/* "key":{"mean":..,"p50":..,"p90":..,"p95":..,"p99":..,"p999":..,"max":..} */
void json_latency(FILE *f, const char *key, const struct hist *h);
/* "key":{"name":N,...}: a counter array under its names, every one. */
void json_named(FILE *f, const char *key, const char *const *names,
		const uint64_t *v, int n);
/* "p50_us":..,"p95_us":..,"p99_us":..,"max_us":.. (a tick's set) */
void json_pcts(FILE *f, const struct hist *h);
/* One member of a command or action object, with *sep before it (then
 * ","): "name":{"keys[0]":v[0],...,} and a tick's (run NULL) json_pcts,
 * or the summary's "rate" (v[0], the OKs, per measured second) and
 * json_latency "latency_us": the shape of IMAP's commands, profile
 * actions and POP3's commands alike. */
void json_cmd(FILE *f, const char **sep, const char *name,
	      const char *const *keys, const uint64_t *v, int n,
	      const struct hist *h, const struct report_run *run);

/* report_calc.c, for every writer. */
/* ok + no + bad + failed of one op. */
uint64_t report_op_activity(const struct stats_snap *s, int op);
/* The same over every op: commands that ended one way or another. */
uint64_t report_commands(const struct stats_snap *s);
/* a / b, or 0 when that would not be a finite number. */
double report_div(double a, double b);
/* Open loop: commands per measured second that the schedule paced, i.e.
 * every command that ended except LOGIN and AUTHENTICATE, which a
 * connection sends by itself before it joins the schedule. */
double report_achieved_rate(const struct report_run *run,
			    const struct stats_snap *tot);

/* report_sla.c, for the text and JSON writers (its sla_eval and
 * report_sla_failures are report.h's). */
/* The figure cfg->slas[i] bounds: main's run->sla_actual_us when given,
 * else computed from tot (the mean for percentile 0, the max for 100, of
 * one op or of all for op -1).  *samples gets the number of samples. */
uint64_t report_sla_actual(struct report *r, const struct report_run *run,
			   const struct stats_snap *tot, unsigned i,
			   uint64_t *samples);
/* Did cfg->slas[i] hold?  run->sla_ok decides when main gives it. */
bool report_sla_ok(struct report *r, const struct report_run *run,
		   const struct stats_snap *tot, unsigned i);

#endif
