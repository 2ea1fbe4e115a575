/* mbox_view.c: one connection's view of its selected mailbox: message
 * numbers, EXISTS/RECENT/EXPUNGE, own STORE windows (see mbox_model.h).
 * FETCH is in mbox_fetch.c, FLAGS and response codes in mbox_codes.c,
 * VANISHED in mbox_vanished.c; those call down into this file, and the
 * dispatch of an untagged response to them is in mbox_untagged.c, above
 * them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

struct mbox_view *
mbox_view_new(struct mbox_store *s, uint32_t conn_id,
	      const struct mbox_view_opts *opts)
{
	struct mbox_view *v = xcalloc(1, sizeof(*v));

	v->store = s;
	v->conn_id = conn_id;
	if (opts != NULL)
		v->opts = *opts;
	v->rep.cb = v->opts.err_cb;
	v->rep.arg = v->opts.err_arg;
	mbox_view_reset(v);
	return v;
}

void
mbox_view_free(struct mbox_view *v)
{
	if (v == NULL)
		return;
	mbox_msgs_free(v);
	free(v);
}

void
mbox_view_reset(struct mbox_view *v)
{
	mbox_msgs_truncate(v, 0);
	v->recent = v->recent_told = 0;
	v->recent_uncertain = false;
	v->uidnext = v->uidvalidity = 0;
	v->highestmodseq = 0;
	v->select_uidnext = v->old_count = 0;
	v->flags_seen = v->perm_seen = v->can_create = v->readonly = false;
	v->disabled = false;
	v->status_since_exists = false;
	v->kw_in_flags = v->kw_permanent = 0;
	v->inflight = 0;
	v->idle_gen = v->store_gen;
}

void
mbox_view_set_state(struct mbox_view *v, const char *state)
{
	v->state = state;
}

static const char *
state_sfx(const struct mbox_view *v, char *buf, size_t size)
{
	if (v->state == NULL)
		return "";
	snprintf(buf, size, ", state=%s", v->state);
	return buf;
}

unsigned
mbox_view_select_done(struct mbox_view *v)
{
	unsigned start = v->rep.n;

	v->select_uidnext = v->uidnext;
	v->old_count = v->count;
	if (v->select_uidnext == 0)
		return 0;
	/* QRESYNC may have sent FETCHes during the SELECT.  Only messages
	 * with a known UID can fail (an unknown one reads as UID 0): visit
	 * those alone, pages without one skipped, instead of every seq (that
	 * walk was ~14 instructions per message of the mailbox, per SELECT:
	 * 29% of a session's with one APPEND per session into ~1,000). */
	for (uint32_t seq = mbox_msgs_next_known(v, 0); seq != 0;
	     seq = mbox_msgs_next_known(v, seq)) {
		uint32_t uid = mbox_msg_get(v, seq)->uid;
		if (uid >= v->select_uidnext)
			mbox_report(&v->rep, MBOX_ERR_UIDNEXT,
				    "UID %u not below UIDNEXT %u (seq %u "
				    "existed at SELECT)", uid,
				    v->select_uidnext, seq);
	}
	return v->rep.n - start;
}

void
mbox_view_on_status(struct mbox_view *v)
{
	v->status_since_exists = true;
}

bool
mbox_view_seq_above(struct mbox_view *v, uint32_t seq, bool fetch)
{
	char sfx[64];

	if (!v->status_since_exists) {
		mbox_report(&v->rep, MBOX_ERR_SEQ_TOO_HIGH,
			    "seq too high (%u > %u%s)", seq, v->count,
			    state_sfx(v, sfx, sizeof(sfx)));
		return false;
	}
	mbox_report(&v->rep, MBOX_ERR_UNANNOUNCED,
		    "seq %u > %u never announced by EXISTS, after a STATUS "
		    "of the selected mailbox%s", seq, v->count,
		    state_sfx(v, sfx, sizeof(sfx)));
	if (!fetch || seq > v->store->max_msgs)
		return false;
	mbox_msgs_grow(v, seq);
	return true;
}

/* New messages: the count is the last RECENT told until a RECENT after
 * this EXISTS says otherwise.  Dovecot sends "* N RECENT" at the end of a
 * sync only when N differs from the last one it sent; one sync may both
 * expunge a \Recent message (which took the count down here) and bring
 * a new one \Recent in this session, and then ends with this EXISTS and
 * no RECENT: the count is unchanged, N.  Cyrus sends a RECENT with every
 * EXISTS, which replaces this.  Expunges alone still take the count down
 * (Cyrus sends no RECENT after them; Dovecot sends the same number). */
static void
exists_recent(struct mbox_view *v, uint32_t n)
{
	v->recent = v->recent_told < n ? v->recent_told : n;
	v->recent_uncertain = v->recent_told > n;
}

unsigned
mbox_view_on_exists(struct mbox_view *v, uint32_t n)
{
	unsigned start = v->rep.n;

	/* The server's whole count again, whatever STATUS hid before. */
	v->status_since_exists = false;
	if (v->disabled)
		return 0;
	if (n > v->store->max_msgs) {
		mbox_report(&v->rep, MBOX_ERR_LIMIT, "EXISTS %u exceeds the "
			    "tracking limit %u: not tracking this mailbox "
			    "until the next SELECT", n, v->store->max_msgs);
		v->disabled = true;
		mbox_msgs_truncate(v, 0);
		v->old_count = v->recent = 0;	/* nothing is tracked */
		return v->rep.n - start;
	}
	if (n < v->count) {
		mbox_report(&v->rep, MBOX_ERR_EXISTS_BACKWARDS,
			    "EXISTS went backwards: %u -> %u (EXPUNGE must "
			    "come first)", v->count, n);
		mbox_msgs_truncate(v, n);
		if (v->old_count > n)
			v->old_count = n;
		if (v->recent > n) {
			v->recent = n;
			v->recent_uncertain = true;
		}
	} else {
		if (n > v->count)
			exists_recent(v, n);
		mbox_msgs_grow(v, n);
	}
	if (n == 0)
		v->store->seen_all_recent = true;
	return v->rep.n - start;
}

unsigned
mbox_view_on_recent(struct mbox_view *v, uint32_t n)
{
	unsigned start = v->rep.n;

	if (v->disabled)
		return 0;
	if (n > v->count) {
		mbox_report(&v->rep, MBOX_ERR_RECENT,
			    "RECENT count %u > EXISTS %u", n, v->count);
		n = v->count;
	}
	v->recent = v->recent_told = n;
	v->recent_uncertain = false;
	if (n == v->count && !v->readonly)
		v->store->seen_all_recent = true;
	return v->rep.n - start;
}

void
mbox_view_forget(struct mbox_view *v, const struct mbox_msg *m,
		 uint32_t count)
{
	/* Keep the RECENT count exact when we can tell, else say so. */
	if (m->st & MSG_FLAGS_KNOWN) {
		if ((m->sys & MBOX_F_RECENT) && v->recent > 0)
			v->recent--;
	} else if (v->recent == count) {
		v->recent--;
	} else if (v->recent > 0) {
		v->recent_uncertain = true;
	}
	if (v->recent >= count) {
		/* a server's RECENT and \Recent flags disagreed (fuzz_model) */
		v->recent = count - 1;
		v->recent_uncertain = true;
	}
	if (m->uid != 0 && (v->uidvalidity == 0 ||
			    v->uidvalidity == v->store->uidvalidity))
		mbox_store_remove(v->store, m->uid);
}

void
mbox_view_expunge_seq(struct mbox_view *v, uint32_t seq)
{
	mbox_view_forget(v, mbox_msg_get(v, seq), v->count);
	mbox_msgs_delete(v, seq);
	if (seq <= v->old_count)
		v->old_count--;
	if (v->count == 0)
		v->store->seen_all_recent = true;
}

unsigned
mbox_view_on_expunge(struct mbox_view *v, uint32_t seq)
{
	unsigned start = v->rep.n;

	if (v->disabled)
		return 0;
	if (seq == 0)
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "EXPUNGE of seq 0");
	else if (seq > v->count)
		mbox_view_seq_above(v, seq, false);
	else
		mbox_view_expunge_seq(v, seq);
	return v->rep.n - start;
}

/* 1 when m was not yet marked for STORE generation gen (a set may name
 * a message twice). */
static int
store_mark(struct mbox_msg *m, uint32_t gen, bool silent)
{
	if (m->store_gen == gen)
		return 0;
	m->store_gen = gen;
	m->st &= (uint8_t)~MSG_FETCHED;
	if (silent)
		m->st |= MSG_SILENT;
	return 1;
}

int
mbox_view_store_begin(struct mbox_view *v, const char *set, size_t len,
		      bool uid, bool silent)
{
	struct mbox_store *s = v->store;
	int marked = 0;

	if (mbox_parse_set(s, set, len, uid ? UINT32_MAX : v->count) < 0)
		return -1;
	uint32_t gen = ++v->store_gen;
	v->inflight++;
	if (!uid) {
		/* Walk the set, not the mailbox: a STORE names up to 50 of
		 * thousands of messages (and ranges x messages was a fifth
		 * of the default mix's CPU). */
		for (size_t k = 0; k < s->n_ranges; k++) {
			uint32_t hi = s->ranges[k].hi < v->count ?
			    s->ranges[k].hi : v->count;
			uint32_t lo = s->ranges[k].lo ? s->ranges[k].lo : 1;
			for (uint32_t seq = lo; seq <= hi; seq++) {
				uint32_t run = mbox_msgs_hole_mark(v, seq, gen,
								   silent);
				if (run == 0) {
					marked += store_mark(mbox_msg_mut(v, seq),
							     gen, silent);
					continue;
				}
				uint32_t left = hi - seq + 1;
				run = run < left ? run : left;
				marked += (int)run;
				seq += run - 1;
			}
		}
		return marked;
	}
	for (uint32_t seq = 1; seq <= v->count; seq++) {
		/* a UID STORE may hit any message whose UID we lack: all
		 * of a hole */
		uint32_t run = mbox_msgs_hole_mark(v, seq, gen, silent);
		if (run != 0) {
			marked += (int)run;
			seq += run - 1;
			continue;
		}
		uint32_t u = mbox_msg_get(v, seq)->uid;
		if (u == 0 || mbox_ranges_has(s, u))
			marked += store_mark(mbox_msg_mut(v, seq), gen,
					     silent);
	}
	return marked;
}

void
mbox_view_store_end(struct mbox_view *v)
{
	if (v->inflight > 0 && --v->inflight == 0)
		v->idle_gen = v->store_gen;
}

bool
mbox_msg_baseline(const struct mbox_view *v, const struct mbox_msg *m)
{
	if (!(m->st & MSG_FLAGS_KNOWN))
		return false;
	if (m->store_gen == 0)
		return true;
	if (m->store_gen > v->idle_gen)
		return false;	/* its STORE is still running */
	return (m->st & MSG_FETCHED) && !(m->st & MSG_SILENT);
}

/* ---- accessors ---- */

uint32_t mbox_view_conn_id(const struct mbox_view *v) { return v->conn_id; }
struct mbox_store *mbox_view_store(const struct mbox_view *v) { return v->store; }
uint32_t mbox_view_exists(const struct mbox_view *v) { return v->count; }
uint32_t mbox_view_recent(const struct mbox_view *v) { return v->recent; }
uint32_t mbox_view_uidnext(const struct mbox_view *v) { return v->uidnext; }
uint32_t mbox_view_uidvalidity(const struct mbox_view *v) { return v->uidvalidity; }
uint64_t mbox_view_highestmodseq(const struct mbox_view *v) { return v->highestmodseq; }
bool mbox_view_can_create_keywords(const struct mbox_view *v) { return v->can_create; }

uint32_t
mbox_view_uid(const struct mbox_view *v, uint32_t seq)
{
	return seq >= 1 && seq <= v->count ? mbox_msg_get(v, seq)->uid : 0;
}

bool
mbox_view_flags(const struct mbox_view *v, uint32_t seq, unsigned *sys,
		uint64_t *keywords)
{
	if (seq < 1 || seq > v->count ||
	    !(mbox_msg_get(v, seq)->st & MSG_FLAGS_KNOWN))
		return false;
	*sys = mbox_msg_get(v, seq)->sys;
	*keywords = mbox_msg_get(v, seq)->kw;
	return true;
}

uint64_t
mbox_view_modseq(const struct mbox_view *v, uint32_t seq)
{
	return seq >= 1 && seq <= v->count ? mbox_msg_get(v, seq)->modseq : 0;
}

static uint64_t
kw_bit(const struct mbox_view *v, const char *name)
{
	int k = mbox_store_keyword_index(v->store, name, strlen(name));
	return k < 0 ? 0 : 1ull << k;
}

bool
mbox_view_keyword_in_flags(const struct mbox_view *v, const char *name)
{
	return (v->kw_in_flags & kw_bit(v, name)) != 0;
}

bool
mbox_view_keyword_permanent(const struct mbox_view *v, const char *name)
{
	return (v->kw_permanent & kw_bit(v, name)) != 0;
}
