/* self_cpu.h: this process's CPU time so far (getrusage), in microseconds:
 * the run's own cost beside the server's (run.c: per tick, warm-up, end). */
#ifndef IMAPSTRESS_SELF_CPU_H
#define IMAPSTRESS_SELF_CPU_H

#include <stdint.h>

/* User + system; each part too where the pointer is not NULL. */
uint64_t self_cpu_us(uint64_t *user, uint64_t *sys);

#endif
