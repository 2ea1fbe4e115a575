/* version.h: the one place the version is written.  The binary, the ID
 * command, the Makefile (install, deb) and the debian/changelog check all
 * read it from here. */
#ifndef IMAPSTRESS_VERSION_H
#define IMAPSTRESS_VERSION_H

#define IMAPSTRESS_VERSION "0.1.0"

#endif
