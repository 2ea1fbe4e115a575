/* stress_ops.c: the command each imaptest state sends.  The shapes follow
 * imaptest's (random FETCH item lists, mailbox names, SORT keys) so the
 * server sees the same kind of work; APPEND and STORE have files of their
 * own.  Every command goes out through conn_cmd_send, its reply back to
 * stress_reply. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "conn/shared.h"
#include "drivers/stress/stress_ops.h"
#include "drivers/stress/stress_plan.h"
#include "imap/imap_cmd.h"
#include "plan/seqpick.h"
#include "util/log.h"

/* The builders, each reached from its entry in stress_builders (at the
 * end): the compiler may inline one into its entry, whose frame no other
 * state pays for. */
#define BUILDER static bool

static const char *const fetch_items[] = {
	"UID", "FLAGS", "ENVELOPE", "INTERNALDATE", "BODY", "BODYSTRUCTURE",
	"RFC822.SIZE"
};
static const char *const fetch_headers[] = {
	"From", "To", "Cc", "Subject", "References", "In-Reply-To",
	"Message-ID", "Delivered-To"
};
static const char *const fetch2_items[] = {
	"BODY.PEEK[HEADER]", "RFC822.HEADER", "BODY.PEEK[]", "BODY.PEEK[1]",
	"BODY.PEEK[TEXT]"
};
static const char *const sort_keys[] = {
	"ARRIVAL", "CC", "DATE", "FROM", "SIZE", "SUBJECT", "TO"
};
static const char *const search_keys[] = {
	"FLAGGED", "UNSEEN", "SEEN", "ANSWERED", "SUBJECT test", "BODY hello",
	"FROM example", "LARGER 10000", "SMALLER 2000", "NOT DELETED"
};

void
stress_op_unsupported(struct stress_plans *sp, enum op op, const char *cap)
{
	struct shared_live *live = sp->sh->live;
	unsigned bit = 1u << (op % 32);
	if (atomic_fetch_or(&live->warned_ops, bit) & bit)
		return;
	log_warn("server does not advertise %s: %s commands are skipped",
		 cap, op_table[op].name);
}

BUILDER
op_fetch(struct stress_plans *sp, struct conn *c)
{
	struct rng *rng = conn_rng(c);
	uint32_t seqs[STRESS_MAX_SEQS];
	struct imap_cmd cmd;
	unsigned n = seqpick_draw(rng, conn_exists(c), STRESS_MAX_SEQS, seqs);

	if (n == 0)
		return false;
	uint32_t tag = conn_cmd_begin(c, &cmd);
	imap_cmd_adds(&cmd, "FETCH ");
	imap_cmd_seqset(&cmd, seqs, n);
	imap_cmd_adds(&cmd, " (");
	for (unsigned i = 1 + rng_below(rng, 4); i > 0; i--) {
		if (rng_below(rng, 4) != 0) {
			imap_cmd_adds(&cmd, STRESS_PICK(rng, fetch_items));
		} else {
			imap_cmd_adds(&cmd, "BODY.PEEK[HEADER.FIELDS (");
			for (unsigned j = 1 + rng_below(rng, 4); j > 0; j--) {
				imap_cmd_adds(&cmd, STRESS_PICK(rng, fetch_headers));
				if (j != 1)
					imap_cmd_adds(&cmd, " ");
			}
			imap_cmd_adds(&cmd, ")]");
		}
		if (i != 1)
			imap_cmd_adds(&cmd, " ");
	}
	imap_cmd_adds(&cmd, ")");
	stress_reply_send(sp, c, &cmd, tag, OP_FETCH);
	return true;
}

BUILDER
op_fetch2(struct stress_plans *sp, struct conn *c)
{
	struct rng *rng = conn_rng(c);
	struct imap_cmd cmd;
	uint32_t tag = conn_cmd_begin(c, &cmd);

	/* UID too, so that an error line can name the message. */
	imap_cmd_printf(&cmd, "FETCH %u (UID %s)",
			1 + rng_below(rng, conn_exists(c)),
			STRESS_PICK(rng, fetch2_items));
	stress_reply_send(sp, c, &cmd, tag, OP_FETCH2);
	return true;
}

BUILDER
op_text(struct stress_plans *sp, struct conn *c, enum op op, const char *fmt,
	const char *arg)
{
	struct imap_cmd cmd;
	uint32_t tag = conn_cmd_begin(c, &cmd);

	imap_cmd_printf(&cmd, fmt, arg);
	stress_reply_send(sp, c, &cmd, tag, op);
	return true;
}

/* A command of one fixed word (NOOP, CHECK, EXPUNGE), its length known
 * when compiling: no printf, no strlen on the hot path. */
#define OP_WORD(sp, c, op, word) op_word((sp), (c), (op), (word), \
					 sizeof(word) - 1)
BUILDER
op_word(struct stress_plans *sp, struct conn *c, enum op op, const char *word,
	size_t len)
{
	struct imap_cmd cmd;
	uint32_t tag = conn_cmd_begin(c, &cmd);

	imap_cmd_add(&cmd, word, len);
	stress_reply_send(sp, c, &cmd, tag, op);
	return true;
}

/* "<verb> <box><tail>" with box= quoted (or a literal) as it needs. */
BUILDER
op_box(struct stress_plans *sp, struct conn *c, enum op op, const char *verb,
       const char *tail)
{
	const char *box = sp->cfg->box;
	struct imap_cmd cmd;
	uint32_t tag = conn_cmd_begin(c, &cmd);

	imap_cmd_adds(&cmd, verb);
	imap_cmd_astring(&cmd, box, sp->box_len);
	imap_cmd_adds(&cmd, tail);
	stress_reply_send(sp, c, &cmd, tag, op);
	return true;
}

BUILDER
op_mailbox(struct stress_plans *sp, struct conn *c, enum op op)
{
	struct rng *rng = conn_rng(c);
	char name[64], other[160];
	unsigned a = rng_below(rng, 20), b = rng_below(rng, 20);
	char sep = conn_sep(c) ? conn_sep(c) : '/';

	if (rng_pct(rng, 50))
		snprintf(name, sizeof(name), "\"test%c%u\"", sep, a);
	else
		snprintf(name, sizeof(name), "\"test%c%u%c%u\"", sep, a, sep, b);
	/* DELETE or RENAME only a mailbox known to hold only our mail (one
	 * this worker created): a user's own test/1 is left alone. */
	if ((op == OP_MDELETE || op == OP_MRENAME) &&
	    !conn_guard_ours(c, name + 1, strlen(name) - 2))
		return false;
	switch (op) {
	case OP_MCREATE:
		return op_text(sp, c, op, "CREATE %s", name);
	case OP_MDELETE:
		return op_text(sp, c, op, "DELETE %s", name);
	case OP_MSUBS:
		return op_text(sp, c, op, rng_pct(rng, 50) ? "SUBSCRIBE %s" :
			       "UNSUBSCRIBE %s", name);
	default:
		snprintf(other, sizeof(other), "%s \"test%c%u\"", name, sep,
			 rng_below(rng, 20));
		return op_text(sp, c, op, "RENAME %s", other);
	}
}

BUILDER
op_copy(struct stress_plans *sp, struct conn *c, enum op op)
{
	const struct config *cfg = sp->cfg;
	struct rng *rng = conn_rng(c);
	uint32_t exists = conn_exists(c);
	struct imap_cmd cmd;

	if (exists == 0 || cfg->copybox == NULL)
		return false;
	if (op == OP_MOVE && !conn_has_move(c)) {
		stress_op_unsupported(sp, op, "MOVE");
		return false;
	}
	if (op == OP_MOVE && !conn_guard_clear(c, cfg->box))
		return false;	/* asked; the answer comes first */
	uint32_t s1 = 1 + rng_below(rng, exists);
	uint32_t span = rng_below(rng, exists - s1 + 1);
	uint32_t s2 = s1 + (span < 5 ? span : 5);
	uint32_t tag = conn_cmd_begin(c, &cmd);
	imap_cmd_printf(&cmd, "%s %u:%u ", op == OP_MOVE ? "MOVE" : "COPY",
			s1, s2);
	imap_cmd_astring(&cmd, cfg->copybox, strlen(cfg->copybox));
	stress_reply_send(sp, c, &cmd, tag, op);
	return true;
}

BUILDER
op_sort(struct stress_plans *sp, struct conn *c)
{
	struct rng *rng = conn_rng(c);
	struct imap_cmd cmd;

	if (!conn_has_sort(c)) {
		stress_op_unsupported(sp, OP_SORT, "SORT");
		return false;
	}
	uint32_t tag = conn_cmd_begin(c, &cmd);
	imap_cmd_adds(&cmd, "SORT (");
	if (rng_below(rng, 3) == 0)
		imap_cmd_adds(&cmd, "REVERSE ");
	imap_cmd_adds(&cmd, STRESS_PICK(rng, sort_keys));
	imap_cmd_adds(&cmd, ") US-ASCII ");
	switch (rng_below(rng, 3)) {
	case 0:
		imap_cmd_adds(&cmd, "ALL");
		break;
	case 1:
		imap_cmd_adds(&cmd, "FLAGGED");
		break;
	default:
		imap_cmd_printf(&cmd, "%u:%u", 1 + rng_below(rng, conn_exists(c)),
				1 + rng_below(rng, conn_exists(c)));
	}
	stress_reply_send(sp, c, &cmd, tag, OP_SORT);
	return true;
}

/* The states that need the connection's own state machine: IDLE and
 * COMPRESS (the engine's calls for them), DISCONNECT and DELAY. */
BUILDER
op_own(struct stress_plans *sp, struct conn *c, enum op op)
{
	switch (op) {
	case OP_COMPRESS:
		if (conn_compressed(c))
			return false;
		if (!conn_has_compress(c)) {
			stress_op_unsupported(sp, op, "COMPRESS=DEFLATE");
			return false;
		}
		/* Nothing may follow until the filter is in place. */
		return conn_compress_begin(c, stress_reply, &sp->ref[op]);
	case OP_IDLE:
		if (!conn_has_idle(c)) {
			stress_op_unsupported(sp, op, "IDLE");
			return false;
		}
		return conn_idle_timed(c, stress_reply, &sp->ref[op]);
	case OP_DELAY:
		stress_delay(sp, c);
		return true;
	default:	/* OP_DISCONNECT */
		stress_disconnect(sp, c);
		return true;
	}
}

BUILDER
op_select(struct stress_plans *sp, struct conn *c)
{
	if (conn_lstate(c) == LSTATE_SELECTED)
		return false;
	conn_view_begin(c);
	return op_box(sp, c, OP_SELECT, "SELECT ", conn_has_condstore(c) ?
		      " (CONDSTORE)" : "");
}

/* The table's entries: one per state, all of one shape (the arguments
 * a state does not need are left unused), so the batch reaches a state's
 * builder in one indirect call (stress_op_send), not through a chain of
 * switches. */
#define ENTRY(name) static bool \
	name(struct stress_plans *sp, struct conn *c, enum op op, \
	     struct plan *p, const struct plan_pending *pend)

ENTRY(b_none)
{
	/* CHECKPOINT (checkpoint.c) and LMTP are not sent by the plan, or
	 * not supported. */
	return false;
}

ENTRY(b_status)
{
	return op_box(sp, c, op, "STATUS ", " (MESSAGES UNSEEN RECENT)");
}

ENTRY(b_list)
{
	return op_text(sp, c, op, "LIST \"\" %s", op == OP_LIST ? "*" : "%");
}

ENTRY(b_mailbox)
{
	return op_mailbox(sp, c, op);
}

ENTRY(b_select)
{
	return op_select(sp, c);	/* the walk passes it often, selected */
}

ENTRY(b_fetch)
{
	return op_fetch(sp, c);
}

ENTRY(b_fetch2)
{
	return op_fetch2(sp, c);
}

ENTRY(b_uidfetch)
{
	return op_text(sp, c, op, "UID FETCH %s (FLAGS)", "1:*");
}

ENTRY(b_search)
{
	return op_text(sp, c, op, "SEARCH %s",
		       STRESS_PICK(conn_rng(c), search_keys));
}

ENTRY(b_sort)
{
	return op_sort(sp, c);
}

ENTRY(b_thread)
{
	if (!conn_has_thread(c)) {
		stress_op_unsupported(sp, op, "THREAD=REFERENCES");
		return false;
	}
	return op_text(sp, c, op, "THREAD REFERENCES US-ASCII %s", "ALL");
}

ENTRY(b_copy)
{
	return op_copy(sp, c, op);
}

ENTRY(b_store)
{
	return stress_store(sp, c, op);
}

ENTRY(b_expunge)
{
	if (!conn_guard_clear(c, sp->cfg->box))
		return false;	/* asked; the answer comes first */
	return OP_WORD(sp, c, op, "EXPUNGE");
}

ENTRY(b_noop)
{
	return OP_WORD(sp, c, op, "NOOP");
}

ENTRY(b_check)
{
	return OP_WORD(sp, c, op, "CHECK");
}

ENTRY(b_own)
{
	return op_own(sp, c, op);
}

/* Every state of enum op has an entry (test_stress_builders): b_none
 * for those the plan never sends.  LOGIN, AUTHENTICATE and LOGOUT are
 * the engine's and the batch's. */
const stress_builder stress_builders[OP_COUNT] = {
	[OP_AUTHENTICATE] = b_none,
	[OP_LOGIN] = b_none,
	[OP_COMPRESS] = b_own,
	[OP_LISTROOT] = b_list,
	[OP_LIST] = b_list,
	[OP_MCREATE] = b_mailbox,
	[OP_MDELETE] = b_mailbox,
	[OP_MRENAME] = b_mailbox,
	[OP_MSUBS] = b_mailbox,
	[OP_STATUS] = b_status,
	[OP_SELECT] = b_select,
	[OP_UIDFETCH] = b_uidfetch,
	[OP_FETCH] = b_fetch,
	[OP_FETCH2] = b_fetch2,
	[OP_SEARCH] = b_search,
	[OP_SORT] = b_sort,
	[OP_THREAD] = b_thread,
	[OP_COPY] = b_copy,
	[OP_MOVE] = b_copy,
	[OP_STORE] = b_store,
	[OP_DELETE] = b_store,
	[OP_EXPUNGE] = b_expunge,
	[OP_APPEND] = stress_append,
	[OP_NOOP] = b_noop,
	[OP_IDLE] = b_own,
	[OP_CHECK] = b_check,
	[OP_LOGOUT] = b_none,
	[OP_DISCONNECT] = b_own,
	[OP_DELAY] = b_own,
	[OP_CHECKPOINT] = b_none,
	[OP_LMTP] = b_none,
};
