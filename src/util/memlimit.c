/* memlimit.c: see memlimit.h. */
#include <sys/resource.h>
#include <unistd.h>

#include "util/memlimit.h"

uint64_t
memlimit_budget_of(uint64_t phys, uint64_t as_limit, uint64_t data_limit)
{
	uint64_t b = phys != 0 ? phys / 4 : UINT64_MAX;
	if (as_limit != UINT64_MAX && as_limit / 2 < b)
		b = as_limit / 2;
	if (data_limit != UINT64_MAX && data_limit / 2 < b)
		b = data_limit / 2;
	return b;
}

static uint64_t
memlimit_rlimit(int which)
{
	struct rlimit rl;
	if (getrlimit(which, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

uint64_t
memlimit_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	uint64_t phys = pages > 0 && size > 0 ?
	    (uint64_t)pages * (uint64_t)size : 0;
	return memlimit_budget_of(phys, memlimit_rlimit(RLIMIT_AS),
				  memlimit_rlimit(RLIMIT_DATA));
}
