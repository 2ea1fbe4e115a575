/* mbox_err.c: the names of the mailbox-state error kinds (mbox_err.h),
 * in a file of their own: the result-file reader and its fuzz harness
 * name the kinds without linking the model. */
#include "model/mbox_err.h"

static const char *const err_names[MBOX_ERR_COUNT] = {
	[MBOX_ERR_SYNTAX] = "syntax",
	[MBOX_ERR_SEQ_TOO_HIGH] = "seq-too-high",
	[MBOX_ERR_EXISTS_BACKWARDS] = "exists-backwards",
	[MBOX_ERR_UID_CHANGED] = "uid-changed",
	[MBOX_ERR_UID_ORDER] = "uid-order",
	[MBOX_ERR_UIDNEXT] = "uidnext",
	[MBOX_ERR_STATIC_CHANGED] = "static-changed",
	[MBOX_ERR_KEYWORD] = "keyword",
	[MBOX_ERR_MODSEQ] = "modseq",
	[MBOX_ERR_UIDVALIDITY] = "uidvalidity",
	[MBOX_ERR_OWN_MSG] = "own-msg",
	[MBOX_ERR_OWN_FLAG] = "own-flag",
	[MBOX_ERR_EXPUNGE] = "expunge",
	[MBOX_ERR_RECENT] = "recent",
	[MBOX_ERR_CHECKPOINT] = "checkpoint",
	[MBOX_ERR_LIMIT] = "limit",
	[MBOX_ERR_UNANNOUNCED] = "unannounced-after-status",
};

const char *
mbox_err_name(enum mbox_err kind)
{
	if ((unsigned)kind >= MBOX_ERR_COUNT)
		return "unknown";
	return err_names[kind];
}
