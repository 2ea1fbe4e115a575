/* checkpoint.h: imaptest's checkpoint=S.  Every S seconds a worker stops
 * sending new commands, lets what is in flight finish, sends CHECK on
 * every session that has a mailbox selected, and when all have answered
 * compares the views of each mailbox (message count, UIDs, flags, RECENT):
 * sessions of one mailbox must agree.  Each disagreement is a "state"
 * error; each completed checkpoint counts in the ChkP column.  Users are
 * partitioned by worker, so every session of a mailbox is compared. */
#ifndef IMAPSTRESS_CHECKPOINT_H
#define IMAPSTRESS_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

struct worker;

struct checkpoint;

struct checkpoint *checkpoint_new(struct worker *w, unsigned secs);
void checkpoint_free(struct checkpoint *cp);	/* NULL is a no-op */

/* Is a checkpoint holding new commands back? */
bool checkpoint_holding(const struct checkpoint *cp);

/* Something finished (a reply, a close): see whether the checkpoint can
 * move on.  Deferred to the worker's loop: it sends on other connections,
 * which must not happen inside the caller's connection callback. */
void checkpoint_progress(struct checkpoint *cp);

#endif
