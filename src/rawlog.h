/* rawlog.h: imaptest's `rawlog`: the protocol of each client slot written
 * to rawlog.<slot> in --rawlog-dir, one line per protocol line, "C: " for
 * what we sent and "S: " for what the server sent.  Passwords never reach
 * the file (LOGIN and AUTHENTICATE are written redacted), and a long
 * literal is cut to its first bytes so the log stays readable. */
#ifndef IMAPSTRESS_RAWLOG_H
#define IMAPSTRESS_RAWLOG_H

#include <stddef.h>
#include <stdint.h>

struct rawlog;

/* NULL (and a warning, once) when the file cannot be opened. */
struct rawlog *rawlog_open(const char *dir, unsigned slot);
void rawlog_close(struct rawlog *r);		/* NULL is a no-op */

/* A marker line: "# connected", "# TLS established". */
void rawlog_note(struct rawlog *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Bytes in one direction ('C' sent, 'S' received), as they come. */
void rawlog_data(struct rawlog *r, char who, const char *data, size_t len);

#endif
