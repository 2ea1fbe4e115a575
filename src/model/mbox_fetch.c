/* mbox_fetch.c: an untagged FETCH against the view and the store: UID
 * learning and ordering, flags with the keyword and ownership checks,
 * MODSEQ, RFC822.SIZE and INTERNALDATE; ENVELOPE, BODYSTRUCTURE and the
 * Message-ID are in mbox_struct.c (see mbox_model.h). */
#include <stdio.h>
#include <string.h>

#include "model/mbox_private.h"

/* The msg-att names the model looks at. */
enum fetch_item {
	FI_OTHER,
	FI_UID,
	FI_FLAGS,
	FI_MODSEQ,
	FI_ENVELOPE,
	FI_SIZE,
	FI_IDATE,
	FI_BODYSTRUCTURE
};

/* Which item an ATOM names (case-insensitive); FI_OTHER for the rest and
 * for any other token.  The lengths all differ, so the length picks the
 * one candidate, and a constant length lets the compare unroll. */
static inline enum fetch_item
fetch_item(const struct imap_arg *name)
{
	const char *s = name->str;

	if (name->type != IMAP_ARG_ATOM)
		return FI_OTHER;
	switch (name->len) {
	case 3:
		return imap_ci_eq(s, "UID", 3) ? FI_UID : FI_OTHER;
	case 5:
		return imap_ci_eq_lit(s, "FLAGS", 5) ? FI_FLAGS : FI_OTHER;
	case 6:
		return imap_ci_eq_lit(s, "MODSEQ", 6) ? FI_MODSEQ : FI_OTHER;
	case 8:
		return imap_ci_eq_lit(s, "ENVELOPE", 8) ? FI_ENVELOPE : FI_OTHER;
	case 11:
		return imap_ci_eq_lit(s, "RFC822.SIZE", 11) ? FI_SIZE : FI_OTHER;
	case 12:
		return imap_ci_eq_lit(s, "INTERNALDATE", 12) ? FI_IDATE : FI_OTHER;
	case 13:
		return imap_ci_eq_lit(s, "BODYSTRUCTURE", 13) ? FI_BODYSTRUCTURE
							  : FI_OTHER;
	default:
		return FI_OTHER;
	}
}

/* The value of the first UID item, walking name/value pairs up to the
 * first name without a value. */
static const struct imap_arg *
fetch_get_uid(const struct imap_arg *list)
{
	for (const struct imap_arg *a = imap_arg_child(list); a != NULL;
	     a = imap_arg_next(a)) {
		const struct imap_arg *val = imap_arg_next(a);
		if (val == NULL)
			return NULL;
		if (a->len == 3 && fetch_item(a) == FI_UID)
			return val;
		a = val;
	}
	return NULL;
}

static void
uid_order(struct mbox_view *v, uint32_t seq, uint32_t uid)
{
	/* the nearest known neighbours: O(MBOX_PAGE + pages), whatever
	 * order the FETCHes come in */
	uint32_t s = mbox_msgs_prev_known(v, seq), u;
	if (s != 0 && (u = mbox_msg_get(v, s)->uid) >= uid)
		mbox_report(&v->rep, MBOX_ERR_UID_ORDER, "UIDs not ascending: "
			    "seq %u has UID %u but seq %u has UID %u", s, u,
			    seq, uid);
	s = mbox_msgs_next_known(v, seq);
	if (s != 0 && (u = mbox_msg_get(v, s)->uid) <= uid)
		mbox_report(&v->rep, MBOX_ERR_UID_ORDER, "UIDs not ascending: "
			    "seq %u has UID %u but seq %u has UID %u", seq, uid,
			    s, u);
}

/* m: seq's entry, or a scratch one when the view does not keep seq */
static void
fetch_uid(struct mbox_view *v, uint32_t seq, struct mbox_msg *m, bool kept,
	  const struct imap_arg *val)
{
	uint64_t n;

	if (imap_arg_u64(val, &n) != 0 || n == 0 || n > UINT32_MAX) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid UID in FETCH: "
			    "%.*s", MBOX_EXCERPT(val->len), val->str);
		return;
	}
	uint32_t uid = (uint32_t)n;
	if (m->uid == uid)
		return;
	if (m->uid != 0) {
		mbox_report(&v->rep, MBOX_ERR_UID_CHANGED,
			    "UID changed for seq %u: %u -> %u", seq, m->uid,
			    uid);
		/* whatever we knew belonged to the other message */
		m->st = 0;
		m->sys = 0;
		m->kw = 0;
		m->modseq = 0;
		m->store_gen = 0;
	}
	/* A message not kept skips the order check: among a million not
	 * kept, its nearest kept neighbours are O(pages) away each time. */
	if (kept) {
		mbox_msg_set_uid(v, seq, uid);
		uid_order(v, seq, uid);
	} else {
		m->uid = uid;
	}
	if (v->select_uidnext == 0)
		return;
	if (seq > v->old_count && uid < v->select_uidnext)
		mbox_report(&v->rep, MBOX_ERR_UIDNEXT, "UID %u below UIDNEXT "
			    "%u (seq %u arrived after SELECT)", uid,
			    v->select_uidnext, seq);
	else if (seq <= v->old_count && uid >= v->select_uidnext)
		mbox_report(&v->rep, MBOX_ERR_UIDNEXT, "UID %u not below "
			    "UIDNEXT %u (seq %u existed at SELECT)", uid,
			    v->select_uidnext, seq);
}

/* Only the owner checks, and only against flags it trusts (imaptest). */
static void
own_checks(struct mbox_view *v, const struct mbox_msg *m, uint32_t seq,
	   unsigned sys, uint64_t kw)
{
	const struct mbox_store *s = v->store;
	unsigned dsys = (m->sys ^ sys) & ~(unsigned)MBOX_F_RECENT;
	uint64_t dkw = m->kw ^ kw;
	char a[256], b[256];

	if ((dsys == 0 && dkw == 0) || !mbox_msg_baseline(v, m))
		return;
	if (v->opts.own_msgs && m->uid != 0 &&
	    mbox_store_msg_owner(s, m->uid) == v->conn_id) {
		mbox_flags_fmt(s, m->sys & ~MBOX_F_RECENT, m->kw, a, sizeof(a));
		mbox_flags_fmt(s, sys & ~MBOX_F_RECENT, kw, b, sizeof(b));
		mbox_report(&v->rep, MBOX_ERR_OWN_MSG, "Flags unexpectedly "
			    "changed for owned message UID %u: (%s) -> (%s)",
			    m->uid, a, b);
		return;
	}
	if (!v->opts.own_flags)
		return;
	for (unsigned i = 0; i < MBOX_SYS_FLAGS; i++) {
		if (!(dsys & (1u << i)) || s->sys_owner[i] != v->conn_id)
			continue;
		mbox_flags_fmt(s, 1u << i, 0, a, sizeof(a));
		mbox_report(&v->rep, MBOX_ERR_OWN_FLAG, "Owned flag changed: "
			    "%s (seq %u, UID %u)", a, seq, m->uid);
	}
	for (unsigned k = 0; k < s->n_kw; k++)
		if ((dkw & (1ull << k)) && s->kw[k].owner == v->conn_id)
			mbox_report(&v->rep, MBOX_ERR_OWN_FLAG, "Owned keyword "
				    "changed: %s (seq %u, UID %u)",
				    s->kw[k].name, seq, m->uid);
}

static void
fetch_flags(struct mbox_view *v, uint32_t seq, struct mbox_msg *m,
	    const struct imap_arg *val)
{
	struct mbox_store *s = v->store;
	unsigned sys = 0;
	uint64_t kw = 0;

	if (val->type != IMAP_ARG_LIST) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "FLAGS reply isn't a "
			    "list");
		return;
	}
	for (const struct imap_arg *a = imap_arg_child(val); a != NULL;
	     a = imap_arg_next(a)) {
		if (a->type != IMAP_ARG_ATOM) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Flags list "
				    "contains non-atoms");
			return;
		}
		if (a->len > 0 && a->str[0] == '\\') {
			unsigned bit = mbox_sys_flag(a->str, a->len);
			if (bit == 0)
				mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid "
					    "system flag: %.*s",
					    MBOX_EXCERPT(a->len), a->str);
			sys |= bit;
			continue;
		}
		int k = mbox_store_kw_intern(s, a->str, a->len);
		if (k < 0) {
			if (!s->kw_limit_told)
				mbox_report(&v->rep, MBOX_ERR_LIMIT, "More "
					    "than %u keywords: %.*s and later "
					    "ones not tracked",
					    MBOX_MAX_KEYWORDS,
					    MBOX_EXCERPT(a->len), a->str);
			s->kw_limit_told = true;
			continue;
		}
		uint64_t bit = 1ull << k;
		if (!(v->kw_in_flags & bit)) {
			mbox_report(&v->rep, MBOX_ERR_KEYWORD, "Keyword used "
				    "without being in FLAGS: %s", s->kw[k].name);
			v->kw_in_flags |= bit;	/* say it once */
		}
		kw |= bit;
	}
	own_checks(v, m, seq, sys, kw);
	m->sys = (uint8_t)sys;
	m->kw = kw;
	m->st |= MSG_FLAGS_KNOWN;
	if (m->store_gen > v->idle_gen) {
		m->st |= MSG_FETCHED;
	} else {
		m->store_gen = 0;
		m->st &= (uint8_t)~(MSG_FETCHED | MSG_SILENT);
	}
}

static void
fetch_modseq(struct mbox_view *v, uint32_t seq, struct mbox_msg *m,
	     const struct imap_arg *val)
{
	uint64_t n;

	if (val->type != IMAP_ARG_LIST || val->count != 1 ||
	    imap_arg_u64(imap_arg_child(val), &n) != 0) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid MODSEQ: %.*s",
			    MBOX_EXCERPT(val->len), val->str);
		return;
	}
	if (v->opts.check_modseq && n < m->modseq) {
		if (m->uid != 0)
			mbox_report(&v->rep, MBOX_ERR_MODSEQ, "MODSEQ went "
				    "backwards for UID %u: %llu -> %llu",
				    m->uid, (unsigned long long)m->modseq,
				    (unsigned long long)n);
		else
			mbox_report(&v->rep, MBOX_ERR_MODSEQ, "MODSEQ went "
				    "backwards for seq %u: %llu -> %llu", seq,
				    (unsigned long long)m->modseq,
				    (unsigned long long)n);
	}
	m->modseq = n;
}

static void
fetch_static(struct mbox_view *v, struct mbox_rec *r, enum fetch_item item,
	     const struct imap_arg *name, const struct imap_arg *val)
{
	uint64_t n;
	int64_t utc;
	int16_t tz;
	char a[40], b[40];

	switch (item) {
	case FI_SIZE:
		if (imap_arg_u64(val, &n) != 0) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid "
				    "RFC822.SIZE: %.*s", MBOX_EXCERPT(val->len),
				    val->str);
		} else if (n == 0) {
			/* expunged placeholder */
		} else if (r->size == 0) {
			r->size = n;
		} else if (r->size != n && mbox_fetch_told(v, STATIC_SIZE)) {
			mbox_report(&v->rep, MBOX_ERR_STATIC_CHANGED,
				    "RFC822.SIZE changed for UID %u: %llu -> "
				    "%llu", r->uid, (unsigned long long)r->size,
				    (unsigned long long)n);
		}
		break;
	case FI_IDATE:
		if (!imap_arg_is_string(val) ||
		    !mbox_parse_idate(val->str, val->len, &utc, &tz)) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken "
				    "INTERNALDATE: %.*s", MBOX_EXCERPT(val->len),
				    val->str);
		} else if (utc == 0) {
			/* expunged placeholder */
		} else if (r->idate == 0) {
			r->idate = mbox_rec_idate_pack(utc, tz);
		} else if (r->idate != mbox_rec_idate_pack(utc, tz) &&
			   mbox_fetch_told(v, STATIC_IDATE)) {
			mbox_fmt_idate(mbox_rec_idate(r), mbox_rec_idate_tz(r),
				       a, sizeof(a));
			mbox_fmt_idate(utc, tz, b, sizeof(b));
			mbox_report(&v->rep, MBOX_ERR_STATIC_CHANGED,
				    "INTERNALDATE changed for UID %u: %s -> %s",
				    r->uid, a, b);
		}
		break;
	case FI_ENVELOPE:
		mbox_fetch_envelope(v, r, val);
		break;
	case FI_BODYSTRUCTURE:
		mbox_fetch_bodystructure(v, r, val);
		break;
	case FI_OTHER:
		if (mbox_is_msgid_section(name) && imap_arg_is_string(val))
			mbox_header_msgid(v, r, val->str, val->len);
		break;
	default:
		break;	/* UID: done first */
	}
}

unsigned
mbox_view_on_fetch(struct mbox_view *v, uint32_t seq, const char *text,
		   size_t len)
{
	unsigned start = v->rep.n;
	struct mbox_store *s = v->store;

	if (v->disabled)
		return 0;
	if (seq == 0) {
		char sfx[64] = "";
		if (v->state != NULL)
			snprintf(sfx, sizeof(sfx), ", state=%s", v->state);
		mbox_report(&v->rep, MBOX_ERR_SEQ_TOO_HIGH,
			    "seq too high (%u > %u%s)", seq, v->count, sfx);
		return v->rep.n - start;
	}
	if (seq > v->count && !mbox_view_seq_above(v, seq, true))
		return v->rep.n - start;
	/* The message's state is a random line of a large array, likely
	 * evicted by the server since we last ran: start loading it now,
	 * while the response is tokenized. */
	const struct imap_arg *root = imap_args_parse_fetch(s->args, text, len);
	if (root == NULL) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken FETCH: %s",
			    imap_args_error(s->args));
		return v->rep.n - start;
	}
	const struct imap_arg *list = imap_arg_child(root);
	if (list == NULL || list->type != IMAP_ARG_LIST ||
	    imap_arg_next(list) != NULL) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "FETCH didn't return a "
			    "list");
		return v->rep.n - start;
	}

	uint32_t hint = mbox_msg_get(v, seq)->rec;
	if (hint != 0 && hint <= s->count)
		__builtin_prefetch(&s->recs[hint - 1], 1);
	/* A message the view cannot keep is checked on a scratch entry
	 * (nothing known about it: no ownership or MODSEQ history) and
	 * adds no store record: its answers cost nothing to keep. */
	struct mbox_msg scratch = { 0 };
	struct mbox_msg *m = mbox_msg_track(v, seq);
	bool kept = m != NULL;
	if (!kept) {
		m = &scratch;
		if (v->opts.untracked_cb != NULL)
			v->opts.untracked_cb(v->opts.err_arg);
	}
	const struct imap_arg *val = fetch_get_uid(list);
	if (val != NULL)
		fetch_uid(v, seq, m, kept, val);

	uint32_t uid = m->uid;
	struct mbox_rec *r = NULL;
	if (uid != 0 && (v->uidvalidity == 0 ||
			 v->uidvalidity == s->uidvalidity)) {
		r = kept ? mbox_store_hinted(s, uid, &m->rec)
			 : mbox_store_get(s, uid);
		if (r == NULL && kept && !s->msgs_limit_told) {
			mbox_report(&v->rep, MBOX_ERR_LIMIT, "Message limit "
				    "%u reached: metadata of UID %u and later "
				    "new UIDs not tracked", s->max_msgs, uid);
			s->msgs_limit_told = true;
		}
	}

	v->fetch_told = 0;
	for (const struct imap_arg *name = imap_arg_child(list); name != NULL;
	     name = imap_arg_next(val)) {
		val = imap_arg_next(name);
		if (name->type != IMAP_ARG_ATOM || val == NULL) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken FETCH "
				    "item: %.*s", MBOX_EXCERPT(name->len),
				    name->str);
			break;
		}
		enum fetch_item item = fetch_item(name);
		if (item == FI_FLAGS)
			fetch_flags(v, seq, m, val);
		else if (item == FI_MODSEQ)
			fetch_modseq(v, seq, m, val);
		else if (r != NULL)
			fetch_static(v, r, item, name, val);
	}
	return v->rep.n - start;
}
