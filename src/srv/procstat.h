/* procstat.h: the server's own counters (--server-pid), read from Linux's
 * /proc by the main thread once a second.
 *
 * A watch follows one or more root pids and their whole process tree
 * (children found through the ppid field of every /proc/N/stat, read
 * afresh each second, so Dovecot's imap/lmtp/auth processes that come and
 * go are followed).  What is counted:
 *   - CPU: utime+stime of every live process in the tree plus the
 *     cutime+cstime of each, which holds the CPU of children that exited
 *     and were reaped by that process.  A child reaped by a process
 *     outside the tree, and the last second of a process between two
 *     samples whose parent has not reaped it yet, are not counted; a
 *     drop of the sum (a process left the tree) counts as 0, never < 0.
 *   - memory: PSS (proportional set size, from /proc/N/smaps_rollup:
 *     shared pages split between the processes sharing them) when that
 *     file is readable for every process, else RSS from /proc/N/stat,
 *     where pages shared between processes count once per process.
 *   - disk: read_bytes/write_bytes of /proc/N/io (bytes that went to or
 *     came from the block layer; the kernel adds a reaped child's to its
 *     parent).  io needs the server's uid (or ptrace rights): when it is
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
};

/* NULL with a message in err when a pid does not exist now. */
struct srv_watch *srv_watch_new(const int *pids, unsigned n, char *err,
				size_t errlen);
void srv_watch_free(struct srv_watch *w);		/* NULL ok */
/* Read /proc now; now_us is the caller's monotonic clock.  Once every
 * root has gone it stays gone (alive false; a pid the kernel reuses is
 * not ours).  A message is printed the first time the roots are gone and
 * the first time io cannot be read. */
void srv_watch_sample(struct srv_watch *w, uint64_t now_us,
		      struct srv_sample *out);

/* Parsers, exposed for the unit tests.  A /proc/N/stat line: ppid and the
 * four CPU fields (in clock ticks) and rss (pages); -1 when malformed. */
struct srv_stat {
	pid_t ppid;
	uint64_t utime, stime, cutime, cstime, rss_pages;
};
int srv_parse_stat(const char *line, struct srv_stat *out);
/* /proc/N/io text: read_bytes and write_bytes; -1 when either is missing. */
int srv_parse_io(const char *text, uint64_t *rd, uint64_t *wr);
/* smaps_rollup text: the Pss: line in kB; -1 when missing. */
int srv_parse_pss(const char *text, uint64_t *kb);

#endif
