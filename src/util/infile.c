/* infile.c: see infile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/infile.h"
#include "util/units.h"
#include "util/xmalloc.h"

static const char *
infile_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a plain file";
}

static void
infile_too_big(size_t max, char *why, size_t whylen)
{
	char lim[32];
	units_fmt_size(lim, sizeof(lim), max);
	snprintf(why, whylen, "larger than %s", lim);
}

int
infile_open(const char *path, size_t max, struct stat *st, char *why,
	    size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)",
			 infile_kind(st->st_mode));
	} else if ((unsigned long long)st->st_size > max) {
		infile_too_big(max, why, whylen);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

int
infile_check_regular(const char *path, char *why, size_t whylen)
{
	struct stat st;
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return 0;
	snprintf(why, whylen, "not a regular file (%s)", infile_kind(st.st_mode));
	return -1;
}

char *
infile_read_fd(int fd, size_t max, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	size_t cap = 4096, n = 0;

	/* st_size is a hint for the first allocation, never a bound: the
	 * file may grow while it is read, and /proc says 0. */
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (unsigned long long)st.st_size < max)
		cap = (size_t)st.st_size + 1;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				infile_too_big(max, why, whylen);
				free(buf);
				return NULL;
			}
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "cannot read: %s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		infile_too_big(max, why, whylen);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *
infile_read(const char *path, size_t max, size_t *len, char *why,
	    size_t whylen)
{
	struct stat st;
	int fd = infile_open(path, max, &st, why, whylen);
	if (fd < 0)
		return NULL;
	char *buf = infile_read_fd(fd, max, len, why, whylen);
	close(fd);
	return buf;
}
