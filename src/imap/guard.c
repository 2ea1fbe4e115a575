/* guard.c: see guard.h.  The table is an append-only array of entries and
 * an open-addressing index over it (a LoadSim run has thousands of users
 * with five folders each on one worker: a linear search per destructive
 * command would be quadratic).  The names live in one string arena, each
 * once: a user's folders are looked up one after the other, and the
 * folder names are the same few for every user.  With two strdups per
 * entry the table was 680 octets of a LoadSim user's memory (heaptrack,
 * 3,000 users: 5 entries of 48 octets and 10 small allocations each). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap/guard.h"
#include "util/xmalloc.h"

struct guard_ent {
	uint32_t user, box;	/* offsets in guard.str */
	void **waiters;
	unsigned n_waiters, cap_waiters;
	int64_t found;		/* the search's tally */
	uint32_t hash;
	uint8_t verdict;	/* enum guard_verdict */
	uint8_t answered;	/* 0 none yet, 1 read, 2 one unreadable */
};

/* Mailbox names remembered for reuse: the folders every user has. */
#define GUARD_BOXES 16

struct guard {
	struct guard_ent *e;
	uint32_t n, cap;
	uint32_t *index;	/* entry + 1, 0 empty; n_index a power of 2 */
	uint32_t n_index;
	char *str;		/* the names, NUL-terminated, back to back */
	size_t n_str, cap_str;
	uint32_t boxes[GUARD_BOXES];	/* offsets of names seen as boxes */
	unsigned n_boxes;
};

struct guard *
guard_new(void)
{
	return xcalloc(1, sizeof(struct guard));
}

void
guard_free(struct guard *g)
{
	if (g == NULL)
		return;
	for (uint32_t i = 0; i < g->n; i++)
		free(g->e[i].waiters);
	free(g->e);
	free(g->index);
	free(g->str);
	free(g);
}

static bool
is_inbox(const char *box, size_t len)
{
	return len == 5 && strncasecmp(box, "INBOX", 5) == 0;
}

/* FNV-1a over the user, a NUL, the mailbox. */
static uint32_t
key_hash(const char *user, const char *box, size_t box_len)
{
	uint32_t h = 2166136261u;
	for (const char *p = user; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	h = (h ^ 0) * 16777619u;
	for (size_t i = 0; i < box_len; i++)
		h = (h ^ (uint8_t)box[i]) * 16777619u;
	return h;
}

static void
index_put(struct guard *g, uint32_t i)
{
	uint32_t mask = g->n_index - 1;
	for (uint32_t k = g->e[i].hash & mask;; k = (k + 1) & mask)
		if (g->index[k] == 0) {
			g->index[k] = i + 1;
			return;
		}
}

static void
index_grow(struct guard *g)
{
	free(g->index);
	g->n_index = g->n_index ? g->n_index * 2 : 64;
	g->index = xcalloc(g->n_index, sizeof(uint32_t));
	for (uint32_t i = 0; i < g->n; i++)
		index_put(g, i);
}

static bool
str_is(const struct guard *g, uint32_t off, const char *s, size_t len)
{
	return strncmp(g->str + off, s, len) == 0 && g->str[off + len] == '\0';
}

/* s (len octets) in the arena: its offset. */
static uint32_t
str_add(struct guard *g, const char *s, size_t len)
{
	if (g->n_str + len + 1 > g->cap_str) {
		size_t cap = g->cap_str ? g->cap_str : 1024;
		while (cap < g->n_str + len + 1)
			cap *= 2;
		g->str = xrealloc(g->str, cap);
		g->cap_str = cap;
	}
	uint32_t off = (uint32_t)g->n_str;
	memcpy(g->str + off, s, len);
	g->str[off + len] = '\0';
	g->n_str += len + 1;
	return off;
}

/* The user's name: the last entry's when it is the same user (its
 * folders come one after the other), else a new copy. */
static uint32_t
user_off(struct guard *g, const char *user)
{
	size_t len = strlen(user);
	if (g->n > 0 && str_is(g, g->e[g->n - 1].user, user, len))
		return g->e[g->n - 1].user;
	return str_add(g, user, len);
}

static uint32_t
box_off(struct guard *g, const char *box, size_t len)
{
	for (unsigned i = 0; i < g->n_boxes; i++)
		if (str_is(g, g->boxes[i], box, len))
			return g->boxes[i];
	uint32_t off = str_add(g, box, len);
	if (g->n_boxes < GUARD_BOXES)
		g->boxes[g->n_boxes++] = off;
	return off;
}

uint32_t
guard_entry(struct guard *g, const char *user, const char *box, size_t box_len)
{
	if (is_inbox(box, box_len))
		box = "INBOX";
	uint32_t h = key_hash(user, box, box_len);
	if (g->n_index != 0) {
		uint32_t mask = g->n_index - 1;
		for (uint32_t k = h & mask; g->index[k] != 0; k = (k + 1) & mask) {
			struct guard_ent *e = &g->e[g->index[k] - 1];
			if (e->hash == h && strcmp(g->str + e->user, user) == 0 &&
			    str_is(g, e->box, box, box_len))
				return g->index[k] - 1;
		}
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->e = xrealloc(g->e, g->cap * sizeof(*g->e));
	}
	uint32_t uo = user_off(g, user);
	uint32_t bo = box_off(g, box, box_len);
	struct guard_ent *e = &g->e[g->n];
	memset(e, 0, sizeof(*e));
	e->user = uo;
	e->box = bo;
	e->hash = h;
	g->n++;
	/* at most half full */
	if (g->n * 2 > g->n_index)
		index_grow(g);
	else
		index_put(g, g->n - 1);
	return g->n - 1;
}

enum guard_verdict
guard_verdict(const struct guard *g, uint32_t e)
{
	return (enum guard_verdict)g->e[e].verdict;
}

void
guard_set(struct guard *g, uint32_t e, enum guard_verdict v)
{
	g->e[e].verdict = (uint8_t)v;
}

const char *
guard_box(const struct guard *g, uint32_t e)
{
	return g->str + g->e[e].box;
}

const char *
guard_user(const struct guard *g, uint32_t e)
{
	return g->str + g->e[e].user;
}

void
guard_wait(struct guard *g, uint32_t e, void *waiter)
{
	struct guard_ent *x = &g->e[e];
	for (unsigned i = 0; i < x->n_waiters; i++)
		if (x->waiters[i] == waiter)
			return;
	if (x->n_waiters == x->cap_waiters) {
		x->cap_waiters = x->cap_waiters ? x->cap_waiters * 2 : 4;
		x->waiters = xrealloc(x->waiters,
				      x->cap_waiters * sizeof(void *));
	}
	x->waiters[x->n_waiters++] = waiter;
}

void
guard_unwait(struct guard *g, uint32_t e, void *waiter)
{
	struct guard_ent *x = &g->e[e];
	for (unsigned i = 0; i < x->n_waiters; i++)
		if (x->waiters[i] == waiter) {
			x->waiters[i] = x->waiters[--x->n_waiters];
			return;
		}
}

void **
guard_take_waiters(struct guard *g, uint32_t e, unsigned *n)
{
	struct guard_ent *x = &g->e[e];
	void **w = x->waiters;
	*n = x->n_waiters;
	x->waiters = NULL;
	x->n_waiters = x->cap_waiters = 0;
	return w;
}

void
guard_tally(struct guard *g, uint32_t e, int64_t n)
{
	struct guard_ent *x = &g->e[e];
	if (n < 0) {
		x->answered = 2;
		return;
	}
	if (x->answered == 0)
		x->answered = 1;
	x->found += n;
}

enum guard_verdict
guard_judge(struct guard *g, uint32_t e, uint32_t *foreign, const char **why)
{
	struct guard_ent *x = &g->e[e];
	enum guard_verdict v = GUARD_REFUSED;

	*foreign = 0;
	*why = NULL;
	if (x->answered == 0)
		*why = "the search was answered OK with no SEARCH response";
	else if (x->answered == 2)
		*why = "the search's answer could not be read";
	else if (x->found > 0)
		*foreign = x->found > UINT32_MAX ? UINT32_MAX : (uint32_t)x->found;
	else
		v = GUARD_SAFE;
	x->found = 0;
	x->answered = 0;
	return v;
}

/* --- the rule -------------------------------------------------------- */

/* The next word of text at *p (skipping spaces), its length. */
static size_t
next_word(const char *text, size_t len, size_t *p, const char **w)
{
	while (*p < len && text[*p] == ' ')
		(*p)++;
	*w = text + *p;
	size_t s = *p;
	while (*p < len && text[*p] != ' ')
		(*p)++;
	return *p - s;
}

static bool
word_is(const char *w, size_t n, const char *want)
{
	return n == strlen(want) && strncasecmp(w, want, n) == 0;
}

/* Does a flag list (the rest of a STORE) name \Deleted? */
static bool
names_deleted(const char *s, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i++)
		if (s[i] == '\\' && strncasecmp(s + i + 1, "Deleted", 7) == 0 &&
		    (i + 8 == len || !isalnum((unsigned char)s[i + 8])))
			return true;
	return false;
}

const bool guard_lead[256] = {
	[' '] = true,
	['U'] = true, ['u'] = true, ['E'] = true, ['e'] = true,
	['M'] = true, ['m'] = true, ['D'] = true, ['d'] = true,
	['C'] = true, ['c'] = true, ['S'] = true, ['s'] = true,
};

bool
guard_destructive_words(const char *text, size_t len)
{
	size_t p = 0;
	const char *w;
	size_t n = next_word(text, len, &p, &w);

	/* A first word that starts with none of the six letters is not
	 * one of them (w[0] is no space: next_word skipped those). */
	if (n == 0 || !guard_lead[(unsigned char)w[0]])
		return false;
	if (word_is(w, n, "UID"))
		n = next_word(text, len, &p, &w);
	if (word_is(w, n, "EXPUNGE") || word_is(w, n, "MOVE") ||
	    word_is(w, n, "DELETE") || word_is(w, n, "CLOSE"))
		return true;
	if (!word_is(w, n, "STORE"))
		return false;
	(void)next_word(text, len, &p, &w);	/* the set */
	n = next_word(text, len, &p, &w);
	if (n > 0 && w[0] == '(') {		/* (UNCHANGEDSINCE n) */
		while (p < len && text[p - 1] != ')')
			n = next_word(text, len, &p, &w);
		n = next_word(text, len, &p, &w);
	}
	if (n == 0 || w[0] == '-')
		return false;	/* -FLAGS removes: nothing is lost */
	return names_deleted(text + p, len - p);
}

bool
guard_names_box(const char *text, size_t len)
{
	size_t p = 0;
	const char *w;
	size_t n = next_word(text, len, &p, &w);
	return word_is(w, n, "DELETE");
}

/* One astring at *p: a quoted string without escapes, or an atom. */
static size_t
next_astring(const char *text, size_t len, size_t *p, const char **box)
{
	const char *w;

	while (*p < len && text[*p] == ' ')
		(*p)++;
	if (*p < len && text[*p] == '"') {
		size_t s = ++*p;
		while (*p < len && text[*p] != '"') {
			if (text[*p] == '\\')
				return 0;	/* escapes: not ours */
			(*p)++;
		}
		if (*p >= len)
			return 0;
		*box = text + s;
		return (*p)++ - s;
	}
	size_t n = next_word(text, len, p, &w);
	if (n == 0 || w[0] == '{')
		return 0;
	*box = w;
	return n;
}

size_t
guard_box_arg(const char *text, size_t len, unsigned k, const char **box)
{
	size_t p = 0, n = 0;
	const char *w;

	(void)next_word(text, len, &p, &w);
	for (unsigned i = 0; i <= k; i++)
		if ((n = next_astring(text, len, &p, box)) == 0)
			return 0;
	return n;
}

void
guard_refusal(char *buf, size_t size, const char *user, const char *box,
	      uint32_t foreign, const char *why)
{
	if (why != NULL)
		snprintf(buf, size, "foreign-mail check: user %s, mailbox \"%s\": "
			 "not known to hold only imapstress's mail (%s); "
			 "nothing was deleted; %s runs anyway", user, box, why,
			 GUARD_OPTION);
	else
		snprintf(buf, size, "foreign-mail check: user %s, mailbox \"%s\" "
			 "holds %u message%s without the %s header (mail "
			 "imapstress did not put there); nothing was deleted; "
			 "%s runs anyway", user, box, foreign,
			 foreign == 1 ? "" : "s", GUARD_HEADER, GUARD_OPTION);
}

/* --- reading the answer ------------------------------------------------ */

int64_t
guard_count_search(const char *text, size_t len)
{
	int64_t n = 0;
	size_t p = 0;
	const char *w;
	size_t k;

	while ((k = next_word(text, len, &p, &w)) > 0) {
		if (w[0] == '(')	/* (MODSEQ n) of CONDSTORE */
			break;
		for (size_t i = 0; i < k; i++)
			if (!isdigit((unsigned char)w[i]))
				return -1;
		n++;
	}
	return n;
}

/* The numbers a sequence set names ("1:3,7" is 4). */
static int64_t
set_count(const char *s, size_t len)
{
	int64_t n = 0;
	size_t i = 0;

	while (i < len) {
		uint64_t a = 0, b;
		size_t d = i;
		while (i < len && isdigit((unsigned char)s[i]))
			a = a * 10 + (uint64_t)(s[i++] - '0');
		if (i == d || a > UINT32_MAX)
			return -1;
		b = a;
		if (i < len && s[i] == ':') {
			d = ++i;
			b = 0;
			while (i < len && isdigit((unsigned char)s[i]))
				b = b * 10 + (uint64_t)(s[i++] - '0');
			if (i == d || b > UINT32_MAX)
				return -1;
		}
		n += (int64_t)(a < b ? b - a : a - b) + 1;
		if (i < len && s[i] != ',')
			return -1;
		i++;
	}
	return n;
}

int64_t
guard_count_esearch(const char *text, size_t len)
{
	size_t p = 0;
	const char *w;
	size_t k;

	if (len > 0 && text[0] == '(') {	/* (TAG "x") */
		const char *close = memchr(text, ')', len);
		if (close == NULL)
			return -1;
		p = (size_t)(close - text) + 1;
	}
	int64_t n = 0;	/* no ALL, no COUNT: nothing matched */
	while ((k = next_word(text, len, &p, &w)) > 0) {
		if (word_is(w, k, "UID"))
			continue;
		const char *v;
		size_t vk = next_word(text, len, &p, &v);
		if (vk == 0)
			return -1;
		if (word_is(w, k, "COUNT")) {
			int64_t c = 0;
			for (size_t i = 0; i < vk; i++) {
				if (!isdigit((unsigned char)v[i]))
					return -1;
				c = c * 10 + (v[i] - '0');
			}
			return c;
		}
		if (word_is(w, k, "ALL"))
			n = set_count(v, vk);
	}
	return n;
}
