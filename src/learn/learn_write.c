/* learn_write.c: the learned stress mix and the summary.
 *
 * The mix file is comment lines (what the numbers rest on, the FETCH item
 * sets, the size distribution, mailboxes per user) and one line of
 * arguments imapstress takes as they are:
 *     imapstress $(grep -v '^#' learned.mix) host=...
 * It starts with "-" (every state off but SELECT) and gives each state's
 * P,R, so no default of the run's own leaks into the learned mix. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn_int.h"
#include "learn/learn_write.h"
#include "util/log.h"

FILE *
learn_open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		log_error("%s: cannot write: %s", path, strerror(errno));
	return f;
}

int
learn_close_out(FILE *f, const char *path)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		log_error("%s: cannot write: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* The most used entry of a name table, -1 when empty. */
int
lnames_top(const struct lnames *t)
{
	int best = -1;
	for (size_t i = 0; i < t->n; i++)
		if (best < 0 || t->count[i] > t->count[best])
			best = (int)i;
	return best;
}

/* Entries by count, most first: an index list the caller frees. */
static const struct lnames *sort_of;
static int
by_count(const void *a, const void *b)
{
	uint64_t x = sort_of->count[*(const size_t *)a];
	uint64_t y = sort_of->count[*(const size_t *)b];
	return x < y ? 1 : x > y ? -1 : 0;
}

size_t *
lnames_sorted(const struct lnames *t)
{
	size_t *ix = malloc((t->n + 1) * sizeof(*ix));
	if (ix == NULL)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		ix[i] = i;
	sort_of = t;
	qsort(ix, t->n, sizeof(*ix), by_count);
	return ix;
}

static void
write_sizes(FILE *f, const char *what, const struct lhist *h)
{
	fprintf(f, "# message sizes (%s): %llu, mean %.0f, median %.0f, "
		"90%% below %.0f octets\n", what, (unsigned long long)h->n,
		lhist_mean(h), lhist_quantile(h, 0.5), lhist_quantile(h, 0.9));
	for (unsigned b = 0; b < LHIST_BUCKETS; b++)
		if (h->b[b] != 0)
			fprintf(f, "#   below %-10llu %6.2f%%\n",
				1ull << b, 100.0 * (double)h->b[b] / (double)h->n);
}

/* Mailboxes per user, from the "user/box" pairs seen. */
static void
write_boxes_per_user(const struct learn *l, FILE *f)
{
	size_t nu = l->users.n;
	if (nu == 0)
		return;
	unsigned *per = calloc(nu, sizeof(*per));
	if (per == NULL)
		return;
	for (size_t i = 0; i < l->user_boxes.n; i++) {
		unsigned long u = strtoul(l->user_boxes.v[i], NULL, 10);
		if (u < nu)
			per[u]++;
	}
	unsigned mn = ~0u, mx = 0;
	double sum = 0;
	for (size_t u = 0; u < nu; u++) {
		mn = per[u] < mn ? per[u] : mn;
		mx = per[u] > mx ? per[u] : mx;
		sum += per[u];
	}
	fprintf(f, "# mailboxes per user (used in SELECT, STATUS, APPEND, "
		"COPY, ...): %zu users, min %u, mean %.1f, max %u\n", nu, mn,
		sum / (double)nu, mx);
	free(per);
}

/* The mailboxes used, by the name shown (see learn_box_shown). */
void
learn_write_folders(const struct learn *l, FILE *f)
{
	size_t *ix = lnames_sorted(&l->boxes);
	char name[LEARN_NAME_MAX + 16];
	fprintf(f, "# folders used (%zu; commands naming them):", l->boxes.n);
	for (size_t i = 0; ix != NULL && i < l->boxes.n && i < 20; i++) {
		learn_box_shown(l, (int)ix[i], name, sizeof(name));
		fprintf(f, "%s %s %llu", i ? "," : "", name,
			(unsigned long long)l->boxes.count[ix[i]]);
	}
	fprintf(f, "%s\n", l->boxes.n > 20 ? ", ..." : "");
	free(ix);
}

int
learn_write_mix(const struct learn *l, const char *path)
{
	const struct lmix *m = &l->mix;
	FILE *f = learn_open_out(path);
	if (f == NULL)
		return -1;
	fprintf(f, "# imapstress learn: a stress mix learned from %llu "
		"sessions, about %.0f rounds of the state walk\n",
		(unsigned long long)m->sessions, m->e_draws[OP_LOGOUT]);
	fprintf(f, "# run it: imapstress $(grep -v '^#' %s) host=... "
		"secs=...\n", path);
	fprintf(f, "# %-12s %4s %4s %8s %8s %9s\n", "state", "P", "R",
		"taken", "draws", "commands");
	for (int op = OP_AUTHENTICATE; op <= OP_LOGOUT; op++) {
		if (m->runs[op] == 0 && lmix_p(m, op) == 0)
			continue;
		fprintf(f, "# %-12s %4d %4d %8.0f %8.0f %9llu\n",
			op_table[op].name, lmix_p(m, op), lmix_r(m, op),
			m->e_taken[op], m->e_draws[op],
			(unsigned long long)m->runs[op]);
	}
	size_t *ix = lnames_sorted(&l->items);
	fprintf(f, "# FETCH item sets seen (%zu; commands, items):\n",
		l->items.n);
	for (size_t i = 0; ix != NULL && i < l->items.n && i < 30; i++)
		fprintf(f, "#   %8llu  %s\n",
			(unsigned long long)l->items.count[ix[i]],
			l->items.v[ix[i]]);
	free(ix);
	const struct lhist *sz = l->append_sizes.n ? &l->append_sizes :
	    &l->fetch_sizes;
	if (sz->n)
		write_sizes(f, sz == &l->append_sizes ? "APPEND literals" :
			    "RFC822.SIZE and BODY[] in FETCH answers", sz);
	/* The same sizes as buckets the generator takes (learn_sizes.c). */
	char spec[LEARN_SIZES_SPEC];
	bool have_spec = learn_sizes_of(l, spec, sizeof(spec)) == 0;
	if (have_spec) {
		fprintf(f, "# --msg-sizes: each power of two's nearest sizes "
			"at their mean, in percent: %s\n", spec);
	}
	write_boxes_per_user(l, f);
	learn_write_folders(l, f);

	/* The arguments. */
	fprintf(f, "-");
	if (lmix_p(m, OP_AUTHENTICATE) > 0)
		fprintf(f, " auth=%d", lmix_p(m, OP_AUTHENTICATE));
	for (int op = OP_COMPRESS; op <= OP_LOGOUT; op++) {
		int p = lmix_p(m, op);
		if (p > 0 || op == OP_SELECT || op == OP_LOGOUT)
			fprintf(f, " %s=%d,%d", op_table[op].name, p,
				lmix_r(m, op));
	}
	if (lmix_p(m, OP_COPY) > 0 || lmix_p(m, OP_MOVE) > 0) {
		int top = lnames_top(&l->copy_boxes);
		char name[LEARN_NAME_MAX + 16];
		if (top >= 0) {
			learn_box_shown(l, atoi(l->copy_boxes.v[top]), name,
					sizeof(name));
			/* A name with blanks or quotes stays out of a line
			 * the shell splits: a placeholder instead. */
			if (strpbrk(name, " \"'\\$`") != NULL)
				snprintf(name, sizeof(name), "copybox");
			fprintf(f, " copybox=%s", name);
		}
	}
	if (have_spec)
		fprintf(f, " --msg-sizes %s", spec);
	fprintf(f, "\n");
	return learn_close_out(f, path);
}

static void
write_names(FILE *f, const char *title, const struct lnames *t)
{
	fprintf(f, "%s: %zu\n", title, t->n);
	size_t *ix = lnames_sorted(t);
	for (size_t i = 0; ix != NULL && i < t->n; i++)
		fprintf(f, "  %-24s %llu\n", t->v[ix[i]],
			(unsigned long long)t->count[ix[i]]);
	free(ix);
}

int
learn_write_summary(const struct learn *l, const char *path)
{
	const struct lmix *m = &l->mix;
	FILE *f = learn_open_out(path);
	if (f == NULL)
		return -1;
	fprintf(f, "imapstress learn: summary\n");
	fprintf(f, "files: %llu read (Dovecot rawlog with times %llu, without "
		"%llu; imapstress rawlog %llu), %llu skipped\n",
		(unsigned long long)l->files,
		(unsigned long long)l->formats[LFMT_DOVECOT_TS],
		(unsigned long long)l->formats[LFMT_DOVECOT],
		(unsigned long long)l->formats[LFMT_IMAPSTRESS],
		(unsigned long long)l->files_skipped);
	fprintf(f, "sessions: %llu (%llu with times), users: %zu, commands: "
		"%llu, truncated: %llu\n", (unsigned long long)l->sessions,
		(unsigned long long)l->timed_sessions, l->users.n,
		(unsigned long long)l->commands,
		(unsigned long long)l->truncated);
	fprintf(f, "walk: about %.0f rounds; %llu sessions cut before their "
		"LOGOUT\n", m->e_draws[OP_LOGOUT], (unsigned long long)m->cut);
	fprintf(f, "%-12s %10s %8s %8s %4s %4s\n", "state", "commands",
		"taken", "draws", "P", "R");
	for (int op = OP_AUTHENTICATE; op <= OP_LOGOUT; op++)
		if (m->runs[op] != 0 || lmix_p(m, op) != 0)
			fprintf(f, "%-12s %10llu %8.0f %8.0f %4d %4d\n",
				op_table[op].name,
				(unsigned long long)m->runs[op], m->e_taken[op],
				m->e_draws[op], lmix_p(m, op), lmix_r(m, op));
	write_names(f, "not mapped (no state sends their like)", &l->unmapped);
	write_names(f, "left out of the walk (imapstress sends its own; "
		    "CREATE after a NO)", &l->ignored);
	fprintf(f, "IDLE: %llu of %llu sessions\n",
		(unsigned long long)l->idle_sessions,
		(unsigned long long)l->sessions);
	fprintf(f, "new mail (EXISTS growth): %llu; bodies read %llu, "
		"replied %llu, deleted %llu, moved %llu, sent %llu\n",
		(unsigned long long)l->new_mail, (unsigned long long)l->read,
		(unsigned long long)l->replied, (unsigned long long)l->deleted,
		(unsigned long long)l->moved, (unsigned long long)l->sent);
	fprintf(f, "not learned: DISCONNECT and DELAY (no trace on the "
		"wire)%s%s\n",
		l->untimed_sessions ? "; times (sessions without times)" : "",
		m->sessions == 0 ? "; the mix (no session)" : "");
	return learn_close_out(f, path);
}
