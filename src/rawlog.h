/* rawlog.h: imaptest's `rawlog`: the protocol of each client slot written
 * to rawlog.<slot> in --rawlog-dir, one line per protocol line, "C: " for
 * what we sent and "S: " for what the server sent.  Passwords never reach
 * the file (LOGIN and AUTHENTICATE are written redacted), and a long
 * literal is cut to its first bytes so the log stays readable. */
#ifndef IMAPSTRESS_RAWLOG_H
#define IMAPSTRESS_RAWLOG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct rawlog;

/* NULL when the file cannot be opened.  A new file is created with
 * O_EXCL|O_NOFOLLOW, mode 0600; an existing rawlog.<slot> is appended to
 * only when it is a regular file of ours with no other link, so a symlink
 * or hard link placed in the directory is refused by name and whatever it
 * points to is never touched.  `failures` (shared by every rawlog of a
 * run, may be NULL) counts files that could not be opened or written:
 * the first few are named on stderr with the reason, the count makes the
 * run's exit status non-zero.  After its first failed write a rawlog
 * writes nothing more. */
struct rawlog *rawlog_open(const char *dir, unsigned slot,
			   _Atomic unsigned *failures);
void rawlog_close(struct rawlog *r);		/* NULL is a no-op */

/* A marker line: "# connected", "# TLS established".  Its text is
 * escaped (escape.h): it may hold a user name from the command line. */
void rawlog_note(struct rawlog *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Bytes in one direction ('C' sent, 'S' received), as they come. */
void rawlog_data(struct rawlog *r, char who, const char *data, size_t len);

#endif
