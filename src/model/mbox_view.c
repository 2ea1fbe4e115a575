/* mbox_view.c: one connection's view of its selected mailbox: message
 * numbers, EXISTS/RECENT/EXPUNGE/VANISHED, FLAGS and response codes, own
 * STORE windows (see mbox_model.h).  FETCH is in mbox_fetch.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox_private.h"
#include "xmalloc.h"

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
	free(v->msgs);
	free(v);
}

void
mbox_view_reset(struct mbox_view *v)
{
	v->count = 0;
	v->known_uids = 0;
	v->kn_lo = UINT32_MAX;
	v->kn_hi = 0;
	v->recent = 0;
	v->recent_uncertain = false;
	v->uidnext = v->uidvalidity = 0;
	v->highestmodseq = 0;
	v->select_uidnext = v->old_count = 0;
	v->flags_seen = v->perm_seen = v->can_create = v->readonly = false;
	v->disabled = false;
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
	/* QRESYNC may have sent FETCHes during the SELECT */
	for (uint32_t i = 0; i < v->count; i++)
		if (v->msgs[i].uid >= v->select_uidnext)
			mbox_report(&v->rep, MBOX_ERR_UIDNEXT,
				    "UID %u not below UIDNEXT %u (seq %u "
				    "existed at SELECT)", v->msgs[i].uid,
				    v->select_uidnext, i + 1);
	return v->rep.n - start;
}

unsigned
mbox_view_on_exists(struct mbox_view *v, uint32_t n)
{
	unsigned start = v->rep.n;

	if (v->disabled)
		return 0;
	if (n > v->store->max_msgs) {
		mbox_report(&v->rep, MBOX_ERR_LIMIT, "EXISTS %u exceeds the "
			    "tracking limit %u: not tracking this mailbox "
			    "until the next SELECT", n, v->store->max_msgs);
		v->disabled = true;
		v->count = 0;
		return v->rep.n - start;
	}
	if (n < v->count) {
		mbox_report(&v->rep, MBOX_ERR_EXISTS_BACKWARDS,
			    "EXISTS went backwards: %u -> %u (EXPUNGE must "
			    "come first)", v->count, n);
		for (uint32_t i = n; i < v->count; i++)
			if (v->msgs[i].uid != 0)
				v->known_uids--;
		v->count = n;
		if (v->kn_hi > n)
			v->kn_hi = n;
		if (v->old_count > n)
			v->old_count = n;
		if (v->recent > n) {
			v->recent = n;
			v->recent_uncertain = true;
		}
	} else if (n > v->count) {
		if (n > v->cap) {
			uint32_t ncap = v->cap ? v->cap : 16;
			while (ncap < n)
				ncap = ncap > UINT32_MAX / 2 ? n : ncap * 2;
			v->msgs = xrealloc(v->msgs, (size_t)ncap *
					   sizeof(*v->msgs));
			v->cap = ncap;
		}
		memset(&v->msgs[v->count], 0,
		       (size_t)(n - v->count) * sizeof(*v->msgs));
		v->count = n;
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
	v->recent = n;
	v->recent_uncertain = false;
	if (n == v->count && !v->readonly)
		v->store->seen_all_recent = true;
	return v->rep.n - start;
}

void
mbox_view_expunge_seq(struct mbox_view *v, uint32_t seq)
{
	struct mbox_msg *m = &v->msgs[seq - 1];

	/* Keep the RECENT count exact when we can tell, else say so. */
	if (m->st & MSG_FLAGS_KNOWN) {
		if ((m->sys & MBOX_F_RECENT) && v->recent > 0)
			v->recent--;
	} else if (v->recent == v->count) {
		v->recent--;
	} else if (v->recent > 0) {
		v->recent_uncertain = true;
	}
	if (m->uid != 0) {
		v->known_uids--;
		if (v->uidvalidity == 0 ||
		    v->uidvalidity == v->store->uidvalidity)
			mbox_store_remove(v->store, m->uid);
	}
	memmove(m, m + 1, (size_t)(v->count - seq) * sizeof(*m));
	v->count--;
	if (seq < v->kn_lo && v->kn_lo != UINT32_MAX)
		v->kn_lo--;
	if (seq <= v->kn_hi)
		v->kn_hi--;
	if (seq <= v->old_count)
		v->old_count--;
	if (v->count == 0)
		v->store->seen_all_recent = true;
}

unsigned
mbox_view_on_expunge(struct mbox_view *v, uint32_t seq)
{
	unsigned start = v->rep.n;
	char sfx[64];

	if (v->disabled)
		return 0;
	if (seq == 0)
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "EXPUNGE of seq 0");
	else if (seq > v->count)
		mbox_report(&v->rep, MBOX_ERR_SEQ_TOO_HIGH,
			    "seq too high (%u > %u%s)", seq, v->count,
			    state_sfx(v, sfx, sizeof(sfx)));
	else
		mbox_view_expunge_seq(v, seq);
	return v->rep.n - start;
}

uint32_t
mbox_view_seq_of_uid(const struct mbox_view *v, uint32_t uid)
{
	for (uint32_t i = 0; uid != 0 && i < v->count; i++)
		if (v->msgs[i].uid == uid)
			return i + 1;
	return 0;
}

/* Every UID known: expunge the listed ones; UIDs not in the view break
 * RFC 7162's rule that VANISHED without EARLIER names only messages the
 * client has been told about. */
static void
vanished_known(struct mbox_view *v)
{
	struct mbox_store *s = v->store;
	uint64_t total = 0, matched = 0;

	for (size_t i = 0; i < s->n_ranges; i++)
		total += (uint64_t)s->ranges[i].hi - s->ranges[i].lo + 1;
	for (uint32_t i = 0; i < v->count; i++)
		if (mbox_ranges_has(s, v->msgs[i].uid))
			matched++;
	if (matched < total) {
		/* name the first missing one; at most matched+1 probes */
		uint32_t missing = 0;
		for (size_t i = 0; i < s->n_ranges && missing == 0; i++)
			for (uint64_t u = s->ranges[i].lo;
			     u <= s->ranges[i].hi; u++)
				if (mbox_view_seq_of_uid(v, (uint32_t)u) == 0) {
					missing = (uint32_t)u;
					break;
				}
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "VANISHED UID %u not "
			    "in the mailbox view (%llu of %llu UIDs unknown)",
			    missing, (unsigned long long)(total - matched),
			    (unsigned long long)total);
	}
	for (uint32_t seq = v->count; seq > 0; seq--)
		if (mbox_ranges_has(s, v->msgs[seq - 1].uid))
			mbox_view_expunge_seq(v, seq);
}

/* Some UIDs unknown: like imaptest, a UID not in the map is taken to be
 * the unknown slot just before the first known higher UID. */
static void
vanished_partial(struct mbox_view *v)
{
	struct mbox_store *s = v->store;
	uint64_t total = 0;

	for (size_t i = 0; i < s->n_ranges; i++)
		total += (uint64_t)s->ranges[i].hi - s->ranges[i].lo + 1;
	if (total > v->count) {
		mbox_report(&v->rep, MBOX_ERR_EXPUNGE, "VANISHED lists %llu "
			    "UIDs but only %u messages exist",
			    (unsigned long long)total, v->count);
		return;
	}
	for (size_t r = 0; r < s->n_ranges; r++) {
		for (uint64_t u = s->ranges[r].lo; u <= s->ranges[r].hi; u++) {
			uint32_t i = 0;
			while (i < v->count && (v->msgs[i].uid == 0 ||
						v->msgs[i].uid < u))
				i++;
			if (i < v->count && v->msgs[i].uid == u)
				mbox_view_expunge_seq(v, i + 1);
			else if (i > 0 && v->msgs[i - 1].uid == 0)
				mbox_view_expunge_seq(v, i);
			else
				mbox_report(&v->rep, MBOX_ERR_EXPUNGE,
					    "VANISHED UID %u not found",
					    (uint32_t)u);
		}
	}
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
	for (size_t i = 0; i < s->n_ranges; i++)
		if (s->ranges[i].lo == 0)	/* '*' is not allowed */
			goto bad;
	if (earlier)
		return 0;
	if (v->known_uids == v->count)
		vanished_known(v);
	else
		vanished_partial(v);
	return v->rep.n - start;
bad:
	mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid VANISHED parameters: "
		    "%.*s", (int)(len > 200 ? 200 : len), text);
	return v->rep.n - start;
}

unsigned
mbox_view_untagged(struct mbox_view *v, const struct imap_resp *r)
{
	if (r->kind != IMAP_UNTAGGED)
		return 0;
	enum imap_kw kw = imap_resp_kw(r);
	if (r->has_num) {
		switch (kw) {
		case IMAP_KW_FETCH:
			return mbox_view_on_fetch(v, r->num, r->text,
						  r->text_len);
		case IMAP_KW_EXISTS:
			return mbox_view_on_exists(v, r->num);
		case IMAP_KW_RECENT:
			return mbox_view_on_recent(v, r->num);
		case IMAP_KW_EXPUNGE:
			return mbox_view_on_expunge(v, r->num);
		default:
			return 0;
		}
	}
	if (kw == IMAP_KW_FLAGS)
		return mbox_view_on_flags(v, r->text, r->text_len);
	if (kw == IMAP_KW_VANISHED)
		return mbox_view_on_vanished(v, r->text, r->text_len);
	if (r->cond != IMAP_COND_NONE)
		return mbox_view_on_resp_text(v, r->text, r->text_len);
	return 0;
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
			for (uint32_t seq = lo; seq <= hi; seq++)
				marked += store_mark(&v->msgs[seq - 1], gen,
						     silent);
		}
		return marked;
	}
	for (uint32_t i = 0; i < v->count; i++) {
		struct mbox_msg *m = &v->msgs[i];
		/* a UID STORE may hit any message whose UID we lack */
		if (m->uid == 0 || mbox_ranges_has(s, m->uid))
			marked += store_mark(m, gen, silent);
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
	return seq >= 1 && seq <= v->count ? v->msgs[seq - 1].uid : 0;
}

bool
mbox_view_flags(const struct mbox_view *v, uint32_t seq, unsigned *sys,
		uint64_t *keywords)
{
	if (seq < 1 || seq > v->count ||
	    !(v->msgs[seq - 1].st & MSG_FLAGS_KNOWN))
		return false;
	*sys = v->msgs[seq - 1].sys;
	*keywords = v->msgs[seq - 1].kw;
	return true;
}

uint64_t
mbox_view_modseq(const struct mbox_view *v, uint32_t seq)
{
	return seq >= 1 && seq <= v->count ? v->msgs[seq - 1].modseq : 0;
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
