/* users_pop3.h: profile users of a `protocol = pop3` client block, as
 * imaptest's POP3 client plays them (its pop3-client.c and profile.c): the
 * user's first visit may begin at its ramp-up time; a visit logs in (USER,
 * PASS; AUTH PLAIN with pop3_auth = plain), asks STAT and UIDL, RETRieves
 * every message it has not retrieved before and, unless pop3_keep_mails,
 * DELEtes each, and QUITs; the next visit may begin login_interval after the
 * end of this one (imaptest: the last logout + login_interval, not
 * jittered), or a second after a visit that failed.  Declares users_pop3.c's
 * functions (upop3_) for the files of src/users/ that call them; the
 * driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_POP3_H
#define IMAPSTRESS_USERS_POP3_H

#include "users/users_int.h"

/* POP3 users (protocol = pop3): a visit holds a slot of
 * clients= (users_slots.c starts it when the slot serves the user: at
 * its ramp-up time, then login_interval after each visit's end). */
void upop3_attach(struct uworker *uw);
/* uc->p3's visit on slot uc; false when none began (the slot is free). */
bool upop3_visit(struct uworker *uw, struct uconn *uc);
void upop3_stop(struct uworker *uw);
bool upop3_busy(const struct uworker *uw);
void upop3_detach(struct uworker *uw);

#endif
