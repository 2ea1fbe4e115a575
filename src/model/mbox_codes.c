/* mbox_codes.c: the mailbox-wide announcements of a selection: FLAGS,
 * PERMANENTFLAGS and the other response codes (UIDVALIDITY, UIDNEXT,
 * HIGHESTMODSEQ, CLOSED, READ-ONLY/READ-WRITE); see mbox_model.h. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

/* Parse a flag list into system bits and keyword bits (interning new
 * keywords).  Returns -1 if it is not a list of atoms. */
static int
flag_list(struct mbox_view *v, const struct imap_arg *list, const char *what,
	  unsigned *sys, uint64_t *kw, bool *star)
{
	*sys = 0;
	*kw = 0;
	if (list == NULL || list->type != IMAP_ARG_LIST) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken %s", what);
		return -1;
	}
	for (const struct imap_arg *a = imap_arg_child(list); a != NULL;
	     a = imap_arg_next(a)) {
		if (a->type != IMAP_ARG_ATOM) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "%s list "
				    "contains non-atoms", what);
			return -1;
		}
		if (a->len > 0 && a->str[0] == '\\') {
			unsigned bit = mbox_sys_flag(a->str, a->len);
			if (star != NULL && a->len == 2 && a->str[1] == '*')
				*star = true;
			else if (bit == 0)
				mbox_report(&v->rep, MBOX_ERR_SYNTAX,
					    "Invalid system flag in %s: %.*s",
					    what, (int)a->len, a->str);
			*sys |= bit;
			continue;
		}
		int k = mbox_store_kw_intern(v->store, a->str, a->len);
		if (k < 0) {
			if (!v->store->kw_limit_told)
				mbox_report(&v->rep, MBOX_ERR_LIMIT, "More "
					    "than %u keywords: %.*s and later "
					    "ones not tracked",
					    MBOX_MAX_KEYWORDS, (int)a->len,
					    a->str);
			v->store->kw_limit_told = true;
			continue;
		}
		*kw |= 1ull << k;
	}
	return 0;
}

/* A memo longer than this is not kept: a server's own keywords make a
 * list of a few hundred octets, a longer one is rare or hostile. */
#define FLAGS_MEMO_MAX	4096u

/* text is one flag list (FLAGS' text, PERMANENTFLAGS' argument): what it
 * means, from the memo when it is the text parsed last, else parsed and
 * kept if the parse reported nothing.  Returns -1 if it is broken. */
static int
flag_text(struct mbox_view *v, struct mbox_flags_memo *memo, const char *what,
	  const char *text, size_t len, unsigned *sys, uint64_t *kw,
	  bool *star)
{
	if (memo->text != NULL && memo->len == len &&
	    memcmp(memo->text, text, len) == 0) {
		*sys = memo->sys;
		*kw = memo->kw;
		if (star != NULL)
			*star = memo->star;
		return 0;
	}
	unsigned start = v->rep.n;
	const struct imap_arg *root = imap_args_parse(v->store->args, text,
						      len);
	const struct imap_arg *list = imap_arg_child(root);
	bool has_star = false;
	if (list == NULL || imap_arg_next(list) != NULL) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Broken %s", what);
		return -1;
	}
	if (flag_list(v, list, what, sys, kw, star ? &has_star : NULL) < 0)
		return -1;
	if (star != NULL)
		*star = has_star;
	if (v->rep.n != start || len > FLAGS_MEMO_MAX)
		return 0;
	if (memo->cap < len + 1) {
		memo->text = xrealloc(memo->text, len + 1);
		memo->cap = len + 1;
	}
	memcpy(memo->text, text, len);
	memo->text[len] = '\0';
	memo->len = len;
	memo->sys = *sys;
	memo->kw = *kw;
	memo->star = has_star;
	return 0;
}

unsigned
mbox_view_on_flags(struct mbox_view *v, const char *text, size_t len)
{
	unsigned start = v->rep.n;
	unsigned sys;
	uint64_t kw;

	if (v->disabled)
		return 0;
	if (flag_text(v, &v->store->flags_memo, "FLAGS", text, len, &sys, &kw,
		      NULL) < 0)
		return v->rep.n - start;
	uint64_t dropped = v->kw_in_flags & ~kw;
	for (unsigned k = 0; dropped != 0 && k < MBOX_MAX_KEYWORDS; k++) {
		if (!(dropped & (1ull << k)))
			continue;
		/* Only flags we know as they are now: a message under this
		 * session's own STORE (running, or .SILENT since, with no
		 * FETCH FLAGS after it) may have lost the keyword, and a
		 * server may drop a keyword no message has from FLAGS.
		 * Courier does, inside our "-FLAGS.SILENT ($Label1)" of the
		 * last message that had it (issue 33). */
		uint32_t users = 0;
		for (uint32_t seq = 1; seq <= v->count; seq++) {
			const struct mbox_msg *m = mbox_msg_get(v, seq);
			if ((m->kw & (1ull << k)) && mbox_msg_baseline(v, m))
				users++;
		}
		if (users > 0)
			mbox_report(&v->rep, MBOX_ERR_KEYWORD, "Keyword %s "
				    "dropped from FLAGS but %u messages still "
				    "have it", v->store->kw[k].name, users);
	}
	v->kw_in_flags = kw;
	v->flags_seen = true;
	return v->rep.n - start;
}

static unsigned
code_permanentflags(struct mbox_view *v, const char *arg, size_t len)
{
	unsigned sys;
	uint64_t kw;
	bool star = false;

	if (flag_text(v, &v->store->perm_memo, "PERMANENTFLAGS", arg, len,
		      &sys, &kw, &star) < 0)
		return 1;
	uint64_t missing = v->flags_seen ? kw & ~v->kw_in_flags : 0;
	for (unsigned k = 0; missing != 0 && k < MBOX_MAX_KEYWORDS; k++)
		if (missing & (1ull << k))
			mbox_report(&v->rep, MBOX_ERR_KEYWORD, "Keyword in "
				    "PERMANENTFLAGS not introduced with FLAGS: "
				    "%s", v->store->kw[k].name);
	v->kw_permanent = kw;
	v->can_create = star;
	v->perm_seen = true;
	return 0;
}

static bool
code_u32(struct mbox_view *v, const char *code, size_t code_len,
	 const char *arg, size_t len, uint32_t *out)
{
	uint64_t n;

	if (imap_parse_u64(arg, len, &n) != 0 || n == 0 || n > UINT32_MAX) {
		mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid %.*s: %.*s",
			    (int)code_len, code, (int)(len > 40 ? 40 : len),
			    arg);
		return false;
	}
	*out = (uint32_t)n;
	return true;
}

static void
code_uidvalidity(struct mbox_view *v, uint32_t n)
{
	struct mbox_store *s = v->store;
	uint32_t prev = v->uidvalidity ? v->uidvalidity : s->uidvalidity;

	if (prev != 0 && prev != n)
		mbox_report(&v->rep, MBOX_ERR_UIDVALIDITY,
			    "UIDVALIDITY changed: %u -> %u", prev, n);
	if (s->uidvalidity != n) {
		/* the old UIDs mean nothing now */
		mbox_store_clear(s);
		s->uidvalidity = n;
	}
	if (v->uidvalidity != 0 && v->uidvalidity != n) {
		/* every message unknown again (holes cost nothing) */
		uint32_t cnt = v->count;
		mbox_msgs_truncate(v, 0);
		mbox_msgs_grow(v, cnt);
	}
	v->uidvalidity = n;
}

static void
code_uidnext(struct mbox_view *v, uint32_t n)
{
	if (v->uidnext != 0 && n < v->uidnext)
		mbox_report(&v->rep, MBOX_ERR_UIDNEXT,
			    "UIDNEXT went backwards: %u -> %u", v->uidnext, n);
	/* UIDs ascend: the last known one is the largest */
	uint32_t seq = mbox_msgs_prev_known(v, v->count + 1);
	uint32_t uid = seq ? mbox_msg_get(v, seq)->uid : 0;
	if (uid != 0 && uid >= n)
		mbox_report(&v->rep, MBOX_ERR_UIDNEXT, "UIDNEXT %u not above "
			    "UID %u of seq %u", n, uid, seq);
	v->uidnext = n;
}

unsigned
mbox_view_on_code(struct mbox_view *v, const char *code, size_t code_len,
		  const char *arg, size_t len)
{
	unsigned start = v->rep.n;
	uint32_t n;
	uint64_t ms;

	if (mbox_word_eq(code, code_len, "CLOSED")) {
		/* what came before belonged to the previous mailbox */
		mbox_view_reset(v);
		return 0;
	}
	if (v->disabled)
		return 0;
	if (mbox_word_eq(code, code_len, "UIDVALIDITY")) {
		if (code_u32(v, code, code_len, arg, len, &n))
			code_uidvalidity(v, n);
	} else if (mbox_word_eq(code, code_len, "UIDNEXT")) {
		if (code_u32(v, code, code_len, arg, len, &n))
			code_uidnext(v, n);
	} else if (mbox_word_eq(code, code_len, "HIGHESTMODSEQ")) {
		if (imap_parse_u64(arg, len, &ms) != 0) {
			mbox_report(&v->rep, MBOX_ERR_SYNTAX, "Invalid "
				    "HIGHESTMODSEQ: %.*s",
				    (int)(len > 40 ? 40 : len), arg);
		} else {
			if (v->opts.check_modseq && ms < v->highestmodseq)
				mbox_report(&v->rep, MBOX_ERR_MODSEQ,
					    "HIGHESTMODSEQ went backwards: "
					    "%llu -> %llu",
					    (unsigned long long)v->highestmodseq,
					    (unsigned long long)ms);
			v->highestmodseq = ms;
		}
	} else if (mbox_word_eq(code, code_len, "PERMANENTFLAGS")) {
		code_permanentflags(v, arg, len);
	} else if (mbox_word_eq(code, code_len, "READ-ONLY")) {
		v->readonly = true;
	} else if (mbox_word_eq(code, code_len, "READ-WRITE")) {
		v->readonly = false;
	}
	return v->rep.n - start;
}

unsigned
mbox_view_on_resp_text(struct mbox_view *v, const char *text, size_t len)
{
	if (len < 2 || text[0] != '[')
		return 0;
	const char *end = memchr(text, ']', len);
	if (end == NULL)
		return 0;
	const char *code = text + 1;
	size_t clen = 0, inner = (size_t)(end - code);
	while (clen < inner && code[clen] != ' ')
		clen++;
	const char *arg = clen < inner ? code + clen + 1 : end;
	return mbox_view_on_code(v, code, clen, arg, (size_t)(end - arg));
}

