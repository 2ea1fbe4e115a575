/* mbox_fetch.c: an untagged FETCH against the view and the store: UID
 * learning and ordering, flags with the keyword and ownership checks,
 * MODSEQ, and the static metadata that must never change for a UID (see
 * mbox_model.h). */
#include <stdio.h>
#include <string.h>

#include "mbox_private.h"
#include "xmalloc.h"

#define EXCERPT(n) ((int)((n) > 120 ? 120 : (n)))

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
	for (uint32_t s = seq - 1; s >= 1 && s >= v->kn_lo; s--) {
		uint32_t u = v->msgs[s - 1].uid;
		if (u == 0)
			continue;
		if (u >= uid)
			mbox_report(&v->rep, MBOX_ERR_UID_ORDER, "UIDs not "
				    "ascending: seq %u has UID %u but seq %u "
				    "has UID %u", s, u, seq, uid);
		break;
	}
	for (uint32_t s = seq + 1; s <= v->count && s <= v->kn_hi; s++) {
		uint32_t u = v->msgs[s - 1].uid;
		if (u == 0)
			continue;
		if (u <= uid)
			mbox_report(&v->rep, MBOX_ERR_UID_ORDER, "UIDs not "
				    "ascending: seq %u has UID %u but seq %u "
				    "has UID %u", seq, uid, s, u);
		break;
	}
}

static void
fetch_uid(struct mbox_view *v, uint32_t seq, const struct imap_arg *val)
{
	struct mbox_msg *m = &v->msgs[seq - 1];
	uint64_t n;

	if (imap_arg_u64(val, &n) != 0 || n == 0 || n > UINT32_MAX) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid UID in FETCH: "
			    "%.*s", EXCERPT(val->len), val->str);
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
	} else {
		v->known_uids++;
	}
	m->uid = uid;
	uid_order(v, seq, uid);
	if (seq < v->kn_lo)
		v->kn_lo = seq;
	if (seq > v->kn_hi)
		v->kn_hi = seq;
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
fetch_flags(struct mbox_view *v, uint32_t seq, const struct imap_arg *val)
{
	struct mbox_store *s = v->store;
	struct mbox_msg *m = &v->msgs[seq - 1];
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
					    EXCERPT(a->len), a->str);
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
					    EXCERPT(a->len), a->str);
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
fetch_modseq(struct mbox_view *v, uint32_t seq, const struct imap_arg *val)
{
	struct mbox_msg *m = &v->msgs[seq - 1];
	uint64_t n;

	if (val->type != IMAP_ARG_LIST || val->count != 1 ||
	    imap_arg_u64(imap_arg_child(val), &n) != 0) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid MODSEQ: %.*s",
			    EXCERPT(val->len), val->str);
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

/* Compared by hash: the text lives off the record's cache line and is
 * only read for a report (a change the 64-bit hash misses is 2^-64). */
static bool
check_msgid(struct mbox_view *v, struct mbox_rec *r, const char *s, size_t n)
{
	struct mbox_store *st = v->store;
	const char *id;
	size_t len;

	mbox_msgid_norm(s, n, &id, &len);
	if (len == 0)
		return true;
	len = strnlen(id, len);	/* text up to a NUL, as it is kept */
	uint64_t h = mbox_hash_raw(id, len) | 1;
	if (r->msgid_hash == 0) {
		r->msgid_hash = h;
		st->msgids[r - st->recs] = xstrndup(id, len);
		return true;
	}
	if (r->msgid_hash == h)
		return true;
	mbox_report(&v->rep, MBOX_ERR_STATIC_CHANGED, "Message-ID changed for "
		    "UID %u: %s -> %.*s", r->uid, st->msgids[r - st->recs],
		    (int)len, id);
	return false;
}

/* Dovecot answers ENVELOPE/BODYSTRUCTURE of an expunged message with
 * placeholders; imaptest ignores them and so do we. */
static bool
envelope_is_nil(const struct imap_arg *env)
{
	for (const struct imap_arg *a = imap_arg_child(env); a != NULL;
	     a = imap_arg_next(a))
		if (!imap_arg_is_nil(a))
			return false;
	return true;
}

static bool
bodystructure_is_nil(const struct imap_arg *bs)
{
	static const struct {
		const char *s;
		size_t n;
	} nil[] = {
		{ "text", 4 }, { "plain", 5 }, { "NIL", 3 }, { "NIL", 3 },
		{ "NIL", 3 }, { "7bit", 4 }, { "0", 1 }, { "0", 1 }
	};
	const struct imap_arg *a = imap_arg_child(bs);

	for (unsigned i = 0; i < 8; i++, a = imap_arg_next(a))
		if (a == NULL || !imap_arg_text_eq(a, nil[i].s, nil[i].n))
			return false;
	return true;
}

static void
check_hash(struct mbox_view *v, uint32_t uid, const char *what,
	   uint64_t *have, uint64_t h)
{
	if (h == 0)
		return;	/* held a skipped literal: not comparable */
	if (*have == 0)
		*have = h;
	else if (*have != h)
		mbox_report(&v->rep, MBOX_ERR_STATIC_CHANGED, "%s changed for "
			    "UID %u: hash %016llx -> %016llx", what, uid,
			    (unsigned long long)*have, (unsigned long long)h);
}

/* The value of an ENVELOPE or BODYSTRUCTURE as tokens: a LIST_RAW one
 * (imap_args_parse_fetch) is parsed on its own, in the store's second
 * workspace.  NULL, reported, when that fails. */
static const struct imap_arg *
struct_tokens(struct mbox_view *v, const struct imap_arg *val)
{
	if (val->type != IMAP_ARG_LIST_RAW)
		return val;
	const struct imap_arg *root = imap_args_parse(v->store->sub_args,
						      val->str, val->len);
	if (root == NULL) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken FETCH: %s",
			    imap_args_error(v->store->sub_args));
		return NULL;
	}
	return imap_arg_child(root);
}

/* mbox_hash_raw of a list value's octets, or 0 for any other token. */
static uint64_t
struct_raw(const struct imap_arg *val)
{
	if (val->type != IMAP_ARG_LIST && val->type != IMAP_ARG_LIST_RAW)
		return 0;
	return mbox_hash_raw(val->str, val->len) | 1;
}

/* ENVELOPE and BODYSTRUCTURE: octets identical to those that last passed
 * every check (env_raw, bs_raw) would give the same tokens, hash and
 * Message-ID, so they are neither tokenized nor walked again; anything
 * else takes the whole way.  A skipped literal never passes (hash 0). */
static void
fetch_envelope(struct mbox_view *v, struct mbox_rec *r,
	       const struct imap_arg *val)
{
	uint64_t raw = struct_raw(val);

	if (raw != 0 && r->env_hash != 0 && raw == r->env_raw)
		return;
	if ((val = struct_tokens(v, val)) == NULL)
		return;
	if (val->type != IMAP_ARG_LIST || val->count < 10) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken ENVELOPE: %.*s",
			    EXCERPT(val->len), val->str);
		return;
	}
	if (envelope_is_nil(val))
		return;
	uint64_t h = mbox_hash_arg(val);
	check_hash(v, r->uid, "ENVELOPE", &r->env_hash, h);
	bool ok = h != 0 && r->env_hash == h;
	const struct imap_arg *id = imap_arg_nth(val, 9);
	if (imap_arg_is_string(id) && !check_msgid(v, r, id->str, id->len))
		ok = false;
	r->env_raw = ok ? raw : 0;
}

static void
fetch_bodystructure(struct mbox_view *v, struct mbox_rec *r,
		    const struct imap_arg *val)
{
	uint64_t raw = struct_raw(val);

	if (raw != 0 && r->bs_hash != 0 && raw == r->bs_raw)
		return;
	if ((val = struct_tokens(v, val)) == NULL)
		return;
	if (val->type != IMAP_ARG_LIST) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken BODYSTRUCTURE: "
			    "%.*s", EXCERPT(val->len), val->str);
		return;
	}
	if (bodystructure_is_nil(val))
		return;
	uint64_t h = mbox_hash_arg(val);
	check_hash(v, r->uid, "BODYSTRUCTURE", &r->bs_hash, h);
	r->bs_raw = h != 0 && r->bs_hash == h ? raw : 0;
}

/* The Message-ID header out of a BODY[HEADER.FIELDS (MESSAGE-ID)]
 * literal, folded lines joined. */
static void
header_msgid(struct mbox_view *v, struct mbox_rec *r, const char *s,
	     size_t n)
{
	static const char name[] = "Message-ID";
	char buf[512];
	size_t used = 0, p = 0;
	bool in = false;

	while (p < n) {
		const char *nl = memchr(s + p, '\n', n - p);
		size_t end = nl ? (size_t)(nl - s) : n;
		size_t e = end > p && s[end - 1] == '\r' ? end - 1 : end;
		const char *line = s + p;
		size_t len = e - p;

		if (in && len > 0 && (line[0] == ' ' || line[0] == '\t')) {
			size_t k = len < sizeof(buf) - used ? len
							    : sizeof(buf) - used;
			memcpy(buf + used, line, k);
			used += k;
		} else if (in) {
			break;
		} else if (len > sizeof(name) - 1 &&
			   imap_ci_eq_lit(line, name, sizeof(name) - 1)) {
			size_t q = sizeof(name) - 1;
			while (q < len && (line[q] == ' ' || line[q] == '\t'))
				q++;
			if (q < len && line[q] == ':') {
				q++;
				used = len - q < sizeof(buf) ? len - q
							     : sizeof(buf);
				memcpy(buf, line + q, used);
				in = true;
			}
		}
		p = end + 1;
	}
	if (in)
		(void)check_msgid(v, r, buf, used);
}

static bool
is_msgid_section(const struct imap_arg *name)
{
	static const char pfx[] = "BODY[HEADER.FIELDS (";

	if (name->len < sizeof(pfx) ||
	    !imap_ci_eq_lit(name->str, pfx, 16) ||
	    !imap_ci_eq_lit(name->str + 16, pfx + 16, sizeof(pfx) - 1 - 16))
		return false;
	for (size_t i = sizeof(pfx) - 1; i + 10 <= name->len; i++)
		if ((name->str[i] | 0x20) == 'm' &&
		    imap_ci_eq_lit(name->str + i, "MESSAGE-ID", 10))
			return true;
	return false;
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
				    "RFC822.SIZE: %.*s", EXCERPT(val->len),
				    val->str);
		} else if (n == 0) {
			/* expunged placeholder */
		} else if (r->size == 0) {
			r->size = n;
		} else if (r->size != n) {
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
				    "INTERNALDATE: %.*s", EXCERPT(val->len),
				    val->str);
		} else if (utc == 0) {
			/* expunged placeholder */
		} else if (r->idate == 0) {
			r->idate = mbox_rec_idate_pack(utc, tz);
		} else if (r->idate != mbox_rec_idate_pack(utc, tz)) {
			mbox_fmt_idate(mbox_rec_idate(r), mbox_rec_idate_tz(r),
				       a, sizeof(a));
			mbox_fmt_idate(utc, tz, b, sizeof(b));
			mbox_report(&v->rep, MBOX_ERR_STATIC_CHANGED,
				    "INTERNALDATE changed for UID %u: %s -> %s",
				    r->uid, a, b);
		}
		break;
	case FI_ENVELOPE:
		fetch_envelope(v, r, val);
		break;
	case FI_BODYSTRUCTURE:
		fetch_bodystructure(v, r, val);
		break;
	case FI_OTHER:
		if (is_msgid_section(name) && imap_arg_is_string(val))
			header_msgid(v, r, val->str, val->len);
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
	if (seq == 0 || seq > v->count) {
		char sfx[64] = "";
		if (v->state != NULL)
			snprintf(sfx, sizeof(sfx), ", state=%s", v->state);
		mbox_report(&v->rep, MBOX_ERR_SEQ_TOO_HIGH,
			    "seq too high (%u > %u%s)", seq, v->count, sfx);
		return v->rep.n - start;
	}
	/* The message's state is a random line of a large array, likely
	 * evicted by the server since we last ran: start loading it now,
	 * while the response is tokenized. */
	__builtin_prefetch(&v->msgs[seq - 1], 1);
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

	uint32_t hint = v->msgs[seq - 1].rec;
	if (hint != 0 && hint <= s->count)
		__builtin_prefetch(&s->recs[hint - 1], 1);
	const struct imap_arg *val = fetch_get_uid(list);
	if (val != NULL)
		fetch_uid(v, seq, val);

	uint32_t uid = v->msgs[seq - 1].uid;
	struct mbox_rec *r = NULL;
	if (uid != 0 && (v->uidvalidity == 0 ||
			 v->uidvalidity == s->uidvalidity)) {
		r = mbox_store_hinted(s, uid, &v->msgs[seq - 1].rec);
		if (r == NULL && !s->msgs_limit_told) {
			mbox_report(&v->rep, MBOX_ERR_LIMIT, "Message limit "
				    "%u reached: metadata of UID %u and later "
				    "new UIDs not tracked", s->max_msgs, uid);
			s->msgs_limit_told = true;
		}
	}

	for (const struct imap_arg *name = imap_arg_child(list); name != NULL;
	     name = imap_arg_next(val)) {
		val = imap_arg_next(name);
		if (name->type != IMAP_ARG_ATOM || val == NULL) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken FETCH "
				    "item: %.*s", EXCERPT(name->len),
				    name->str);
			break;
		}
		enum fetch_item item = fetch_item(name);
		if (item == FI_FLAGS)
			fetch_flags(v, seq, val);
		else if (item == FI_MODSEQ)
			fetch_modseq(v, seq, val);
		else if (r != NULL)
			fetch_static(v, r, item, name, val);
	}
	return v->rep.n - start;
}
