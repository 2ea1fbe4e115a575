/* conn_log.h: error lines for one connection, in imaptest's form
 * "Error: <user>[<slot>]: <what>", shown in full only for the first few of
 * each kind so that a failing server does not bury the terminal (the
 * per-second err= column and the totals count all of them). */
#ifndef IMAPSTRESS_CONN_LOG_H
#define IMAPSTRESS_CONN_LOG_H

#include "conn_int.h"

/* How many full lines of each error kind a run prints. */
#define CONN_LOG_MAX_PER_KIND 5

void conn_log_err(struct conn *c, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The connection failed: the error line (as conn_log_err), then close it,
 * counting one error of `kind`.  conn_fail_later is for the parser's
 * callbacks: the close happens once the callback returns. */
void conn_fail(struct conn *c, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void conn_fail_later(struct conn *c, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "APPEND" or "CAPABILITY" (for internal commands). */
const char *conn_inflight_name(const struct inflight *f);

#endif
