/* mbox_seqs.c: a view's message-number map, seq -> struct mbox_msg.
 *
 * A server may claim any count (`* 1000000 EXISTS` is 40 bytes) and then
 * expunge messages in any order, so a flat array costs memory for the
 * claim and a memmove of the whole mailbox per EXPUNGE (quadratic in an
 * expunge storm).  Here the messages sit in pages of at most MBOX_PAGE
 * entries; a page nobody wrote to is a hole (no memory, every entry zero).
 * With P pages (P <= 4 * count / MBOX_PAGE + 1, because two neighbours
 * never hold MBOX_PAGE / 2 or fewer together):
 *
 *   lookup of seq      O(pages walked from the last lookup): O(1) for
 *                      neighbouring seqs, O(P) at worst
 *   EXISTS growth      O(added / MBOX_PAGE), no message memory
 *   EXPUNGE            O(MBOX_PAGE + P)
 *   next/prev known UID  O(MBOX_PAGE + P): pages without one are skipped
 *
 * Invariant: entries of an allocated page at or past its n are zero. */
#include <stdlib.h>
#include <string.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

static const struct mbox_msg zero_msg;

/* Page index of seq (1 <= seq <= count) and its first seq - 1 in *first.
 * The cursor is a cache only, hence the cast on const views. */
static uint32_t
locate(const struct mbox_view *cv, uint32_t seq, uint32_t *first)
{
	struct mbox_view *v = (struct mbox_view *)cv;
	uint32_t i = seq - 1, p = v->cur, f = v->cur_first;

	if (p >= v->n_pages) {
		p = 0;
		f = 0;
	}
	while (i < f) {
		p--;
		f -= v->pages[p].n;
	}
	while (i >= f + v->pages[p].n) {
		f += v->pages[p].n;
		p++;
	}
	v->cur = p;
	v->cur_first = f;
	*first = f;
	return p;
}

const struct mbox_msg *
mbox_msg_get(const struct mbox_view *v, uint32_t seq)
{
	uint32_t f, p = locate(v, seq, &f);

	return v->pages[p].m ? &v->pages[p].m[seq - 1 - f] : &zero_msg;
}

/* The room a page of room cap (0: a hole) gets for need entries.
 * Doubling from 8 keeps the zeroing and copying linear in the entries a
 * page ever holds. */
static uint32_t
page_cap(uint32_t cap, uint32_t need)
{
	cap = cap ? 2 * cap : 8;
	while (cap < need)
		cap *= 2;
	return cap < MBOX_PAGE ? cap : MBOX_PAGE;
}

/* See mbox_private.h. */
void
mbox_page_reserve(struct mbox_page *pg, uint32_t need)
{
	if (pg->m != NULL && need <= pg->cap)
		return;
	uint32_t cap = page_cap(pg->cap, need);
	pg->m = xrealloc(pg->m, (size_t)cap * sizeof(*pg->m));
	memset(&pg->m[pg->cap], 0, (size_t)(cap - pg->cap) * sizeof(*pg->m));
	pg->cap = (uint16_t)cap;
}

/* mbox_page_reserve for a page of v, counting the entries it adds. */
static void
view_reserve(struct mbox_view *v, struct mbox_page *pg, uint32_t need)
{
	uint32_t before = pg->m != NULL ? pg->cap : 0;

	mbox_page_reserve(pg, need);
	v->entries += pg->cap - before;
}

/* A page's entries leave v. */
static void
view_page_free(struct mbox_view *v, struct mbox_page *pg)
{
	if (pg->m != NULL)
		v->entries -= pg->cap;
	free(pg->m);
	pg->m = NULL;
	pg->cap = 0;
}

/* A hole becomes real: its entries get the hole's STORE marks. */
static void
page_materialize(struct mbox_page *pg)
{
	mbox_page_reserve(pg, pg->n);
	if (pg->hole_gen != 0)
		for (uint32_t k = 0; k < pg->n; k++) {
			pg->m[k].store_gen = pg->hole_gen;
			pg->m[k].st = pg->hole_st;
		}
	pg->hole_gen = 0;
	pg->hole_st = 0;
}

static void
view_materialize(struct mbox_view *v, struct mbox_page *pg)
{
	page_materialize(pg);
	v->entries += pg->cap;
}

struct mbox_msg *
mbox_msg_mut(struct mbox_view *v, uint32_t seq)
{
	uint32_t f, p = locate(v, seq, &f);
	struct mbox_page *pg = &v->pages[p];

	if (pg->m == NULL)
		view_materialize(v, pg);
	return &pg->m[seq - 1 - f];
}

struct mbox_msg *
mbox_msg_track(struct mbox_view *v, uint32_t seq)
{
	uint32_t f, p = locate(v, seq, &f);
	struct mbox_page *pg = &v->pages[p];
	uint32_t max = v->store->track_max;

	/* what the hole would really cost (its cap), so entries <= max */
	if (pg->m == NULL && max != 0 && v->entries + page_cap(0, pg->n) > max)
		return NULL;
	return mbox_msg_mut(v, seq);
}

uint32_t
mbox_view_entries(const struct mbox_view *v)
{
	return v->entries;
}

uint32_t
mbox_msgs_hole_mark(struct mbox_view *v, uint32_t seq, uint32_t gen,
		    bool silent)
{
	uint32_t f, p = locate(v, seq, &f);
	struct mbox_page *pg = &v->pages[p];

	if (pg->m != NULL)
		return 0;
	pg->hole_gen = gen;
	if (silent)
		pg->hole_st |= MSG_SILENT;
	return f + pg->n - (seq - 1);
}

void
mbox_msg_set_uid(struct mbox_view *v, uint32_t seq, uint32_t uid)
{
	struct mbox_msg *m = mbox_msg_mut(v, seq);
	struct mbox_page *pg = &v->pages[v->cur];

	if (m->uid == 0 && uid != 0) {
		v->known_uids++;
		pg->known++;
	} else if (m->uid != 0 && uid == 0) {
		v->known_uids--;
		pg->known--;
	}
	m->uid = uid;
}

static void
pages_insert_room(struct mbox_view *v, uint32_t need)
{
	if (need <= v->pages_cap)
		return;
	uint32_t cap = v->pages_cap ? v->pages_cap : 4;
	while (cap < need)
		cap *= 2;
	v->pages = xrealloc(v->pages, (size_t)cap * sizeof(*v->pages));
	v->pages_cap = cap;
}

void
mbox_msgs_grow(struct mbox_view *v, uint32_t n)
{
	while (v->count < n) {
		uint32_t add;
		if (v->n_pages > 0 &&
		    v->pages[v->n_pages - 1].n < MBOX_PAGE) {
			struct mbox_page *pg = &v->pages[v->n_pages - 1];
			add = MBOX_PAGE - pg->n;
			if (add > n - v->count)
				add = n - v->count;
			if (pg->m != NULL)
				view_reserve(v, pg, pg->n + add);
			pg->n += add;	/* the entries past n are zero */
		} else {
			pages_insert_room(v, v->n_pages + 1);
			add = n - v->count < MBOX_PAGE ? n - v->count
						       : MBOX_PAGE;
			v->pages[v->n_pages++] = (struct mbox_page){ .n = add };
		}
		v->count += add;
	}
}

static void pages_fold(struct mbox_view *v, uint32_t p);

void
mbox_msgs_truncate(struct mbox_view *v, uint32_t n)
{
	while (v->count > n) {
		struct mbox_page *pg = &v->pages[v->n_pages - 1];
		uint32_t drop = v->count - n;
		if (drop >= pg->n) {
			v->known_uids -= pg->known;
			v->count -= pg->n;
			view_page_free(v, pg);
			v->n_pages--;
			continue;
		}
		if (pg->m != NULL) {
			for (uint32_t k = pg->n - drop; k < pg->n; k++)
				if (pg->m[k].uid != 0) {
					pg->known--;
					v->known_uids--;
				}
			memset(&pg->m[pg->n - drop], 0,
			       (size_t)drop * sizeof(*pg->m));
		}
		pg->n -= drop;
		v->count -= drop;
	}
	if (v->n_pages > 0)
		pages_fold(v, v->n_pages - 1);
	v->cur = v->cur_first = 0;
}

void
mbox_msgs_free(struct mbox_view *v)
{
	mbox_msgs_truncate(v, 0);
	free(v->pages);
	v->pages = NULL;
	v->pages_cap = 0;
}

static void
pages_remove(struct mbox_view *v, uint32_t p)
{
	view_page_free(v, &v->pages[p]);
	memmove(&v->pages[p], &v->pages[p + 1],
		(size_t)(v->n_pages - p - 1) * sizeof(*v->pages));
	v->n_pages--;
}

/* Fold page p + 1 into page p (together at most MBOX_PAGE / 2). */
static void
pages_merge(struct mbox_view *v, uint32_t p)
{
	struct mbox_page *a = &v->pages[p], *b = &v->pages[p + 1];

	if (a->m != NULL || b->m != NULL) {
		if (a->m == NULL)
			view_materialize(v, a);
		if (b->m == NULL)
			view_materialize(v, b);
		view_reserve(v, a, a->n + b->n);
		memcpy(&a->m[a->n], b->m, (size_t)b->n * sizeof(*b->m));
	} else if (b->hole_gen != 0) {
		/* two holes: the later STORE's mark covers both */
		if (b->hole_gen > a->hole_gen)
			a->hole_gen = b->hole_gen;
		a->hole_st |= b->hole_st;
	}
	a->n += b->n;
	a->known += b->known;
	pages_remove(v, p + 1);
}

/* Keep "two neighbours hold more than half a page" around page p after
 * it shrank: fold it into its next, then the result into its previous. */
static void
pages_fold(struct mbox_view *v, uint32_t p)
{
	if (p >= v->n_pages)
		return;
	if (p + 1 < v->n_pages &&
	    v->pages[p].n + v->pages[p + 1].n <= MBOX_PAGE / 2)
		pages_merge(v, p);
	if (p > 0 && v->pages[p - 1].n + v->pages[p].n <= MBOX_PAGE / 2)
		pages_merge(v, p - 1);
}

void
mbox_msgs_delete(struct mbox_view *v, uint32_t seq)
{
	uint32_t f, p = locate(v, seq, &f);
	struct mbox_page *pg = &v->pages[p];

	if (pg->m != NULL) {
		uint32_t k = seq - 1 - f;
		if (pg->m[k].uid != 0) {
			pg->known--;
			v->known_uids--;
		}
		memmove(&pg->m[k], &pg->m[k + 1],
			(size_t)(pg->n - k - 1) * sizeof(*pg->m));
		memset(&pg->m[pg->n - 1], 0, sizeof(*pg->m));
	}
	pg->n--;
	v->count--;
	if (pg->n == 0) {
		pages_remove(v, p);
		/* its neighbours meet: they may be small together */
		if (p > 0)
			pages_fold(v, p - 1);
	} else {
		pages_fold(v, p);
	}
	/* pages before the cursor may have moved: start over */
	v->cur = v->cur_first = 0;
}

uint32_t
mbox_msgs_prev_known(const struct mbox_view *v, uint32_t seq)
{
	if (seq <= 1 || v->known_uids == 0)
		return 0;
	uint32_t f, p = locate(v, seq - 1, &f);
	uint32_t k = seq - 1 - f;	/* entries of page p to look at */
	for (;;) {
		const struct mbox_page *pg = &v->pages[p];
		if (pg->known > 0)
			while (k > 0)
				if (pg->m[--k].uid != 0)
					return f + k + 1;
		if (p == 0)
			return 0;
		p--;
		f -= v->pages[p].n;
		k = v->pages[p].n;
	}
}

uint32_t
mbox_msgs_next_known(const struct mbox_view *v, uint32_t seq)
{
	if (seq >= v->count || v->known_uids == 0)
		return 0;
	uint32_t f, p = locate(v, seq + 1, &f);
	uint32_t k = seq - f;	/* the first entry of page p to look at */
	for (;;) {
		const struct mbox_page *pg = &v->pages[p];
		if (pg->known > 0)
			for (; k < pg->n; k++)
				if (pg->m[k].uid != 0)
					return f + k + 1;
		f += pg->n;
		if (++p == v->n_pages)
			return 0;
		k = 0;
	}
}

/* Append one entry to the page list being built: a message, or (m NULL)
 * an entry of the hole src, which stays a hole if it can. */
static void
build_push(struct mbox_page **pages, uint32_t *n, uint32_t *cap,
	   const struct mbox_msg *m, const struct mbox_page *src)
{
	struct mbox_page *t = *n ? &(*pages)[*n - 1] : NULL;

	if (t == NULL || t->n == MBOX_PAGE) {
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 4;
			*pages = xrealloc(*pages, (size_t)*cap * sizeof(**pages));
		}
		t = &(*pages)[(*n)++];
		*t = (struct mbox_page){ .n = 0 };
	}
	if (m == NULL && t->m == NULL) {
		if (src->hole_gen > t->hole_gen)
			t->hole_gen = src->hole_gen;
		t->hole_st |= src->hole_st;
	} else {
		if (t->m == NULL)
			page_materialize(t);
		mbox_page_reserve(t, t->n + 1);
		if (m != NULL) {
			t->m[t->n] = *m;
			t->known += m->uid != 0;
		} else {
			t->m[t->n].store_gen = src->hole_gen;
			t->m[t->n].st = src->hole_st;
		}
	}
	t->n++;
}

void
mbox_msgs_compact(struct mbox_view *v, const struct mbox_range *drop,
		  size_t n_drop, mbox_drop_fn fn, void *arg)
{
	struct mbox_page *np = NULL;
	uint32_t nn = 0, ncap = 0, seq = 0, kept = 0, known = 0;
	size_t d = 0;

	for (uint32_t p = 0; p < v->n_pages; p++) {
		struct mbox_page *pg = &v->pages[p];
		for (uint32_t k = 0; k < pg->n; k++) {
			const struct mbox_msg *m = pg->m ? &pg->m[k] : &zero_msg;
			seq++;
			while (d < n_drop && drop[d].hi < seq)
				d++;
			bool gone = (m->st & MSG_DOOMED) ||
				    (d < n_drop && drop[d].lo <= seq);
			if (gone) {
				fn(arg, m, seq);
				continue;
			}
			/* entries of holes stay holes */
			build_push(&np, &nn, &ncap, pg->m ? m : NULL, pg);
			kept++;
			known += m->uid != 0;
		}
		free(pg->m);
	}
	free(v->pages);
	v->pages = np;
	v->n_pages = nn;
	v->pages_cap = ncap;
	v->entries = 0;
	for (uint32_t p = 0; p < nn; p++)
		v->entries += np[p].m != NULL ? np[p].cap : 0;
	v->count = kept;
	v->known_uids = known;
	v->cur = v->cur_first = 0;
}
