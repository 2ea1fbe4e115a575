/* users_loadsim.h: LoadSim's user actions (profile_loadsim.h) on the profile
 * driver.  Declares users_loadsim.c's functions (uls_) for the files of
 * src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_LOADSIM_H
#define IMAPSTRESS_USERS_LOADSIM_H

#include "users/users_int.h"

/* A LoadSim action's held step (ubase_guard), again. */
void uls_resume(struct uconn *uc);
void uls_user_init(struct user *u, const struct profile *p);
/* UDUE_LS_RECV fell due: one mail from outside the run to u; the time
 * to the next (us). */
uint64_t uls_received(struct user *u);
/* The mean gap (us) between LoadSim action a of the user's block (0:
 * never), and between received mails from outside the run. */
double uls_gap(const struct user *u, unsigned a);
double uls_recv_gap(const struct user *u);
/* The user's session is set up: its schedule starts (the first time). */
void uls_logged_in(struct user *u);
/* The soonest due LoadSim action (UINT64_MAX: none). */
uint64_t uls_next_due(const struct user *u);
/* The run ends: what is still due is missed (uls_counts); once, at the
 * first stop (the drain), however often the driver is stopped. */
void uls_stop(struct user *u);
/* The statistics action (enum action) of LoadSim action a, or -1. */
int uls_stat(unsigned a);
/* Start the LoadSim action that is due on uc; false when none is. */
bool uls_next(struct uconn *uc, uint64_t now);
void uls_untagged(struct uconn *uc, const struct imap_resp *r);
/* uc's session closed during a UJ_LOADSIM job: true when that was the
 * log-off action (log in again at once). */
bool uls_closed(struct uconn *uc, bool logged_out);
/* users_derive's LoadSim part: the STATUS column, the action weights. */
void uls_derive(const struct users *r, struct derived *d);

#endif
