/* users_clean.h: LoadSim's clean inbox, as LoadSim's user cleans it: the
 * oldest read mail goes to the deleted folder ("Deleted Items", which init
 * creates holding 1 message), and the folder is emptied now and then so that
 * it stays bounded.  Declares users_clean.c's functions (uclean_) for the
 * files of src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_CLEAN_H
#define IMAPSTRESS_USERS_CLEAN_H

#include "users/users_int.h"

/* The command of clean inbox's current step (uc->step,
 * enum uclean_step; skipping those with nothing to send; false: the
 * action is over), what its OK confirmed, and the STATUS of the deleted
 * folder. */
bool uclean_command(struct uconn *uc, char *cmd, size_t n, enum op *op);
void uclean_confirmed(struct uconn *uc);
void uclean_status(struct user *u, const struct imap_resp *r);

#endif
