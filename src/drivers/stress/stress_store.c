/* stress_store.c: imaptest's STORE and DELETE states: flag changes on a
 * random set of messages, and with own_msgs / own_flags only on what this
 * session owns in the mailbox model (so that its checks can tell who
 * changed what). */
#include <string.h>

#include "config/config.h"
#include "conn/shared.h"
#include "drivers/stress/stress_ops.h"
#include "drivers/stress/stress_plan.h"
#include "imap/imap_cmd.h"
#include "model/mbox_model.h"
#include "plan/seqpick.h"

/* own_msgs / own_flags: keep only messages this connection owns (claiming
 * unowned ones) and refuse a flag another connection owns.  With
 * own_msgs the set becomes the owned UIDs (sent as UID STORE): what was
 * claimed is exactly what is changed, whatever the sequence numbers do
 * meanwhile.  Workers keep separate models, so with several a message may
 * only be claimed in the worker its UID falls to (UID mod workers): two
 * workers' sessions on one mailbox never own the same message. */
static bool
own_filter(struct stress_plans *sp, struct mbox_view *v, uint32_t *seqs,
	   unsigned *n, const char *flag)
{
	const struct config *cfg = sp->cfg;
	struct mbox_store *s = mbox_view_store(v);
	uint32_t me = mbox_view_conn_id(v);
	unsigned nw = sp->sh->n_workers;

	if (cfg->own_flags && !mbox_store_claim_flag(s, flag, strlen(flag), me))
		return false;
	if (!cfg->own_msgs)
		return true;
	unsigned k = 0;
	for (unsigned i = 0; i < *n; i++) {
		uint32_t uid = mbox_view_uid(v, seqs[i]);
		if (uid != 0 && (nw <= 1 || uid % nw == sp->worker_id) &&
		    mbox_store_claim_msg(s, uid, me))
			seqs[k++] = uid;
	}
	*n = k;
	return true;
}

bool
stress_store(struct stress_plans *sp, struct conn *c, enum op op)
{
	const struct config *cfg = sp->cfg;
	struct rng *rng = conn_rng(c);
	struct mbox_view *v = conn_view(c);
	uint32_t seqs[STRESS_MAX_SEQS], exists = conn_exists(c);
	struct imap_cmd cmd;
	unsigned count, threshold = plan_msgs_threshold(cfg);
	bool silent;

	/* \Deleted marks mail for the next EXPUNGE: only in a mailbox known
	 * to hold only our mail (imap/guard.h).  The STORE state's flags
	 * (stress_flags) never include it; the engine's gate says so. */
	if (op == OP_DELETE && !conn_guard_clear(c, cfg->box))
		return false;	/* asked; the answer comes first */
	silent = rng_pct(rng, 50);
	if (op == OP_DELETE)
		count = exists > threshold + 5 ?
		    rng_below(rng, exists - threshold) :
		    rng_below(rng, 5);
	else
		count = rng_below(rng, exists < 10 ? exists :
		    (exists / 5 < 50 ? exists / 5 : 50));
	if (count > STRESS_MAX_SEQS)
		count = STRESS_MAX_SEQS;
	unsigned n = seqpick_draw(rng, exists, count, seqs);
	const char *flag = op == OP_DELETE ? "\\Deleted" :
	    STRESS_PICK(rng, stress_flags);
	if (v != NULL && !own_filter(sp, v, seqs, &n, flag))
		return false;
	if (n == 0)
		return false;
	char set[1200];
	size_t set_len = imap_seqset_str(set, sizeof(set), seqs, n);
	bool by_uid = v != NULL && cfg->own_msgs;	/* own_filter */
	uint32_t tag = conn_cmd_begin(c, &cmd);
	imap_cmd_adds(&cmd, by_uid ? "UID STORE " : "STORE ");
	imap_cmd_add(&cmd, set, set_len);
	if (op == OP_DELETE) {
		imap_cmd_adds(&cmd, silent ? " +FLAGS.SILENT \\Deleted" :
			      " +FLAGS \\Deleted");
	} else {
		static const char *const how[] = { " +", " -", " " };
		/* With own_flags nobody may reset flags it does not own. */
		imap_cmd_adds(&cmd, cfg->own_flags ? " +" :
			      STRESS_PICK(rng, how));
		imap_cmd_adds(&cmd, silent ? "FLAGS.SILENT (" : "FLAGS (");
		imap_cmd_adds(&cmd, flag);
		imap_cmd_adds(&cmd, ")");
	}
	if (v != NULL)
		mbox_view_store_begin(v, set, set_len, by_uid, silent);
	stress_reply_send(sp, c, &cmd, tag, op);
	return true;
}
