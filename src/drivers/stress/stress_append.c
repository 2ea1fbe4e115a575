/* stress_append.c: imaptest's APPEND state: a pool message with optional
 * flags and date (each half the time), and MULTIAPPEND as imaptest does
 * it, one more message for each APPEND at the head of the plan. */
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "conn/shared.h"
#include "drivers/stress/stress_ops.h"
#include "drivers/stress/stress_plan.h"
#include "imap/imap_cmd.h"
#include "msg/msg.h"
#include "util/log.h"

static void
add_date(struct imap_cmd *cmd)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May",
		"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	/* ' "dd-Mon-yyyy hh:mm:ss +0000"', by hand: half of all APPENDs
	 * carry one, and vsnprintf was ~1,700 instructions of each. */
	char d[] = " \"00-Mon-0000 00:00:00 +0000\"";
	unsigned y = (unsigned)(tm.tm_year + 1900) % 10000;
	d[2] = (char)('0' + tm.tm_mday / 10);
	d[3] = (char)('0' + tm.tm_mday % 10);
	memcpy(d + 5, mon[tm.tm_mon], 3);
	d[9] = (char)('0' + y / 1000);
	d[10] = (char)('0' + y / 100 % 10);
	d[11] = (char)('0' + y / 10 % 10);
	d[12] = (char)('0' + y % 10);
	d[14] = (char)('0' + tm.tm_hour / 10);
	d[15] = (char)('0' + tm.tm_hour % 10);
	d[17] = (char)('0' + tm.tm_min / 10);
	d[18] = (char)('0' + tm.tm_min % 10);
	d[20] = (char)('0' + tm.tm_sec / 10);
	d[21] = (char)('0' + tm.tm_sec % 10);
	imap_cmd_add(cmd, d, sizeof(d) - 1);
}

/* One message of an APPEND: optional flags and date, the literal, the
 * body by reference.  The octets it carries (0: too many literals). */
static uint64_t
append_one(struct stress_plans *sp, struct conn *c, struct imap_cmd *cmd)
{
	const struct msg_pool *pool = sp->sh->pool;
	struct rng *rng = conn_rng(c);
	const struct msg *m = msg_pool_get(pool, msg_pool_pick(pool, rng));

	if (rng_pct(rng, 50)) {
		unsigned i = rng_below(rng, STRESS_N_ELEM(stress_flags));
		imap_cmd_add(cmd, " (", 2);
		imap_cmd_add(cmd, stress_flags[i], stress_flag_len[i]);
		imap_cmd_add(cmd, ")", 1);
	}
	if (rng_pct(rng, 50))
		add_date(cmd);
	imap_cmd_adds(cmd, " ");
	return conn_cmd_body(c, cmd, m);
}

/* append=P,R asks for R% of APPENDs to carry another message (RFC 3502
 * MULTIAPPEND); a server that does not offer it gets them as APPENDs of
 * one message each: said once a run, as it changes what is measured. */
static void
stress_append_single(struct stress_plans *sp)
{
	if (!atomic_exchange(&sp->sh->live->warned_multiappend, true))
		log_warn("server does not advertise MULTIAPPEND: one message "
			 "per APPEND (the APPEND repeat of %d%% goes as "
			 "APPENDs of their own)",
			 sp->cfg->states[OP_APPEND].again);
}

bool
stress_append(struct stress_plans *sp, struct conn *c, enum op op,
	      struct plan *p, const struct plan_pending *pend)
{
	const struct config *cfg = sp->cfg;
	struct imap_cmd cmd;
	uint32_t msgs = 1;

	/* op is OP_APPEND (its entry in stress_builders) */
	if (conn_exists(c) >= plan_msgs_threshold(cfg))
		return false;
	if (cfg->states[OP_APPEND].again > 0 && !conn_has_multiappend(c))
		stress_append_single(sp);
	uint32_t tag = conn_cmd_begin(c, &cmd);
	imap_cmd_adds(&cmd, "APPEND ");
	imap_cmd_astring(&cmd, cfg->box, sp->box_len);
	uint64_t bytes = append_one(sp, c, &cmd);
	while (conn_has_multiappend(c) && cfg->states[OP_APPEND].again > 0 &&
	       msgs < PLAN_LEN) {
		if (plan_update(p, cfg, conn_rng(c), conn_lstate(c), pend) !=
		    OP_APPEND)
			break;
		(void)plan_take(p);
		uint64_t b = append_one(sp, c, &cmd);
		if (b == 0)
			break;
		bytes += b;
		msgs++;
	}
	conn_cmd_send(c, &cmd, tag, OP_APPEND, msgs, bytes, stress_reply,
		      &sp->ref[OP_APPEND]);
	return true;
}
