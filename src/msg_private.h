/* msg_private.h: the pool layout shared by msg.c (mbox, accessors) and
 * msg_gen.c (generators).  Other modules use msg.h only. */
#ifndef IMAPSTRESS_MSG_PRIVATE_H
#define IMAPSTRESS_MSG_PRIVATE_H

#include <stdint.h>

#include "msg.h"

struct msg_pool {
	char *arena;		/* every message's bytes; msgs point here */
	struct msg *msgs;
	unsigned count;
	uint64_t bytes;
};

/* Generated pools: as many messages as fit in max_total, within these.
 * An mbox pool holds every message of the file. */
#define MSG_POOL_MIN_COUNT	8
#define MSG_POOL_MAX_COUNT	1000

#endif
