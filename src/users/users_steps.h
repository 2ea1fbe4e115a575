/* users_steps.h: the steps of each job of the profile user driver
 * (uconn.step), for src/users/ only (users_int.h includes it): the
 * set-up, the actions on new mail, a reply's send, LoadSim's browse and
 * calendar actions, clean inbox.  Included by users_int.h after enum
 * ufolder, which the set-up's steps count in. */
#ifndef IMAPSTRESS_USERS_STEPS_H
#define IMAPSTRESS_USERS_STEPS_H

/* The steps of each job (uconn.step), in the order they run; a step with
 * nothing to send is skipped.  Each job sends one command per step and the
 * next step starts on its tagged OK (users_job.c). */

/* UJ_SETUP.  The step number doubles as a folder number: steps UF_SPAM ..
 * UF_COUNT - 1 CREATE that folder (when the LIST did not show it), so the
 * set-up is a loop over the folders, LIST before them (it says which are
 * missing), SELECT INBOX after them (the session then works in INBOX). */
enum ujob_setup_step {
	USETUP_LIST = UF_INBOX,		/* LIST "" "*" (INBOX exists) */
	USETUP_CREATE_FIRST = UF_SPAM,	/* CREATE folder `step` */
	USETUP_SELECT = UF_COUNT,	/* SELECT INBOX, after every CREATE */
	USETUP_DONE			/* logged in: counted, no command */
};
_Static_assert(USETUP_LIST == 0 && USETUP_CREATE_FIRST == USETUP_LIST + 1,
	       "set-up: LIST, then one CREATE step per folder after INBOX");

/* UJ_FETCH_NEW and UJ_SEND_NEW: one command (UID FETCH uidnext:*; APPEND
 * Drafts), then done. */
enum ujob_one_step { UONE_SEND, UONE_DONE };

/* UJ_ACT: read the mail first (a reply, move or delete acts on read mail),
 * then what the percentages chose; a filtered mail skips to UACT_MOVE. */
enum ujob_act_step {
	UACT_FETCH,	/* UID FETCH uid (imap_fetch_manual): reading it */
	UACT_SEEN,	/* UID STORE +FLAGS.SILENT (\Seen): read is counted */
	UACT_DRAFT,	/* reply: APPEND Drafts, sent later (UJ_REPLY_SEND) */
	UACT_MOVE,	/* move: UID MOVE to Spam (UID COPY without MOVE) */
	UACT_DELETE,	/* delete, or a move's COPY: UID STORE \Deleted */
	UACT_EXPUNGE,	/* ... then UID EXPUNGE (EXPUNGE without UIDPLUS) */
	UACT_DONE
};

/* UJ_REPLY_SEND: APPEND Sent first (that is the send); the draft is then
 * deleted in Drafts, which needs a SELECT, so INBOX is SELECTed again
 * before \Answered, which is on an INBOX UID.  ujob_next also starts here
 * at URS_SELECT_INBOX to return to INBOX after any job left it. */
enum ujob_reply_step {
	URS_APPEND_SENT,	/* APPEND Sent (\Seen) */
	URS_SELECT_DRAFTS,	/* SELECT Drafts (needs the draft's UID and
				 * UIDPLUS, else on to URS_SELECT_INBOX) */
	URS_DRAFT_DELETED,	/* UID STORE draft +FLAGS.SILENT (\Deleted) */
	URS_DRAFT_EXPUNGE,	/* UID EXPUNGE draft */
	URS_SELECT_INBOX,	/* SELECT INBOX (skipped when selected) */
	URS_ANSWERED,		/* UID STORE +FLAGS.SILENT (\Answered) on the
				 * mail replied to (none for a new mail) */
	URS_DONE
};

/* users_loadsim.c's steps. */
/* The steps (uconn.step) of browse mail: the page of headers first (what
 * a client shows), then one mail of that page read and flagged \Seen, as
 * the reader opens it.  A cached client asks the headers in two: the
 * changes of what it holds, then the new ones. */
enum uls_browse_step {
	ULB_HEADERS,	/* FETCH the last BROWSE_PAGE's headers; cached: UID
			 * FETCH 1:seen (UID FLAGS) [CHANGEDSINCE] */
	ULB_NEW_HEADERS,	/* cached only: UID FETCH seen+1:* headers */
	ULB_READ,	/* FETCH n (BODY.PEEK[]), n one of the page */
	ULB_SEEN,	/* STORE n +FLAGS.SILENT (\Seen) */
	ULB_DONE
};

/* Browse calendar and free/busy: open the folder (EXAMINE for free/busy,
 * which only looks), find today's items, then (browse only) read them. */
enum uls_calendar_step {
	ULC_SELECT,	/* SELECT Calendar (EXAMINE for free/busy) */
	ULC_SEARCH,	/* UID SEARCH SINCE yesterday */
	ULC_FETCH,	/* browse, when found: UID FETCH min:max headers */
	ULC_DONE
};

/* users_clean.c: clean inbox's steps (uc->step). */
enum uclean_step {
	/* The action: find the oldest read mail, put it in the folder. */
	UCLEAN_SEARCH,		/* UID SEARCH SEEN (nothing read: done) */
	UCLEAN_MOVE,		/* UID MOVE uid box (UID COPY without MOVE) */
	UCLEAN_STORE,		/* without MOVE: UID STORE uid \Deleted */
	UCLEAN_EXPUNGE,		/* without MOVE: UID EXPUNGE uid */
	/* Upkeep, after the action's time: keep the folder bounded. */
	UCLEAN_STATUS,		/* STATUS box (MESSAGES), once per user */
	UCLEAN_SELECT,		/* SELECT box, when it holds too many */
	UCLEAN_EMPTY_STORE,	/* STORE 1:n +FLAGS.SILENT (\Deleted) */
	UCLEAN_EMPTY_EXPUNGE,	/* EXPUNGE */
	UCLEAN_DONE
};

#endif
