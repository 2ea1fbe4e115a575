/* users_count.h: what the run claims, in one place.  Declares
 * users_count.c's functions (ucount_) for the files of src/users/ that call
 * them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_COUNT_H
#define IMAPSTRESS_USERS_COUNT_H

#include "users/users_int.h"

/* The one place the driver's counts go. */
enum ucount_kind {
	UC_DELIVERED,		/* folder: INBOX or Spam */
	UC_APPENDED,		/* Drafts or Sent */
	UC_EXPUNGED,		/* any folder */
	UC_MOVED_TO_SPAM,
	UC_MOVED_TO_DELETED,
	UC_READ,
	UC_REPLIED,
	UC_SENT,
	UC_DELIVER_FAILED,
	UC_DELIVER_UNREADY
};
void ucount(struct user *u, enum ucount_kind k, enum ufolder f);
/* An action (actions.h's enum action) done or failed, timed from t0. */
void ucount_action(struct user *u, int action, bool ok, uint64_t t0);
void ucount_users_in(struct user *u, int delta);
/* Push latency: a 250 for INBOX, n new messages seen, n fetched. */
void ucount_push_delivered(struct user *u, uint64_t t, bool submitted);
void ucount_push_exists(struct user *u, unsigned n);
void ucount_push_fetched(struct user *u, unsigned n);
void ucount_push_reset(struct user *u);
/* The mechanism its pushes are counted under (IDLE until set). */
void ucount_push_mech(struct user *u, enum push_mech m);
void ucount_push_expire(struct uworker *uw);

#endif
