/* conn_log.c: see conn_log.h. */
#include <stdarg.h>
#include <stdio.h>

#include "conn_log.h"
#include "log.h"
#include "shared.h"

static const char *const internal_name[] = {
	[CONN_I_NONE] = "",
	[CONN_I_CAPABILITY] = "CAPABILITY",
	[CONN_I_ENABLE] = "ENABLE",
	[CONN_I_STARTTLS] = "STARTTLS",
	[CONN_I_ID] = "ID",
	[CONN_I_CREATE] = "CREATE",
	[CONN_I_CHECK] = "CHECK",
	[CONN_I_LIST] = "LIST",
};

const char *
conn_inflight_name(const struct inflight *f)
{
	if (f->internal != CONN_I_NONE)
		return internal_name[f->internal];
	return op_table[f->op].name;
}

static void
conn_vlog_err(struct conn *c, enum err_kind kind, const char *fmt, va_list ap)
{
	/* Shared by all workers: the only atomic read-modify-write, and it
	 * happens on the error path only. */
	struct shared_live *live = c->env->sh->live;
	unsigned n = atomic_fetch_add_explicit(&live->err_logged[kind], 1,
					       memory_order_relaxed);
	char msg[1024];

	if (n >= CONN_LOG_MAX_PER_KIND)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_error("%s[%u]: %s%s", c->user, c->slot, msg,
		  n + 1 == CONN_LOG_MAX_PER_KIND ?
		  " (further errors of this kind are only counted)" : "");
}

void
conn_log_err(struct conn *c, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conn_vlog_err(c, kind, fmt, ap);
	va_end(ap);
}

void
conn_fail(struct conn *c, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conn_vlog_err(c, kind, fmt, ap);
	va_end(ap);
	conn_close(c, kind, true);
}

void
conn_fail_later(struct conn *c, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conn_vlog_err(c, kind, fmt, ap);
	va_end(ap);
	conn_close_later(c, kind, true);
}
