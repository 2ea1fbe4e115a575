/* compare_load.c: the result files of one side of `imapstress compare`
 * as runs of measured seconds.  The files are read with the result
 * reader merge uses (result.h); what is kept of a file is what the
 * bootstrap resamples: each second outside --warmup, with every
 * command's OK count and latency histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_int.h"
#include "stats/stats.h"
#include "util/xmalloc.h"

/* A second as a file gave it, before a sharded run's files are added. */
struct tick {
	int64_t sec;
	struct cmp_second s;
};

void
cmp_second_free(struct cmp_second *s)
{
	for (int op = 0; op < OP_COUNT; op++)
		hist_free(s->lat[op]);
}

void
cmp_second_add(struct cmp_second *to, const struct cmp_second *from)
{
	for (int op = 0; op < OP_COUNT; op++) {
		to->ok[op] += from->ok[op];
		if (from->lat[op] == NULL)
			continue;
		if (to->lat[op] == NULL)
			to->lat[op] = hist_new();
		hist_merge(to->lat[op], from->lat[op]);
	}
}

/* How long a tick's window was: from the previous tick's end to its own.
 * A tick is due each second but fires when the main loop gets to it,
 * tens of milliseconds late on a loaded machine (and a second or more
 * after a suspension); counting each as 1 s made a run's seconds fall
 * short of its measured_s by the last tick's lateness, and its rates
 * too high by as much.  A file whose ticks do not advance (none so far)
 * falls back on the nominal second, or the last tick's partial_s. */
static double
tick_secs(const struct report_run *run, double prev_end)
{
	double d = run->elapsed_s - prev_end;

	if (d > 0 && d < 1e9)
		return d;
	return run->partial_s > 0 ? run->partial_s : 1.0;
}

/* Appends the measured seconds of one file to *t; its header to f. */
static int
load_file(const char *path, struct cmp_file *f, struct tick **t,
	  unsigned *nt, struct stats_snap *snap, char *err, size_t errlen)
{
	struct result_reader *rd = result_reader_open(path, err, errlen);
	enum result_rec kind;
	int64_t sec = 0;
	struct report_run run;
	unsigned measured = 0;
	bool final = false;
	/* Where the previous tick ended, warm-up ticks included. */
	double prev_end = 0;

	if (rd == NULL)
		return -1;
	f->path = path;
	f->h = *result_reader_header(rd);
	f->h.args_key = xstrdup(f->h.args_key);
	for (;;) {
		if (result_reader_next(rd, &kind, &sec, &run, snap, err,
				       errlen) < 0) {
			result_reader_free(rd);
			return -1;
		}
		if (kind == RESULT_END)
			break;
		final = final || kind == RESULT_FINAL;
		if (kind != RESULT_TICK)
			continue;
		double dur = tick_secs(&run, prev_end);
		prev_end = run.elapsed_s;
		if (run.warmup)
			continue;
		*t = xrealloc(*t, (*nt + 1) * sizeof(**t));
		struct tick *k = &(*t)[(*nt)++];
		memset(k, 0, sizeof(*k));
		k->sec = sec;
		k->s.dur = dur;
		for (int op = 0; op < OP_COUNT; op++) {
			k->s.ok[op] = snap->ok[op];
			if (hist_count(snap->lat[op]) == 0)
				continue;
			k->s.lat[op] = hist_new();
			hist_merge(k->s.lat[op], snap->lat[op]);
		}
		measured++;
	}
	result_reader_free(rd);
	if (!final) {
		snprintf(err, errlen, "%s: truncated (no final record)", path);
		return -1;
	}
	if (measured == 0) {
		snprintf(err, errlen, "%s: no measured second (every tick is "
			 "inside --warmup)", path);
		return -1;
	}
	return 0;
}

static int
tick_cmp(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

/* The ticks of a run's files as its seconds: shards' ticks of one
 * wall-clock second added up (merge does the same). */
static void
run_from_ticks(struct cmp_run *r, struct tick *t, unsigned nt)
{
	qsort(t, nt, sizeof(*t), tick_cmp);
	r->secs = xcalloc(nt, sizeof(*r->secs));
	for (unsigned i = 0; i < nt; i++) {
		if (r->n_secs == 0 || t[i].sec != t[i - 1].sec) {
			r->secs[r->n_secs++] = t[i].s;
			continue;
		}
		/* A shard's share of the same wall-clock second. */
		struct cmp_second *to = &r->secs[r->n_secs - 1];
		if (t[i].s.dur > to->dur)
			to->dur = t[i].s.dur;
		cmp_second_add(to, &t[i].s);
		cmp_second_free(&t[i].s);
	}
	for (unsigned i = 0; i < r->n_secs; i++) {
		const struct cmp_second *s = &r->secs[i];
		r->dur += s->dur;
		for (int op = 0; op < OP_COUNT; op++) {
			r->ok[op] += s->ok[op];
			r->samples[op] += s->lat[op] ? hist_count(s->lat[op]) : 0;
		}
	}
}

/* A sharded run is its N files, one after the other, each shard once. */
static int
check_shards(const struct cmp_file *f, unsigned n, char *err, size_t errlen)
{
	unsigned count = f[0].h.shard_count;

	if (n < count) {
		snprintf(err, errlen, "%s: shard %u of %u, but only %u file(s) "
			 "follow it (give a sharded run's files together)",
			 f[0].path, f[0].h.shard_index, count, n);
		return -1;
	}
	for (unsigned i = 0; i < count; i++) {
		if (f[i].h.shard_count != count) {
			snprintf(err, errlen, "%s: shard %u of %u among the "
				 "shards of %u of %s", f[i].path,
				 f[i].h.shard_index, f[i].h.shard_count, count,
				 f[0].path);
			return -1;
		}
		for (unsigned j = 0; j < i; j++)
			if (f[j].h.shard_index == f[i].h.shard_index) {
				snprintf(err, errlen, "%s: shard %u/%u given "
					 "twice (also %s)", f[i].path,
					 f[i].h.shard_index, count, f[j].path);
				return -1;
			}
	}
	return 0;
}

int
cmp_side_load(struct cmp_side *s, char **paths, unsigned n,
	      struct cmp_file *files, unsigned *n_files, char *err,
	      size_t errlen)
{
	struct stats_snap snap;
	int rc = 0;

	stats_snap_init(&snap);
	s->paths = paths;
	s->n_paths = n;
	s->runs = xcalloc(n, sizeof(*s->runs));
	for (unsigned i = 0; i < n && rc == 0; ) {
		struct cmp_file *f = &files[*n_files];
		struct tick *t = NULL;
		unsigned nt = 0, k = 0, want = 1;
		do {
			rc = load_file(paths[i + k], &f[k], &t, &nt, &snap, err,
				       errlen);
			if (rc == 0)
				(*n_files)++;
			if (rc == 0 && k == 0)
				want = f[0].h.shard_count;
			k++;
		} while (rc == 0 && k < want && i + k < n);
		if (rc == 0 && want > 1)
			rc = check_shards(f, k, err, errlen);
		if (rc == 0) {
			struct cmp_run *r = &s->runs[s->n_runs++];
			r->path = paths[i];
			r->n_files = k;
			run_from_ticks(r, t, nt);
		} else {
			for (unsigned j = 0; j < nt; j++)
				cmp_second_free(&t[j].s);
		}
		free(t);
		i += k;
	}
	stats_snap_free(&snap);
	for (unsigned i = 0; i < s->n_runs; i++) {
		s->dur += s->runs[i].dur;
		for (int op = 0; op < OP_COUNT; op++) {
			s->ok[op] += s->runs[i].ok[op];
			s->samples[op] += s->runs[i].samples[op];
		}
	}
	return rc;
}

void
cmp_side_free(struct cmp_side *s)
{
	for (unsigned i = 0; i < s->n_runs; i++) {
		for (unsigned k = 0; k < s->runs[i].n_secs; k++)
			cmp_second_free(&s->runs[i].secs[k]);
		free(s->runs[i].secs);
	}
	free(s->runs);
	s->runs = NULL;
	s->n_runs = 0;
}
