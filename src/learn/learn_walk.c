/* learn_walk.c: a session's commands read back as imaptest's walk.
 *
 * A connection walks the states in table order from LOGIN to LOGOUT,
 * drawing each with its chance P, repeating the one taken with chance R,
 * and going round again after LOGOUT's draw fails (src/plan/workload.c).
 * Between two commands of a session the walk passed every state between
 * them without taking it, maybe after going round once or more: how many
 * times is not on the wire (the next command may come later in the order
 * than the last one, in the same round or the next).  So the session is
 * kept as its transitions (previous state, next state, whether a mailbox
 * was selected and COMPRESS on), and P and R are their maximum-likelihood
 * estimate, found by expectation-maximization over the hidden number of
 * rounds (learn_solve below).
 *
 * Draws the wire cannot show are left out: imapstress does not send
 * SELECT on a selected session nor COMPRESS twice, and a state that needs
 * a selected mailbox is dropped while none is.  A session cut before its
 * LOGOUT adds nothing after its last command, nor does one from its
 * last command before the end of what is learned (--until, imapstress's
 * stop).  Messages past the first of
 * a MULTIAPPEND are APPEND's repeats, taken as they are. */
#include <math.h>
#include <string.h>

#include "learn/learn_int.h"

#define WALK_ITERATIONS 3000

static void
note(struct lmix *m, int a, int b, bool sel, bool comp)
{
	m->trans[a][b][(sel ? 1 : 0) | (comp ? 2 : 0)]++;
}

void
learn_walk(struct lmix *m, const struct lsession *s)
{
	bool selected = false, compressed = false;
	bool logged_in = s->implied_login;
	int last = OP_LOGIN;

	m->sessions++;
	if (s->login_auth)
		m->auth_sessions++;
	for (size_t i = 0; i < s->n; i++) {
		const struct lcmd *c = &s->c[i];
		if (c->after_end)
			break;
		if (c->unselect)
			selected = false;
		if (c->op == OP_LOGIN || c->op == OP_AUTHENTICATE) {
			m->runs[c->op]++;
			logged_in = c->status != 'N' && c->status != 'B';
			last = OP_LOGIN;
			continue;
		}
		if (c->op < 0 || !logged_in)
			continue;
		int op = c->op;
		note(m, last, op, selected, compressed);
		unsigned n = op == OP_APPEND && c->n_msgs > 0 ? c->n_msgs : 1;
		m->runs[op] += n;
		m->inner_repeats[op] += n - 1;
		last = op;
		if (op == OP_SELECT)
			selected = c->status != 'N' && c->status != 'B';
		if (op == OP_COMPRESS)
			compressed = true;
		if (op == OP_LOGOUT) {
			logged_in = false;
			last = OP_LOGIN;
		}
	}
	if (logged_in && last != OP_LOGIN)
		m->cut++;
}

static int
succ(int op)
{
	return op + 1 <= OP_LOGOUT ? op + 1 : OP_LOGIN + 1;
}

/* May the wire show state i's draw, in this selected/compressed state? */
static bool
visible(int i, bool sel, bool comp)
{
	if (i == OP_SELECT && sel)
		return false;
	if (i == OP_COMPRESS && comp)
		return false;
	if (op_table[i].need == OP_NEED_SELECTED && !sel)
		return false;
	return true;
}

/* The likelihood of going from a to b in `rounds` wraps, and with add,
 * its draws added to m's expectations with weight w. */
static double
path(struct lmix *m, int a, int b, int rounds, bool sel, bool comp,
     bool add, double w)
{
	double lk = 1;
	if (a != OP_LOGIN) {
		if (a == b && rounds == 0) {
			if (add) {
				m->e_rdraws[a] += w;
				m->e_repeats[a] += w;
			}
			return m->r[a];
		}
		lk *= 1 - m->r[a];
		if (add)
			m->e_rdraws[a] += w;
	}
	/* Every state passed is a failed draw; each LOGOUT passed is a
	 * round of the walk. */
	int i = a, wraps = 0;
	for (;;) {
		i = succ(i);
		if (i == b && wraps == rounds)
			break;
		if (visible(i, sel, comp)) {
			lk *= 1 - m->p[i];
			if (add)
				m->e_draws[i] += w;
		}
		if (i == OP_LOGOUT && ++wraps > rounds)
			return 0;
	}
	lk *= m->p[b];
	if (add) {
		m->e_draws[b] += w;
		m->e_taken[b] += w;
	}
	return lk;
}

/* One whole round of the walk with nothing taken: its likelihood, and
 * with add its draws added with weight w. */
static double
empty_round(struct lmix *m, bool sel, bool comp, bool add, double w)
{
	double q = 1;
	for (int i = OP_LOGIN + 1; i <= OP_LOGOUT; i++)
		if (visible(i, sel, comp)) {
			q *= 1 - m->p[i];
			if (add)
				m->e_draws[i] += w;
		}
	return q;
}

/* The E step for n transitions a -> b.  Going round k >= 1 times has
 * likelihood L1 * q^(k-1) (q: an empty round), so all k >= 1 together
 * are L1 / (1 - q), with q / (1 - q) empty rounds expected: no bound on
 * k, which sparse mixes (rounds mostly empty) need. */
static void
expect(struct lmix *m, int a, int b, bool sel, bool comp, double n)
{
	double l0 = path(m, a, b, 0, sel, comp, false, 0);
	double l1 = path(m, a, b, 1, sel, comp, false, 0);
	double q = empty_round(m, sel, comp, false, 0);
	if (q > 1 - 1e-12)
		q = 1 - 1e-12;
	double lmore = l1 / (1 - q), sum = l0 + lmore;
	if (!(sum > 0))
		return;
	if (l0 > 0)
		path(m, a, b, 0, sel, comp, true, n * l0 / sum);
	if (l1 > 0) {
		double w = n * lmore / sum;
		path(m, a, b, 1, sel, comp, true, w);
		empty_round(m, sel, comp, true, w * q / (1 - q));
	}
}

void
learn_solve(struct lmix *m)
{
	/* A state never seen is never drawn (P 0, fixed: EM keeps it);
	 * every other starts in the middle. */
	for (int i = 0; i < OP_COUNT; i++) {
		m->p[i] = m->runs[i] > 0 ? 0.5 : 0;
		m->r[i] = m->runs[i] > 0 ? 0.1 : 0;
	}
	for (int it = 0; it < WALK_ITERATIONS; it++) {
		memset(m->e_draws, 0, sizeof(m->e_draws));
		memset(m->e_taken, 0, sizeof(m->e_taken));
		memset(m->e_rdraws, 0, sizeof(m->e_rdraws));
		memset(m->e_repeats, 0, sizeof(m->e_repeats));
		for (int a = OP_LOGIN; a <= OP_LOGOUT; a++)
			for (int b = OP_LOGIN + 1; b <= OP_LOGOUT; b++)
				for (int f = 0; f < 4; f++)
					if (m->trans[a][b][f] != 0)
						expect(m, a, b, f & 1, f & 2,
						       (double)m->trans[a][b][f]);
		double change = 0;
		for (int i = OP_LOGIN + 1; i <= OP_LOGOUT; i++) {
			double p = m->e_draws[i] > 0 ?
			    m->e_taken[i] / m->e_draws[i] : 0;
			double rd = m->e_rdraws[i] + (double)m->inner_repeats[i];
			double r = rd > 0 ? (m->e_repeats[i] +
			    (double)m->inner_repeats[i]) / rd : 0;
			change += fabs(p - m->p[i]) + fabs(r - m->r[i]);
			m->p[i] = p;
			m->r[i] = r;
		}
		if (change < 1e-9)
			break;
	}
	m->solved = true;
}

static int
pct(uint64_t a, uint64_t b)
{
	return b ? (int)((200 * a + b) / (2 * b)) : 0;
}

int
lmix_p(const struct lmix *m, int op)
{
	if (op == OP_LOGIN)
		return m->sessions ? 100 - pct(m->auth_sessions, m->sessions) : 100;
	if (op == OP_AUTHENTICATE)
		return pct(m->auth_sessions, m->sessions);
	return (int)lround(100 * m->p[op]);
}

int
lmix_r(const struct lmix *m, int op)
{
	if (op == OP_LOGIN || op == OP_AUTHENTICATE)
		return 0;
	return (int)lround(100 * m->r[op]);
}
