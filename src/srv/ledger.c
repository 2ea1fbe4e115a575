/* ledger.c: per-process window growth of the server tree's counters (see
 * ledger.h for the rules). */
#include <stdlib.h>
#include <string.h>

#include "srv/ledger.h"
#include "util/xmalloc.h"

/* A process gone since the last sample: what was already counted for it
 * (its last totals), which the payer's reaped-children part must cover
 * before the rest of that growth counts. */
struct srv_debt {
	pid_t pid, payer;
	uint64_t start, payer_start;
	uint64_t owed[SRV_NACCT], paid[SRV_NACCT];
	struct srv_proc last;	/* where it goes on from if it comes back */
	bool waited;		/* it has waited one sample already */
	bool done;		/* paid, or it came back */
};

struct srv_ledger {
	bool started;
	uint64_t prev_boot;
	struct srv_proc *tree, *next;	/* last sample's tree, by pid */
	size_t n, cap;
	struct srv_debt *debt;
	size_t nd, dcap;
};

struct srv_ledger *
srv_ledger_new(void)
{
	return xcalloc(1, sizeof(struct srv_ledger));
}

void
srv_ledger_free(struct srv_ledger *l)
{
	if (l == NULL)
		return;
	free(l->tree);
	free(l->next);
	free(l->debt);
	free(l);
}

const struct srv_proc *
srv_proc_find(const struct srv_proc *a, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid].pid == pid)
			return &a[mid];
		if (a[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Is (pid, start) in this sample's tree? */
static bool
in_tree_now(const struct srv_proc *p, size_t n, pid_t pid, uint64_t start)
{
	const struct srv_proc *q = srv_proc_find(p, n, pid);
	return q != NULL && q->start == start && q->in_tree;
}

/* Who reaps a process whose parent was ppid at the last sample: that
 * parent if it is still in the tree, else the nearest ancestor (by the
 * last sample's tree) that is; false when none is (the parent was
 * outside the tree: the process was a root). */
static bool
payer_of(const struct srv_ledger *l, const struct srv_proc *p, size_t n,
	 pid_t ppid, pid_t *payer, uint64_t *payer_start)
{
	for (unsigned hops = 0; hops < 64; hops++) {
		const struct srv_proc *o = srv_proc_find(l->tree, l->n, ppid);
		if (o == NULL)
			return false;
		if (in_tree_now(p, n, o->pid, o->start)) {
			*payer = o->pid;
			*payer_start = o->start;
			return true;
		}
		ppid = o->ppid;
	}
	return false;
}

/* Debts for the processes of the last tree that are gone now (not alive
 * outside the tree either: those were reparented away and nobody here
 * will reap them), and the debts whose payer went meanwhile move up. */
static void
ledger_gone(struct srv_ledger *l, const struct srv_proc *p, size_t n)
{
	for (size_t i = 0; i < l->nd; i++) {
		struct srv_debt *d = &l->debt[i];
		if (d->done || in_tree_now(p, n, d->payer, d->payer_start))
			continue;
		const struct srv_proc *o = srv_proc_find(l->tree, l->n, d->payer);
		if (o == NULL || o->start != d->payer_start ||
		    !payer_of(l, p, n, o->ppid, &d->payer, &d->payer_start))
			d->done = true;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct srv_proc *o = &l->tree[i];
		const struct srv_proc *q = srv_proc_find(p, n, o->pid);
		if (q != NULL && q->start == o->start)
			continue;
		struct srv_debt d = { .pid = o->pid, .start = o->start,
				      .last = *o };
		if (!payer_of(l, p, n, o->ppid, &d.payer, &d.payer_start))
			continue;
		for (int a = 0; a < SRV_NACCT; a++)
			d.owed[a] = o->has[a] ? o->total[a] : 0;
		if (l->nd == l->dcap) {
			l->dcap = l->dcap ? 2 * l->dcap : 16;
			l->debt = xrealloc(l->debt, l->dcap * sizeof(*l->debt));
		}
		l->debt[l->nd++] = d;
	}
}

/* The debt of (pid, start) still open; NULL when none. */
static struct srv_debt *
debt_of(struct srv_ledger *l, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < l->nd; i++)
		if (!l->debt[i].done && l->debt[i].pid == pid &&
		    l->debt[i].start == start)
			return &l->debt[i];
	return NULL;
}

/* Pay the debts q owes in account a (oldest first) out of avail, the
 * growth of q's reaped-children part; what was paid. */
static uint64_t
pay_debts(struct srv_ledger *l, const struct srv_proc *q, int a,
	  uint64_t avail)
{
	uint64_t paid = 0;
	for (size_t i = 0; i < l->nd && avail > 0; i++) {
		struct srv_debt *d = &l->debt[i];
		if (d->done || d->payer != q->pid || d->payer_start != q->start)
			continue;
		uint64_t x = d->owed[a] - d->paid[a];
		if (x > avail)
			x = avail;
		d->paid[a] += x;
		avail -= x;
		paid += x;
	}
	return paid;
}

/* One process of this sample's tree: its growth since o (its entry in
 * the last tree, or the last totals of a debt it came back from), or,
 * seen first, its whole totals if it started after the last sample.  An
 * account it could not be read in now keeps o's figures. */
static void
ledger_grow(struct srv_ledger *l, struct srv_proc *q, uint64_t grow[])
{
	const struct srv_proc *o = srv_proc_find(l->tree, l->n, q->pid);
	if (o != NULL && o->start != q->start)
		o = NULL;		/* a reused pid: a new process */
	struct srv_debt *d = o == NULL ? debt_of(l, q->pid, q->start) : NULL;
	if (d != NULL) {
		/* It was alive, only missed: what its debt held back was
		 * other processes' growth, and it goes on from its last
		 * totals. */
		for (int a = 0; a < SRV_NACCT; a++)
			grow[a] += d->paid[a];
		d->done = true;
		o = &d->last;
	}
	for (int a = 0; a < SRV_NACCT; a++) {
		if (o == NULL) {
			if (q->has[a] && q->start >= l->prev_boot)
				grow[a] += q->total[a];
			continue;
		}
		if (!q->has[a]) {
			q->has[a] = o->has[a];
			q->total[a] = o->total[a];
			q->kids[a] = o->kids[a];
			continue;
		}
		if (!o->has[a])
			continue;	/* readable from now on: a baseline */
		uint64_t dt = q->total[a] > o->total[a] ?
		    q->total[a] - o->total[a] : 0;
		uint64_t dk = q->kids[a] > o->kids[a] ?
		    q->kids[a] - o->kids[a] : 0;
		if (dk > dt)
			dk = dt;
		grow[a] += dt - pay_debts(l, q, a, dk);
	}
}

/* Settled debts go; the others wait one sample, then go: by then the
 * reap has reached the payer, whatever of the debt is left was not its
 * to pay. */
static void
ledger_age(struct srv_ledger *l)
{
	size_t k = 0;
	for (size_t i = 0; i < l->nd; i++) {
		struct srv_debt *d = &l->debt[i];
		bool paid = true;
		for (int a = 0; a < SRV_NACCT; a++)
			paid = paid && d->paid[a] == d->owed[a];
		if (d->done || paid || d->waited)
			continue;
		d->waited = true;
		l->debt[k++] = *d;
	}
	l->nd = k;
}

void
srv_ledger_sample(struct srv_ledger *l, const struct srv_proc *p, size_t n,
		  uint64_t boot_ticks, uint64_t grow[SRV_NACCT])
{
	memset(grow, 0, SRV_NACCT * sizeof(grow[0]));
	if (n > l->cap) {
		l->cap = n;
		l->tree = xrealloc(l->tree, n * sizeof(*l->tree));
		l->next = xrealloc(l->next, n * sizeof(*l->next));
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i].in_tree)
			l->next[m++] = p[i];
	if (l->started) {
		ledger_gone(l, p, n);
		for (size_t i = 0; i < m; i++)
			ledger_grow(l, &l->next[i], grow);
		ledger_age(l);
	}
	struct srv_proc *t = l->tree;
	l->tree = l->next;
	l->next = t;
	l->n = m;
	l->prev_boot = boot_ticks;
	l->started = true;
}
