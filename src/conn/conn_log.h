/* conn_log.h: error lines for one connection, in imaptest's form
 * "Error: <user>[<slot>]: <what>", shown in full only for the first few of
 * each kind so that a failing server does not bury the terminal (the
 * per-second err= column and the totals count all of them). */
#ifndef IMAPSTRESS_CONN_LOG_H
#define IMAPSTRESS_CONN_LOG_H

#include "conn/conn_int.h"

/* How many stall warnings a run prints in full (error lines: as many of
 * each kind as --errors-shown says). */
#define CONN_LOG_MAX_PER_KIND 5

/* What follows the error line: nothing (conn_log_err), or counting one
 * error of `kind` and setting the quit reason (conn_fail): the
 * connection closes when the event that found the fault returns
 * (conn_settle; conn_int.h says why nothing lower closes it).  One
 * function; the two names say which at the call. */
enum conn_err_then { CONN_ERR_LOG_ONLY, CONN_ERR_QUIT };

void conn_err(struct conn *c, enum err_kind kind, enum conn_err_then then,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define conn_log_err(c, kind, ...) \
	conn_err((c), (kind), CONN_ERR_LOG_ONLY, __VA_ARGS__)
#define conn_fail(c, kind, ...) \
	conn_err((c), (kind), CONN_ERR_QUIT, __VA_ARGS__)

/* A mailbox-state error's line, shown while fewer than --errors-shown of
 * its sub-kind were (each sub-kind has its own, so a storm of one does
 * not hide the first lines of another); the caller counts it. */
void conn_log_state_err(struct conn *c, enum mbox_err kind, const char *fmt,
			...) __attribute__((format(printf, 3, 4)));

/* "APPEND" or "CAPABILITY" (for internal commands). */
const char *conn_inflight_name(const struct inflight *f);

#endif
