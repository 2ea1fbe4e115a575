/* users_due.h: every user's timed mail, connected or not, as imaptest times
 * it (its profile.c): the first INBOX delivery, Spam delivery and send
 * uniform in [0, interval) after the user's ramp-up start, each next one
 * jittered around the interval from the last (profile_jitter_us).  Declares
 * users_due.c's functions (udue_) for the files of src/users/ that call
 * them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_DUE_H
#define IMAPSTRESS_USERS_DUE_H

#include "users/users_int.h"

/* Deliveries (INBOX, Spam) and sends, for every user of the
 * worker from users_start, at imaptest's times: the first uniform in
 * [0, interval) after the user's ramp-up start, then jittered around the
 * interval. */
void udue_attach(struct uworker *uw);
void udue_start(struct uworker *uw);
void udue_stop(struct uworker *uw);
void udue_detach(struct uworker *uw);
/* One timed event for user tbl at t (a POP3 user's next visit). */
void udue_push(struct uworker *uw, uint64_t t, unsigned tbl,
	       enum udue_kind kind);

#endif
