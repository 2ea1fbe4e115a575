/* procstat.c: the /proc sampler behind --server-pid (see procstat.h for
 * what is and is not counted). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "srv/procstat.h"
#include "util/xmalloc.h"

struct srv_watch {
	pid_t roots[SRV_MAX_PIDS];
	unsigned n_roots;
	bool gone, gone_said, io_said, started;
	uint64_t prev_us;
	uint64_t prev_ticks, prev_rd, prev_wr;
	double cpu_s;
	uint64_t rd_total, wr_total;
	long clk_tck, page_kb;
	/* the /proc scan, reused each second */
	pid_t *pid, *ppid;
	bool *in;
	size_t n, cap;
};

/* A small /proc file into buf (NUL-terminated); -1 when unreadable. */
static int
read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return got > 0 ? 0 : -1;
}

int
srv_parse_stat(const char *line, struct srv_stat *out)
{
	/* comm may hold spaces and ')': the fields start after the last ')'. */
	const char *p = strrchr(line, ')');
	if (p == NULL)
		return -1;
	p++;
	uint64_t f[25] = { 0 };
	unsigned k = 3;		/* field 3 is the state letter */
	while (k <= 24) {
		while (*p == ' ')
			p++;
		if (*p == '\0' || *p == '\n')
			return -1;
		if (k == 3) {
			p++;
		} else {
			char *end;
			errno = 0;
			long long v = strtoll(p, &end, 10);
			if (end == p || errno != 0)
				return -1;
			f[k] = v < 0 ? 0 : (uint64_t)v;
			p = end;
		}
		if (*p != ' ' && *p != '\0' && *p != '\n')
			return -1;
		k++;
	}
	out->ppid = (pid_t)f[4];
	out->utime = f[14];
	out->stime = f[15];
	out->cutime = f[16];
	out->cstime = f[17];
	out->rss_pages = f[24];
	return 0;
}

/* The number after "key" at the start of a line of text. */
static int
field_after(const char *text, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	for (const char *p = text; p != NULL && *p != '\0';) {
		if (strncmp(p, key, kl) == 0) {
			p += kl;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			*v = strtoull(p, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -1;
}

int
srv_parse_io(const char *text, uint64_t *rd, uint64_t *wr)
{
	if (field_after(text, "read_bytes:", rd) < 0 ||
	    field_after(text, "write_bytes:", wr) < 0)
		return -1;
	return 0;
}

int
srv_parse_pss(const char *text, uint64_t *kb)
{
	return field_after(text, "Pss:", kb);
}

struct srv_watch *
srv_watch_new(const int *pids, unsigned n, char *err, size_t errlen)
{
	char path[64];

	if (n == 0 || n > SRV_MAX_PIDS) {
		snprintf(err, errlen, "--server-pid: between 1 and %d pids",
			 SRV_MAX_PIDS);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pids[i]);
		if (access(path, R_OK) != 0) {
			snprintf(err, errlen, "--server-pid %d: no such process "
				 "(%s: %s)", (int)pids[i], path, strerror(errno));
			return NULL;
		}
	}
	struct srv_watch *w = xcalloc(1, sizeof(*w));
	for (unsigned i = 0; i < n; i++)
		w->roots[i] = (pid_t)pids[i];
	w->n_roots = n;
	w->clk_tck = sysconf(_SC_CLK_TCK);
	if (w->clk_tck <= 0)
		w->clk_tck = 100;
	long pg = sysconf(_SC_PAGESIZE);
	w->page_kb = pg > 0 ? pg / 1024 : 4;
	return w;
}

void
srv_watch_free(struct srv_watch *w)
{
	if (w == NULL)
		return;
	free(w->pid);
	free(w->ppid);
	free(w->in);
	free(w);
}

/* Every process's pid and ppid, from /proc/N/stat. */
static void
scan_proc(struct srv_watch *w)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[64], buf[1024];

	w->n = 0;
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", de->d_name);
		struct srv_stat st;
		if (read_small(path, buf, sizeof(buf)) < 0 ||
		    srv_parse_stat(buf, &st) < 0)
			continue;	/* exited meanwhile */
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 512;
			w->pid = xrealloc(w->pid, w->cap * sizeof(*w->pid));
			w->ppid = xrealloc(w->ppid, w->cap * sizeof(*w->ppid));
			w->in = xrealloc(w->in, w->cap * sizeof(*w->in));
		}
		w->pid[w->n] = (pid_t)atoi(de->d_name);
		w->ppid[w->n] = st.ppid;
		w->in[w->n] = false;
		w->n++;
	}
	closedir(d);
}

static bool
is_root(const struct srv_watch *w, pid_t p)
{
	for (unsigned i = 0; i < w->n_roots; i++)
		if (w->roots[i] == p)
			return true;
	return false;
}

/* Mark the roots and, pass after pass, every process whose parent is
 * marked (a tree is a few levels deep: Dovecot's is two). */
static void
mark_tree(struct srv_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		w->in[i] = is_root(w, w->pid[i]);
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < w->n; i++) {
			if (w->in[i])
				continue;
			for (size_t j = 0; j < w->n; j++)
				if (w->in[j] && w->pid[j] == w->ppid[i]) {
					w->in[i] = changed = true;
					break;
				}
		}
	}
}

struct tree_sum {
	unsigned procs, roots;
	uint64_t ticks, rss_kb, pss_kb, rd, wr;
	bool pss_all, io_all;
};

static void
sum_one(const struct srv_watch *w, pid_t p, struct tree_sum *s)
{
	char path[64], buf[4096];
	struct srv_stat st;
	uint64_t v, rd, wr;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	if (read_small(path, buf, sizeof(buf)) < 0 ||
	    srv_parse_stat(buf, &st) < 0)
		return;		/* exited since the scan */
	s->procs++;
	s->roots += is_root(w, p);
	s->ticks += st.utime + st.stime + st.cutime + st.cstime;
	s->rss_kb += st.rss_pages * (uint64_t)w->page_kb;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)p);
	if (read_small(path, buf, sizeof(buf)) == 0 &&
	    srv_parse_pss(buf, &v) == 0)
		s->pss_kb += v;
	else
		s->pss_all = false;
	snprintf(path, sizeof(path), "/proc/%d/io", (int)p);
	if (read_small(path, buf, sizeof(buf)) == 0 &&
	    srv_parse_io(buf, &rd, &wr) == 0) {
		s->rd += rd;
		s->wr += wr;
	} else {
		s->io_all = false;
	}
}

void
srv_watch_sample(struct srv_watch *w, uint64_t now_us, struct srv_sample *out)
{
	struct tree_sum s = { .pss_all = true, .io_all = true };

	memset(out, 0, sizeof(*out));
	if (!w->gone) {
		scan_proc(w);
		mark_tree(w);
		for (size_t i = 0; i < w->n; i++)
			if (w->in[i])
				sum_one(w, w->pid[i], &s);
		if (s.roots == 0)
			w->gone = true;
	}
	if (w->gone) {
		if (!w->gone_said)
			log_warn("--server-pid: the server's process%s gone; its "
				 "columns stop here, the run goes on",
				 w->n_roots > 1 ? "es are" : " is");
		w->gone_said = true;
		out->cpu_s = w->cpu_s;
		out->read_total = w->rd_total;
		out->write_total = w->wr_total;
		return;
	}
	if (!s.io_all && !w->io_said) {
		log_warn("--server-pid: /proc/PID/io of the server is not "
			 "readable (it needs the server's uid); disk read/write "
			 "figures are left out");
		w->io_said = true;
	}
	out->alive = true;
	out->procs = s.procs;
	out->mem_pss = s.pss_all;
	out->mem_kb = s.pss_all ? s.pss_kb : s.rss_kb;
	out->io_ok = s.io_all;
	if (w->started) {
		uint64_t dt = s.ticks > w->prev_ticks ? s.ticks - w->prev_ticks : 0;
		double secs = (double)dt / (double)w->clk_tck;
		double wall = (double)(now_us - w->prev_us) / 1e6;
		w->cpu_s += secs;
		out->cpu_pct = wall > 0 ? 100.0 * secs / wall : 0;
		if (s.io_all) {
			out->read_bytes = s.rd > w->prev_rd ? s.rd - w->prev_rd : 0;
			out->write_bytes = s.wr > w->prev_wr ? s.wr - w->prev_wr : 0;
			w->rd_total += out->read_bytes;
			w->wr_total += out->write_bytes;
		}
	}
	w->started = true;
	w->prev_us = now_us;
	w->prev_ticks = s.ticks;
	w->prev_rd = s.rd;
	w->prev_wr = s.wr;
	out->cpu_s = w->cpu_s;
	out->read_total = w->rd_total;
	out->write_total = w->wr_total;
}
