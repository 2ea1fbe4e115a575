/* users_job.h: the jobs a user's working connection runs, one command at a
 * time, each step started by the previous one's tagged reply.  Declares
 * users_job.c's functions (ujob_) for the files of src/users/ that call
 * them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_JOB_H
#define IMAPSTRESS_USERS_JOB_H

#include "users/users_int.h"

/* Pick and run the next job on uc; false when none is due (the caller
 * idles).  ujob_reply: the done callback of every job step. */
bool ujob_next(struct uconn *uc);
/* The held step of uc's job (ubase_guard), again. */
void ujob_resume(struct uconn *uc);
/* The soonest due time of queued work (UINT64_MAX: none). */
uint64_t ujob_next_due(const struct user *u);

#endif
