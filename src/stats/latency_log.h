/* latency_log.h: --latency-log FILE, every latency sample as one line
 * "OPNAME MICROSECONDS".  For tests and debugging: it costs a write(2)
 * per command.  `imapstress latency FILE...` builds the run's histograms
 * from such files. */
#ifndef IMAPSTRESS_LATENCY_LOG_H
#define IMAPSTRESS_LATENCY_LOG_H

#include <stdint.h>

#include "plan/ops.h"

/* O_APPEND, so lines from several workers never interleave (each is one
 * write of a few bytes).  -1 with errno on failure. */
int latency_log_open(const char *path);
void latency_log_write(int fd, enum op op, uint64_t us);

/* The subcommand: argv[0] is "latency".  Prints, per command and for all
 * commands, count min p50 p95 p99 max in microseconds.  Exit status. */
int latency_main(int argc, char **argv);

#endif
