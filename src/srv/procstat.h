/* procstat.h: the server's own counters (--server-pid), read from Linux's
 * /proc by the main thread once a second.
 *
 * A watch follows one or more root pids and their whole process tree
 * (children found through the ppid field of every /proc/N/stat, read
 * afresh each second, so Dovecot's imap/lmtp/auth processes that come and
 * go are followed).  What is counted:
 *   - CPU: utime+stime+cutime+cstime of the tree's processes, taken
 *     process by process (srv/ledger.h): a process counts its growth
 *     since the last sample; a child that exits counts the rest of its
 *     time once, through its parent's cutime/cstime when the parent
 *     reaps it; a process missed in one sample, or whose pid is reused,
 *     is not counted twice.  A child reaped by a process outside the tree
 *     is not counted.  One second never shows more than 100% x the online
 *     CPUs: when the figures come to more (a window's edges are a few ms
 *     apart from one process's read to the next), the excess moves to
 *     the next second and cpu_capped counts it; the totals keep it all.
 *   - memory: PSS (proportional set size, from /proc/N/smaps_rollup:
 *     shared pages split between the processes sharing them) when that
 *     file is readable for every process, else RSS from /proc/N/stat,
 *     where pages shared between processes count once per process.
 *   - disk: read_bytes/write_bytes of /proc/N/io (bytes that went to or
 *     came from the block layer; the kernel adds a reaped child's to its
 *     parent), process by process like the CPU.  io needs the server's uid (or ptrace rights): when it is
 *     not readable the disk figures are absent, with one message.
 * No locks and no threads: the caller samples from the main thread. */
#ifndef IMAPSTRESS_PROCSTAT_H
#define IMAPSTRESS_PROCSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SRV_MAX_PIDS 16

struct srv_watch;

/* One sample: the window since the previous one, and the totals since the
 * watch began. */
struct srv_sample {
	bool alive;		/* false: every root pid is gone */
	bool mem_pss;		/* mem_kb is PSS (else RSS) */
	bool io_ok;		/* /proc/N/io was readable for the roots */
	unsigned procs;		/* processes in the tree */
	double cpu_pct;		/* window: 100 = one core */
	uint64_t mem_kb;	/* now, summed over the tree */
	uint64_t read_bytes, write_bytes;	/* window */
	double cpu_s;		/* totals since the watch began */
	uint64_t read_total, write_total;
	unsigned cpu_capped;	/* seconds whose cpu_pct was capped, so far */
};

/* NULL with a message in err when a pid does not exist now. */
struct srv_watch *srv_watch_new(const int *pids, unsigned n, char *err,
				size_t errlen);
/* The same over a /proc of the caller's (root: a directory laid out like
 * /proc, with N/stat, N/io, N/smaps_rollup and uptime) and ncpu online
 * CPUs: what the unit tests script. */
struct srv_watch *srv_watch_new_at(const char *root, unsigned ncpu,
				   const int *pids, unsigned n, char *err,
				   size_t errlen);
void srv_watch_free(struct srv_watch *w);		/* NULL ok */
/* Read /proc now; now_us is the caller's monotonic clock.  Once every
 * root has gone it stays gone (alive false; a pid the kernel reuses is
 * not ours).  A message is printed the first time the roots are gone and
 * the first time io cannot be read. */
void srv_watch_sample(struct srv_watch *w, uint64_t now_us,
		      struct srv_sample *out);

#endif
