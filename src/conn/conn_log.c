/* conn_log.c: see conn_log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "util/log.h"
#include "conn/shared.h"

static const char *const internal_name[] = {
	[CONN_I_NONE] = "",
	[CONN_I_CAPABILITY] = "CAPABILITY",
	[CONN_I_ENABLE] = "ENABLE",
	[CONN_I_STARTTLS] = "STARTTLS",
	[CONN_I_ID] = "ID",
	[CONN_I_CREATE] = "CREATE",
	[CONN_I_CHECK] = "CHECK",
	[CONN_I_LIST] = "LIST",
	[CONN_I_GUARD] = "UID SEARCH (foreign-mail check)",
	[CONN_I_NOTIFY] = "NOTIFY",
};

const char *
conn_inflight_name(const struct inflight *f)
{
	if (f->internal != CONN_I_NONE)
		return internal_name[f->internal];
	return op_table[f->op].name;
}

/* The line, unless --errors-shown lines of its kind (*logged) were
 * shown. */
static void
conn_vlog_line(struct conn *c, _Atomic unsigned *logged, const char *fmt,
	       va_list ap)
{
	/* Shared by all workers: the only atomic read-modify-write, and it
	 * happens on the error path only. */
	unsigned max = c->env->cfg->errors_shown;
	unsigned n = atomic_fetch_add_explicit(logged, 1, memory_order_relaxed);
	char msg[1024];

	if (n >= max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_error("%s[%u]: %s%s", c->login.user, c->life.slot, msg,
		  n + 1 == max ?
		  " (further errors of this kind are only counted)" : "");
}

static void
conn_vlog_err(struct conn *c, enum err_kind kind, const char *fmt, va_list ap)
{
	if (c->env->hooks->error != NULL) {
		/* The driver reports it (conn_hooks.error), uncapped: its
		 * own report says each failure once. */
		char msg[1024];
		vsnprintf(msg, sizeof(msg), fmt, ap);
		c->env->hooks->error(c->env->hook_arg, c, kind, msg);
		return;
	}
	conn_vlog_line(c, &c->env->sh->live->err_logged[kind], fmt, ap);
}

void
conn_log_state_err(struct conn *c, enum mbox_err kind, const char *fmt, ...)
{
	va_list ap;

	if ((unsigned)kind >= MBOX_ERR_COUNT)
		kind = MBOX_ERR_SYNTAX;	/* cannot be: the model's own kinds */
	va_start(ap, fmt);
	conn_vlog_line(c, &c->env->sh->live->state_logged[kind], fmt, ap);
	va_end(ap);
}

void
conn_err(struct conn *c, enum err_kind kind, enum conn_err_then then,
	 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conn_vlog_err(c, kind, fmt, ap);
	va_end(ap);
	if (then == CONN_ERR_LOG_ONLY)
		return;
	stats_err(c->env->stats, kind);
	conn_quit(c, conn_end_now(c), kind);
}

void
conn_log_error(struct conn *c, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conn_vlog_err(c, kind, fmt, ap);
	va_end(ap);
}

#ifdef CONN_HOLD_CHECK
/* A field of the may-send predicate changed without conn_hold_update().
 * Here, in a file that calls nothing of conn/, because every layer that
 * asks the predicate calls it (in conn.c it closed a file circle in
 * CI's -DCONN_HOLD_CHECK build). */
void
conn_hold_mismatch(const struct conn *c)
{
	fprintf(stderr, "conn %u: hold 0x%x, fields say 0x%x\n", c->life.slot,
		(unsigned)c->hold, conn_hold_of(c));
	abort();
}
#endif
