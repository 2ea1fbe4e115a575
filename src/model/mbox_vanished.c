/* mbox_vanished.c: VANISHED (RFC 7162) against a view, and UID -> seq.
 *
 * A VANISHED names UID ranges ("1:100000" is 8 octets), so nothing here
 * walks a range: the work is one pass over the view plus one over the
 * (sorted, merged) ranges, and the messages go in one compaction:
 * O(count + ranges + pages) per VANISHED, whatever the ranges claim. */
#include <stdio.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

/* The first seq at or after seq with a known UID; 0 = none. */
static uint32_t
known_from(const struct mbox_view *v, uint32_t seq)
{
	if (seq > v->count)
		return 0;
	return mbox_msg_get(v, seq)->uid ? seq : mbox_msgs_next_known(v, seq);
}

uint32_t
mbox_view_seq_of_uid(const struct mbox_view *v, uint32_t uid)
{
	for (uint32_t seq = known_from(v, 1); uid != 0 && seq != 0;
	     seq = mbox_msgs_next_known(v, seq))
		if (mbox_msg_get(v, seq)->uid == uid)
			return seq;
	return 0;
}

static void
drop_push(struct mbox_store *s, uint32_t lo, uint32_t hi)
{
	if (s->n_drops > 0 && s->drops[s->n_drops - 1].hi + 1 == lo) {
		s->drops[s->n_drops - 1].hi = hi;
		return;
	}
	if (s->n_drops == s->drops_cap) {
		s->drops_cap = s->drops_cap ? s->drops_cap * 2 : 16;
		s->drops = xrealloc(s->drops, s->drops_cap * sizeof(*s->drops));
	}
	s->drops[s->n_drops++] = (struct mbox_range){ lo, hi };
}

static uint64_t
ranges_total(const struct mbox_store *s)
{
	uint64_t total = 0;

	for (size_t i = 0; i < s->n_ranges; i++)
		total += (uint64_t)s->ranges[i].hi - s->ranges[i].lo + 1;
	return total;
}

/* UIDs waiting for a slot in the current window of unknown seqs. */
struct pending {
	uint32_t k_old, k_new;	/* below the SELECT's UIDNEXT, the rest */
	uint32_t last;		/* the highest of them, for the report */
};

static uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Place the pending UIDs in the unknown seqs lo..hi (lo > hi: none).  As
 * in imaptest, a UID takes the highest free slot before the next known
 * UID; but a UID below the UIDNEXT seen at SELECT was there at SELECT,
 * so it takes a slot that existed then (seq <= old_count), and a newer
 * UID a newer slot, before either falls back to the other kind.  (Cyrus:
 * known 257 and 261 of 3, one arrival, "VANISHED 257,261:262": 262 is
 * the old unknown slot, not the arrival.) */
static void
window_take(struct mbox_view *v, uint32_t lo, uint32_t hi,
	    struct pending *pd)
{
	uint32_t n_old = 0, n_new = 0;

	if (pd->k_old + pd->k_new == 0)
		return;
	if (lo <= hi) {
		uint32_t split = v->old_count < lo ? lo - 1 :
				 v->old_count > hi ? hi : v->old_count;
		n_old = split - lo + 1;	/* lo..split existed at SELECT */
		n_new = hi - split;	/* split+1..hi arrived since */
	}
	uint32_t t_old = min_u32(pd->k_old, n_old);
	uint32_t t_new = min_u32(pd->k_new, n_new);
	uint32_t x_new = min_u32(pd->k_old - t_old, n_new - t_new);
	uint32_t x_old = min_u32(pd->k_new - t_new, n_old - t_old);
	uint32_t lost = pd->k_old + pd->k_new - t_old - t_new - x_new - x_old;

	if (t_old + x_old > 0)
		drop_push(v->store, lo + n_old - t_old - x_old, lo + n_old - 1);
	if (t_new + x_new > 0)
		drop_push(v->store, hi - t_new - x_new + 1, hi);
	if (lost == 1)
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE,
			    "VANISHED UID %u not found", pd->last);
	else if (lost > 1)
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "VANISHED UID %u not "
			    "found (and %u more)", pd->last, lost - 1);
	*pd = (struct pending){ 0, 0, 0 };
}

/* Some UIDs unknown: walk the vanished UIDs (at most count of them) and
 * the known seqs together; a known UID is dropped by name, the others
 * wait for the window of unknown seqs they fall in. */
static void
vanished_partial(struct mbox_view *v)
{
	struct mbox_store *s = v->store;
	uint64_t total = ranges_total(s);

	if (total > v->count) {
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "VANISHED lists %llu "
			    "UIDs but only %u messages exist",
			    (unsigned long long)total, v->count);
		return;
	}
	struct pending pd = { 0, 0, 0 };
	uint32_t prev = 0, next = known_from(v, 1);
	for (size_t r = 0; r < s->n_ranges; r++) {
		for (uint64_t u = s->ranges[r].lo; u <= s->ranges[r].hi; u++) {
			uint32_t nu;
			while (next != 0 &&
			       (nu = mbox_msg_get(v, next)->uid) <= u) {
				window_take(v, prev + 1, next - 1, &pd);
				if (nu == u)
					mbox_msg_mut(v, next)->st |= MSG_DOOMED;
				prev = next;
				next = mbox_msgs_next_known(v, next);
				if (nu == u)
					goto placed;
			}
			if (v->select_uidnext != 0 && u < v->select_uidnext)
				pd.k_old++;
			else
				pd.k_new++;
			pd.last = (uint32_t)u;
placed:;
		}
	}
	window_take(v, prev + 1, next ? next - 1 : v->count, &pd);
}

/* Every UID known: drop the listed ones; UIDs not in the view break RFC
 * 7162's rule that VANISHED without EARLIER names only messages the
 * client has been told about. */
static void
vanished_known(struct mbox_view *v)
{
	struct mbox_store *s = v->store;
	uint64_t total = ranges_total(s), matched = 0;

	for (uint32_t seq = 1; seq <= v->count; seq++)
		if (mbox_ranges_has(s, mbox_msg_get(v, seq)->uid)) {
			mbox_msg_mut(v, seq)->st |= MSG_DOOMED;
			matched++;
		}
	if (matched == total)
		return;
	/* Name the first UID of the ranges the view lacks: walk both in
	 * order, at most matched + 1 steps. */
	uint32_t missing = 0, seq = 1;
	for (size_t r = 0; r < s->n_ranges && missing == 0; r++)
		for (uint64_t u = s->ranges[r].lo; u <= s->ranges[r].hi; u++) {
			while (seq <= v->count && mbox_msg_get(v, seq)->uid < u)
				seq++;
			if (seq > v->count || mbox_msg_get(v, seq)->uid != u) {
				missing = (uint32_t)u;
				break;
			}
		}
	mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "VANISHED UID %u not in the "
		    "mailbox view (%llu of %llu UIDs unknown)", missing,
		    (unsigned long long)(total - matched),
		    (unsigned long long)total);
}

struct vanish_ctx {
	struct mbox_view *v;
	uint32_t count, old_count, old_gone;
};

static void
vanish_one(void *arg, const struct mbox_msg *m, uint32_t old_seq)
{
	struct vanish_ctx *c = arg;

	mbox_view_forget(c->v, m, c->count--);
	if (old_seq <= c->old_count)
		c->old_gone++;
}

unsigned
mbox_view_on_vanished(struct mbox_view *v, const char *text, size_t len)
{
	unsigned start = v->rep.n;
	struct mbox_store *s = v->store;
	const struct imap_arg *root, *a;
	bool earlier = false;

	if (v->disabled)
		return 0;
	root = imap_args_parse(s->args, text, len);
	a = imap_arg_child(root);
	if (a != NULL && a->type == IMAP_ARG_LIST) {
		if (a->count != 1 ||
		    !imap_arg_atom_eq(imap_arg_child(a), "EARLIER"))
			goto bad;
		earlier = true;
		a = imap_arg_next(a);
	}
	if (a == NULL || a->type != IMAP_ARG_ATOM || imap_arg_next(a) != NULL ||
	    mbox_parse_set(s, a->str, a->len, 0) < 0)
		goto bad;
	if (s->n_ranges > 0 && s->ranges[0].lo == 0)
		goto bad;	/* '*' is not allowed (sorted: it is first) */
	if (earlier)
		return 0;
	s->n_drops = 0;
	if (v->known_uids == v->count)
		vanished_known(v);
	else
		vanished_partial(v);
	struct vanish_ctx c = { v, v->count, v->old_count, 0 };
	mbox_msgs_compact(v, s->drops, s->n_drops, vanish_one, &c);
	v->old_count -= c.old_gone;
	if (v->count == 0)
		v->store->seen_all_recent = true;
	return v->rep.n - start;
bad:
	mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid VANISHED parameters: "
		    "%.*s", (int)(len > 200 ? 200 : len), text);
	return v->rep.n - start;
}
