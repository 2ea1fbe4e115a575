/* users_slots.h: clients= as imaptest reads it in profile mode: a fixed
 * number of connection slots, each serving one user at a time, IMAP and POP3
 * users alike (imaptest counts both kinds of client in its one clients
 * budget).  Declares users_slots.c's functions (uslot_) for the files of
 * src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_SLOTS_H
#define IMAPSTRESS_USERS_SLOTS_H

#include "users/users_int.h"

/* What user `tbl` of the table is (its plan entry, blocks, draws): the
 * part of uslot_user that needs no worker. */
void uslot_user_init(const struct users *r, unsigned tbl, struct user *u);
/* User `tbl` of the table (one of uw's), made when first asked for. */
struct user *uslot_user(struct uworker *uw, unsigned tbl);
void uslot_attach(struct uworker *uw);
/* Every slot of the worker looks for a user (ramp-up first). */
void uslot_start(struct uworker *uw);
/* From the closed hook: uc's user lets the slot go and may connect again
 * `wait` from now; the slot serves the next user (conn_restart) or waits
 * for one.  When stopping, the slot is finished instead. */
void uslot_release(struct uworker *uw, struct uconn *uc, uint64_t wait,
		   bool finish);
/* A POP3 visit on uc closed its socket (users->pop3_done): its user may
 * visit again at uc->p3_again, and the slot serves the next user. */
void uslot_pop3_done(struct uworker *uw, struct uconn *uc);
void uslot_detach(struct uworker *uw);

#endif
