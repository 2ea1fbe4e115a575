/* users_notify.c: a client of push = notify (RFC 5465).  Once its
 * session is set up (INBOX selected) it sends, once,
 *
 *   NOTIFY SET (selected (MessageNew MessageExpunge FlagChange))
 *              (personal (MessageNew MessageExpunge))
 *
 * and from then on waits between jobs with no command at all (no IDLE, no
 * NOOP).  New mail in the selected INBOX comes as EXISTS (users_resp.c
 * takes it as for IDLE); while a job has another folder selected, INBOX's
 * new mail comes as an unsolicited STATUS, which is taken here: its
 * MESSAGES grown past what the session knew is the push.  Both go to the
 * user's push clock under NOTIFY's name (push_track_set_mech), so the
 * report puts IDLE and NOTIFY side by side.
 *
 * A server without NOTIFY, or one that answers NOTIFY SET with NO or
 * BAD, is counted (notify_refused, one line shown) and the session
 * waits in IDLE instead, its pushes counted as IDLE's: the run goes on,
 * and says how many sessions were not what the profile asked.
 * `* OK [NOTIFICATIONOVERFLOW]` means the server stopped notifying: it is
 * counted and NOTIFY SET STATUS goes out again (the STATUS it brings for
 * INBOX catches up what was missed). */
#include <string.h>
#include <strings.h>

#include "stats/actions.h"
#include "util/clock.h"
#include "imap/imap.h"
#include "imap/imap_resp.h"
#include "imap/imap_status.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_count.h"
#include "users/users_notify.h"

#define NOTIFY_EVENTS "(selected (MessageNew MessageExpunge FlagChange)) " \
	"(personal (MessageNew MessageExpunge))"

bool
unotify_wanted(const struct uconn *uc)
{
	return uc->u->cb->push == PROFILE_PUSH_NOTIFY;
}

/* The session could not have NOTIFY: count it, wait in IDLE. */
static void
unotify_refused(struct uconn *uc, const char *why)
{
	uc->notify = UNOTIFY_REFUSED;
	act_notify_refused(uc->u->uw->act);
	if (uc->k == 0)
		ucount_push_mech(uc->u, PUSH_M_IDLE);
	conn_log_error(uc->c, ERR_PROTOCOL, "push = notify: %s; this session "
		       "waits in IDLE instead (counted as notify_refused)",
		       why);
}

static void
unotify_done(void *arg, struct conn *c, enum conn_reply st, const char *text,
	     size_t len)
{
	struct uconn *uc = arg;

	if (st == CONN_REPLY_FAILED)
		return;		/* the session is over */
	if (st != CONN_REPLY_OK) {
		unotify_refused(uc, st == CONN_REPLY_NO ? "NOTIFY SET "
				"answered NO" : "NOTIFY SET answered BAD");
		return;
	}
	uc->notify = UNOTIFY_ON;
	if (uc->k == 0)
		ucount_push_mech(uc->u, PUSH_M_NOTIFY);
	/* The ready hook that follows this reply runs the next job. */
}

bool
unotify_wait(struct uconn *uc)
{
	if (!unotify_wanted(uc))
		return false;
	switch (uc->notify) {
	case UNOTIFY_NONE:
	case UNOTIFY_RESET:
		if (!conn_has_notify(uc->c)) {
			unotify_refused(uc, "the server does not advertise "
					"NOTIFY in CAPABILITY");
			return false;
		}
		if (!conn_notify(uc->c, uc->notify == UNOTIFY_RESET ?
				 "SET STATUS " NOTIFY_EVENTS :
				 "SET " NOTIFY_EVENTS, unotify_done, uc))
			return true;	/* not now: the ready hook comes again */
		uc->notify = UNOTIFY_SENT;
		return true;
	case UNOTIFY_SENT:
	case UNOTIFY_ON:
		return true;
	case UNOTIFY_REFUSED:
		break;
	}
	return false;
}

/* INBOX's STATUS while another folder is selected: MESSAGES past what
 * the session knew is new mail.  (Fewer: an expunge elsewhere.) */
static void
unotify_status(struct uconn *uc, const struct imap_resp *r)
{
	struct imap_status st;
	const char *why;
	struct user *u = uc->u;

	if (imap_status_parse(r->text, r->text_len, &st, &why) < 0) {
		char ex[160];
		conn_log_error(uc->c, ERR_PROTOCOL, "unusable STATUS (%s): "
			       "\"%s\"", why, imap_resp_excerpt(ex, sizeof(ex),
			       r->line, r->line_len));
		return;
	}
	if (!imap_status_is(&st, u->uw->run->folder[UF_INBOX]) ||
	    !(st.has & IMAP_STATUS_MESSAGES) || uc->sel == UF_INBOX ||
	    uc->sel == UF_COUNT)
		return;
	if (st.messages > uc->exists) {
		ucount_push_exists(u, st.messages - uc->exists);
		if (!u->need_fetch)
			u->t_exists = clock_us();
		u->need_fetch = true;
		ubase_wake(u);
	}
	uc->exists = st.messages;
}

void
unotify_untagged(struct uconn *uc, const struct imap_resp *r)
{
	enum imap_kw kw = imap_resp_kw(r);

	if (uc->notify != UNOTIFY_ON && uc->notify != UNOTIFY_SENT)
		return;
	if (kw == IMAP_KW_STATUS && uc->k == 0) {
		unotify_status(uc, r);
		return;
	}
	const char *code, *arg;
	size_t code_len, arg_len;
	if (kw == IMAP_KW_OK &&
	    imap_resp_code(r, &code, &code_len, &arg, &arg_len) &&
	    code_len == 20 && strncasecmp(code, "NOTIFICATIONOVERFLOW", 20) == 0) {
		/* RFC 5465 5.8: the server has dropped to NOTIFY NONE. */
		act_notify_overflow(uc->u->uw->act);
		uc->notify = UNOTIFY_RESET;
	}
}
