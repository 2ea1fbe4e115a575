/* setup.h: the struct shared of a run (shared.h), built once by the main
 * thread before any worker exists: the resolved server and --source
 * addresses, the userfile (this shard's slice), the message pool, the TLS
 * context, the worker count, the checkpoint's meeting point, the
 * --latency-log file.  A bad input is a usage error (exit 2) naming it. */
#ifndef IMAPSTRESS_SETUP_H
#define IMAPSTRESS_SETUP_H

struct config;
struct shared;

struct shared *shared_new(const struct config *cfg);
void shared_free(struct shared *sh);		/* NULL is a no-op */

#endif
