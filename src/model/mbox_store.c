/* mbox_store.c: the per-UID records of a mailbox (see mbox_private.h).
 *
 * Laid out for the FETCH path, which touches one record per untagged
 * FETCH of a random message while the server's processes share the CPU
 * caches with us: the records are a dense array of 64-octet, line-aligned
 * entries (one cache line each), found through a small open-addressing
 * index of {uid, position} pairs, and a view remembers each message's
 * position (mbox_store_hinted) so a repeated FETCH goes straight to its
 * line.  The old table kept the records themselves in a half-empty hash
 * table: four times the memory, and most records spread over two lines. */
#include <stdlib.h>
#include <string.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

#define STORE_INITIAL_SLOTS	64u
#define STORE_INITIAL_RECS	32u
#define STORE_LINE		64u

_Static_assert(sizeof(struct mbox_rec) == STORE_LINE,
	       "a record is one cache line");

static struct mbox_rec *
recs_alloc(uint32_t n)
{
	return xaligned_alloc(STORE_LINE, (size_t)n * sizeof(struct mbox_rec));
}

struct mbox_store *
mbox_store_new(const char *name, uint32_t max_msgs)
{
	struct mbox_store *s = xcalloc(1, sizeof(*s));

	s->name = xstrdup(name ? name : "");
	s->max_msgs = max_msgs ? max_msgs : MBOX_DEFAULT_MAX_MSGS;
	s->cap = STORE_INITIAL_SLOTS;
	s->slots = xcalloc(s->cap, sizeof(*s->slots));
	s->recs_cap = STORE_INITIAL_RECS;
	s->recs = recs_alloc(s->recs_cap);
	s->msgids = xcalloc(s->recs_cap, sizeof(*s->msgids));
	s->args = imap_args_new(0);
	s->sub_args = imap_args_new(0);
	return s;
}

void
mbox_store_set_track_max(struct mbox_store *s, uint32_t n)
{
	s->track_max = n;
}

void
mbox_store_free(struct mbox_store *s)
{
	if (s == NULL)
		return;
	mbox_store_clear(s);
	for (unsigned i = 0; i < s->n_kw; i++)
		free(s->kw[i].name);
	free(s->recs);
	free(s->msgids);
	free(s->slots);
	free(s->ranges);
	free(s->drops);
	free(s->flags_memo.text);
	free(s->perm_memo.text);
	if (!s->args_borrowed) {
		imap_args_free(s->args);
		imap_args_free(s->sub_args);
	}
	free(s->name);
	free(s);
}

void
mbox_store_use_args(struct mbox_store *s, struct imap_args *args,
		    struct imap_args *sub_args)
{
	if (!s->args_borrowed) {
		imap_args_free(s->args);
		imap_args_free(s->sub_args);
	}
	s->args = args;
	s->sub_args = sub_args;
	s->args_borrowed = true;
}

const char *
mbox_store_name(const struct mbox_store *s)
{
	return s->name;
}

uint32_t
mbox_store_uidvalidity(const struct mbox_store *s)
{
	return s->uidvalidity;
}

uint32_t
mbox_store_msg_count(const struct mbox_store *s)
{
	return s->count;
}

static uint32_t
slot_of(const struct mbox_store *s, uint32_t uid)
{
	return (uint32_t)(uid * 2654435761u) & (s->cap - 1);
}

/* The index slot holding uid, or the empty slot where it would go. */
static uint32_t
slot_find(const struct mbox_store *s, uint32_t uid)
{
	uint32_t i = slot_of(s, uid);

	while (s->slots[i].uid != 0 && s->slots[i].uid != uid)
		i = (i + 1) & (s->cap - 1);
	return i;
}

struct mbox_rec *
mbox_store_get(const struct mbox_store *s, uint32_t uid)
{
	if (uid == 0)
		return NULL;
	uint32_t i = slot_find(s, uid);
	return s->slots[i].uid == uid ? &s->recs[s->slots[i].pos] : NULL;
}

struct mbox_rec *
mbox_store_hinted(struct mbox_store *s, uint32_t uid, uint32_t *hint)
{
	if (*hint != 0 && *hint <= s->count && s->recs[*hint - 1].uid == uid)
		return &s->recs[*hint - 1];
	struct mbox_rec *r = mbox_store_add(s, uid);
	*hint = r != NULL ? (uint32_t)(r - s->recs) + 1 : 0;
	return r;
}

static void
slots_grow(struct mbox_store *s)
{
	free(s->slots);
	s->cap *= 2;
	s->slots = xcalloc(s->cap, sizeof(*s->slots));
	for (uint32_t p = 0; p < s->count; p++) {
		uint32_t i = slot_find(s, s->recs[p].uid);
		s->slots[i].uid = s->recs[p].uid;
		s->slots[i].pos = p;
	}
}

struct mbox_rec *
mbox_store_add(struct mbox_store *s, uint32_t uid)
{
	if (uid == 0)
		return NULL;
	uint32_t i = slot_find(s, uid);
	if (s->slots[i].uid == uid)
		return &s->recs[s->slots[i].pos];
	if (s->count >= s->max_msgs)
		return NULL;
	if (s->count == s->recs_cap) {
		uint32_t ncap = s->recs_cap * 2;
		struct mbox_rec *n = recs_alloc(ncap);
		memcpy(n, s->recs, (size_t)s->count * sizeof(*n));
		free(s->recs);
		s->recs = n;
		s->msgids = xrealloc(s->msgids, ncap * sizeof(*s->msgids));
		s->recs_cap = ncap;
	}
	/* keep the index at most half full: probes stay short */
	if ((uint64_t)(s->count + 1) * 2 > s->cap) {
		slots_grow(s);
		i = slot_find(s, uid);
	}
	struct mbox_rec *r = &s->recs[s->count];
	memset(r, 0, sizeof(*r));
	s->msgids[s->count] = NULL;
	r->uid = uid;
	s->slots[i].uid = uid;
	s->slots[i].pos = s->count++;
	return r;
}

/* Empty index slot `hole`; backward-shift deletion, no tombstones, so
 * lookups stay exact. */
static void
slot_delete(struct mbox_store *s, uint32_t hole)
{
	uint32_t mask = s->cap - 1;

	for (uint32_t j = (hole + 1) & mask; s->slots[j].uid != 0;
	     j = (j + 1) & mask) {
		uint32_t home = slot_of(s, s->slots[j].uid);
		bool movable = hole <= j ? (home <= hole || home > j)
					 : (home <= hole && home > j);
		if (movable) {
			s->slots[hole] = s->slots[j];
			hole = j;
		}
	}
	s->slots[hole].uid = 0;
	s->slots[hole].pos = 0;
}

void
mbox_store_remove(struct mbox_store *s, uint32_t uid)
{
	if (uid == 0)
		return;
	uint32_t i = slot_find(s, uid);
	if (s->slots[i].uid != uid)
		return;
	uint32_t p = s->slots[i].pos;
	free(s->msgids[p]);
	slot_delete(s, i);
	/* The last record fills the gap (views' hints to it go stale and
	 * are found again through the index). */
	uint32_t last = --s->count;
	if (p != last) {
		s->recs[p] = s->recs[last];
		s->msgids[p] = s->msgids[last];
		s->slots[slot_find(s, s->recs[p].uid)].pos = p;
	}
	memset(&s->recs[last], 0, sizeof(s->recs[last]));
	s->msgids[last] = NULL;
}

void
mbox_store_clear(struct mbox_store *s)
{
	for (uint32_t p = 0; p < s->count; p++) {
		free(s->msgids[p]);
		s->msgids[p] = NULL;
	}
	memset(s->slots, 0, (size_t)s->cap * sizeof(*s->slots));
	s->count = 0;
	s->seen_all_recent = false;
}

bool
mbox_store_msg_info(const struct mbox_store *s, uint32_t uid,
		    struct mbox_msg_info *out)
{
	const struct mbox_rec *r = mbox_store_get(s, uid);

	if (r == NULL)
		return false;
	out->size = r->size;
	out->have_idate = r->idate != 0;
	out->idate = mbox_rec_idate(r);
	out->idate_tz = mbox_rec_idate_tz(r);
	out->envelope_hash = r->env_hash;
	out->bodystructure_hash = r->bs_hash;
	out->message_id = s->msgids[r - s->recs];
	out->owner = r->owner;
	return true;
}
