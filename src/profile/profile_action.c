/* profile_action.c: what a user does with a new INBOX mail once it has
 * read it, decided as imaptest decides it (its profile.c): delete with
 * mail_inbox_delete_percentage; if not, move with
 * mail_inbox_move_percentage; if neither, reply with
 * mail_inbox_reply_percentage; else keep it.  The percentages are
 * therefore not shares of the mail: the docs' poweruser (delete 50, move
 * 35, reply 50) deletes 50%, moves 17.5% and replies to 16.25%. */
#include "profile/profile.h"

enum profile_action
profile_pick_action(struct rng *r, const struct profile_user_block *ub)
{
	if (rng_pct(r, (int)ub->delete_pct))
		return PROFILE_ACT_DELETE;
	if (rng_pct(r, (int)ub->move_pct))
		return PROFILE_ACT_MOVE;
	if (rng_pct(r, (int)ub->reply_pct))
		return PROFILE_ACT_REPLY;
	return PROFILE_ACT_KEEP;
}

void
profile_action_shares(const struct profile_user_block *ub, double *del,
		      double *move, double *reply)
{
	double rest = 1.0;

	*del = ub->delete_pct / 100.0;
	rest -= *del;
	*move = rest * ub->move_pct / 100.0;
	rest -= *move;
	*reply = rest * ub->reply_pct / 100.0;
}
