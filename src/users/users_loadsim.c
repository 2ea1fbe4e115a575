/* users_loadsim.c: LoadSim's user actions (profile_loadsim.h) on the
 * profile driver.  Each action with ACTION_per_day > 0 runs on its own
 * Poisson schedule per user (loadsim_sched.h: the mean gap is
 * day_length / speedup / per_day), started when the user's first session
 * is set up; received mail is LMTP deliveries to the user's INBOX on a
 * schedule of its own.  In IMAP terms, with INBOX selected:
 *
 *   browse mail   online: FETCH the last page (20) of headers; cached:
 *                 UID FETCH 1:seen (FLAGS) (CHANGEDSINCE modseq) with
 *                 CONDSTORE (FLAGS of all without), then the headers of
 *                 new UIDs only; then FETCH one body, STORE \Seen
 *   clean inbox   UID SEARCH SEEN; the oldest read mail moved to the
 *                 deleted folder; it is emptied past
 *                 deleted_folder_max_messages (users_clean.c)
 *   send mail     APPEND Sent, LMTP delivery to 1..N recipients drawn
 *                 with send_recipients_{min,avg,max}
 *   appointment   APPEND Calendar
 *   meeting       APPEND Calendar, LMTP delivery to attendees (drawn as
 *                 the distribution lists' members)
 *   browse cal.   SELECT Calendar, UID SEARCH SINCE today, UID FETCH the
 *                 day's items' headers (then back to INBOX, not timed)
 *   free/busy     EXAMINE Calendar, UID SEARCH SINCE today
 *   log off       LOGOUT; the connection logs in again at once
 *
 * journal and the contacts actions have no IMAP meaning here yet: their
 * rates are ignored (the man page says so).  An action's latency is from
 * its first command to its last reply; any NO, BAD or lost connection
 * fails it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/event.h>

#include "stats/actions.h"
#include "util/clock.h"
#include "config/config.h"
#include "config/derived.h"
#include "imap/imap.h"
#include "users/loadsim_sched.h"
#include "msg/msg.h"
#include "stats/score.h"
#include "conn/shared.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_cached.h"
#include "users/users_clean.h"
#include "users/users_count.h"
#include "users/users_lmtp.h"
#include "users/users_loadsim.h"
#include "users/users_submit.h"
#include "run/worker.h"

#define BROWSE_PAGE 20
#define HEADER_ITEMS "BODY.PEEK[HEADER.FIELDS (DATE FROM TO SUBJECT)]"

/* The statistics action of each LoadSim action (-1: not done). */
static const int ls_stat[LS_N_ACTIONS] = {
	[LS_SEND_MAIL] = ACT_SEND,
	[LS_CLEAN_INBOX] = ACT_CLEAN,
	[LS_BROWSE_MAIL] = ACT_BROWSE,
	[LS_FREE_BUSY] = ACT_FREEBUSY,
	[LS_MEETING_REQUEST] = ACT_MEETING,
	[LS_MAKE_APPOINTMENT] = ACT_APPOINTMENT,
	[LS_BROWSE_CALENDAR] = ACT_CALENDAR,
	[LS_JOURNAL] = -1,
	[LS_LOG_OFF] = ACT_LOGOFF,
	[LS_BROWSE_CONTACTS] = -1,
	[LS_CREATE_CONTACT] = -1,
};

int
uls_stat(unsigned a)
{
	return a < LS_N_ACTIONS ? ls_stat[a] : -1;
}

static const struct loadsim_user *
uls_profile_user(const struct user *u)
{
	return &u->uw->run->p->loadsim.users[u->pu->block];
}

void
uls_user_init(struct user *u, const struct profile *p)
{
	const struct profile_loadsim *ls = &p->loadsim;
	const struct loadsim_user *lu = &ls->users[u->pu->block];

	u->ls_on = ls->any && lu->any;
	u->ls_cached = ls->mode[u->pu->client] == LS_MODE_CACHED;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++)
		u->ls_due[a] = UINT64_MAX;
}

double
uls_gap(const struct user *u, unsigned a)
{
	const struct profile_loadsim *ls = &u->uw->run->p->loadsim;

	if (ls_stat[a] < 0)
		return 0;
	return ls_mean_gap_us(uls_profile_user(u)->per_day[a],
			      ls->day_length_us, profile_loadsim_speedup(ls));
}

/* received_mail_per_day counts the others' mail: what the run's own sends
 * bring (sent_mail_per_day, recipients counted, over the same users) is
 * left out, the rest comes from outside. */
double
uls_recv_gap(const struct user *u)
{
	const struct profile_loadsim *ls = &u->uw->run->p->loadsim;
	const struct loadsim_user *lu = uls_profile_user(u);
	double outside = lu->received_per_day -
	    (lu->per_day[LS_SEND_MAIL] > 0 ? lu->sent_per_day : 0);

	return ls_mean_gap_us(outside, ls->day_length_us,
			      profile_loadsim_speedup(ls));
}

uint64_t
uls_received(struct user *u)
{
	ulmtp_send(u, u);
	return ls_next_gap_us(&u->rng, uls_recv_gap(u));
}

void
uls_logged_in(struct user *u)
{
	uint64_t now = clock_us();

	if (!u->ls_on || u->ls_started)
		return;
	u->ls_started = true;
	u->ls_t0 = now;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		double gap = uls_gap(u, a);
		if (gap > 0)
			u->ls_due[a] = now + ls_next_gap_us(&u->rng, gap);
	}
	if (uls_recv_gap(u) > 0)
		u->uw->run->due_push(u->uw, now + ls_next_gap_us(&u->rng,
		    uls_recv_gap(u)), u->tbl, UDUE_LS_RECV);
}

uint64_t
uls_next_due(const struct user *u)
{
	uint64_t due = UINT64_MAX;

	if (!u->ls_on)
		return due;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++)
		if (u->ls_due[a] < due)
			due = u->ls_due[a];
	return due;
}

/* Every due time up to now that no connection started is counted missed,
 * so that started + missed is the whole schedule: a client that falls
 * behind (a slow server, a loaded machine) shows it, its counts do not
 * just come out low. */
void
uls_stop(struct user *u)
{
	uint64_t now = clock_us();

	/* Once: a drain and then a halt both stop the driver, and nothing
	 * starts in between, so what falls due then is the drain's. */
	if (!u->ls_on || !u->ls_started || u->ls_stopped)
		return;
	u->ls_stopped = true;
	u->cnt.ls.schedule_us = now - u->ls_t0;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		double gap = uls_gap(u, a);
		if (gap <= 0)
			continue;
		while (u->ls_due[a] <= now) {
			u->cnt.ls.missed[a]++;
			u->ls_due[a] += ls_next_gap_us(&u->rng, gap);
		}
	}
}

/* Recipients of one mail: send_recipients_{min,avg,max}; without a
 * maximum, up to the largest distribution list (or twice the mean). */
static unsigned
uls_recipients(struct user *u)
{
	const struct loadsim_user *lu = uls_profile_user(u);
	const struct profile_loadsim *ls = &u->uw->run->p->loadsim;
	unsigned min = lu->rcpt_min ? lu->rcpt_min : 1;
	double avg = lu->rcpt_avg >= 1 ? lu->rcpt_avg : 1;
	unsigned max = lu->rcpt_max;

	if (max == 0) {
		max = ls->dl_max > 0 ? ls->dl_max : 1;
		if (max < 2 * avg - min)
			max = (unsigned)(2 * avg - min + 1);
	}
	return ls_draw_count(&u->rng, min, avg, max);
}

/* Meeting attendees: the distribution lists' sizes (1 without lists). */
static unsigned
uls_attendees(struct user *u)
{
	const struct profile_loadsim *ls = &u->uw->run->p->loadsim;

	if (ls->dl_count == 0 || ls->dl_max == 0)
		return 1;
	return ls_draw_count(&u->rng, ls->dl_min ? ls->dl_min : 1,
			     ls->dl_avg, ls->dl_max);
}

/* u's mail to n users of its worker: one message with n recipients by
 * submission, else n LMTP deliveries. */
static void
uls_deliver(struct user *u, unsigned n)
{
	usubmit_send_list(u, n);
}

static const struct msg *
uls_msg(struct user *u)
{
	const struct msg_pool *pool = u->uw->w->sh->pool;
	return msg_pool_get(pool, msg_pool_pick(pool, &u->rng));
}

static void uls_step(struct uconn *uc);

/* The action is over (counted once: clean inbox counts itself before
 * it empties the deleted folder). */
static void
uls_count(struct uconn *uc, bool ok)
{
	if (!uc->counting)
		return;
	if (ok)
		uc->u->cnt.ls.ok[uc->ls_act]++;
	else
		uc->u->cnt.ls.failed[uc->ls_act]++;
	if (ls_stat[uc->ls_act] >= 0)
		ucount_action(uc->u, ls_stat[uc->ls_act], ok,
			      ok ? uc->t_job : 0);
	uc->counting = false;
}

static void
uls_end(struct uconn *uc, bool ok)
{
	if (!ok && uc->ls_act == LS_CLEAN_INBOX)
		uc->u->ls_deleted_known = false;	/* STATUS it again */
	uls_count(uc, ok);
	uc->job = UJ_NONE;
	uc->step = 0;
}

/* What an OK'd step confirmed. */
static void
uls_confirmed(struct uconn *uc)
{
	struct user *u = uc->u;

	switch (uc->ls_act) {
	case LS_SEND_MAIL:
		ucount(u, UC_APPENDED, UF_SENT);
		ucount(u, UC_SENT, UF_SENT);
		uls_deliver(u, uls_recipients(u));
		break;
	case LS_MEETING_REQUEST:
		ucount(u, UC_APPENDED, UF_CALENDAR);
		uls_deliver(u, uls_attendees(u));
		break;
	case LS_MAKE_APPOINTMENT:
		ucount(u, UC_APPENDED, UF_CALENDAR);
		break;
	case LS_CLEAN_INBOX:
		uclean_confirmed(uc);
		break;
	default:
		break;
	}
}

static void
uls_done(void *arg, struct conn *c, enum conn_reply st, const char *text,
	 size_t len)
{
	struct uconn *uc = arg;

	if (uc->job != UJ_LOADSIM)
		return;
	if (st != CONN_REPLY_OK) {
		uls_end(uc, false);	/* on FAILED the closed hook follows */
		return;
	}
	uls_confirmed(uc);
	uc->step++;
	uls_step(uc);
}

static bool
uls_cmd(struct uconn *uc, enum op op, const char *text, const struct msg *m)
{
	if (!ubase_guard(uc, op, text))
		return true;	/* held, not failed: uls_resume */
	return conn_command(uc->c, op, text, m, uls_done, uc);
}

/* "SINCE 1-Dec-2026": today's items (appointments are APPENDed now). */
static void
uls_since_today(char *out, size_t n)
{
	static const char *const mon[12] = { "Jan", "Feb", "Mar", "Apr",
		"May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	/* The day before, so that no time zone leaves today's out. */
	t -= 86400;
	gmtime_r(&t, &tm);
	snprintf(out, n, "UID SEARCH SINCE %d-%s-%d", tm.tm_mday,
		 mon[tm.tm_mon], tm.tm_year + 1900);
}

/* Browse mail's page of headers (ULB_HEADERS, and ULB_NEW_HEADERS for a
 * cached client). */
static bool
uls_browse_headers(struct uconn *uc, char *cmd, size_t n)
{
	struct user *u = uc->u;
	uint32_t exists = conn_exists(uc->c);

	if (!u->ls_cached) {
		if (uc->step == ULB_NEW_HEADERS)
			return false;
		if (exists > BROWSE_PAGE)
			snprintf(cmd, n, "FETCH %u:* (UID FLAGS " HEADER_ITEMS ")",
				 exists - BROWSE_PAGE + 1);
		else
			snprintf(cmd, n, "UID FETCH 1:* (UID FLAGS " HEADER_ITEMS
				 ")");
		return uls_cmd(uc, OP_FETCH, cmd, NULL);
	}
	bool cs = conn_has_condstore(uc->c);
	if (uc->step == ULB_HEADERS) {
		/* What changed in the cache: with CONDSTORE only that. */
		if (u->ls_seen_uid == 0)
			return false;
		if (cs && u->ls_modseq > 0)
			snprintf(cmd, n, "UID FETCH 1:%u (UID FLAGS) (CHANGEDSINCE "
				 "%llu%s)", u->ls_seen_uid,
				 (unsigned long long)u->ls_modseq,
				 uc->qresync_on ? " VANISHED" : "");
		else
			snprintf(cmd, n, "UID FETCH 1:%u (UID FLAGS%s)",
				 u->ls_seen_uid, cs ? " MODSEQ" : "");
		return uls_cmd(uc, OP_UIDFETCH, cmd, NULL);
	}
	snprintf(cmd, n, "UID FETCH %u:* (UID FLAGS%s " HEADER_ITEMS ")",
		 u->ls_seen_uid + 1, cs ? " MODSEQ" : "");
	return uls_cmd(uc, OP_UIDFETCH, cmd, NULL);
}

static bool
uls_step_browse(struct uconn *uc, char *cmd, size_t n)
{
	uint32_t exists = conn_exists(uc->c);

	switch ((enum uls_browse_step)uc->step) {
	case ULB_HEADERS:
	case ULB_NEW_HEADERS:
		return uls_browse_headers(uc, cmd, n);
	case ULB_READ:
		if (exists == 0)
			return false;
		/* One of the page, by sequence number: only this connection
		 * expunges from INBOX, so exists is current. */
		uc->ls_msg = exists - rng_below(&uc->u->rng, exists < BROWSE_PAGE ?
						exists : BROWSE_PAGE);
		snprintf(cmd, n, "FETCH %u (BODY.PEEK[])", uc->ls_msg);
		return uls_cmd(uc, OP_FETCH, cmd, NULL);
	case ULB_SEEN:
		if (uc->ls_msg == 0)
			return false;
		snprintf(cmd, n, "STORE %u +FLAGS.SILENT (\\Seen)", uc->ls_msg);
		return uls_cmd(uc, OP_STORE, cmd, NULL);
	case ULB_DONE:
	default:
		return false;
	}
}

/* Browse calendar (examine = false) and free/busy (true). */
static bool
uls_step_calendar(struct uconn *uc, char *cmd, size_t n, bool examine)
{
	switch ((enum uls_calendar_step)uc->step) {
	case ULC_SELECT:
		uc->sel = UF_COUNT;	/* its EXISTS is not INBOX's */
		uc->ls_found_min = uc->ls_found_max = 0;
		return uls_cmd(uc, OP_SELECT, examine ? "EXAMINE Calendar" :
			       "SELECT Calendar", NULL);
	case ULC_SEARCH:
		uc->sel = UF_CALENDAR;
		uls_since_today(cmd, n);
		return uls_cmd(uc, OP_SEARCH, cmd, NULL);
	case ULC_FETCH:
		if (examine || uc->ls_found_min == 0)
			return false;
		snprintf(cmd, n, "UID FETCH %u:%u (UID FLAGS BODY.PEEK[HEADER])",
			 uc->ls_found_min, uc->ls_found_max);
		return uls_cmd(uc, OP_UIDFETCH, cmd, NULL);
	case ULC_DONE:
	default:
		return false;
	}
}

static void
uls_step(struct uconn *uc)
{
	char cmd[256];
	bool sent = false;

	switch (uc->ls_act) {
	case LS_BROWSE_MAIL:
		for (; uc->step < ULB_DONE && !sent; ) {
			sent = uls_step_browse(uc, cmd, sizeof(cmd));
			if (!sent)
				uc->step++;
		}
		break;
	case LS_CLEAN_INBOX: {
		enum op op;
		sent = uclean_command(uc, cmd, sizeof(cmd), &op);
		/* The clean is done once its mail left INBOX: emptying the
		 * deleted folder is not part of its time. */
		if (uc->step >= UCLEAN_STATUS)
			uls_count(uc, true);
		sent = sent && uls_cmd(uc, op, cmd, NULL);
		break;
	}
	case LS_SEND_MAIL:
		sent = uc->step == UONE_SEND &&
		    uls_cmd(uc, OP_APPEND, "APPEND Sent (\\Seen)", uls_msg(uc->u));
		break;
	case LS_MAKE_APPOINTMENT:
	case LS_MEETING_REQUEST:
		sent = uc->step == UONE_SEND &&
		    uls_cmd(uc, OP_APPEND, "APPEND Calendar (\\Seen)",
			    uls_msg(uc->u));
		break;
	case LS_BROWSE_CALENDAR:
	case LS_FREE_BUSY:
		sent = uls_step_calendar(uc, cmd, sizeof(cmd),
					 uc->ls_act == LS_FREE_BUSY);
		break;
	default:
		break;
	}
	if (!sent)	/* ok when its first step was OK'd */
		uls_end(uc, uc->step > 0);
}

void
uls_resume(struct uconn *uc)
{
	uls_step(uc);
}

bool
uls_next(struct uconn *uc, uint64_t now)
{
	struct user *u = uc->u;
	unsigned best = LS_N_ACTIONS;

	if (!u->ls_on)
		return false;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++)
		if (u->ls_due[a] <= now &&
		    (best == LS_N_ACTIONS || u->ls_due[a] < u->ls_due[best]))
			best = a;
	if (best == LS_N_ACTIONS)
		return false;
	/* The next one from this one's due time: a busy connection catches
	 * up instead of lowering the rate. */
	u->ls_due[best] += ls_next_gap_us(&u->rng, uls_gap(u, best));
	u->cnt.ls.started[best]++;
	uc->job = UJ_LOADSIM;
	uc->ls_act = (int)best;
	uc->step = 0;
	uc->ls_msg = 0;
	uc->counting = true;
	uc->t_job = now;
	if (best == LS_LOG_OFF) {
		if (!conn_logout(uc->c, NULL, NULL))
			uls_end(uc, false);
		return true;
	}
	uls_step(uc);
	return true;
}

/* The UIDs a SEARCH returned: the lowest and highest. */
static void
uls_search(struct uconn *uc, const struct imap_resp *r)
{
	const char *p = r->text, *end = r->text + r->text_len;

	while (p < end) {
		while (p < end && (*p < '0' || *p > '9'))
			p++;
		uint64_t v = 0;
		bool any = false;
		while (p < end && *p >= '0' && *p <= '9' && v <= UINT32_MAX) {
			v = v * 10 + (uint64_t)(*p++ - '0');
			any = true;
		}
		if (!any || v == 0 || v > UINT32_MAX)
			continue;
		if (uc->ls_found_min == 0 || v < uc->ls_found_min)
			uc->ls_found_min = (uint32_t)v;
		if (v > uc->ls_found_max)
			uc->ls_found_max = (uint32_t)v;
	}
}

void
uls_untagged(struct uconn *uc, const struct imap_resp *r)
{
	struct user *u = uc->u;
	enum imap_kw kw = imap_resp_kw(r);

	if (uc->job != UJ_LOADSIM)
		return;
	if (kw == IMAP_KW_SEARCH) {
		uls_search(uc, r);
		return;
	}
	if (kw == IMAP_KW_STATUS && uc->ls_act == LS_CLEAN_INBOX &&
	    uc->step == UCLEAN_STATUS) {
		uclean_status(u, r);
		return;
	}
	if (kw == IMAP_KW_FETCH && u->ls_cached &&
	    uc->ls_act == LS_BROWSE_MAIL && uc->sel == UF_INBOX &&
	    uc->step <= ULB_NEW_HEADERS)
		ucached_fetch(uc, r, uc->step == ULB_HEADERS);	/* the cache */
}

bool
uls_closed(struct uconn *uc, bool logged_out)
{
	bool logoff = uc->ls_act == LS_LOG_OFF;

	uls_end(uc, logoff && logged_out);
	return logoff && logged_out;
}

void
uls_derive(const struct users *r, struct derived *d)
{
	const struct profile_loadsim *ls = &r->p->loadsim;

	if (!ls->any)
		return;
	/* Clean inbox STATUSes the deleted folder: a column of its own. */
	for (unsigned b = 0; b < r->p->n_user_blocks; b++)
		if (ls->users[b].per_day[LS_CLEAN_INBOX] > 0)
			d->states[OP_STATUS].prob = 100;
	d->act_weights_set = true;
	if (!ls->has_weights) {
		score_action_defaults(d->act_weights);
		return;
	}
	/* score_weight_ACTION weighs its action; browse_mail's also
	 * weighs the reading of new mail (LoadSim's read task is both). */
	for (unsigned act = 0; act < CONFIG_ACT_WEIGHTS; act++)
		d->act_weights[act] = 0;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++)
		if (ls_stat[a] >= 0)
			d->act_weights[ls_stat[a]] = ls->weight[a];
	d->act_weights[ACT_READ] = ls->weight[LS_BROWSE_MAIL];
}
