/* log.c: stderr logging.  Each message is formatted into one buffer and
 * written with a single write() so lines from worker threads never
 * interleave mid-line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static void
log_emit(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, len);
	(void)w;
}

void
log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_emit("Info: ", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_emit("Warning: ", fmt, ap);
	va_end(ap);
}

void
log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_emit("Error: ", fmt, ap);
	va_end(ap);
}

void
fatal(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_emit("imapstress: ", fmt, ap);
	va_end(ap);
	exit(status);
}
