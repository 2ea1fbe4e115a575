/* users_cached.c: what makes a LoadSim "cached mode" client (client_mode =
 * cached) cheaper than an online one, as Outlook's cached Exchange mode
 * is: it keeps a cache of INBOX (the highest UID whose headers it has,
 * the highest MODSEQ it has seen, the UIDVALIDITY they belong to) and
 * asks the server only for what changed.  Per session, before the usual
 * set-up (LIST, CREATE, SELECT INBOX):
 *
 *   COMPRESS DEFLATE    when the server offers COMPRESS=DEFLATE (RFC 4978),
 *                       on every connection of the client
 *   ENABLE QRESYNC      when it offers QRESYNC and ENABLE (RFC 7162), on
 *                       the working connection
 *   SELECT INBOX (QRESYNC (uidvalidity modseq 1:uid))
 *                       once the cache holds something: the server sends
 *                       only the known messages whose flags changed since
 *                       (FETCH) and those expunged (VANISHED (EARLIER));
 *                       a UIDVALIDITY that changed empties the cache
 *
 * Browse mail's synchronization (users_loadsim.c) is then UID FETCH
 * 1:uid (FLAGS) (CHANGEDSINCE modseq [VANISHED]) and the headers of new
 * UIDs only.  What the client fetched is counted per user (ucounts.cache)
 * so that a test can hold it against what the mailbox held. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "imap/imap.h"
#include "users/users_int.h"
#include "users/users_cached.h"

void
ucached_prepared(struct uconn *uc, struct conn *c, enum conn_reply st)
{
	if (st == CONN_REPLY_FAILED)
		return;		/* the closed hook follows */
	if (uc->cache_phase == UCP_COMPRESS && conn_compressed(c))
		uc->u->cnt.cache.compressed++;
	if (uc->cache_phase == UCP_ENABLE && st == CONN_REPLY_OK)
		uc->qresync_on = true;
	/* A NO to either is a server that changed its mind: go on without. */
	uc->cache_phase++;
}

bool
ucached_prepare(struct uconn *uc, conn_done_fn done)
{
	if (!uc->u->ls_cached)
		return false;
	if (uc->cache_phase == UCP_COMPRESS) {
		if (conn_has_compress(uc->c) && !conn_compressed(uc->c) &&
		    conn_compress_begin(uc->c, done, uc))
			return true;
		uc->cache_phase = UCP_ENABLE;
	}
	if (uc->cache_phase == UCP_ENABLE) {
		if (uc->k == 0 && conn_has_qresync(uc->c) &&
		    conn_enable(uc->c, "QRESYNC", done, uc))
			return true;
		uc->cache_phase = UCP_DONE;
	}
	return false;
}

void
ucached_select(struct uconn *uc, char *cmd, size_t n)
{
	const struct user *u = uc->u;

	uc->qresync_select = uc->qresync_on && u->ls_uidvalidity != 0 &&
	    u->ls_modseq > 0 && u->ls_seen_uid > 0;
	uc->sel_uidvalidity = 0;
	uc->sel_highestmodseq = 0;
	if (uc->qresync_select)
		snprintf(cmd, n, "SELECT INBOX (QRESYNC (%u %llu 1:%u))",
			 u->ls_uidvalidity, (unsigned long long)u->ls_modseq,
			 u->ls_seen_uid);
	else
		snprintf(cmd, n, "SELECT INBOX");
}

/* The number after "[CODE " at the start of a reply text, 0 if none. */
static uint64_t
code_num(const struct imap_resp *r, const char *code)
{
	size_t cl = strlen(code);
	const char *p = r->text, *end = r->text + r->text_len;

	if (r->text_len < cl + 3 || p[0] != '[' ||
	    strncasecmp(p + 1, code, cl) != 0 || p[cl + 1] != ' ')
		return 0;
	uint64_t v = 0;
	for (p += cl + 2; p < end && *p >= '0' && *p <= '9' &&
	     v < UINT64_MAX / 10; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* The number after `key ` (or `key (`) in a FETCH response, 0 if none. */
static uint64_t
fetch_num(const struct imap_resp *r, const char *key)
{
	size_t kl = strlen(key);
	const char *p = r->text, *end = r->text + r->text_len;

	for (; p + kl + 1 < end; p++) {
		if (strncasecmp(p, key, kl) != 0 || p[kl] != ' ' ||
		    (p != r->text && p[-1] != '(' && p[-1] != ' '))
			continue;
		p += kl + 1;
		if (p < end && *p == '(')
			p++;
		uint64_t v = 0;
		while (p < end && *p >= '0' && *p <= '9' && v < UINT64_MAX / 10)
			v = v * 10 + (uint64_t)(*p++ - '0');
		return v;
	}
	return 0;
}

void
ucached_fetch(struct uconn *uc, const struct imap_resp *r, bool sync)
{
	struct user *u = uc->u;
	uint64_t uid = fetch_num(r, "UID");
	uint64_t ms = fetch_num(r, "MODSEQ");

	if (sync)
		u->cnt.cache.sync_fetches++;
	else if (uid > u->ls_seen_uid)
		u->cnt.cache.header_fetches++;	/* "n:*" also returns the last */
	if (uid > u->ls_seen_uid && uid <= UINT32_MAX && !sync)
		u->ls_seen_uid = (uint32_t)uid;
	if (ms > u->ls_modseq)
		u->ls_modseq = ms;
}

void
ucached_untagged(struct uconn *uc, const struct imap_resp *r)
{
	enum imap_kw kw = imap_resp_kw(r);
	uint64_t v;

	switch (kw) {
	case IMAP_KW_OK:
		if ((v = code_num(r, "UIDVALIDITY")) != 0 && v <= UINT32_MAX)
			uc->sel_uidvalidity = (uint32_t)v;
		if ((v = code_num(r, "HIGHESTMODSEQ")) != 0)
			uc->sel_highestmodseq = v;
		return;
	case IMAP_KW_FETCH:
		if (uc->qresync_select)
			ucached_fetch(uc, r, true);
		return;
	case IMAP_KW_VANISHED:
		uc->u->cnt.cache.vanished++;
		return;
	default:
		return;
	}
}

void
ucached_selected(struct uconn *uc)
{
	struct user *u = uc->u;

	if (!u->ls_cached)
		return;
	if (uc->sel_uidvalidity != 0 && uc->sel_uidvalidity != u->ls_uidvalidity) {
		/* Another mailbox under the same name: nothing cached holds. */
		u->ls_uidvalidity = uc->sel_uidvalidity;
		u->ls_seen_uid = 0;
		u->ls_modseq = 0;
		return;
	}
	if (!uc->qresync_select)
		return;
	u->cnt.cache.qresync_selects++;
	/* The server said what changed up to HIGHESTMODSEQ for the known
	 * UIDs; newer UIDs are fetched whole by the next browse. */
	if (uc->sel_highestmodseq > u->ls_modseq)
		u->ls_modseq = uc->sel_highestmodseq;
}
