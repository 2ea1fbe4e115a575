/* rawlog.c: see rawlog.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/log.h"
#include "net/rawlog.h"
#include "util/xmalloc.h"

/* Octets of one direction shown before the rest of a line is cut. */
#define RAWLOG_LINE_MAX 2048
/* Failing rawlog files named in full; the rest are only counted. */
#define RAWLOG_ERRORS_SHOWN 5

struct rawlog {
	FILE *f;
	char *path;
	_Atomic unsigned *failures;
	bool failed;		/* a write failed: nothing more is written */
	char cur;		/* direction of the line being written, 0 = none */
	size_t line_len;	/* octets of it written so far */
	size_t cut;		/* octets of it not written */
	bool cr_held;		/* a CR ended the last call: CRLF or not? */
};

/* One line on stderr for the first few files that fail, then a count. */
static void
rawlog_report(_Atomic unsigned *failures, const char *path, const char *what,
	      const char *why)
{
	unsigned n = 0;
	if (failures != NULL)
		n = atomic_fetch_add_explicit(failures, 1, memory_order_relaxed);
	if (n >= RAWLOG_ERRORS_SHOWN)
		return;
	log_error("rawlog: %s %s: %s%s", what, path, why,
		  n + 1 == RAWLOG_ERRORS_SHOWN ?
		  " (further rawlog errors are only counted)" : "");
}

/* O_EXCL|O_NOFOLLOW for a new file; an old one only when it is plainly
 * ours (see rawlog.h).  -1 with *why set otherwise. */
static int
rawlog_open_fd(const char *path, const char **why)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST) {
		*why = strerror(errno);
		return -1;
	}
	/* O_NONBLOCK: a FIFO with that name must not hang the start. */
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
		  O_CLOEXEC);
	if (fd < 0) {
		/* ENXIO: a FIFO nobody reads, opened without blocking. */
		*why = errno == ELOOP ? "is a symbolic link; not followed" :
		    errno == ENXIO ? "exists and is not a regular file" :
		    strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0)
		*why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		*why = "exists and is not a regular file";
	else if (st.st_nlink != 1)
		*why = "has another hard link; not written through";
	else if (st.st_uid != geteuid())
		*why = "belongs to another user";
	else if (fcntl(fd, F_SETFL, O_APPEND) != 0)
		*why = strerror(errno);
	else
		return fd;
	close(fd);
	return -1;
}

struct rawlog *
rawlog_open(const char *dir, unsigned slot, _Atomic unsigned *failures)
{
	char path[4096];
	const char *why = NULL;
	struct rawlog *r;

	snprintf(path, sizeof(path), "%s/rawlog.%u", dir, slot);
	int fd = rawlog_open_fd(path, &why);
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (f == NULL) {
		if (fd >= 0) {
			why = strerror(errno);
			close(fd);
		}
		rawlog_report(failures, path, "cannot open", why);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->f = f;
	r->path = xstrdup(path);
	r->failures = failures;
	return r;
}

/* After a batch of writes: stdio keeps the first error, and the flush
 * gives its errno (ENOSPC on a full disk). */
static void
rawlog_check(struct rawlog *r)
{
	errno = 0;
	if (fflush(r->f) == 0 && !ferror(r->f))
		return;
	r->failed = true;
	rawlog_report(r->failures, r->path, "cannot write",
		      strerror(errno != 0 ? errno : EIO));
}

/* Write a piece of the current line, keeping to the line limit. */
static void
rawlog_put(struct rawlog *r, const char *data, size_t n)
{
	size_t room = r->line_len < RAWLOG_LINE_MAX ?
	    RAWLOG_LINE_MAX - r->line_len : 0;
	size_t show = n < room ? n : room;
	fwrite(data, 1, show, r->f);
	r->line_len += show;
	r->cut += n - show;
}

static void
rawlog_end_line(struct rawlog *r)
{
	if (r->cur == 0)
		return;
	if (r->cut > 0)
		fprintf(r->f, " <%zu more octets>", r->cut);
	fputc('\n', r->f);
	r->cur = 0;
	r->line_len = r->cut = 0;
	r->cr_held = false;
}

void
rawlog_close(struct rawlog *r)
{
	if (r == NULL)
		return;
	if (!r->failed) {
		rawlog_end_line(r);
		rawlog_check(r);
	}
	if (fclose(r->f) != 0 && !r->failed)
		rawlog_report(r->failures, r->path, "cannot write",
			      strerror(errno));
	free(r->path);
	free(r);
}

void
rawlog_note(struct rawlog *r, const char *fmt, ...)
{
	va_list ap;
	char text[512], shown[2048];
	if (r == NULL || r->failed)
		return;
	rawlog_end_line(r);
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(text) ? (size_t)n :
	    sizeof(text) - 1;
	escape_text(shown, sizeof(shown), text, len);
	fprintf(r->f, "# %s\n", shown);
	rawlog_check(r);
}

void
rawlog_data(struct rawlog *r, char who, const char *data, size_t len)
{
	if (r == NULL || r->failed || len == 0)
		return;
	if (r->cur != 0 && r->cur != who) {
		if (r->cr_held)
			rawlog_put(r, "\r", 1);
		rawlog_end_line(r);
	}
	while (len > 0) {
		if (r->cur == 0) {
			fprintf(r->f, "%c: ", who);
			r->cur = who;
		}
		if (r->cr_held) {
			/* A CR that ended the previous call: dropped when it
			 * turns out to be half of a CRLF, shown otherwise. */
			r->cr_held = false;
			if (data[0] != '\n')
				rawlog_put(r, "\r", 1);
		}
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;
		size_t body = n;
		if (nl != NULL && body > 0 && data[body - 1] == '\r')
			body--;		/* the CR of CRLF is not worth showing */
		else if (nl == NULL && body > 0 && data[body - 1] == '\r') {
			body--;
			r->cr_held = true;
		}
		rawlog_put(r, data, body);
		if (nl == NULL)
			break;
		rawlog_end_line(r);
		data += n + 1;
		len -= n + 1;
	}
	rawlog_check(r);
}
