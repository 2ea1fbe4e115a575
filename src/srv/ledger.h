/* ledger.h: the server tree's CPU and disk counters turned into each
 * window's growth, process by process, so that a process missed in one
 * sample, a child reaped into its parent's cutime or a reused pid is
 * counted once.
 *
 * Each process is named by its pid and its start time (field 22 of
 * /proc/N/stat): a pid the kernel hands out again is a new process.  Its
 * figures are totals that include its reaped children (utime+stime plus
 * cutime+cstime; /proc/N/io, to which the kernel adds a reaped child's).
 * A window's growth is:
 *   - for a process seen in both samples, the growth of its totals;
 *   - for a process seen for the first time: its whole totals when it
 *     started after the previous sample (all of it is this window's),
 *     else nothing (it was missed before; what it used then is unknown);
 *   - for a process gone since the previous sample: nothing of its own.
 *     Its parent (or, when the parent went too, the nearest ancestor
 *     still here) reaps it and its totals reach the parent's children's
 *     part, whole: that growth first pays back what was already counted
 *     for the child (its last totals, the child's "debt"), and only the
 *     rest counts.  So a reaped child's final time is counted through
 *     the parent's cutime, and never again.  The reap can land between
 *     the parent's read and the child's (the parent is read first), so a
 *     debt waits one more sample; after that it is dropped.  A debtor
 *     that comes back (it was alive, only missed) gets back what its
 *     debt withheld and goes on from its last totals.
 *   - a process seen alive outside the tree (reparented away): dropped.
 * Nothing here reads /proc (srv/procstat.c does): the unit tests feed it
 * scripted samples. */
#ifndef IMAPSTRESS_SRV_LEDGER_H
#define IMAPSTRESS_SRV_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum srv_acct {
	SRV_CPU,	/* clock ticks: utime+stime+cutime+cstime */
	SRV_RD,		/* bytes: read_bytes of /proc/N/io */
	SRV_WR,		/* bytes: write_bytes */
	SRV_NACCT
};

/* One process of a sample. */
struct srv_proc {
	pid_t pid, ppid;
	uint64_t start;			/* ticks since boot */
	bool in_tree;			/* false: alive, outside the tree */
	bool has[SRV_NACCT];		/* the account could be read */
	uint64_t total[SRV_NACCT];	/* own + reaped children's */
	uint64_t kids[SRV_NACCT];	/* the part reaped children add to */
};

struct srv_ledger;

/* The entry for pid in a[0..n), sorted by pid; NULL when none. */
const struct srv_proc *srv_proc_find(const struct srv_proc *a, size_t n,
				     pid_t pid);

struct srv_ledger *srv_ledger_new(void);
void srv_ledger_free(struct srv_ledger *l);		/* NULL ok */
/* One sample: p[0..n) sorted by pid, boot_ticks the ticks since boot
 * when the sample began (the same clock as start).  grow[] gets the
 * window's growth per account; the first sample only sets the baseline
 * (all zero). */
void srv_ledger_sample(struct srv_ledger *l, const struct srv_proc *p,
		       size_t n, uint64_t boot_ticks,
		       uint64_t grow[SRV_NACCT]);

#endif
