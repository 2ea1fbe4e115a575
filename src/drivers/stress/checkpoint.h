/* checkpoint.h: imaptest's checkpoint=S, over every worker at once.
 * Every S seconds all workers stop sending new commands; once every
 * session of every worker has nothing in flight, each sends CHECK on its
 * sessions that have a mailbox selected; once every CHECK of every worker
 * is answered, each worker copies those views into one store per mailbox
 * (the coordinator's), and the last one compares them: message count,
 * UIDs, flags, and RECENT summed over all sessions of the mailbox.  Each
 * disagreement is a "state" error; ChkP counts the sessions checked by
 * checkpoints that found none (imaptest's count).  Once a worker comes to
 * a barrier with the run ending, nothing is compared any more: its
 * sessions bring no views and may still be running commands.
 *
 * The workers meet at two barriers under the coordinator's mutex and wake
 * each other through their workers' wake-ups (worker_wake; the driver's
 * wake calls checkpoint_poll); connections only ask checkpoint_holding
 * and report progress. */
#ifndef IMAPSTRESS_CHECKPOINT_H
#define IMAPSTRESS_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

struct worker;
struct cp_coord;

struct checkpoint;

/* One per run, shared by the workers' checkpoints. */
struct cp_coord *cp_coord_new(unsigned n_workers);
void cp_coord_free(struct cp_coord *co);	/* NULL is a no-op */

struct checkpoint *checkpoint_new(struct worker *w, struct cp_coord *co,
				  unsigned secs);
void checkpoint_free(struct checkpoint *cp);	/* NULL is a no-op */

/* Is a checkpoint holding new commands back? */
bool checkpoint_holding(const struct checkpoint *cp);

/* Something finished (a reply, a close): see whether the checkpoint can
 * move on.  Deferred to the worker's loop: moving on sends on other
 * connections, which must not happen inside the caller's callback. */
void checkpoint_progress(struct checkpoint *cp);

/* The worker was woken: follow the coordinator's phase. */
void checkpoint_poll(struct checkpoint *cp);

#endif
