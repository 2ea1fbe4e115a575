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

enum cp_phase {
	CP_NONE,
	CP_DRAIN,	/* waiting for in-flight commands to finish */
	CP_CHECK	/* CHECK sent, waiting for every reply */
};

struct checkpoint {
	struct worker *w;
	struct event *ev;
	struct event *resume_ev;	/* sends again once a checkpoint is over */
	enum cp_phase phase;
	uint64_t t_start;
};

struct checkpoint *checkpoint_new(struct worker *w, unsigned secs);
void checkpoint_free(struct checkpoint *cp);	/* NULL is a no-op */

/* Is a checkpoint holding new commands back? */
bool checkpoint_holding(const struct checkpoint *cp);

/* Something finished (a reply, a close): see whether the checkpoint can
 * move on. */
void checkpoint_progress(struct checkpoint *cp);

#endif
