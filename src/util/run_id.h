/* run_id.h: the run's identity, 64 random bits drawn once per run.  It
 * names the run in the marker every stored message carries (msg.h),
 * in Message-IDs and in the ID command, so that a run's mail can be told
 * from anyone else's, an earlier run's included. */
#ifndef IMAPSTRESS_RUN_ID_H
#define IMAPSTRESS_RUN_ID_H

#include <stdint.h>

uint64_t run_id_new(void);

#endif
