/* users_resp.c: what a user's working connection learns from the
 * server's untagged responses: the folders LIST shows, INBOX's UIDNEXT at
 * SELECT, EXISTS growing (new mail: push latency, then a fetch), EXPUNGE,
 * and the UIDs the fetch of new mail returns (queued for their action). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/clock.h"
#include "imap/imap.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_cached.h"
#include "users/users_count.h"
#include "users/users_loadsim.h"
#include "users/users_notify.h"
#include "users/users_resp.h"

/* "UID n" in a FETCH response's text, 0 when absent. */
static uint32_t
fetch_uid(const struct imap_resp *r)
{
	const char *p = r->text, *end = r->text + r->text_len;
	for (; p + 4 < end; p++) {
		if ((p[0] == 'U' || p[0] == 'u') && strncasecmp(p, "UID ", 4) == 0 &&
		    (p == r->text || p[-1] == '(' || p[-1] == ' ')) {
			uint64_t n = 0;
			for (p += 4; p < end && *p >= '0' && *p <= '9' && n <= UINT32_MAX; p++)
				n = n * 10 + (uint64_t)(*p - '0');
			return n <= UINT32_MAX ? (uint32_t)n : 0;
		}
	}
	return 0;
}

void
uresp_untagged(struct uconn *uc, const struct imap_resp *r)
{
	struct user *u = uc->u;
	enum imap_kw kw = imap_resp_kw(r);
	uint64_t now = clock_us();

	if (kw == IMAP_KW_LIST && uc->job == UJ_SETUP) {
		/* The name is the last word; quoted or not. */
		for (unsigned f = UF_SPAM; f < UF_COUNT; f++) {
			const char *name = u->uw->run->folder[f];
			size_t nl = strlen(name);
			const char *e = r->text + r->text_len;
			if (r->text_len > nl && e[-1] == '"')
				e--;
			if ((size_t)(e - r->text) > nl &&
			    memcmp(e - nl, name, nl) == 0 &&
			    (e[-nl - 1] == ' ' || e[-nl - 1] == '"'))
				uc->setup_missing &= ~(1u << f);
		}
		return;
	}
	unotify_untagged(uc, r);
	if (uc->k != 0)
		return;
	uls_untagged(uc, r);
	if (uc->job == UJ_SETUP && uc->sel == UF_COUNT && u->ls_cached)
		ucached_untagged(uc, r);
	if (kw == IMAP_KW_OK && uc->job == UJ_SETUP && uc->sel == UF_COUNT) {
		/* SELECT INBOX's [UIDNEXT n]: the first login starts there;
		 * a later one fetches what came meanwhile. */
		uint32_t next = ubase_code_word(r->text, r->text_len, "UIDNEXT", 1);
		if (next != 0 && u->uidnext == 0)
			u->uidnext = next;
		return;
	}
	if (kw == IMAP_KW_EXISTS) {
		if (uc->sel != UF_INBOX) {
			if (uc->job == UJ_SETUP || (uc->job == UJ_REPLY_SEND &&
						    uc->step == URS_SELECT_INBOX)) {
				/* SELECT INBOX: the baseline, no push. */
				uc->exists = r->num;
				if (uc->job == UJ_SETUP)
					ucount_push_reset(u);
			}
			return;
		}
		if (r->num > uc->exists) {
			/* In IDLE a push; between commands the server's
			 * next chance to say it (credited all the same, so
			 * no later EXISTS takes an older delivery). */
			ucount_push_exists(u, r->num - uc->exists);
			if (!u->need_fetch)
				u->t_exists = now;
			u->need_fetch = true;
		}
		uc->exists = r->num;
		ubase_wake(u);
		return;
	}
	if (kw == IMAP_KW_EXPUNGE && uc->sel == UF_INBOX && uc->exists > 0) {
		uc->exists--;
		return;
	}
	if (kw == IMAP_KW_VANISHED && uc->sel == UF_INBOX) {
		/* EXPUNGE's form under QRESYNC (a cached client): the
		 * connection counted the UIDs it names. */
		if (uc->exists > conn_exists(uc->c))
			uc->exists = conn_exists(uc->c);
		if (uc->job == UJ_LOADSIM)
			u->cnt.cache.vanished++;
		return;
	}
	if (kw == IMAP_KW_FETCH && uc->fetching_new && uc->sel == UF_INBOX) {
		uint32_t uid = fetch_uid(r);
		if (uid == 0 || uid < u->uidnext)
			return;		/* "n:*" also returns the last one */
		u->uidnext = uid + 1;
		uc->fetched_new++;
		if (u->todo_n < UMAIL_MAX) {
			bool filter = rng_pct(&u->rng,
					      (int)u->ub->move_filter_pct);
			(void)ubase_todo_push(u, &(struct umail){
				uid, filter, filter ? now :
				now + profile_jitter_us(&u->rng,
							u->ub->action_delay_us) });
		}
	}
}
