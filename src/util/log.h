/* log.h: messages to stderr in Dovecot's log style ("Error: ...").
 * fatal() is for startup only; never call it from an event callback. */
#ifndef IMAPSTRESS_LOG_H
#define IMAPSTRESS_LOG_H

#define LOG_PRINTF(a, b) __attribute__((format(printf, a, b)))

void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_error(const char *fmt, ...) LOG_PRINTF(1, 2);
_Noreturn void fatal(int status, const char *fmt, ...) LOG_PRINTF(2, 3);

#endif
