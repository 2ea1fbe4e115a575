/* procstat.c: the /proc sampler behind --server-pid (see procstat.h for
 * what is and is not counted). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv/ledger.h"
#include "srv/procread.h"
#include "srv/procstat.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct srv_watch {
	char root[256];
	pid_t roots[SRV_MAX_PIDS];
	uint64_t root_start[SRV_MAX_PIDS];	/* a reused root pid is not ours */
	unsigned n_roots, ncpu;
	bool gone, gone_said, io_said, started;
	uint64_t prev_us;
	uint64_t cpu_ticks, rd_total, wr_total;
	double carry_s;		/* CPU over the cap, moved to the next second */
	unsigned capped;
	long clk_tck, page_kb;
	struct srv_ledger *ledger;
	/* the /proc scan, reused each second: every process, by pid */
	struct srv_proc *p;
	int *depth;		/* -1: outside the tree */
	size_t *order;		/* the tree, parents before children */
	size_t n, cap;
};

struct srv_watch *
srv_watch_new(const int *pids, unsigned n, char *err, size_t errlen)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return srv_watch_new_at("/proc", cpus > 0 ? (unsigned)cpus : 1, pids, n,
				err, errlen);
}

struct srv_watch *
srv_watch_new_at(const char *root, unsigned ncpu, const int *pids,
		 unsigned n, char *err, size_t errlen)
{
	char buf[1024];
	struct srv_stat st[SRV_MAX_PIDS];

	if (n == 0 || n > SRV_MAX_PIDS) {
		snprintf(err, errlen, "--server-pid: between 1 and %d pids",
			 SRV_MAX_PIDS);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		if (pids[i] <= 0 ||
		    srv_read_proc(root, pids[i], "stat", buf, sizeof(buf)) < 0 ||
		    srv_parse_stat(buf, &st[i]) < 0) {
			snprintf(err, errlen, "--server-pid %d: no such process "
				 "(%s/%d/stat: %s)", (int)pids[i], root,
				 (int)pids[i], strerror(errno ? errno : ENOENT));
			return NULL;
		}
	}
	struct srv_watch *w = xcalloc(1, sizeof(*w));
	snprintf(w->root, sizeof(w->root), "%s", root);
	for (unsigned i = 0; i < n; i++) {
		w->roots[i] = (pid_t)pids[i];
		w->root_start[i] = st[i].start;
	}
	w->n_roots = n;
	w->ncpu = ncpu > 0 ? ncpu : 1;
	w->clk_tck = sysconf(_SC_CLK_TCK);
	if (w->clk_tck <= 0)
		w->clk_tck = 100;
	long pg = sysconf(_SC_PAGESIZE);
	w->page_kb = pg > 0 ? pg / 1024 : 4;
	w->ledger = srv_ledger_new();
	return w;
}

void
srv_watch_free(struct srv_watch *w)
{
	if (w == NULL)
		return;
	srv_ledger_free(w->ledger);
	free(w->p);
	free(w->depth);
	free(w->order);
	free(w);
}

static int
by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct srv_proc *)a)->pid;
	pid_t y = ((const struct srv_proc *)b)->pid;
	return (x > y) - (x < y);
}

/* Every process's pid, ppid and start, from ROOT/N/stat, sorted by pid. */
static void
scan_proc(struct srv_watch *w)
{
	DIR *d = opendir(w->root);
	struct dirent *de;
	char buf[1024];

	w->n = 0;
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		struct srv_stat st;
		if (srv_read_proc(w->root, pid, "stat", buf, sizeof(buf)) < 0 ||
		    srv_parse_stat(buf, &st) < 0)
			continue;	/* exited meanwhile */
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 512;
			w->p = xrealloc(w->p, w->cap * sizeof(*w->p));
			w->depth = xrealloc(w->depth, w->cap * sizeof(*w->depth));
			w->order = xrealloc(w->order, w->cap * sizeof(*w->order));
		}
		w->p[w->n++] = (struct srv_proc){ .pid = pid, .ppid = st.ppid,
						  .start = st.start };
	}
	closedir(d);
	qsort(w->p, w->n, sizeof(*w->p), by_pid);
}

static bool
is_root(const struct srv_watch *w, const struct srv_proc *q)
{
	for (unsigned i = 0; i < w->n_roots; i++)
		if (w->roots[i] == q->pid && w->root_start[i] == q->start)
			return true;
	return false;
}

/* The index of pid in the scan, or -1. */
static long
scan_find(const struct srv_watch *w, pid_t pid)
{
	const struct srv_proc *q = srv_proc_find(w->p, w->n, pid);
	return q != NULL ? (long)(q - w->p) : -1;
}

/* Each process's depth below a root (-1: outside the tree), following
 * ppid up until a root or a known depth; and the tree's order by depth,
 * so that a parent is read before its children (see read_tree). */
static size_t
mark_tree(struct srv_watch *w)
{
	enum { UNKNOWN = -2, OUTSIDE = -1, MAX_DEPTH = 64 };
	size_t chain[MAX_DEPTH];

	for (size_t i = 0; i < w->n; i++)
		w->depth[i] = is_root(w, &w->p[i]) ? 0 : UNKNOWN;
	for (size_t i = 0; i < w->n; i++) {
		unsigned k = 0;
		long j = (long)i;
		int base = OUTSIDE;
		while (j >= 0 && w->depth[j] == UNKNOWN && k < MAX_DEPTH) {
			chain[k++] = (size_t)j;
			j = scan_find(w, w->p[j].ppid);
		}
		if (j >= 0 && w->depth[j] != UNKNOWN)
			base = w->depth[j];
		while (k > 0) {
			k--;
			base = base == OUTSIDE ? OUTSIDE : base + 1;
			w->depth[chain[k]] = base;
		}
	}
	size_t m = 0;
	for (int dep = 0; dep < MAX_DEPTH; dep++) {
		size_t before = m;
		for (size_t i = 0; i < w->n; i++)
			if (w->depth[i] == dep)
				w->order[m++] = i;
		if (m == before)
			break;
	}
	return m;
}

struct tree_sum {
	unsigned procs, roots;
	uint64_t rss_kb, pss_kb;
	bool pss_all, io_all;
};

/* One process of the tree read again for its figures: false when it
 * exited since the scan (or its pid went to a new process). */
static bool
read_one(const struct srv_watch *w, struct srv_proc *q, struct tree_sum *s)
{
	char buf[4096];
	struct srv_stat st;
	uint64_t v, rd, wr;

	if (srv_read_proc(w->root, q->pid, "stat", buf, sizeof(buf)) < 0 ||
	    srv_parse_stat(buf, &st) < 0 || st.start != q->start)
		return false;
	s->procs++;
	s->roots += is_root(w, q);
	q->has[SRV_CPU] = true;
	q->kids[SRV_CPU] = st.cutime + st.cstime;
	q->total[SRV_CPU] = st.utime + st.stime + q->kids[SRV_CPU];
	s->rss_kb += st.rss_pages * (uint64_t)w->page_kb;
	if (srv_read_proc(w->root, q->pid, "smaps_rollup", buf,
			  sizeof(buf)) == 0 && srv_parse_pss(buf, &v) == 0)
		s->pss_kb += v;
	else
		s->pss_all = false;
	if (srv_read_proc(w->root, q->pid, "io", buf, sizeof(buf)) == 0 &&
	    srv_parse_io(buf, &rd, &wr) == 0) {
		/* The kernel's io figures mix in the reaped children's. */
		q->has[SRV_RD] = q->has[SRV_WR] = true;
		q->total[SRV_RD] = q->kids[SRV_RD] = rd;
		q->total[SRV_WR] = q->kids[SRV_WR] = wr;
	} else {
		s->io_all = false;
	}
	return true;
}

/* Read the tree's processes, parents first: a child reaped between the
 * two reads is then missing with its time not yet in the parent's cutime
 * (the ledger's debt waits for it), never seen and in the cutime at once,
 * which would count it twice.  A process gone since the scan is dropped
 * from it, so the ledger sees it as gone. */
static void
read_tree(struct srv_watch *w, size_t m, struct tree_sum *s)
{
	for (size_t k = 0; k < m; k++) {
		struct srv_proc *q = &w->p[w->order[k]];
		q->in_tree = read_one(w, q, s);
		if (!q->in_tree)
			q->pid = 0;	/* dropped below */
	}
	size_t j = 0;
	for (size_t i = 0; i < w->n; i++)
		if (w->p[i].pid != 0)
			w->p[j++] = w->p[i];
	w->n = j;
}

/* The window's CPU seconds as a share of the wall time, never above what
 * ncpu CPUs can give: see procstat.h. */
static double
cpu_window(struct srv_watch *w, uint64_t ticks, double wall)
{
	double secs = (double)ticks / (double)w->clk_tck + w->carry_s;
	double max = wall > 0 ? wall * (double)w->ncpu : 0;

	w->carry_s = 0;
	if (secs > max + 1e-9) {
		w->carry_s = secs - max;
		secs = max;
		w->capped++;
	}
	return wall > 0 ? 100.0 * secs / wall : 0;
}

static void
say_gone(struct srv_watch *w, struct srv_sample *out)
{
	if (!w->gone_said)
		log_warn("--server-pid: the server's process%s gone; its "
			 "columns stop here, the run goes on",
			 w->n_roots > 1 ? "es are" : " is");
	w->gone_said = true;
	out->cpu_s = (double)w->cpu_ticks / (double)w->clk_tck;
	out->read_total = w->rd_total;
	out->write_total = w->wr_total;
	out->cpu_capped = w->capped;
}

void
srv_watch_sample(struct srv_watch *w, uint64_t now_us, struct srv_sample *out)
{
	struct tree_sum s = { .pss_all = true, .io_all = true };
	uint64_t boot = 0, grow[SRV_NACCT];
	char buf[256];

	memset(out, 0, sizeof(*out));
	if (!w->gone) {
		/* Before the scan: a process that started after it is
		 * surely this window's. */
		if (srv_read_proc(w->root, 0, "uptime", buf, sizeof(buf)) < 0 ||
		    srv_parse_uptime(buf, w->clk_tck, &boot) < 0)
			boot = UINT64_MAX;	/* no new process counts whole */
		scan_proc(w);
		read_tree(w, mark_tree(w), &s);
		if (s.roots == 0)
			w->gone = true;
	}
	if (w->gone) {
		say_gone(w, out);
		return;
	}
	if (!s.io_all && !w->io_said) {
		log_warn("--server-pid: /proc/PID/io of the server is not "
			 "readable (it needs the server's uid); disk read/write "
			 "figures are left out");
		w->io_said = true;
	}
	srv_ledger_sample(w->ledger, w->p, w->n, boot, grow);
	out->alive = true;
	out->procs = s.procs;
	out->mem_pss = s.pss_all;
	out->mem_kb = s.pss_all ? s.pss_kb : s.rss_kb;
	out->io_ok = s.io_all;
	if (w->started) {
		double wall = (double)(now_us - w->prev_us) / 1e6;
		w->cpu_ticks += grow[SRV_CPU];
		out->cpu_pct = cpu_window(w, grow[SRV_CPU], wall);
		if (s.io_all) {
			out->read_bytes = grow[SRV_RD];
			out->write_bytes = grow[SRV_WR];
			w->rd_total += out->read_bytes;
			w->wr_total += out->write_bytes;
		}
	}
	w->started = true;
	w->prev_us = now_us;
	out->cpu_s = (double)w->cpu_ticks / (double)w->clk_tck;
	out->read_total = w->rd_total;
	out->write_total = w->wr_total;
	out->cpu_capped = w->capped;
}
