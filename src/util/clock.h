/* clock.h: monotonic microseconds, the only clock latencies are taken on. */
#ifndef IMAPSTRESS_CLOCK_H
#define IMAPSTRESS_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#endif
