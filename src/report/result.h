/* result.h: --result FILE, everything a run measured, so that
 * `imapstress merge` can print the report of several shards as if one
 * process had run them.  The format (version 2) is documented in the man
 * page, RESULT FILES: text lines "KEYWORD [key=value]...", values
 * %XX-escaped, histograms as their exact buckets.
 *
 * The writer is fed by report.c with exactly what the report is fed
 * (report_tick, report_final), so a replay through report.c prints what
 * the live run printed.  The reader streams a file one record at a time:
 * a snapshot costs megabytes, a run has one per second. */
#ifndef IMAPSTRESS_RESULT_H
#define IMAPSTRESS_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "report/report.h"
#include "stats/stats.h"

#define RESULT_MAGIC "imapstress-result"
#define RESULT_VERSION 2u	/* 2: server counters, score weights, profile mode; 1 is still read */

/* --- writing ------------------------------------------------------------ */

struct result_writer;

/* Creates cfg->result_path and writes the header (the states and action
 * weights as dv has them).  NULL with a message. */
struct result_writer *result_writer_new(const struct config *cfg,
					const struct derived *dv,
					char *err, size_t errlen);
void result_writer_tick(struct result_writer *w, const struct report_run *run,
			const struct stats_snap *win);
/* The totals and the end line; reports a failed write on stderr. */
void result_writer_final(struct result_writer *w, const struct report_run *run,
			 const struct stats_snap *tot);
void result_writer_free(struct result_writer *w);	/* NULL ok */

/* --- reading ------------------------------------------------------------ */

/* What the header says: the run's shape and what its report needs. */
struct result_header {
	unsigned version;
	char program[32];		/* imapstress_version of the writer */
	char mode[16];			/* "stress" or "profile" */
	unsigned shard_index, shard_count;
	char shard_from[96];
	char *args_key;			/* as config.h; never NULL */
	struct state_prob states[OP_COUNT];	/* after main's adjustments */
	double rate, tick_percentile, warmup_secs;
	struct sla slas[CONFIG_MAX_SLA];
	unsigned n_slas;
	double score_weights[OP_COUNT];		/* --score-weights */
	bool score_weights_set;
	/* Profile mode's per-action weights (LoadSim's score_weight_*), so
	 * a merge scores as the run did. */
	double act_weights[CONFIG_ACT_WEIGHTS];
	bool act_weights_set;
	bool server_watched;			/* --server-pid was given */
	uint64_t t0_wall_us;		/* wall clock at the run's start */
	/* mode profile: its "profile" line */
	char profile_path[256];
	double push_timeout_s;
};

enum result_rec { RESULT_TICK, RESULT_FINAL, RESULT_END };

struct result_reader;

/* Opens path and reads the header.  NULL with "PATH: problem" (or
 * "PATH:LINE: problem") in err. */
struct result_reader *result_reader_open(const char *path, char *err,
					 size_t errlen);
const struct result_header *result_reader_header(const struct result_reader *r);
/* The next record: a tick (its wall-clock second in *second), the final
 * totals, or the end.  run and snap are filled (snap cleared first);
 * run->stop_reason points into the reader until the next call.  -1 with
 * a message for a malformed or truncated file. */
int result_reader_next(struct result_reader *r, enum result_rec *kind,
		       int64_t *second, struct report_run *run,
		       struct stats_snap *snap, char *err, size_t errlen);
/* What the next record is, without reading it: a tick's second, so a
 * merge can take each shard's row in wall-clock order. */
int result_reader_peek(struct result_reader *r, enum result_rec *kind,
		       int64_t *second, char *err, size_t errlen);
void result_reader_free(struct result_reader *r);	/* NULL ok */

/* --- shared by writer and reader (result_fields.c) ---------------------- */

/* %XX for spaces, '%', '=' and bytes outside printable ASCII. */
void result_escape(char *dst, size_t dstlen, const char *src);
/* In place; -1 on a malformed escape. */
int result_unescape(char *s);

/* struct report_run's numeric fields, by name. */
enum result_ftype { RF_DOUBLE, RF_UNSIGNED, RF_BOOL, RF_U64, RF_INT };
struct result_field {
	const char *name;
	enum result_ftype type;
	size_t off;
};
extern const struct result_field result_run_fields[];
extern const size_t result_n_run_fields;

#endif
