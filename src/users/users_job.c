/* users_job.c: the jobs a user's working connection runs, one command
 * at a time, each step started by the previous one's tagged reply:
 *
 *   set-up     LIST "" "*"; CREATE Spam/Drafts/Sent when not listed
 *              (ALREADYEXISTS from a race is benign); SELECT INBOX
 *   fetch new  UID FETCH <uidnext>:* (UID <imap_fetch_immediate>)
 *   act        after mail_action_delay (and mail_action_repeat_delay
 *              since the last one): UID FETCH <uid> (<imap_fetch_manual>),
 *              UID STORE +FLAGS.SILENT (\Seen); then by the percentages:
 *              reply = APPEND to Drafts (the send follows after
 *              mail_write_duration), move = UID MOVE to Spam (or UID COPY,
 *              \Deleted, UID EXPUNGE without MOVE), delete = \Deleted +
 *              UID EXPUNGE
 *   filter     mail_inbox_move_filter_percentage of new mail is moved to
 *              Spam as soon as it is noticed, unread
 *   send new   every mail_send_interval: APPEND a new mail to Drafts
 *   reply send after mail_write_duration: APPEND to Sent; SELECT Drafts,
 *              \Deleted + UID EXPUNGE of the draft (its APPENDUID); SELECT
 *              INBOX; then \Answered on the mail replied to (a new mail
 *              is delivered to nobody, as in imaptest)
 *
 * Only confirmed replies are counted (users_count.c).  A NO or BAD ends
 * the job (the connection counted it); a session that ends mid-job loses
 * the rest of it, never a count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats/actions.h"
#include "util/clock.h"
#include "imap/imap.h"
#include "msg/msg.h"
#include "conn/shared.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_cached.h"
#include "users/users_count.h"
#include "users/users_job.h"
#include "users/users_loadsim.h"
#include "users/users_submit.h"
#include "run/worker.h"

static void ujob_step(struct uconn *uc);
static void ujob_setup_resume(void *arg, struct conn *c, enum conn_reply st,
			      const char *text, size_t len);

static const struct msg *
ujob_msg(struct uconn *uc)
{
	const struct msg_pool *pool = uc->u->uw->w->sh->pool;
	return msg_pool_get(pool, msg_pool_pick(pool, &uc->u->rng));
}

static void
ujob_end(struct uconn *uc)
{
	uc->job = UJ_NONE;
	uc->step = 0;
	uc->fetching_new = false;
}

/* The action a job was doing did not complete. */
static void
ujob_failed(struct uconn *uc)
{
	struct user *u = uc->u;

	switch (uc->job) {
	case UJ_SETUP:
		ucount_action(u, ACT_LOGIN, false, 0);
		break;
	case UJ_FETCH_NEW:
		ucount_action(u, ACT_NOTICE, false, 0);
		break;
	case UJ_ACT:
		ucount_action(u, uc->step <= UACT_SEEN ? ACT_READ :
			      uc->step == UACT_DRAFT ? ACT_REPLY :
			      uc->act_move ? ACT_MOVE : ACT_DELETE, false, 0);
		break;
	case UJ_REPLY_SEND:
		if (uc->counting)
			ucount_action(u, uc->reply.inbox_uid ? ACT_REPLY :
				      ACT_SEND, false, 0);
		break;
	case UJ_SEND_NEW:
		ucount_action(u, ACT_SEND, false, 0);
		break;
	default:
		break;
	}
}

/* A draft was APPENDed (OK'd): it is sent after mail_write_duration. */
static void
ujob_drafted(struct uconn *uc, uint32_t inbox_uid, const char *text,
	     size_t len, uint64_t now)
{
	struct user *u = uc->u;

	ucount(u, UC_APPENDED, UF_DRAFTS);
	(void)ubase_reply_push(u, &(struct ureply){
		inbox_uid, ubase_code_word(text, len, "APPENDUID", 2),
		now + profile_jitter_us(&u->rng, u->ub->write_duration_us),
		uc->t_job
	});
}

static void
ujob_done(void *arg, struct conn *c, enum conn_reply st, const char *text,
	  size_t len)
{
	struct uconn *uc = arg;
	struct user *u = uc->u;
	uint64_t now = clock_us();

	if (st == CONN_REPLY_FAILED) {
		ujob_failed(uc);
		ujob_end(uc);		/* the closed hook follows */
		return;
	}
	if (st != CONN_REPLY_OK) {
		if (uc->job == UJ_SETUP && uc->step >= USETUP_CREATE_FIRST &&
		    uc->step < USETUP_SELECT) {
			/* CREATE: another connection of the user won a race
			 * (ALREADYEXISTS); go on to SELECT. */
			uc->step++;
			ujob_step(uc);
			return;
		}
		ujob_failed(uc);
		ujob_end(uc);
		return;
	}
	switch (uc->job) {
	case UJ_SETUP:
		if (uc->step == USETUP_SELECT) {
			ubase_selected(uc, UF_INBOX);
			ucached_selected(uc);
		}
		break;
	case UJ_FETCH_NEW:
		uc->fetching_new = false;
		ucount_push_fetched(u, uc->fetched_new);
		if (uc->fetched_new > 0)
			ucount_action(u, ACT_NOTICE, true, uc->t_job);
		break;
	case UJ_ACT:
		if (uc->step == UACT_SEEN) {
			ucount(u, UC_READ, UF_INBOX);
			ucount_action(u, ACT_READ, true, uc->t_job);
		}
		if (uc->step == UACT_DRAFT)
			ujob_drafted(uc, uc->mail.uid, text, len, now);
		if (uc->step == UACT_MOVE) {
			/* MOVE expunges from INBOX (RFC 6851). */
			ucount(u, UC_MOVED_TO_SPAM, UF_SPAM);
			if (conn_has_move(c)) {
				ucount(u, UC_EXPUNGED, UF_INBOX);
				ucount_action(u, ACT_MOVE, true, uc->t_job);
			}
		}
		if (uc->step == UACT_EXPUNGE) {
			ucount(u, UC_EXPUNGED, UF_INBOX);
			ucount_action(u, uc->act_move ? ACT_MOVE : ACT_DELETE,
				      true, uc->t_job);
		}
		break;
	case UJ_REPLY_SEND:
		if (uc->step == URS_APPEND_SENT) {
			ucount(u, UC_APPENDED, UF_SENT);
			if (uc->reply.inbox_uid != 0) {
				ucount(u, UC_REPLIED, UF_SENT);
			} else {
				/* Sent, as imaptest sends: saved to Sent,
				 * delivered to nobody (LMTP carries only the
				 * INBOX and Spam intervals' mail), unless the
				 * profile has submission_port: then submitted
				 * to a user of this worker (users_submit.c). */
				ucount(u, UC_SENT, UF_SENT);
				if (u->uw->submit != NULL && u->uw->n_u > 0)
					usubmit_send(u, u->uw->u[rng_below(
					    &u->rng, u->uw->n_u)]);
			}
		}
		if (uc->step == URS_SELECT_DRAFTS)
			ubase_selected(uc, UF_DRAFTS);
		if (uc->step == URS_DRAFT_EXPUNGE)
			ucount(u, UC_EXPUNGED, UF_DRAFTS);
		if (uc->step == URS_SELECT_INBOX) {
			/* Back in INBOX: what came meanwhile was not pushed
			 * to us; fetch it. */
			ubase_selected(uc, UF_INBOX);
			ucount_push_reset(u);
			u->need_fetch = true;
		}
		break;
	case UJ_SEND_NEW:
		ujob_drafted(uc, 0, text, len, now);
		break;
	default:
		break;
	}
	uc->step++;
	ujob_step(uc);
}

static bool
ujob_cmd(struct uconn *uc, enum op op, const char *text, const struct msg *m)
{
	if (!ubase_guard(uc, op, text))
		return true;	/* held, not failed: ujob_resume */
	return conn_command(uc->c, op, text, m, ujob_done, uc);
}

/* imap_fetch_* values are item lists, with or without parentheses. */
static void
fetch_items(char *out, size_t n, const char *items, const char *dflt)
{
	const char *s = items != NULL ? items : dflt;
	size_t len = strlen(s);
	if (len >= 2 && s[0] == '(' && s[len - 1] == ')')
		snprintf(out, n, "%.*s", (int)(len - 2), s + 1);
	else
		snprintf(out, n, "%s", s);
}

static void
ujob_step_setup(struct uconn *uc, char *cmd, size_t n)
{
	/* LIST, a CREATE step per folder after INBOX (Spam/Drafts/Sent, and
	 * Calendar for a LoadSim user, the deleted folder for one that cleans
	 * its inbox) when missing, SELECT INBOX (enum ujob_setup_step); a
	 * cached client's COMPRESS and ENABLE first.  Only the working
	 * connection (k == 0) LISTs and CREATEs: the others only SELECT. */
	if (uc->step == USETUP_LIST && ucached_prepare(uc, ujob_setup_resume))
		return;
	for (;; uc->step++) {
		if (uc->step == USETUP_LIST && uc->k == 0) {
			uc->setup_missing = (1u << UF_SPAM) | (1u << UF_DRAFTS) |
			    (1u << UF_SENT) | (uc->u->ls_on ? 1u << UF_CALENDAR : 0) |
			    (uc->u->ls_on && uls_gap(uc->u, LS_CLEAN_INBOX) > 0 ?
			     1u << UF_DELETED : 0);
			if (ujob_cmd(uc, OP_LIST, "LIST \"\" \"*\"", NULL))
				return;
			break;
		}
		if (uc->step >= USETUP_CREATE_FIRST && uc->step < USETUP_SELECT) {
			/* This step's folder is the step's number. */
			enum ufolder f = (enum ufolder)uc->step;
			if (uc->k != 0 || !(uc->setup_missing & (1u << f)))
				continue;
			char arg[LS_NAME_MAX + 3];
			ubase_folder_arg(uc->u, f, arg, sizeof(arg));
			snprintf(cmd, n, "CREATE %s", arg);
			if (ujob_cmd(uc, OP_MCREATE, cmd, NULL))
				return;
			break;
		}
		if (uc->step == USETUP_SELECT) {
			uc->sel = UF_COUNT;
			ucached_select(uc, cmd, n);
			if (ujob_cmd(uc, OP_SELECT, cmd, NULL))
				return;
			break;
		}
		if (uc->step >= USETUP_DONE) {
			uc->in_session = true;
			uc->u->uw->logged_in++;
			ucount_users_in(uc->u, 1);
			ucount_action(uc->u, ACT_LOGIN, true, uc->t_connect);
			if (uc->k == 0)
				uls_logged_in(uc->u);
			/* Mail that came while logged out is fetched now. */
			if (uc->k == 0 && uc->u->uidnext != 0)
				uc->u->need_fetch = true;
			break;
		}
	}
	ujob_end(uc);
}

static void
ujob_step_act(struct uconn *uc, char *cmd, size_t n)
{
	struct user *u = uc->u;
	uint32_t uid = uc->mail.uid;
	char items[PROFILE_MAX_FETCH + 1];
	bool ok = false;

	for (;; uc->step++) {
		if (uc->mail.filter && uc->step < UACT_MOVE)
			continue;	/* a filter moves it unread */
		switch ((enum ujob_act_step)uc->step) {
		case UACT_FETCH:
			fetch_items(items, sizeof(items), u->cb->fetch_manual,
				    "BODY.PEEK[]");
			snprintf(cmd, n, "UID FETCH %u (%s)", uid, items);
			ok = ujob_cmd(uc, OP_UIDFETCH, cmd, NULL);
			break;
		case UACT_SEEN:
			snprintf(cmd, n, "UID STORE %u +FLAGS.SILENT (\\Seen)", uid);
			ok = ujob_cmd(uc, OP_STORE, cmd, NULL);
			break;
		case UACT_DRAFT:
			if (!uc->act_reply)
				continue;
			ok = ujob_cmd(uc, OP_APPEND, "APPEND Drafts (\\Draft \\Seen)",
				      ujob_msg(uc));
			break;
		case UACT_MOVE:
			if (!uc->act_move)
				continue;
			snprintf(cmd, n, "UID %s %u Spam",
				 conn_has_move(uc->c) ? "MOVE" : "COPY", uid);
			ok = ujob_cmd(uc, conn_has_move(uc->c) ? OP_MOVE : OP_COPY,
				      cmd, NULL);
			break;
		case UACT_DELETE:
			if (!uc->act_delete &&
			    !(uc->act_move && !conn_has_move(uc->c)))
				continue;
			snprintf(cmd, n, "UID STORE %u +FLAGS.SILENT (\\Deleted)", uid);
			ok = ujob_cmd(uc, OP_STORE, cmd, NULL);
			break;
		case UACT_EXPUNGE:
			if (!uc->act_delete &&
			    !(uc->act_move && !conn_has_move(uc->c)))
				continue;
			if (conn_has_uidplus(uc->c))
				snprintf(cmd, n, "UID EXPUNGE %u", uid);
			else
				snprintf(cmd, n, "EXPUNGE");
			ok = ujob_cmd(uc, OP_EXPUNGE, cmd, NULL);
			break;
		case UACT_DONE:
		default:
			u->last_action = clock_us();
			ujob_end(uc);
			return;
		}
		break;
	}
	if (!ok)
		ujob_end(uc);
}

static void
ujob_step_reply(struct uconn *uc, char *cmd, size_t n)
{
	struct ureply *r = &uc->reply;
	bool ok = false;

	for (;; uc->step++) {
		switch ((enum ujob_reply_step)uc->step) {
		case URS_APPEND_SENT:
			ok = ujob_cmd(uc, OP_APPEND, "APPEND Sent (\\Seen)",
				      ujob_msg(uc));
			break;
		case URS_SELECT_DRAFTS:
			/* Without UIDPLUS the draft's UID is unknown: it
			 * stays (Drafts = appended - expunged still holds). */
			if (r->draft_uid == 0 || !conn_has_uidplus(uc->c)) {
				uc->step = URS_SELECT_INBOX;
				continue;
			}
			uc->sel = UF_COUNT;
			ok = ujob_cmd(uc, OP_SELECT, "SELECT Drafts", NULL);
			break;
		case URS_DRAFT_DELETED:
			snprintf(cmd, n, "UID STORE %u +FLAGS.SILENT (\\Deleted)",
				 r->draft_uid);
			ok = ujob_cmd(uc, OP_STORE, cmd, NULL);
			break;
		case URS_DRAFT_EXPUNGE:
			snprintf(cmd, n, "UID EXPUNGE %u", r->draft_uid);
			ok = ujob_cmd(uc, OP_EXPUNGE, cmd, NULL);
			break;
		case URS_SELECT_INBOX:
			if (uc->sel == UF_INBOX)
				continue;
			uc->sel = UF_COUNT;
			ok = ujob_cmd(uc, OP_SELECT, "SELECT INBOX", NULL);
			break;
		case URS_ANSWERED:
			if (r->inbox_uid == 0)
				continue;	/* a new mail: no \\Answered */
			snprintf(cmd, n, "UID STORE %u +FLAGS.SILENT (\\Answered)",
				 r->inbox_uid);
			ok = ujob_cmd(uc, OP_STORE, cmd, NULL);
			break;
		case URS_DONE:
		default:
			/* The whole action, from the draft to here (not for a
			 * bare return to INBOX, see ujob_next). */
			if (uc->counting)
				ucount_action(uc->u, r->inbox_uid ? ACT_REPLY :
					      ACT_SEND, true, r->t_draft);
			ujob_end(uc);
			return;
		}
		break;
	}
	if (!ok)
		ujob_end(uc);
}

static void
ujob_step(struct uconn *uc)
{
	char cmd[PROFILE_MAX_FETCH + 64];
	char items[PROFILE_MAX_FETCH + 1];
	struct user *u = uc->u;

	switch (uc->job) {
	case UJ_SETUP:
		ujob_step_setup(uc, cmd, sizeof(cmd));
		return;
	case UJ_FETCH_NEW:
		if (uc->step != UONE_SEND) {
			ujob_end(uc);
			return;
		}
		fetch_items(items, sizeof(items), u->cb->fetch_immediate, "UID");
		uc->fetched_new = 0;
		uc->t_job = u->t_exists ? u->t_exists : clock_us();
		u->t_exists = 0;
		snprintf(cmd, sizeof(cmd), "UID FETCH %u:* (UID %s)",
			 u->uidnext ? u->uidnext : 1, items);
		uc->fetching_new = true;
		u->need_fetch = false;
		if (!ujob_cmd(uc, OP_UIDFETCH, cmd, NULL))
			ujob_end(uc);
		return;
	case UJ_ACT:
		ujob_step_act(uc, cmd, sizeof(cmd));
		return;
	case UJ_REPLY_SEND:
		ujob_step_reply(uc, cmd, sizeof(cmd));
		return;
	case UJ_SEND_NEW:
		if (uc->step != UONE_SEND ||
		    !ujob_cmd(uc, OP_APPEND, "APPEND Drafts (\\Draft \\Seen)",
			      ujob_msg(uc)))
			ujob_end(uc);
		return;
	default:
		ujob_end(uc);
		return;
	}
}

/* A cached client's COMPRESS or ENABLE answered: the set-up goes on, or
 * ends as failed. */
static void
ujob_setup_resume(void *arg, struct conn *c, enum conn_reply st,
		  const char *text, size_t len)
{
	struct uconn *uc = arg;

	ucached_prepared(uc, c, st);
	if (uc->job != UJ_SETUP)
		return;
	if (st == CONN_REPLY_FAILED) {
		ujob_failed(uc);
		ujob_end(uc);
		return;
	}
	ujob_step(uc);
}

static void
ujob_begin(struct uconn *uc, enum ujob job)
{
	uc->job = job;
	uc->step = 0;
	uc->counting = true;
	uc->t_job = clock_us();
	ujob_step(uc);
}

/* When the oldest new mail's action may start (UINT64_MAX: none). */
static uint64_t
ujob_todo_due(const struct user *u)
{
	if (u->todo_n == 0)
		return UINT64_MAX;
	uint64_t d = u->todo[u->todo_head].due;
	uint64_t rep = u->last_action + u->ub->action_repeat_us;
	return d > rep ? d : rep;
}

uint64_t
ujob_next_due(const struct user *u)
{
	if (u->need_fetch || u->sends_due > 0)
		return 0;
	uint64_t due = ujob_todo_due(u);
	for (unsigned i = 0; i < u->n_replies; i++)
		if (u->replies[i].due < due)
			due = u->replies[i].due;
	uint64_t ls = uls_next_due(u);
	return ls < due ? ls : due;
}

void
ujob_resume(struct uconn *uc)
{
	uc->guard_held = false;
	if (uc->job == UJ_LOADSIM)
		uls_resume(uc);
	else if (uc->job != UJ_NONE)
		ujob_step(uc);
}

bool
ujob_next(struct uconn *uc)
{
	struct user *u = uc->u;
	uint64_t now = clock_us();

	if (!uc->in_session) {
		ujob_begin(uc, UJ_SETUP);
		return true;
	}
	if (uc->k != 0)
		return false;		/* extra connections only watch */
	if (uc->sel != UF_INBOX) {
		/* A job ended with another folder selected. */
		uc->job = UJ_REPLY_SEND;
		uc->step = URS_SELECT_INBOX;
		uc->counting = false;
		ujob_step(uc);
		return uc->job != UJ_NONE;
	}
	if (u->need_fetch) {
		ujob_begin(uc, UJ_FETCH_NEW);
		return uc->job != UJ_NONE;
	}
	for (unsigned i = 0; i < u->n_replies; i++) {
		if (u->replies[i].due > now)
			continue;
		uc->reply = ubase_reply_take(u, i);
		ujob_begin(uc, UJ_REPLY_SEND);
		return uc->job != UJ_NONE;
	}
	if (u->todo_n > 0 && ujob_todo_due(u) <= now) {
		uc->mail = ubase_todo_pop(u);
		const struct profile_user_block *ub = u->ub;
		enum profile_action a = uc->mail.filter ? PROFILE_ACT_MOVE :
		    profile_pick_action(&u->rng, ub);
		uc->act_reply = a == PROFILE_ACT_REPLY;
		uc->act_move = a == PROFILE_ACT_MOVE;
		uc->act_delete = a == PROFILE_ACT_DELETE;
		ujob_begin(uc, UJ_ACT);
		return uc->job != UJ_NONE;
	}
	if (uls_next(uc, now))
		return uc->job != UJ_NONE;
	if (u->sends_due > 0) {
		u->sends_due--;
		ujob_begin(uc, UJ_SEND_NEW);
		return uc->job != UJ_NONE;
	}
	return false;
}
