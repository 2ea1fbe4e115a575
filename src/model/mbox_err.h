/* mbox_err.h: the kinds of mailbox-state error the model reports (each
 * check is described in mbox_model.h), on their own so that the run's
 * counters (src/stats/) keep one per kind without the model's API. */
#ifndef IMAPSTRESS_MBOX_ERR_H
#define IMAPSTRESS_MBOX_ERR_H

enum mbox_err {
	MBOX_ERR_SYNTAX,
	MBOX_ERR_SEQ_TOO_HIGH,
	MBOX_ERR_EXISTS_BACKWARDS,
	MBOX_ERR_UID_CHANGED,
	MBOX_ERR_UID_ORDER,
	MBOX_ERR_UIDNEXT,
	MBOX_ERR_STATIC_CHANGED,
	MBOX_ERR_KEYWORD,
	MBOX_ERR_MODSEQ,
	MBOX_ERR_UIDVALIDITY,
	MBOX_ERR_OWN_MSG,
	MBOX_ERR_OWN_FLAG,
	MBOX_ERR_EXPUNGE,
	MBOX_ERR_RECENT,
	MBOX_ERR_CHECKPOINT,
	MBOX_ERR_LIMIT,
	MBOX_ERR_UNANNOUNCED,
	MBOX_ERR_COUNT
};

/* "seq-too-high", "uid-changed", ...: the sub-kind names of the reports
 * and of every summary (text, JSON, CSV, result files, Prometheus);
 * "unknown" past MBOX_ERR_COUNT. */
const char *mbox_err_name(enum mbox_err kind);

#endif
