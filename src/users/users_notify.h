/* users_notify.h: a client of push = notify (RFC 5465).  Declares
 * users_notify.c's functions (unotify_) for the files of src/users/ that
 * call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_NOTIFY_H
#define IMAPSTRESS_USERS_NOTIFY_H

#include "users/users_int.h"

/* uc's client block says push = notify. */
bool unotify_wanted(const struct uconn *uc);
/* Nothing is due on uc: true when it waits under NOTIFY (NOTIFY SET sent
 * now if the session has not, or in flight, or on); false when it must
 * wait as push = idle does (no NOTIFY: counted, shown once). */
bool unotify_wait(struct uconn *uc);
/* An untagged response of a NOTIFY session: INBOX's STATUS, overflow. */
void unotify_untagged(struct uconn *uc, const struct imap_resp *r);

#endif
