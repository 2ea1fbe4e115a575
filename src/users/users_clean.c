/* users_clean.c: LoadSim's clean inbox, as LoadSim's user cleans it: the
 * oldest read mail goes to the deleted folder ("Deleted Items", which
 * init creates holding 1 message), and the folder is emptied now and then
 * so that it stays bounded:
 *
 *   UID SEARCH SEEN                          (nothing read: done)
 *   UID MOVE uid "Deleted Items"             with MOVE (RFC 6851), else
 *   UID COPY uid ..., UID STORE uid +FLAGS.SILENT (\Deleted),
 *   UID EXPUNGE uid                          (EXPUNGE without UIDPLUS)
 *   -- the action's time ends here --
 *   STATUS "Deleted Items" (MESSAGES)        once per user: what it holds
 *   when it holds more than deleted_folder_max_messages:
 *   SELECT "Deleted Items", STORE 1:n +FLAGS.SILENT (\Deleted), EXPUNGE
 *
 * The next job SELECTs INBOX again (users_job.c).  Only the user's
 * working connection writes to the folder, so n (the SELECT's EXISTS) is
 * what the EXPUNGE removes.  This file builds the commands and counts
 * what their OKs confirm; users_loadsim.c sends them and times the
 * action. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "imap/imap.h"
#include "imap/imap_status.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_clean.h"
#include "users/users_count.h"

bool
uclean_command(struct uconn *uc, char *cmd, size_t n, enum op *op)
{
	struct user *u = uc->u;
	bool move = conn_has_move(uc->c);
	char box[LS_NAME_MAX + 3];

	ubase_folder_arg(u, UF_DELETED, box, sizeof(box));
	for (;; uc->step++) {
		switch ((enum uclean_step)uc->step) {
		case UCLEAN_SEARCH:
			uc->ls_found_min = uc->ls_found_max = 0;
			*op = OP_SEARCH;
			snprintf(cmd, n, "UID SEARCH SEEN");
			return true;
		case UCLEAN_MOVE:
			if (uc->ls_found_min == 0)
				return false;	/* nothing read: nothing to do */
			uc->ls_msg = uc->ls_found_min;
			*op = move ? OP_MOVE : OP_COPY;
			snprintf(cmd, n, "UID %s %u %s", move ? "MOVE" : "COPY",
				 uc->ls_msg, box);
			return true;
		case UCLEAN_STORE:
			if (move)
				continue;
			*op = OP_STORE;
			snprintf(cmd, n, "UID STORE %u +FLAGS.SILENT (\\Deleted)",
				 uc->ls_msg);
			return true;
		case UCLEAN_EXPUNGE:
			if (move)
				continue;
			*op = OP_EXPUNGE;
			if (conn_has_uidplus(uc->c))
				snprintf(cmd, n, "UID EXPUNGE %u", uc->ls_msg);
			else
				snprintf(cmd, n, "EXPUNGE");
			return true;
		case UCLEAN_STATUS:
			if (u->ls_deleted_known)
				continue;
			u->ls_deleted_held = UINT32_MAX;	/* STATUS tells */
			*op = OP_STATUS;
			snprintf(cmd, n, "STATUS %s (MESSAGES)", box);
			return true;
		case UCLEAN_SELECT:
			if (u->ls_deleted_held == UINT32_MAX)
				return false;	/* the reply had no count */
			u->ls_deleted_known = true;
			if (u->ls_deleted_held <=
			    u->uw->run->p->loadsim.users[u->pu->block].deleted_max)
				return false;
			uc->sel = UF_COUNT;	/* its EXISTS is not INBOX's */
			*op = OP_SELECT;
			snprintf(cmd, n, "SELECT %s", box);
			return true;
		case UCLEAN_EMPTY_STORE:
			uc->sel = UF_DELETED;
			uc->ls_msg = conn_exists(uc->c);
			if (uc->ls_msg == 0)
				return false;
			*op = OP_STORE;
			snprintf(cmd, n, "STORE 1:%u +FLAGS.SILENT (\\Deleted)",
				 uc->ls_msg);
			return true;
		case UCLEAN_EMPTY_EXPUNGE:
			*op = OP_EXPUNGE;
			snprintf(cmd, n, "EXPUNGE");
			return true;
		case UCLEAN_DONE:
		default:
			return false;
		}
	}
}

void
uclean_confirmed(struct uconn *uc)
{
	struct user *u = uc->u;

	switch (uc->step) {
	case UCLEAN_MOVE:
		/* MOVE expunges from INBOX (RFC 6851); a COPY's original
		 * goes at UCLEAN_EXPUNGE. */
		ucount(u, UC_MOVED_TO_DELETED, UF_DELETED);
		if (conn_has_move(uc->c))
			ucount(u, UC_EXPUNGED, UF_INBOX);
		u->ls_deleted_held++;
		break;
	case UCLEAN_EXPUNGE:
		ucount(u, UC_EXPUNGED, UF_INBOX);
		break;
	case UCLEAN_EMPTY_EXPUNGE:
		/* Every message the SELECT counted was flagged. */
		for (uint32_t i = 0; i < uc->ls_msg; i++)
			ucount(u, UC_EXPUNGED, UF_DELETED);
		u->ls_deleted_held = 0;
		break;
	default:
		break;
	}
}

/* The STATUS our command asked for: a NOTIFY client also gets STATUS
 * of other folders unasked (users_notify.c), so the name must match. */
void
uclean_status(struct user *u, const struct imap_resp *r)
{
	struct imap_status st;

	if (imap_status_parse(r->text, r->text_len, &st, NULL) == 0 &&
	    imap_status_is(&st, u->uw->run->folder[UF_DELETED]) &&
	    (st.has & IMAP_STATUS_MESSAGES))
		u->ls_deleted_held = st.messages;
}
