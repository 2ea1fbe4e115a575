/* compare_int.h: between the files of src/compare/: the runs as read
 * (compare_load.c), the workload check (compare_match.c), the bootstrap
 * (compare_boot.c), the verdicts (compare_verdict.c) and the two outputs
 * (compare_text.c, compare_json.c). */
#ifndef IMAPSTRESS_COMPARE_INT_H
#define IMAPSTRESS_COMPARE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan/ops.h"
#include "report/result.h"
#include "stats/hist.h"

/* One measured second of one run (shards of a run added up): a tick
 * outside --warmup.  A short last tick (the drain) covers dur < 1. */
struct cmp_second {
	double dur;
	uint64_t ok[OP_COUNT];
	struct hist *lat[OP_COUNT];	/* NULL: no sample that second */
};

/* One run: one result file, or the N shard files of one sharded run. */
struct cmp_run {
	const char *path;		/* its first file, for messages */
	unsigned n_files;
	unsigned n_secs;
	struct cmp_second *secs;
	uint64_t samples[OP_COUNT];	/* latency samples, all seconds */
	uint64_t ok[OP_COUNT];
	double dur;
};

/* BASE or NEW: the runs of one side. */
struct cmp_side {
	const char *name;		/* "BASE", "NEW" */
	char **paths;			/* its files, as given */
	unsigned n_paths;
	struct cmp_run *runs;
	unsigned n_runs;
	uint64_t samples[OP_COUNT];	/* over every run */
	uint64_t ok[OP_COUNT];
	double dur;
};

/* A file's header, kept for the workload check. */
struct cmp_file {
	const char *path;
	struct result_header h;		/* args_key owned (a copy) */
};

/* The four figures of a command; rate is OK replies per second, the
 * others latency percentiles (lower is better). */
enum cmp_metric { CMP_RATE, CMP_P50, CMP_P95, CMP_P99, CMP_METRICS };
extern const char *const cmp_metric_name[CMP_METRICS];	/* "rate", "p50" .. */

enum cmp_verdict {
	CMP_SAME,		/* no change beyond the threshold shown */
	CMP_BETTER,
	CMP_WORSE,
	CMP_FEW,		/* too few samples to say */
	CMP_NODATA,		/* no ratio: a side has none of it */
};
extern const char *const cmp_verdict_name[];	/* "no-change", "better" .. */

/* A row: one command's one figure. */
struct cmp_row {
	int op;
	enum cmp_metric metric;
	double base, new_;		/* rate /s, or latency in us */
	double ratio;			/* new_ / base; NaN: none */
	double lo, hi;			/* 95% interval of the ratio; NaN: none */
	uint64_t base_n, new_n;		/* the command's samples on each side */
	enum cmp_verdict verdict;
};

struct cmp_opts {
	double threshold;		/* 0.05: 5% */
	uint64_t seed;
	unsigned resamples;
	uint64_t min_count;
};

/* --- compare_load.c --- */
/* Reads the files of one side into runs (a sharded run's files, given
 * one after the other, become one run) and keeps each file's header in
 * files[*n_files].  -1 with "PATH: problem" in err. */
int cmp_side_load(struct cmp_side *s, char **paths, unsigned n,
		  struct cmp_file *files, unsigned *n_files,
		  char *err, size_t errlen);
void cmp_side_free(struct cmp_side *s);
/* to's counts += from's (histograms allocated as needed); not dur. */
void cmp_second_add(struct cmp_second *to, const struct cmp_second *from);
void cmp_second_free(struct cmp_second *s);

/* --- compare_match.c --- */
/* Every file measures what files[0] does: same result format version,
 * mode, command mix and options (those that only say where the server
 * is may differ).  -1 naming the file and the key in err.  A different
 * imapstress version is no refusal: *note says so, or is "". */
int cmp_match(const struct cmp_file *files, unsigned n, char *err,
	      size_t errlen, char *note, size_t notelen);

/* --- compare_boot.c --- */
/* The statistic of a whole side: the rate and the percentiles in us of
 * every command (NaN where it has no sample). */
void cmp_side_stats(const struct cmp_side *s, double st[OP_COUNT][CMP_METRICS]);
/* The 95% intervals of NEW/BASE for every command and figure, from
 * o->resamples bootstrap resamples of runs and, within each run, of its
 * seconds, seeded with o->seed; NaN where a bound has no value. */
void cmp_bootstrap(const struct cmp_side *base, const struct cmp_side *nw,
		   const struct cmp_opts *o, double lo[OP_COUNT][CMP_METRICS],
		   double hi[OP_COUNT][CMP_METRICS]);
/* The q-quantile (0..1) of v[0..n), sorted in place, by linear
 * interpolation between order statistics; NaN for n = 0. */
double cmp_quantile(double *v, unsigned n, double q);

/* --- compare_verdict.c --- */
enum cmp_verdict cmp_verdict_of(enum cmp_metric m, double lo, double hi,
				double threshold);
/* The rows of every command either side ran, verdicts included; the
 * count in *n (allocated; free it). */
struct cmp_row *cmp_rows(const struct cmp_side *base, const struct cmp_side *nw,
			 const struct cmp_opts *o, unsigned *n);
unsigned cmp_worse(const struct cmp_row *rows, unsigned n);

/* --- compare_text.c, compare_json.c --- */
struct cmp_report {
	const struct cmp_side *base, *nw;
	const struct cmp_opts *o;
	const struct cmp_row *rows;
	unsigned n_rows;
	int exit_status;
};
void cmp_print_text(FILE *f, const struct cmp_report *r);
void cmp_print_json(FILE *f, const struct cmp_report *r);

#endif
