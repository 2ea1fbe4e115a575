/* memlimit.h: how much memory one start-up allocation (the message pool)
 * may take on this machine, so that a size typed on the command line is
 * refused at parse time, by name, instead of aborting in xmalloc or
 * pushing the machine (often the server under test too) into swap. */
#ifndef IMAPSTRESS_MEMLIMIT_H
#define IMAPSTRESS_MEMLIMIT_H

#include <stdint.h>

/* A quarter of the physical memory, and no more than half of RLIMIT_AS
 * or RLIMIT_DATA when they are set. */
uint64_t memlimit_budget(void);

/* The rule itself, for given figures; UINT64_MAX for "no limit", 0 for
 * an unknown amount of physical memory (then only the limits count, and
 * without any the budget is UINT64_MAX). */
uint64_t memlimit_budget_of(uint64_t phys, uint64_t as_limit,
			    uint64_t data_limit);

#endif
