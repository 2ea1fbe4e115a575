/* mbox_struct.c: the static metadata of a FETCH that must never change
 * for a UID and takes more than a number to check: ENVELOPE and
 * BODYSTRUCTURE (by structure hash, skipped when their octets are the ones
 * last confirmed) and the Message-ID, from the envelope or from a
 * BODY[HEADER.FIELDS (MESSAGE-ID)] literal (see mbox_model.h). */
#include <stdio.h>
#include <string.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

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
	if (!mbox_fetch_told(v, STATIC_MSGID))
		return false;
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
	   unsigned item, uint64_t *have, uint64_t h)
{
	if (h == 0)
		return;	/* held a skipped literal: not comparable */
	if (*have == 0)
		*have = h;
	else if (*have != h && mbox_fetch_told(v, item))
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
void
mbox_fetch_envelope(struct mbox_view *v, struct mbox_rec *r,
	       const struct imap_arg *val)
{
	uint64_t raw = struct_raw(val);

	if (raw != 0 && r->env_hash != 0 && raw == r->env_raw)
		return;
	if ((val = struct_tokens(v, val)) == NULL)
		return;
	if (val->type != IMAP_ARG_LIST || val->count < 10) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken ENVELOPE: %.*s",
			    MBOX_EXCERPT(val->len), val->str);
		return;
	}
	if (envelope_is_nil(val))
		return;
	uint64_t h = mbox_hash_arg(val);
	check_hash(v, r->uid, "ENVELOPE", STATIC_ENVELOPE, &r->env_hash, h);
	bool ok = h != 0 && r->env_hash == h;
	const struct imap_arg *id = imap_arg_nth(val, 9);
	if (imap_arg_is_string(id) && !check_msgid(v, r, id->str, id->len))
		ok = false;
	r->env_raw = ok ? raw : 0;
}

void
mbox_fetch_bodystructure(struct mbox_view *v, struct mbox_rec *r,
		    const struct imap_arg *val)
{
	uint64_t raw = struct_raw(val);

	if (raw != 0 && r->bs_hash != 0 && raw == r->bs_raw)
		return;
	if ((val = struct_tokens(v, val)) == NULL)
		return;
	if (val->type != IMAP_ARG_LIST) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken BODYSTRUCTURE: "
			    "%.*s", MBOX_EXCERPT(val->len), val->str);
		return;
	}
	if (bodystructure_is_nil(val))
		return;
	uint64_t h = mbox_hash_arg(val);
	check_hash(v, r->uid, "BODYSTRUCTURE", STATIC_BODYSTRUCTURE,
		   &r->bs_hash, h);
	r->bs_raw = h != 0 && r->bs_hash == h ? raw : 0;
}

/* The Message-ID header out of a BODY[HEADER.FIELDS (MESSAGE-ID)]
 * literal, folded lines joined. */
void
mbox_header_msgid(struct mbox_view *v, struct mbox_rec *r, const char *s,
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

bool
mbox_is_msgid_section(const struct imap_arg *name)
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
