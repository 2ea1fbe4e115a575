/* infile.h: the files a command line names for reading (userfile=,
 * --password-file, mbox=).  Only regular files are read: a FIFO, a tty or
 * /dev/zero would hang the start or fill memory, so they are refused with
 * the reason.  Opening never blocks (O_NONBLOCK), and no more than a bound
 * is ever read, whatever st_size says (/proc files say 0). */
#ifndef IMAPSTRESS_INFILE_H
#define IMAPSTRESS_INFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* A read-only descriptor for path, or -1 with the reason in why
 * ("cannot open: No such file or directory", "not a regular file (a
 * FIFO)", "larger than 64 MiB").  *st gets its fstat. */
int infile_open(const char *path, size_t max, struct stat *st, char *why,
		size_t whylen);

/* For a file read by someone else (OpenSSL reads --ca-file): 0 when path
 * is a regular file or does not exist (the reader then says so), else -1
 * with the reason in why.  stat() only: nothing is opened. */
int infile_check_regular(const char *path, char *why, size_t whylen);

/* All of a file of at most max octets, NUL-terminated (*len without the
 * NUL), or NULL with the reason in why.  The caller frees it. */
char *infile_read(const char *path, size_t max, size_t *len, char *why,
		  size_t whylen);

/* The same read on a descriptor infile_open gave (closed by the caller). */
char *infile_read_fd(int fd, size_t max, size_t *len, char *why,
		     size_t whylen);

#endif
