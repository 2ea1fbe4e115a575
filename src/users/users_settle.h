/* users_settle.h: the push's end (users_settle.c): the settle that lets
 * the last deliveries' pushes come in at a drain, and what became of
 * each user's INBOX deliveries as push. */
#ifndef IMAPSTRESS_USERS_SETTLE_H
#define IMAPSTRESS_USERS_SETTLE_H

#include <stdbool.h>
#include <stdio.h>

#include "users/users_int.h"

/* A session of u would see INBOX's news now (users_settle.c). */
bool ucount_push_watching(const struct user *u);

/* users_settle.c: the driver's settle (driver.h), at a drain: true while
 * the users wait for the push of the last deliveries; at a halt, the
 * push ends at once.  Either way the unannounced are counted once. */
bool usettle_begin(void *uw);
void usettle_halt(struct uworker *uw);
/* A user's push_end as --profile-counts' "push" object on f (NULL: none),
 * summed into tot[its mechanism]; the sums per mechanism as Info lines
 * when a NOTIFY client took part. */
void upush_sum(FILE *f, const struct upush_counts *n, struct upush_counts *tot);
void upush_log(const struct users *r);

#endif
