/* log.c: stderr logging.  Each message is formatted into one buffer and
 * written with a single write() so lines from worker threads never
 * interleave mid-line.  Every message passes through escape_text() here,
 * so whatever a server or the command line put into it (a BYE text, a
 * user= value) reaches the terminal as printable ASCII. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/log.h"

static void
log_emit(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048], buf[4096];
	int m = vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t mlen = m < 0 ? 0 : (size_t)m;
	if (mlen > sizeof(msg) - 1)
		mlen = sizeof(msg) - 1;
	int n = snprintf(buf, sizeof(buf), "%s", prefix);
	size_t len = (size_t)n + escape_text(buf + n, sizeof(buf) - (size_t)n - 1,
					     msg, mlen);
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
