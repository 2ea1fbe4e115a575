/* rawlog.c: see rawlog.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "rawlog.h"
#include "xmalloc.h"

/* Octets of one direction shown before the rest of a line is cut. */
#define RAWLOG_LINE_MAX 2048

struct rawlog {
	FILE *f;
	char cur;		/* direction of the line being written, 0 = none */
	size_t line_len;	/* octets of it written so far */
	size_t cut;		/* octets of it not written */
	bool cr_held;		/* a CR ended the last call: CRLF or not? */
};

struct rawlog *
rawlog_open(const char *dir, unsigned slot)
{
	char path[4096];
	struct rawlog *r;

	snprintf(path, sizeof(path), "%s/rawlog.%u", dir, slot);
	FILE *f = fopen(path, "a");
	if (f == NULL) {
		log_warn("rawlog: cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->f = f;
	return r;
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
	rawlog_end_line(r);
	fclose(r->f);
	free(r);
}

void
rawlog_note(struct rawlog *r, const char *fmt, ...)
{
	va_list ap;
	if (r == NULL)
		return;
	rawlog_end_line(r);
	fputs("# ", r->f);
	va_start(ap, fmt);
	vfprintf(r->f, fmt, ap);
	va_end(ap);
	fputc('\n', r->f);
	fflush(r->f);
}

void
rawlog_data(struct rawlog *r, char who, const char *data, size_t len)
{
	if (r == NULL || len == 0)
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
	fflush(r->f);
}
