/* mbox_checkpoint.c: after every session of a mailbox ran CHECK, all
 * views must agree (see mbox_view_checkpoint_compare in mbox_model.h).
 * The first view that knows a message's UID or flags is the reference the
 * others are compared with, as in imaptest. */
#include <stdlib.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

struct cp_ref {
	uint32_t uid;
	bool have_flags, have_recent;
	uint32_t flags_client;	/* conn id of the reference flags */
	uint32_t recent_client;	/* conn id that has it \Recent */
	uint32_t flag_views;	/* views that know its flags */
	uint8_t sys;
	uint64_t kw;
};

/* The references by seq, in blocks of MBOX_PAGE made when a view knows
 * a UID there: a claimed million with nothing known costs the block
 * pointers (16 KB), not a reference per claimed message (32 MB). */
struct cp_refs {
	struct cp_ref **blk;
	uint32_t n_blk;
};

static struct cp_ref *
cp_ref_at(struct cp_refs *r, uint32_t seq)
{
	uint32_t b = (seq - 1) / MBOX_PAGE;

	if (r->blk[b] == NULL)
		r->blk[b] = xcalloc(MBOX_PAGE, sizeof(*r->blk[b]));
	return &r->blk[b][(seq - 1) % MBOX_PAGE];
}

/* The keywords some message carries, in any view of s at the checkpoint.
 * A keyword no message has is not state the sessions can disagree on:
 * Dovecot announces one in FLAGS to the session whose STORE -FLAGS named
 * it although no message ever had it, and no other session hears of it
 * (rawlog: `STORE 3,5:9 -FLAGS.SILENT ($Label2)` answered with
 * `* FLAGS (... $Label2 $Label1)`, while every other session's CHECK
 * brought no FLAGS until a message got $Label2). */
static uint64_t
cp_keywords_carried(struct mbox_view *const *views, unsigned n,
		    const struct mbox_store *s)
{
	uint64_t used = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct mbox_view *v = views[i];
		if (v->store != s || v->disabled)
			continue;
		for (uint32_t seq = mbox_msgs_next_known(v, 0); seq != 0;
		     seq = mbox_msgs_next_known(v, seq)) {
			const struct mbox_msg *m = mbox_msg_get(v, seq);
			if (mbox_msg_baseline(v, m))
				used |= m->kw;
		}
	}
	return used;
}

static void
cp_keywords(struct mbox_reporter *rep, const struct mbox_store *s,
	    const struct mbox_view *v, const struct mbox_view *first,
	    uint64_t carried)
{
	uint64_t missing = first->kw_in_flags & ~v->kw_in_flags & carried;
	uint64_t extra = v->kw_in_flags & ~first->kw_in_flags & carried;

	for (unsigned k = 0; k < s->n_kw; k++) {
		if (missing & (1ull << k))
			mbox_report(rep, MBOX_ERR_CHECKPOINT, "Checkpoint: "
				    "client %u: Missing keyword %s", v->conn_id,
				    s->kw[k].name);
		if (extra & (1ull << k))
			mbox_report(rep, MBOX_ERR_CHECKPOINT, "Checkpoint: "
				    "client %u: Missing keyword %s",
				    first->conn_id, s->kw[k].name);
	}
}

static void
cp_message(struct mbox_reporter *rep, const struct mbox_view *v,
	   struct cp_ref *ref, uint32_t seq)
{
	const struct mbox_store *s = v->store;
	const struct mbox_msg *m = mbox_msg_get(v, seq);
	char a[256], b[256];

	ref->flag_views++;
	if ((m->sys & MBOX_F_RECENT) && !v->readonly) {
		if (!ref->have_recent) {
			ref->have_recent = true;
			ref->recent_client = v->conn_id;
		} else {
			mbox_report(rep, MBOX_ERR_RECENT, "Checkpoint: Message "
				    "seq=%u UID=%u has \\Recent flag in "
				    "multiple sessions: clients %u and %u", seq,
				    m->uid, ref->recent_client, v->conn_id);
		}
	}
	if (!ref->have_flags) {
		ref->have_flags = true;
		ref->flags_client = v->conn_id;
		ref->sys = m->sys & ~MBOX_F_RECENT;
		ref->kw = m->kw;
		return;
	}
	unsigned sys = m->sys & ~MBOX_F_RECENT;
	if (sys != ref->sys) {
		mbox_flags_fmt(s, sys, 0, a, sizeof(a));
		mbox_flags_fmt(s, ref->sys, 0, b, sizeof(b));
		mbox_report(rep, MBOX_ERR_CHECKPOINT, "Checkpoint: client %u: "
			    "Message seq=%u UID=%u flags differ: (%s) vs (%s) "
			    "of client %u", v->conn_id, seq, m->uid, a, b,
			    ref->flags_client);
	}
	if (m->kw != ref->kw) {
		mbox_flags_fmt(s, 0, m->kw, a, sizeof(a));
		mbox_flags_fmt(s, 0, ref->kw, b, sizeof(b));
		mbox_report(rep, MBOX_ERR_CHECKPOINT, "Checkpoint: client %u: "
			    "Message seq=%u UID=%u keywords differ: (%s) vs "
			    "(%s) of client %u", v->conn_id, seq, m->uid, a, b,
			    ref->flags_client);
	}
}

static void
cp_recent(struct mbox_reporter *rep, struct mbox_view *const *views,
	  unsigned n, const struct cp_refs *refs, uint32_t max,
	  unsigned compared)
{
	uint32_t total = 0, min_uidnext = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct mbox_view *v = views[i];
		if (v->store != views[0]->store || v->disabled || v->readonly)
			continue;
		if (v->recent_uncertain)
			return;	/* an expunge hid which messages were recent */
		total += v->recent;
		if (v->select_uidnext != 0 &&
		    (min_uidnext == 0 || v->select_uidnext < min_uidnext))
			min_uidnext = v->select_uidnext;
	}
	if (total > max)
		mbox_report(rep, MBOX_ERR_RECENT, "Checkpoint: Total RECENT "
			    "count %u larger than current message count %u",
			    total, max);
	else if (total != max)
		mbox_report(rep, MBOX_ERR_RECENT, "Checkpoint: Total RECENT "
			    "count %u != %u", total, max);
	if (min_uidnext == 0)
		return;
	/* arrived while every session was selected: someone must have it
	 * (a seq no view knows has no UID, so no block) */
	for (uint32_t b = 0; b < refs->n_blk; b++) {
		const struct cp_ref *blk = refs->blk[b];
		for (uint32_t i = 0; blk != NULL && i < MBOX_PAGE; i++)
			if (blk[i].uid >= min_uidnext &&
			    blk[i].flag_views == compared &&
			    !blk[i].have_recent)
				mbox_report(rep, MBOX_ERR_RECENT, "Checkpoint: "
					    "Message seq=%u UID=%u isn't "
					    "\\Recent anywhere",
					    b * MBOX_PAGE + i + 1, blk[i].uid);
	}
}

unsigned
mbox_view_checkpoint_compare(struct mbox_view *const *views, unsigned n,
			     bool recent_reliable, mbox_err_cb cb, void *arg)
{
	struct mbox_reporter rep = { cb, arg, 0 };
	const struct mbox_view *first = NULL;
	uint32_t max = 0;
	unsigned compared = 0;

	if (n == 0)
		return 0;
	const struct mbox_store *s = views[0]->store;
	for (unsigned i = 0; i < n; i++)
		if (views[i]->store == s && !views[i]->disabled &&
		    views[i]->count > max)
			max = views[i]->count;
	struct cp_refs refs = { NULL, max / MBOX_PAGE + 1 };
	refs.blk = xcalloc(refs.n_blk, sizeof(*refs.blk));
	uint64_t carried = cp_keywords_carried(views, n, s);

	for (unsigned i = 0; i < n; i++) {
		const struct mbox_view *v = views[i];
		if (v->store != s || v->disabled)
			continue;
		compared++;
		if (v->count != max)
			mbox_report(&rep, MBOX_ERR_CHECKPOINT, "Checkpoint: "
				    "client %u: Mailbox has only %u of %u "
				    "messages", v->conn_id, v->count, max);
		if (first == NULL)
			first = v;
		else
			cp_keywords(&rep, s, v, first, carried);
		/* only the messages with a UID: pages without one skipped */
		for (uint32_t seq = mbox_msgs_next_known(v, 0); seq != 0;
		     seq = mbox_msgs_next_known(v, seq)) {
			const struct mbox_msg *m = mbox_msg_get(v, seq);
			struct cp_ref *ref = cp_ref_at(&refs, seq);
			if (ref->uid == 0) {
				ref->uid = m->uid;
			} else if (ref->uid != m->uid) {
				mbox_report(&rep, MBOX_ERR_CHECKPOINT,
					    "Checkpoint: client %u: Message "
					    "seq=%u UID %u != %u", v->conn_id,
					    seq, m->uid, ref->uid);
				break;	/* the rest is shifted: one is enough */
			}
			if (mbox_msg_baseline(v, m))
				cp_message(&rep, v, ref, seq);
		}
	}
	if (recent_reliable && s->seen_all_recent)
		cp_recent(&rep, views, n, &refs, max, compared);
	for (uint32_t b = 0; b < refs.n_blk; b++)
		free(refs.blk[b]);
	free(refs.blk);
	return rep.n;
}

/* A copy of src in dst, for a checkpoint that compares the views of
 * several threads: what the comparison reads (messages, flags with the
 * keywords mapped by name, RECENT, the SELECT snapshot), and nothing that
 * points back into src's store. */
struct mbox_view *
mbox_view_checkpoint_copy(const struct mbox_view *src, struct mbox_store *dst)
{
	const struct mbox_store *ss = src->store;
	struct mbox_view *v = mbox_view_new(dst, src->conn_id, NULL);
	int map[MBOX_MAX_KEYWORDS];

	for (unsigned k = 0; k < ss->n_kw; k++)
		map[k] = mbox_store_kw_intern(dst, ss->kw[k].name, ss->kw[k].len);
	/* The page map as it is (holes stay holes), each real page copied
	 * with its keywords renumbered for dst. */
	mbox_msgs_free(v);
	v->pages = xcalloc(src->n_pages ? src->n_pages : 1, sizeof(*v->pages));
	v->n_pages = v->pages_cap = src->n_pages;
	v->count = src->count;
	v->cur = v->cur_first = 0;
	for (uint32_t p = 0; p < src->n_pages; p++) {
		const struct mbox_page *sp = &src->pages[p];
		struct mbox_page *dp = &v->pages[p];
		*dp = *sp;
		if (sp->m == NULL)
			continue;
		dp->m = NULL;
		dp->cap = 0;
		mbox_page_reserve(dp, sp->n);
		v->entries += dp->cap;
		for (uint32_t i = 0; i < sp->n; i++) {
			struct mbox_msg *m = &dp->m[i];
			*m = sp->m[i];
			m->rec = 0;	/* a position in src's store */
			m->kw = 0;
			for (unsigned k = 0; k < ss->n_kw; k++)
				if ((sp->m[i].kw & (1ull << k)) && map[k] >= 0)
					m->kw |= 1ull << map[k];
		}
	}
	for (unsigned k = 0; k < ss->n_kw; k++)
		if ((src->kw_in_flags & (1ull << k)) && map[k] >= 0)
			v->kw_in_flags |= 1ull << map[k];
	v->known_uids = src->known_uids;
	v->recent = src->recent;
	v->recent_uncertain = src->recent_uncertain;
	v->select_uidnext = src->select_uidnext;
	v->old_count = src->old_count;
	v->readonly = src->readonly;
	v->disabled = src->disabled;
	v->store_gen = src->store_gen;
	v->idle_gen = src->idle_gen;
	return v;
}

bool
mbox_store_seen_all_recent(const struct mbox_store *s)
{
	return s->seen_all_recent;
}

void
mbox_store_set_seen_all_recent(struct mbox_store *s, bool yes)
{
	s->seen_all_recent = yes;
}
