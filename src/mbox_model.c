/* mbox_model.c: the per-mailbox store (UID hash table, keywords, owners)
 * and helpers shared by the view code (see mbox_model.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox_private.h"
#include "xmalloc.h"

#define STORE_INITIAL_CAP	64u

static const char *const err_names[MBOX_ERR_COUNT] = {
	[MBOX_ERR_SYNTAX] = "syntax",
	[MBOX_ERR_SEQ_TOO_HIGH] = "seq-too-high",
	[MBOX_ERR_EXISTS_BACKWARDS] = "exists-backwards",
	[MBOX_ERR_UID_CHANGED] = "uid-changed",
	[MBOX_ERR_UID_ORDER] = "uid-order",
	[MBOX_ERR_UIDNEXT] = "uidnext",
	[MBOX_ERR_STATIC_CHANGED] = "static-changed",
	[MBOX_ERR_KEYWORD] = "keyword",
	[MBOX_ERR_MODSEQ] = "modseq",
	[MBOX_ERR_UIDVALIDITY] = "uidvalidity",
	[MBOX_ERR_OWN_MSG] = "own-msg",
	[MBOX_ERR_OWN_FLAG] = "own-flag",
	[MBOX_ERR_EXPUNGE] = "expunge",
	[MBOX_ERR_RECENT] = "recent",
	[MBOX_ERR_CHECKPOINT] = "checkpoint",
	[MBOX_ERR_LIMIT] = "limit",
};

const char *
mbox_err_name(enum mbox_err kind)
{
	if ((unsigned)kind >= MBOX_ERR_COUNT)
		return "unknown";
	return err_names[kind];
}

void
mbox_report(struct mbox_reporter *r, enum mbox_err kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->n++;
	if (r->cb != NULL)
		r->cb(r->arg, kind, buf);
}

/* ---- store ---- */

struct mbox_store *
mbox_store_new(const char *name, uint32_t max_msgs)
{
	struct mbox_store *s = xcalloc(1, sizeof(*s));

	s->name = xstrdup(name ? name : "");
	s->max_msgs = max_msgs ? max_msgs : MBOX_DEFAULT_MAX_MSGS;
	s->cap = STORE_INITIAL_CAP;
	s->recs = xcalloc(s->cap, sizeof(*s->recs));
	s->args = imap_args_new(0);
	return s;
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
	free(s->ranges);
	imap_args_free(s->args);
	free(s->name);
	free(s);
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

struct mbox_rec *
mbox_store_get(const struct mbox_store *s, uint32_t uid)
{
	if (uid == 0)
		return NULL;
	for (uint32_t i = slot_of(s, uid);; i = (i + 1) & (s->cap - 1)) {
		if (s->recs[i].uid == uid)
			return &s->recs[i];
		if (s->recs[i].uid == 0)
			return NULL;
	}
}

static void
store_grow(struct mbox_store *s)
{
	struct mbox_rec *old = s->recs;
	uint32_t old_cap = s->cap;

	s->cap *= 2;
	s->recs = xcalloc(s->cap, sizeof(*s->recs));
	for (uint32_t i = 0; i < old_cap; i++) {
		if (old[i].uid == 0)
			continue;
		uint32_t j = slot_of(s, old[i].uid);
		while (s->recs[j].uid != 0)
			j = (j + 1) & (s->cap - 1);
		s->recs[j] = old[i];
	}
	free(old);
}

struct mbox_rec *
mbox_store_add(struct mbox_store *s, uint32_t uid)
{
	struct mbox_rec *r = mbox_store_get(s, uid);

	if (r != NULL || uid == 0)
		return r;
	if (s->count >= s->max_msgs)
		return NULL;
	/* keep the load at or below one half: probes stay short */
	if ((uint64_t)(s->count + 1) * 2 > s->cap)
		store_grow(s);
	uint32_t i = slot_of(s, uid);
	while (s->recs[i].uid != 0)
		i = (i + 1) & (s->cap - 1);
	r = &s->recs[i];
	memset(r, 0, sizeof(*r));
	r->uid = uid;
	s->count++;
	return r;
}

void
mbox_store_remove(struct mbox_store *s, uint32_t uid)
{
	struct mbox_rec *r = mbox_store_get(s, uid);

	if (r == NULL)
		return;
	free(r->msgid);
	uint32_t mask = s->cap - 1;
	uint32_t hole = (uint32_t)(r - s->recs);
	/* Backward-shift deletion: no tombstones, so lookups stay exact. */
	for (uint32_t j = (hole + 1) & mask; s->recs[j].uid != 0;
	     j = (j + 1) & mask) {
		uint32_t home = slot_of(s, s->recs[j].uid);
		bool movable = hole <= j ? (home <= hole || home > j)
					 : (home <= hole && home > j);
		if (movable) {
			s->recs[hole] = s->recs[j];
			hole = j;
		}
	}
	memset(&s->recs[hole], 0, sizeof(s->recs[hole]));
	s->count--;
}

void
mbox_store_clear(struct mbox_store *s)
{
	for (uint32_t i = 0; i < s->cap; i++) {
		free(s->recs[i].msgid);
		memset(&s->recs[i], 0, sizeof(s->recs[i]));
	}
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
	out->idate = r->idate;
	out->idate_tz = r->idate_tz;
	out->have_idate = r->have_idate;
	out->envelope_hash = r->env_hash;
	out->bodystructure_hash = r->bs_hash;
	out->message_id = r->msgid;
	out->owner = r->owner;
	return true;
}

int
mbox_store_keyword_index(const struct mbox_store *s, const char *name,
			 size_t len)
{
	for (unsigned i = 0; i < s->n_kw; i++)
		if (strlen(s->kw[i].name) == len &&
		    strncasecmp(s->kw[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

const char *
mbox_store_keyword_name(const struct mbox_store *s, unsigned idx)
{
	return idx < s->n_kw ? s->kw[idx].name : NULL;
}

unsigned
mbox_store_keyword_count(const struct mbox_store *s)
{
	return s->n_kw;
}

int
mbox_store_kw_intern(struct mbox_store *s, const char *name, size_t len)
{
	int i = mbox_store_keyword_index(s, name, len);

	if (i >= 0)
		return i;
	if (s->n_kw == MBOX_MAX_KEYWORDS)
		return -1;
	s->kw[s->n_kw].name = xstrndup(name, len);
	s->kw[s->n_kw].owner = 0;
	return (int)s->n_kw++;
}

uint32_t
mbox_store_msg_owner(const struct mbox_store *s, uint32_t uid)
{
	const struct mbox_rec *r = mbox_store_get(s, uid);
	return r ? r->owner : 0;
}

bool
mbox_store_claim_msg(struct mbox_store *s, uint32_t uid, uint32_t conn_id)
{
	struct mbox_rec *r = mbox_store_get(s, uid);

	if (r == NULL || conn_id == 0)
		return false;
	if (r->owner == 0)
		r->owner = conn_id;
	return r->owner == conn_id;
}

/* Which owner slot a flag name has: 0..MBOX_SYS_FLAGS-1 for system
 * flags, MBOX_SYS_FLAGS + k for keyword k; -1 for \Recent, unknown
 * system flags and keywords not (or, with create, no longer) in the
 * table. */
static int
flag_slot(const struct mbox_store *s, const char *name, size_t len)
{
	if (len > 0 && name[0] == '\\') {
		unsigned bit = mbox_sys_flag(name, len);
		if (bit == 0 || bit == MBOX_F_RECENT)
			return -1;
		int i = 0;
		while ((1u << i) != bit)
			i++;
		return i;
	}
	int k = mbox_store_keyword_index(s, name, len);
	return k < 0 ? -1 : MBOX_SYS_FLAGS + k;
}

uint32_t
mbox_store_flag_owner(const struct mbox_store *s, const char *name,
		      size_t len)
{
	int i = flag_slot(s, name, len);

	if (i < 0)
		return 0;
	return i < MBOX_SYS_FLAGS ? s->sys_owner[i]
				  : s->kw[i - MBOX_SYS_FLAGS].owner;
}

bool
mbox_store_claim_flag(struct mbox_store *s, const char *name, size_t len,
		      uint32_t conn_id)
{
	if (conn_id == 0)
		return false;
	if (len > 0 && name[0] != '\\')
		(void)mbox_store_kw_intern(s, name, len);
	int i = flag_slot(s, name, len);
	if (i < 0)
		return false;
	uint32_t *o = i < MBOX_SYS_FLAGS ? &s->sys_owner[i]
					 : &s->kw[i - MBOX_SYS_FLAGS].owner;
	if (*o == 0)
		*o = conn_id;
	return *o == conn_id;
}

