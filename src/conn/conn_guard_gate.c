/* conn_guard_gate.c: the gate of the foreign-mail guard (conn_guard.c)
 * that every driver command passes on its way out (conn_cmd_send):
 * a destructive command that was not cleared aborts the run (a bug of
 * ours, never the server's), and CREATE, DELETE and RENAME of a mailbox
 * change what is ours when their OK comes (conn_guard_names_done). */
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "conn/conn_int.h"
#include "imap/guard.h"
#include "conn/shared.h"
#include "util/log.h"

bool
conn_guard_destructive(enum op op, const char *text, size_t len)
{
	switch (op) {
	case OP_EXPUNGE:	/* whatever the text: the state is one */
	case OP_MOVE:
	case OP_DELETE:		/* imaptest's STORE +FLAGS \Deleted */
	case OP_MDELETE:
		return true;
	default:
		return guard_destructive_text(text, len);
	}
}

static void
conn_guard_unselect(struct conn *c)
{
	if (c->mbox.guard == CONN_G_OK)
		c->mbox.guard = CONN_G_NONE;
}

/* The command's text after its tag (a long one is read from the staging
 * buffer it moved to); false when there is none. */
static bool
gate_text(struct conn *c, const struct imap_cmd *cmd, const char **text,
	  size_t *len)
{
	if (!imap_cmd_inline_text(cmd, text, len)) {
		*len = evbuffer_get_length(c->cmd.stage);
		if (*len > 4096)
			*len = 4096;
		*text = (const char *)evbuffer_pullup(c->cmd.stage, (ev_ssize_t)*len);
		if (*text == NULL)
			return false;
	}
	/* The tag ends where its writer marked it, else at the first
	 * space (a tag has none). */
	const char *sp = cmd->words_at > 0 && cmd->words_at <= *len &&
	    (*text)[cmd->words_at - 1] == ' ' ? *text + cmd->words_at - 1 :
	    memchr(*text, ' ', *len);
	if (sp == NULL)
		return false;
	*len -= (size_t)(sp + 1 - *text);
	*text = sp + 1;
	return true;
}

/* Entry + 1 of the k-th mailbox a CREATE/DELETE/RENAME names, 0: none. */
static uint32_t
gate_name(struct conn *c, const char *text, size_t len, unsigned k)
{
	const char *box;
	size_t n = guard_box_arg(text, len, k, &box);
	return n == 0 ? 0 : guard_entry(c->env->guard, c->login.user, box, n) + 1;
}

uint64_t
conn_guard_gate_all(struct conn *c, enum op op, const struct imap_cmd *cmd)
{
	const char *text;
	size_t len;

	if (op == OP_APPEND || c->env->guard == NULL)
		return 0;
	if (op == OP_SELECT) {
		conn_guard_unselect(c);
		return 0;
	}
	if (!gate_text(c, cmd, &text, &len))
		return 0;
	if (op == OP_MCREATE || op == OP_MRENAME || op == OP_MDELETE) {
		/* Which mailboxes: their replies change what is ours. */
		uint64_t names = gate_name(c, text, len, 0);
		if (op == OP_MRENAME)
			names |= (uint64_t)gate_name(c, text, len, 1) << 32;
		if (op == OP_MCREATE)
			return names;
		uint32_t src = (uint32_t)names;
		if (src != 0 && guard_verdict(c->env->guard, src - 1) ==
		    GUARD_SAFE)
			return names;
	} else if (!conn_guard_destructive(op, text, len) ||
		   (c->mbox.guard == CONN_G_OK && !guard_names_box(text, len))) {
		return 0;
	}
	log_error("internal error: %.*s went out without the foreign-mail "
		  "check (conn_guard_clear, conn_guard_ours)",
		  (int)(len < 80 ? len : 80), text);
	abort();
}

void
conn_guard_names_done(struct conn *c, enum op op, uint64_t names)
{
	struct guard *g = c->env->guard;
	uint32_t a = (uint32_t)names, b = (uint32_t)(names >> 32);

	if (g == NULL || a == 0)
		return;
	/* A mailbox this run created is empty but for what it puts there;
	 * one deleted or renamed away is unknown again (a new one may come
	 * by that name); a RENAME's target holds the source's mail. */
	if (op == OP_MCREATE) {
		guard_set(g, a - 1, GUARD_SAFE);
		return;
	}
	guard_set(g, a - 1, GUARD_UNKNOWN);
	if (c->mbox.guard == CONN_G_OK && c->mbox.guard_e == a - 1)
		c->mbox.guard = CONN_G_NONE;
	if (op == OP_MRENAME && b != 0)
		guard_set(g, b - 1, GUARD_SAFE);
}
