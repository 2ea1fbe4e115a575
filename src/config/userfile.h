/* userfile.h: imaptest's userfile=: one user per line, or user:password;
 * a "{PLAIN}" scheme prefix on the password is stripped.  Each connection
 * picks a user at random from it. */
#ifndef IMAPSTRESS_USERFILE_H
#define IMAPSTRESS_USERFILE_H

#include <stddef.h>

struct userfile_entry {
	const char *user;
	const char *pass;	/* NULL: use the run's password */
};

struct userfile {
	struct userfile_entry *e;
	unsigned n;
	char *text;		/* the file, entries point into it */
};

/* NULL with a message naming the file (and line) on error. */
struct userfile *userfile_load(const char *path, char *err, size_t errlen);
void userfile_free(struct userfile *u);		/* NULL is a no-op */

#endif
