/* self_cpu.c: this process's CPU time (self_cpu.h). */
#include <sys/resource.h>

#include "util/self_cpu.h"

uint64_t
self_cpu_us(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t u = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
	uint64_t s = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
	if (user)
		*user = u;
	if (sys)
		*sys = s;
	return u + s;
}
