/* hr_int.h: what the files of src/htmlreport/ share: the inputs as read
 * (a --json file: hr_jsonl.c; result files through merge: hr_input.c,
 * their histograms: hr_hist.c) and the page builders (hr_page.c,
 * hr_run*.c, hr_compare.c, hr_capacity.c). */
#ifndef IMAPSTRESS_HR_INT_H
#define IMAPSTRESS_HR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "htmlreport/hr_buf.h"
#include "htmlreport/hr_json.h"
#include "htmlreport/hr_svg.h"

/* One command's whole distribution (result files only): latency in us at
 * percentiles p (0..100, 100 = max). */
struct hr_dist {
	const char *name;
	size_t n;
	double *p, *us;
};

/* A run: its --json lines (ticks in order, the summary if it has one). */
struct hr_run {
	struct jv *ticks;
	size_t nt;
	struct jv summary;
	bool has_summary;
	char *sources;		/* the input files, for the page header */
	char *args;		/* the command line (result files), or NULL */
	char *mode;		/* "stress"/"profile" (result files), or NULL */
	struct hr_dist dist[64];	/* result files: per command */
	size_t n_dist;
};

void hr_run_free(struct hr_run *r);

/* Reads a --json file (path, already open as f) into r, appending to
 * what r holds.  -1 with "PATH:LINE: problem" in err. */
int hr_read_jsonl(const char *path, FILE *f, struct hr_run *r, char *err,
		  size_t errlen);
/* All of path as one text (*text: the caller frees it, also on -1);
 * -1 with "PATH: problem" when it cannot be read or holds a NUL. */
int hr_read_whole(const char *path, char **text, char *err, size_t errlen);
/* At the end of a file read line by line: -1 with "PATH: ..." when it
 * could not be read or had no line. */
int hr_read_end(FILE *f, const char *path, unsigned long lines, char *err,
		size_t errlen);
/* Result files (one run or its shards), merged as `imapstress merge`
 * merges them, into r.  -1 with the merge's message in err. */
int hr_read_results(char **paths, int n, struct hr_run *r, char *err,
		    size_t errlen);

/* Runs merge_main or compare_main (fn) on av (ac; av[tmp_at] is filled
 * with a new temporary file, the subcommand's --json value) with its
 * stdout silenced.  *tmp: the file (the caller unlinks and frees it);
 * *status: the subcommand's exit status.  -1 with a message when no
 * file could be made. */
int hr_sub_json(int (*fn)(int, char **), char **av, int ac, int tmp_at,
		char **tmp, int *status, char *err, size_t errlen);

/* The result files' final histograms, merged, as r->dist. */
int hr_read_hists(char **paths, int n, struct hr_run *r, char *err,
		  size_t errlen);

/* The page around the sections: <head> with the inline style, <h1>. */
void hr_page_open(struct hbuf *b, const char *title);
void hr_page_close(struct hbuf *b);
/* <h2> with an id for the table of contents. */
void hr_section(struct hbuf *b, const char *id, const char *title);
/* A two-column table row "name  value" of the settings tables; the
 * value escaped. */
void hr_kv(struct hbuf *b, const char *key, const char *value);
void hr_kv_num(struct hbuf *b, const char *key, double v, const char *unit);

/* hr_run_summary.c: the summary's table of commands or actions (count,
 * rate, latency set; data-v holds the JSON's numbers), and their
 * percentile plot: each member of o has its latency set under sub. */
void hr_latency_table(struct hbuf *b, const char *id, const struct jv *o);
/* The same with the count columns counts (NULL-ended; IMAP's: ok, no,
 * bad, failed). */
void hr_count_table(struct hbuf *b, const char *id, const struct jv *o,
		    const char *const *counts);
void hr_pct_chart(struct hbuf *b, const char *id, const char *title,
		  const struct jv *o, const char *sub);

/* <table class=num data-table=ID> and its header row: heads are the
 * column names separated by '|'. */
void hr_table_open(struct hbuf *b, const char *id, const char *heads);
/* <td data-key=KEY data-v=V>shown</td>: v exact for a test, shown for
 * people (key NULL: none). */
void hr_num_cell(struct hbuf *b, const char *key, double v, double shown);

void hr_run_page(struct hbuf *b, const struct hr_run *r);
/* The profile-mode sections of a run page (hr_run_profile.c). */
void hr_run_profile(struct hbuf *b, const struct hr_run *r);
/* The POP3 users' section (hr_run_pop3.c), when the run had any. */
bool hr_run_has_pop3(const struct hr_run *r);
void hr_run_pop3(struct hbuf *b, const struct hr_run *r);
/* The server's counters (--server-pid) over time (hr_run_profile.c). */
void hr_run_server(struct hbuf *b, const struct hr_run *r);

/* The value of a path of keys (NULL-ended) in tick i: NAN if absent. */
double hr_tick_val(const struct hr_run *r, size_t i, const char *const *path);
/* The seconds tick i covers: from the tick before it (t) to its own. */
double hr_tick_secs(const struct hr_run *r, size_t i);
/* A series over the ticks of path's value; per second when rate; an
 * absent value is 0 when zero_absent, else a gap. */
struct hr_series *hr_tick_series(struct hr_chart *c, const struct hr_run *r,
				 const char *name, const char *const *path,
				 bool rate, bool zero_absent);
/* The keys of the object at path in the summary and the ticks, in order
 * of first appearance; *n of them (borrowed from the tree). */
const char **hr_keys(const struct hr_run *r, const char *const *path,
		     size_t *n);

/* One small chart of p50, p95 and p99 over time for each key of the
 * object at the path obj (NULL-ended, at most 3 keys) in the ticks. */
void hr_p3_charts(struct hbuf *b, const struct hr_run *r, const char *id_pfx,
		  const char *title_pfx, const char *const *obj);
/* A table row's start: <tr data-name=NAME><td>NAME</td>, escaped. */
void hr_row_open(struct hbuf *b, const char *name);

/* A compare --json object. */
void hr_compare_page(struct hbuf *b, const struct jv *cmp, const char *src);
/* A directory scripts/capacity wrote.  -1 with a message. */
int hr_capacity_page(struct hbuf *b, const char *dir, char *err,
		     size_t errlen);

#endif
