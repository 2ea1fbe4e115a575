/* conn_ops.c: the command each imaptest state sends.  The shapes follow
 * imaptest's (random FETCH item lists, STORE flag changes, MULTIAPPEND
 * continuations) so the server sees the same kind of work. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "conn/conn_int.h"
#include "util/log.h"
#include "msg/msg.h"
#include "plan/seqpick.h"
#include "conn/shared.h"

#define FETCH_MAX_SEQS 100
#define DELAY_MAX_MS 1000

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
static const char *const store_flags[] = {
	"\\Seen", "\\Answered", "\\Flagged", "\\Draft", "$Label1", "$Label2"
};
static const char *const sort_keys[] = {
	"ARRIVAL", "CC", "DATE", "FROM", "SIZE", "SUBJECT", "TO"
};
static const char *const search_keys[] = {
	"FLAGGED", "UNSEEN", "SEEN", "ANSWERED", "SUBJECT test", "BODY hello",
	"FROM example", "LARGER 10000", "SMALLER 2000", "NOT DELETED"
};

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(c, a) ((a)[rng_below(&(c)->rng, N_ELEM(a))])

static void
cmd_begin(struct conn *c, struct imap_cmd *cmd, uint32_t *tag)
{
	imap_cmd_init(cmd, c->stage, (c->caps & CAP_LITERALPLUS) != 0);
	imap_cmd_inline(cmd);
	imap_cmd_set_side(cmd, c->scratch);
	*tag = conn_tag_begin(c, cmd);
}

static void
cmd_end(struct conn *c, struct imap_cmd *cmd, enum op op, uint32_t tag)
{
	imap_cmd_adds(cmd, "\r\n");
	conn_send_cmd(c, cmd, op, CONN_I_NONE, tag, 0, 0);
}

/* A sorted set of min(count, exists) distinct random sequence numbers. */
static unsigned
random_seqs(struct conn *c, uint32_t *seqs, unsigned count)
{
	return seqpick_draw(&c->rng, c->exists, count, seqs);
}

static void
warn_unsupported(struct conn *c, enum op op, const char *cap)
{
	struct shared_live *live = c->env->sh->live;
	unsigned bit = 1u << (op % 32);
	if (atomic_fetch_or(&live->warned_ops, bit) & bit)
		return;
	log_warn("server does not advertise %s: %s commands are skipped",
		 cap, op_table[op].name);
}

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

/* One message of an APPEND: optional flags and date (each half the time,
 * as imaptest), the literal, the body by reference. */
static uint64_t
append_one(struct conn *c, struct imap_cmd *cmd)
{
	const struct msg_pool *pool = c->env->sh->pool;
	const struct msg *m = msg_pool_get(pool,
	    rng_below(&c->rng, msg_pool_count(pool)));

	if (rng_pct(&c->rng, 50)) {
		imap_cmd_add(cmd, " (", 2);
		imap_cmd_adds(cmd, PICK(c, store_flags));
		imap_cmd_add(cmd, ")", 1);
	}
	if (rng_pct(&c->rng, 50))
		add_date(cmd);
	imap_cmd_adds(cmd, " ");
	return conn_add_body(c, cmd, m);
}

uint64_t
conn_add_body(struct conn *c, struct imap_cmd *cmd, const struct msg *m)
{
	size_t len = msg_wire_len(m);

	if (!imap_cmd_literal(cmd, len))
		return 0;
	if (m->needs_id) {
		char id[MSG_ID_LINE_LEN + 1];
		uint32_t seq = (*c->env->msg_seq)++ * c->env->sh->n_workers +
		    c->env->worker_id;
		msg_id_line(id, c->env->sh->run_id, seq);
		imap_cmd_add(cmd, id, MSG_ID_LINE_LEN);
	}
	/* The pool outlives every connection: no copy, no cleanup. */
	imap_cmd_add_ref(cmd, m->data, m->len);
	return len;
}

static bool
op_append(struct conn *c, const struct plan_pending *pend)
{
	const struct config *cfg = c->env->cfg;
	struct imap_cmd cmd;
	uint32_t tag, msgs = 1;
	uint64_t bytes;

	if (c->exists >= plan_msgs_threshold(cfg))
		return false;
	cmd_begin(c, &cmd, &tag);
	imap_cmd_adds(&cmd, "APPEND ");
	imap_cmd_astring(&cmd, cfg->box, strlen(cfg->box));
	bytes = append_one(c, &cmd);
	/* MULTIAPPEND as imaptest does it: the same command carries one more
	 * message for each APPEND at the head of the plan. */
	while ((c->caps & CAP_MULTIAPPEND) && cfg->states[OP_APPEND].again > 0 &&
	       msgs < PLAN_LEN) {
		if (plan_update(&c->plan, cfg, &c->rng, c->lstate, pend) != OP_APPEND)
			break;
		(void)plan_take(&c->plan);
		uint64_t b = append_one(c, &cmd);
		if (b == 0)
			break;
		bytes += b;
		msgs++;
	}
	imap_cmd_adds(&cmd, "\r\n");
	conn_send_cmd(c, &cmd, OP_APPEND, CONN_I_NONE, tag, msgs, bytes);
	return true;
}

static bool
op_fetch(struct conn *c)
{
	uint32_t seqs[FETCH_MAX_SEQS], tag;
	struct imap_cmd cmd;
	unsigned n = random_seqs(c, seqs, FETCH_MAX_SEQS);

	if (n == 0)
		return false;
	cmd_begin(c, &cmd, &tag);
	imap_cmd_adds(&cmd, "FETCH ");
	imap_cmd_seqset(&cmd, seqs, n);
	imap_cmd_adds(&cmd, " (");
	for (unsigned i = 1 + rng_below(&c->rng, 4); i > 0; i--) {
		if (rng_below(&c->rng, 4) != 0) {
			imap_cmd_adds(&cmd, PICK(c, fetch_items));
		} else {
			imap_cmd_adds(&cmd, "BODY.PEEK[HEADER.FIELDS (");
			for (unsigned j = 1 + rng_below(&c->rng, 4); j > 0; j--) {
				imap_cmd_adds(&cmd, PICK(c, fetch_headers));
				if (j != 1)
					imap_cmd_adds(&cmd, " ");
			}
			imap_cmd_adds(&cmd, ")]");
		}
		if (i != 1)
			imap_cmd_adds(&cmd, " ");
	}
	imap_cmd_adds(&cmd, ")");
	cmd_end(c, &cmd, OP_FETCH, tag);
	return true;
}

static bool
op_fetch2(struct conn *c)
{
	struct imap_cmd cmd;
	uint32_t tag;

	cmd_begin(c, &cmd, &tag);
	/* UID too, so that an error line can name the message. */
	imap_cmd_printf(&cmd, "FETCH %u (UID %s)",
			1 + rng_below(&c->rng, c->exists), PICK(c, fetch2_items));
	cmd_end(c, &cmd, OP_FETCH2, tag);
	return true;
}

/* own_msgs / own_flags: keep only messages this connection owns (claiming
 * unowned ones) and refuse a flag another connection owns.  With
 * own_msgs the set becomes the owned UIDs (sent as UID STORE): what was
 * claimed is exactly what is changed, whatever the sequence numbers do
 * meanwhile.  Workers keep separate models, so with several a message may
 * only be claimed in the worker its UID falls to (UID mod workers): two
 * workers' sessions on one mailbox never own the same message. */
static bool
own_filter(struct conn *c, uint32_t *seqs, unsigned *n, const char *flag)
{
	const struct config *cfg = c->env->cfg;
	struct mbox_store *s = mbox_view_store(c->view);
	uint32_t me = mbox_view_conn_id(c->view);
	unsigned nw = c->env->sh->n_workers;

	if (cfg->own_flags && !mbox_store_claim_flag(s, flag, strlen(flag), me))
		return false;
	if (!cfg->own_msgs)
		return true;
	unsigned k = 0;
	for (unsigned i = 0; i < *n; i++) {
		uint32_t uid = mbox_view_uid(c->view, seqs[i]);
		if (uid != 0 && (nw <= 1 || uid % nw == c->env->worker_id) &&
		    mbox_store_claim_msg(s, uid, me))
			seqs[k++] = uid;
	}
	*n = k;
	return true;
}

static bool
op_store(struct conn *c, enum op op)
{
	const struct config *cfg = c->env->cfg;
	uint32_t seqs[FETCH_MAX_SEQS], tag;
	struct imap_cmd cmd;
	unsigned count, threshold = plan_msgs_threshold(cfg);
	bool silent = rng_pct(&c->rng, 50);

	if (op == OP_DELETE)
		count = c->exists > threshold + 5 ?
		    rng_below(&c->rng, c->exists - threshold) :
		    rng_below(&c->rng, 5);
	else
		count = rng_below(&c->rng, c->exists < 10 ? c->exists :
		    (c->exists / 5 < 50 ? c->exists / 5 : 50));
	if (count > FETCH_MAX_SEQS)
		count = FETCH_MAX_SEQS;
	unsigned n = random_seqs(c, seqs, count);
	const char *flag = op == OP_DELETE ? "\\Deleted" : PICK(c, store_flags);
	if (c->view != NULL && !own_filter(c, seqs, &n, flag))
		return false;
	if (n == 0)
		return false;
	char set[1200];
	size_t set_len = imap_seqset_str(set, sizeof(set), seqs, n);
	bool by_uid = c->view != NULL && cfg->own_msgs;	/* own_filter */
	cmd_begin(c, &cmd, &tag);
	imap_cmd_adds(&cmd, by_uid ? "UID STORE " : "STORE ");
	imap_cmd_add(&cmd, set, set_len);
	if (op == OP_DELETE) {
		imap_cmd_adds(&cmd, silent ? " +FLAGS.SILENT \\Deleted" :
			      " +FLAGS \\Deleted");
	} else {
		static const char *const how[] = { " +", " -", " " };
		/* With own_flags nobody may reset flags it does not own. */
		imap_cmd_adds(&cmd, cfg->own_flags ? " +" : PICK(c, how));
		imap_cmd_adds(&cmd, silent ? "FLAGS.SILENT (" : "FLAGS (");
		imap_cmd_adds(&cmd, flag);
		imap_cmd_adds(&cmd, ")");
	}
	if (c->view != NULL)
		mbox_view_store_begin(c->view, set, set_len, by_uid, silent);
	cmd_end(c, &cmd, op, tag);
	return true;
}

static bool
op_text(struct conn *c, enum op op, const char *fmt, const char *arg)
{
	struct imap_cmd cmd;
	uint32_t tag;
	cmd_begin(c, &cmd, &tag);
	if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0')
		imap_cmd_adds(&cmd, arg);	/* fixed text: no printf */
	else
		imap_cmd_printf(&cmd, fmt, arg);
	cmd_end(c, &cmd, op, tag);
	return true;
}

/* "<verb> <box><tail>" with box= quoted (or a literal) as it needs. */
static bool
op_box(struct conn *c, enum op op, const char *verb, const char *tail)
{
	const char *box = c->env->cfg->box;
	struct imap_cmd cmd;
	uint32_t tag;

	cmd_begin(c, &cmd, &tag);
	imap_cmd_adds(&cmd, verb);
	imap_cmd_astring(&cmd, box, strlen(box));
	imap_cmd_adds(&cmd, tail);
	cmd_end(c, &cmd, op, tag);
	return true;
}

static bool
op_mailbox(struct conn *c, enum op op)
{
	char name[64], other[160];
	unsigned a = rng_below(&c->rng, 20), b = rng_below(&c->rng, 20);
	char sep = c->sep ? c->sep : '/';

	if (rng_pct(&c->rng, 50))
		snprintf(name, sizeof(name), "\"test%c%u\"", sep, a);
	else
		snprintf(name, sizeof(name), "\"test%c%u%c%u\"", sep, a, sep, b);
	switch (op) {
	case OP_MCREATE:
		return op_text(c, op, "CREATE %s", name);
	case OP_MDELETE:
		return op_text(c, op, "DELETE %s", name);
	case OP_MSUBS:
		return op_text(c, op, rng_pct(&c->rng, 50) ? "SUBSCRIBE %s" :
			       "UNSUBSCRIBE %s", name);
	default:
		snprintf(other, sizeof(other), "%s \"test%c%u\"", name, sep,
			 rng_below(&c->rng, 20));
		return op_text(c, op, "RENAME %s", other);
	}
}

static bool
op_copy(struct conn *c, enum op op)
{
	const struct config *cfg = c->env->cfg;
	struct imap_cmd cmd;
	uint32_t tag;

	if (c->exists == 0 || cfg->copybox == NULL)
		return false;
	if (op == OP_MOVE && !(c->caps & CAP_MOVE)) {
		warn_unsupported(c, op, "MOVE");
		return false;
	}
	uint32_t s1 = 1 + rng_below(&c->rng, c->exists);
	uint32_t span = rng_below(&c->rng, c->exists - s1 + 1);
	uint32_t s2 = s1 + (span < 5 ? span : 5);
	cmd_begin(c, &cmd, &tag);
	imap_cmd_printf(&cmd, "%s %u:%u ", op == OP_MOVE ? "MOVE" : "COPY",
			s1, s2);
	imap_cmd_astring(&cmd, cfg->copybox, strlen(cfg->copybox));
	cmd_end(c, &cmd, op, tag);
	return true;
}

static bool
op_sort(struct conn *c)
{
	struct imap_cmd cmd;
	uint32_t tag;

	if (!(c->caps & CAP_SORT)) {
		warn_unsupported(c, OP_SORT, "SORT");
		return false;
	}
	cmd_begin(c, &cmd, &tag);
	imap_cmd_adds(&cmd, "SORT (");
	if (rng_below(&c->rng, 3) == 0)
		imap_cmd_adds(&cmd, "REVERSE ");
	imap_cmd_adds(&cmd, PICK(c, sort_keys));
	imap_cmd_adds(&cmd, ") US-ASCII ");
	switch (rng_below(&c->rng, 3)) {
	case 0:
		imap_cmd_adds(&cmd, "ALL");
		break;
	case 1:
		imap_cmd_adds(&cmd, "FLAGGED");
		break;
	default:
		imap_cmd_printf(&cmd, "%u:%u", 1 + rng_below(&c->rng, c->exists),
				1 + rng_below(&c->rng, c->exists));
	}
	cmd_end(c, &cmd, OP_SORT, tag);
	return true;
}

bool
conn_delay_start(struct conn *c)
{
	struct timeval tv;
	uint32_t ms = rng_below(&c->rng, DELAY_MAX_MS);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	/* imaptest counts a DELAY as done when it starts. */
	stats_cmd(c->env->stats, OP_DELAY, STATS_OK, 0);
	c->delayed = true;
	evtimer_add(c->timer, &tv);
	return true;
}

/* imaptest's DISCONNECT: drop the connection without LOGOUT; the timer
 * closes it outside any callback, and the slot logs in again. */
void
conn_disconnect_soon(struct conn *c)
{
	struct timeval now0 = { 0, 0 };
	stats_cmd(c->env->stats, OP_DISCONNECT, STATS_OK, 0);
	c->disconnect_pending = true;
	evtimer_add(c->timer, &now0);
}

bool
conn_cmd_op(struct conn *c, enum op op, const struct plan_pending *pend)
{
	if (op_table[op].need == OP_NEED_SELECTED &&
	    (c->lstate != LSTATE_SELECTED || c->exists == 0))
		return false;	/* nothing to work on */
	switch (op) {
	case OP_SELECT:
		if (c->lstate == LSTATE_SELECTED)
			return false;
		conn_view_select(c);
		c->view_active = c->view != NULL;
		return op_box(c, op, "SELECT ", (c->caps & CAP_CONDSTORE) ?
			      " (CONDSTORE)" : "");
	case OP_STATUS:
		return op_box(c, op, "STATUS ", " (MESSAGES UNSEEN RECENT)");
	case OP_LIST:
		return op_text(c, op, "LIST \"\" %s", "*");
	case OP_LISTROOT:
		return op_text(c, op, "LIST \"\" %s", "%");
	case OP_MCREATE:
	case OP_MDELETE:
	case OP_MRENAME:
	case OP_MSUBS:
		return op_mailbox(c, op);
	case OP_FETCH:
		return op_fetch(c);
	case OP_FETCH2:
		return op_fetch2(c);
	case OP_UIDFETCH:
		return op_text(c, op, "UID FETCH %s (FLAGS)", "1:*");
	case OP_SEARCH:
		return op_text(c, op, "SEARCH %s", PICK(c, search_keys));
	case OP_SORT:
		return op_sort(c);
	case OP_THREAD:
		if (!(c->caps & CAP_THREAD)) {
			warn_unsupported(c, op, "THREAD=REFERENCES");
			return false;
		}
		return op_text(c, op, "THREAD REFERENCES US-ASCII %s", "ALL");
	case OP_COPY:
	case OP_MOVE:
		return op_copy(c, op);
	case OP_STORE:
	case OP_DELETE:
		return op_store(c, op);
	case OP_EXPUNGE:
		return op_text(c, op, "%s", "EXPUNGE");
	case OP_APPEND:
		return op_append(c, pend);
	case OP_NOOP:
		return op_text(c, op, "%s", "NOOP");
	case OP_CHECK:
		return op_text(c, op, "%s", "CHECK");
	case OP_DELAY:
		return conn_delay_start(c);
	case OP_COMPRESS:
		if (c->z == CONN_Z_ON)
			return false;
		if (!(c->caps & CAP_COMPRESS)) {
			warn_unsupported(c, op, "COMPRESS=DEFLATE");
			return false;
		}
		/* Nothing may follow until the filter is in place. */
		c->z = CONN_Z_ASKED;
		return op_text(c, op, "%s", "COMPRESS DEFLATE");
	case OP_IDLE:
		if (!(c->caps & CAP_IDLE)) {
			warn_unsupported(c, op, "IDLE");
			return false;
		}
		c->idle = CONN_IDLE_STARTING;
		return op_text(c, op, "%s", "IDLE");
	case OP_DISCONNECT:
		conn_disconnect_soon(c);
		return true;
	default:
		/* CHECKPOINT (src/drivers/stress/checkpoint.c) and LMTP are not sent
		 * by the plan loop, or not supported. */
		return false;
	}
}
