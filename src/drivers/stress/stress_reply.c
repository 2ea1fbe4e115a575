/* stress_reply.c: what the plan does with the reply to one of its
 * commands, after the engine has counted it and applied its effects
 * (conn_resp.c): imaptest's DISCONNECT chance after an OK, the CREATE it
 * sends when a COPY says TRYCREATE or a SELECT or APPEND fails, and the
 * NOs it shows (random mailbox names that do not exist, or do already,
 * are counted, not shown). */
#include "config/config.h"
#include "drivers/stress/stress_plan.h"
#include "imap/imap.h"
#include "util/rng.h"

static bool
names_mailboxes(enum op op)
{
	return op == OP_MCREATE || op == OP_MDELETE || op == OP_MRENAME ||
	    op == OP_MSUBS || op == OP_COPY || op == OP_MOVE;
}

void
stress_reply(void *arg, struct conn *c, enum conn_reply st, const char *text,
	     size_t len)
{
	const struct stress_ref *ref = arg;
	struct stress_plans *sp = ref->sp;
	enum op op = ref->op;

	(void)text;
	(void)len;
	if (st == CONN_REPLY_OK) {
		if (op == OP_SELECT)	/* empty now: no search needed */
			conn_guard_selected(c, sp->cfg->box);
		if (sp->disconnect_pct > 0 && op != OP_LOGOUT &&
		    conn_may_disconnect(c) &&
		    rng_pct(conn_rng(c), sp->disconnect_pct))
			stress_disconnect(sp, c);
		return;
	}
	if (st != CONN_REPLY_NO)
		return;		/* a BAD ended the session (the engine) */
	const struct config *cfg = sp->cfg;
	const struct imap_resp *r = conn_reply(c);
	int benign = conn_benign(op, r);
	if (benign == BENIGN_TRYCREATE) {
		/* The copy target does not exist yet: create it, as
		 * imaptest does, and go on. */
		conn_create(c, cfg->copybox);
		return;
	}
	if (!names_mailboxes(op) && benign < 0)
		conn_log_error(c, ERR_NO, "%s failed: %.200s",
			       op_table[op].name, r->line);
	if (op == OP_SELECT || op == OP_APPEND)
		conn_create(c, cfg->box);	/* box= may not exist yet */
}
