/* users_session.h: one IMAP connection of a profile user, as the
 * connection's hooks see it.  Declares users_session.c's functions (usess_)
 * for the files of src/users/ that call them; the driver's types are in
 * users_int.h. */
#ifndef IMAPSTRESS_USERS_SESSION_H
#define IMAPSTRESS_USERS_SESSION_H

#include "users/users_int.h"

extern const struct conn_hooks usess_hooks;
/* Something became due for the user: wake its working connection. */
void usess_kick(struct user *u);

#endif
