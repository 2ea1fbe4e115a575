/* init_user.c: one user's mailbox over one connection, as a driver of the
 * connection engine (conn.h, "Drivers that send their own commands"):
 * STATUS every folder of the table, with --trim bring the folders that
 * hold too much back down (init_trim.c) and STATUS again, CREATE the
 * missing ones, APPEND what is missing (pipelined, LITERAL+ when offered,
 * several messages per command with MULTIAPPEND), STATUS again into the
 * results, LOGOUT, next user.  Everything runs in the worker's thread,
 * inside the callbacks of the connection it is about. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "imap/imap.h"
#include "imap/imap_args.h"
#include "drivers/init/init_int.h"
#include "msg/msg.h"
#include "conn/shared.h"
#include "config/user_template.h"
#include "config/userfile.h"
#include "util/log.h"

static void init_pump(struct init_conn *ic);

struct init_conn *
init_conn_of(struct init_worker *w, struct conn *c)
{
	return &w->ic[conn_slot(c) / w->run->sh->n_workers];
}

/* A user's name and password, from the profile (--profile-users), from
 * userfile= or the user= template (user numbers first, then domains:
 * every pair once). */
static void
init_set_user(struct init_conn *ic)
{
	const struct init_driver *run = ic->w->run;
	const struct config *cfg = run->cfg;

	if (run->res->pass != NULL) {
		const char *pw = run->res->pass[ic->user];
		conn_set_user(ic->c, run->res->names[ic->user],
			      pw != NULL ? pw : cfg->pass);
		return;
	}
	if (run->sh->users != NULL) {
		const struct userfile_entry *e = &run->sh->users->e[ic->user];
		conn_set_user(ic->c, e->user, e->pass != NULL ? e->pass : cfg->pass);
		return;
	}
	conn_set_user(ic->c, run->res->names[ic->user], cfg->pass);
}

bool
init_user_next(struct init_conn *ic)
{
	struct init_driver *run = ic->w->run;

	ic->has_user = false;
	if (atomic_load(&run->stop) > 0)
		return false;
	unsigned u = atomic_fetch_add(&run->next_user, 1);
	if (u >= run->res->n_users)
		return false;
	ic->user = u;
	ic->has_user = true;
	ic->attempts = 0;
	ic->phase = INIT_P_NONE;
	init_set_user(ic);
	return true;
}

void
init_user_done(struct init_conn *ic)
{
	atomic_fetch_add(&ic->w->run->res->users_done, 1);
}

static void
init_fail(struct init_conn *ic, const char *what, const char *text,
	  size_t len)
{
	if (ic->failed)
		return;
	ic->failed = true;
	snprintf(ic->err, sizeof(ic->err), "%s: %.*s", what,
		 (int)(len > 200 ? 200 : len), text);
}

static unsigned
init_folder_by_name(const struct init_spec *s, const char *name, size_t len)
{
	for (unsigned i = 0; i < s->n; i++) {
		const char *f = s->f[i].name;
		if (strlen(f) != len)
			continue;
		if (i == 0 ? strncasecmp(f, name, len) == 0
			   : memcmp(f, name, len) == 0)
			return i;
	}
	return UINT32_MAX;
}

/* "* STATUS name (MESSAGES n)": the folder's count. */
static void
init_untagged(void *arg, struct conn *c, const struct imap_resp *r)
{
	struct init_conn *ic = init_conn_of(arg, c);
	const struct init_spec *s = ic->w->run->spec;
	struct imap_args *a;

	if (ic->phase == INIT_P_TRIM && imap_resp_kw(r) == IMAP_KW_EXPUNGE) {
		atomic_fetch_add(&ic->w->run->res->trimmed, 1);
		return;
	}
	if (imap_resp_kw(r) != IMAP_KW_STATUS ||
	    (ic->phase != INIT_P_STATUS && ic->phase != INIT_P_CHECK))
		return;
	a = imap_args_new(64);
	const struct imap_arg *root = imap_args_parse(a, r->text, r->text_len);
	const struct imap_arg *name = root ? imap_arg_child(root) : NULL;
	const struct imap_arg *list = name ? imap_arg_next(name) : NULL;
	if (list != NULL && list->type == IMAP_ARG_LIST &&
	    (name->type == IMAP_ARG_ATOM || imap_arg_is_string(name))) {
		unsigned f = init_folder_by_name(s, name->str, name->len);
		for (const struct imap_arg *k = imap_arg_child(list);
		     f != UINT32_MAX && k != NULL; k = imap_arg_next(k)) {
			const struct imap_arg *v = imap_arg_next(k);
			uint64_t n;
			if (v == NULL)
				break;
			if (imap_arg_atom_eq(k, "MESSAGES") &&
			    imap_arg_u64(v, &n) == 0 && n < UINT32_MAX) {
				ic->have[f].exists = true;
				ic->have[f].messages = (uint32_t)n;
			}
			k = v;
		}
	}
	imap_args_free(a);
}

/* The reply to a STATUS, CREATE or APPEND of the current phase (a phase
 * changes only once all its commands are answered, so the phase says
 * which command this was), or to --trim's one command in flight. */
static void
init_done(void *arg, struct conn *c, enum conn_reply st, const char *text,
	  size_t len)
{
	struct init_ref *ref = arg;
	struct init_conn *ic = ref->ic;
	const char *cmd = ic->phase == INIT_P_CREATE ? "CREATE"
	    : ic->phase == INIT_P_APPEND ? "APPEND"
	    : ic->phase != INIT_P_TRIM ? "STATUS"
	    : ic->trim_step == TRIM_SELECT ? "SELECT"
	    : ic->trim_step == TRIM_STORE ? "STORE" : "EXPUNGE";
	char what[160];

	unsigned n = ref->n;

	ref->n = 0;			/* an APPEND's slot is free again */
	ic->outstanding--;
	if (st == CONN_REPLY_FAILED)
		return;			/* the closed hook starts over */
	snprintf(what, sizeof(what), "%s %s replied %s", cmd,
		 ic->w->run->spec->f[ref->f].name,
		 st == CONN_REPLY_NO ? "NO" : "BAD");
	if (st == CONN_REPLY_BAD) {
		init_fail(ic, what, text, len);
	} else if (ic->phase == INIT_P_TRIM) {
		if (st == CONN_REPLY_OK)
			init_trim_ok(ic);
		else
			init_fail(ic, what, text, len);
	} else if (ic->phase == INIT_P_CREATE) {
		/* NO is often "[ALREADYEXISTS]" (another session, a rerun
		 * that raced): the check after the APPENDs says whether it
		 * matters. */
		if (st == CONN_REPLY_OK)
			atomic_fetch_add(&ic->w->run->res->created, 1);
	} else if (ic->phase == INIT_P_APPEND) {
		if (st == CONN_REPLY_OK) {
			/* MULTIAPPEND is all or none (RFC 3502). */
			atomic_fetch_add(&ic->w->run->res->appended, n);
			atomic_fetch_add(&ic->w->run->res->append_cmds, 1);
		} else
			init_fail(ic, what, text, len);
	} else if (st == CONN_REPLY_NO) {
		ic->have[ref->f].exists = false;	/* no such folder */
	}
	init_pump(ic);
}

static void
init_logout_done(void *arg, struct conn *c, enum conn_reply st,
		 const char *text, size_t len)
{
	struct init_conn *ic = arg;

	ic->outstanding--;
}

/* The next pool message (xorshift32 picks it, so the sizes follow the
 * pool's mix); one picked but left out of the last APPEND first. */
static const struct msg *
init_pick(struct init_conn *ic)
{
	const struct msg_pool *pool = ic->w->run->sh->pool;
	const struct msg *m = ic->held;

	if (m != NULL) {
		ic->held = NULL;
		return m;
	}
	ic->rng ^= ic->rng << 13;
	ic->rng ^= ic->rng >> 17;
	ic->rng ^= ic->rng << 5;
	return msg_pool_get(pool, ic->rng % msg_pool_count(pool));
}

/* One APPEND into folder f of up to `left` messages: with MULTIAPPEND as
 * many as fit INIT_BATCH_BYTES / INIT_BATCH_MSGS, else one.  How many
 * went: 0 when the command could not go out. */
static uint32_t
init_append(struct init_conn *ic, unsigned f, uint32_t left)
{
	const struct msg *m[INIT_BATCH_MSGS];
	char cmd[INIT_NAME_MAX + 64];
	struct init_ref *ref = NULL;
	bool multi = ic->w->run->multiappend && conn_has_multiappend(ic->c);
	/* Slower, and a different load than asked: said once a run. */
	if (ic->w->run->multiappend && !multi &&
	    !atomic_exchange(&ic->w->run->sh->live->warned_multiappend, true))
		log_warn("server does not advertise MULTIAPPEND: one message "
			 "per APPEND");
	uint32_t max = multi ? INIT_BATCH_MSGS : 1, n = 0;
	uint64_t bytes = 0;

	for (unsigned k = 0; k < INIT_WINDOW && ref == NULL; k++)
		if (ic->arefs[k].n == 0)
			ref = &ic->arefs[k];
	if (ref == NULL)
		return 0;	/* cannot be: outstanding < INIT_WINDOW */
	while (n < max && n < left) {
		const struct msg *next = init_pick(ic);
		if (n > 0 && bytes + msg_wire_len(next) > INIT_BATCH_BYTES) {
			ic->held = next;
			break;
		}
		bytes += msg_wire_len(next);
		m[n++] = next;
	}
	snprintf(cmd, sizeof(cmd), "APPEND \"%s\"", ic->w->run->spec->f[f].name);
	ref->f = f;
	ref->n = n;
	if (!conn_append_n(ic->c, cmd, m, n, init_done, ref)) {
		ref->n = 0;
		ic->held = m[0];	/* the same one next time */
		return 0;
	}
	ic->outstanding++;
	return n;
}

/* The phase's command for folder f: "STATUS" or "CREATE". */
static bool
init_send(struct init_conn *ic, unsigned f)
{
	char cmd[INIT_NAME_MAX + 64];
	const char *name = ic->w->run->spec->f[f].name;
	enum op op = OP_STATUS;

	if (ic->phase == INIT_P_CREATE) {
		op = OP_MCREATE;
		snprintf(cmd, sizeof(cmd), "CREATE \"%s\"", name);
	} else {
		snprintf(cmd, sizeof(cmd), "STATUS \"%s\" (MESSAGES)", name);
	}
	ic->refs[f].f = f;
	if (!conn_command(ic->c, op, cmd, NULL, init_done, &ic->refs[f]))
		return false;
	ic->outstanding++;
	return true;
}

/* Enter a phase: reset its cursor (and, for the STATUS rounds, what the
 * last round said). */
static void
init_phase(struct init_conn *ic, enum init_phase p)
{
	const struct init_spec *s = ic->w->run->spec;

	ic->phase = p;
	ic->next_f = 0;
	ic->left = 0;
	ic->trim_step = TRIM_SELECT;
	if (p == INIT_P_STATUS || p == INIT_P_CHECK)
		memset(ic->have, 0, s->n * sizeof(*ic->have));
}

/* The check's STATUS answers go into the user's result slot. */
static void
init_record(struct init_conn *ic)
{
	struct init_results *res = ic->w->run->res;
	uint32_t *row = &res->have[(size_t)ic->user * res->n_folders];

	for (unsigned f = 0; f < res->n_folders; f++)
		row[f] = ic->have[f].exists ? ic->have[f].messages
					    : INIT_HAVE_NONE;
	atomic_store(&res->state[ic->user], INIT_U_CHECKED);
	init_user_done(ic);
}

/* Send what this phase still has to send, within the window; move on
 * when it is all answered. */
static void
init_pump(struct init_conn *ic)
{
	const struct init_spec *s = ic->w->run->spec;

	for (;;) {
		if (ic->phase == INIT_P_NONE || ic->phase == INIT_P_LOGOUT)
			return;
		if (ic->failed && ic->phase != INIT_P_CHECK) {
			/* Nothing more for this attempt: check what is there
			 * once the rest is answered. */
			if (ic->outstanding > 0)
				return;
			init_phase(ic, INIT_P_CHECK);
		}
		if (ic->phase == INIT_P_TRIM) {
			/* One command at a time: each needs the last one's
			 * answer (SELECT before STORE before EXPUNGE). */
			if (ic->outstanding > 0)
				return;
			if (init_trim_send(ic, init_done)) {
				ic->outstanding++;
				return;
			}
			if (!ic->trimmed)
				return;		/* the guard, or cannot send now */
			/* STATUS again: the rest is planned from what the
			 * folders hold now. */
			init_phase(ic, INIT_P_STATUS);
			continue;
		}
		bool sent_all = false;
		while (ic->outstanding < INIT_WINDOW && conn_can_command(ic->c)) {
			unsigned f = ic->next_f;
			if (ic->phase == INIT_P_APPEND) {
				while (f < s->n && ic->left == 0) {
					ic->left = ic->todo[f].append;
					if (ic->left == 0)
						f = ++ic->next_f;
				}
			} else if (ic->phase == INIT_P_CREATE) {
				while (f < s->n && !ic->todo[f].create)
					f = ++ic->next_f;
			}
			if (f >= s->n) {
				sent_all = true;
				break;
			}
			if (ic->phase == INIT_P_APPEND) {
				uint32_t sent = init_append(ic, f, ic->left);
				if (sent == 0)
					return;
				ic->left -= sent;
				if (ic->left == 0)
					ic->next_f++;
				continue;
			}
			if (!init_send(ic, f))
				return;
			ic->next_f++;
		}
		if (!sent_all && ic->next_f >= s->n)
			sent_all = true;
		if (!sent_all || ic->outstanding > 0)
			return;
		/* The phase is over. */
		switch (ic->phase) {
		case INIT_P_STATUS:
			if (ic->w->run->check_only) {
				/* The answers just read are the check. */
				init_record(ic);
				ic->phase = INIT_P_LOGOUT;
				break;
			}
			if (init_trim_wanted(ic)) {
				init_phase(ic, INIT_P_TRIM);
				break;
			}
			init_plan(s, ic->have, ic->todo);
			init_phase(ic, INIT_P_CREATE);
			break;
		case INIT_P_CREATE:
			init_phase(ic, INIT_P_APPEND);
			break;
		case INIT_P_APPEND:
			init_phase(ic, INIT_P_CHECK);
			break;
		case INIT_P_CHECK:
			if (ic->failed) {
				struct init_results *res = ic->w->run->res;
				res->err[ic->user] = strdup(ic->err);
				atomic_store(&res->state[ic->user], INIT_U_FAILED);
				init_user_done(ic);
			} else {
				init_record(ic);
			}
			ic->phase = INIT_P_LOGOUT;
			break;
		default:
			return;
		}
		if (ic->phase == INIT_P_LOGOUT) {
			if (conn_logout(ic->c, init_logout_done, ic))
				ic->outstanding++;
			return;
		}
	}
}

static void
init_ready(void *arg, struct conn *c)
{
	struct init_conn *ic = init_conn_of(arg, c);

	if (ic->phase == INIT_P_NONE && ic->has_user) {
		ic->failed = false;
		ic->trimmed = false;
		ic->outstanding = 0;
		init_phase(ic, INIT_P_STATUS);
	}
	init_pump(ic);
}

static void
init_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	struct init_worker *w = arg;
	struct init_conn *ic = init_conn_of(w, c);
	bool was_done = ic->phase == INIT_P_LOGOUT;

	ic->outstanding = 0;
	ic->phase = INIT_P_NONE;
	if (end == CONN_END_STOPPED || atomic_load(&w->run->stop) > 0) {
		conn_finish(c);
		worker_driver_conn_finished(w->wk);
		return;
	}
	if (!was_done && ic->has_user) {
		/* Cut short: the same user again, from STATUS (what got in
		 * counts), a few times, after a growing pause. */
		if (++ic->attempts < INIT_ATTEMPTS) {
			conn_restart(c, 100000ull << ic->attempts);
			return;
		}
		struct init_results *res = w->run->res;
		char why[160];
		snprintf(why, sizeof(why), "gave up after %u attempts (last: %s)",
			 INIT_ATTEMPTS, err_kind_name[err]);
		res->err[ic->user] = strdup(why);
		atomic_store(&res->state[ic->user], INIT_U_FAILED);
		init_user_done(ic);
	}
	if (init_user_next(ic)) {
		conn_restart(c, 0);
		return;
	}
	conn_finish(c);
	worker_driver_conn_finished(w->wk);
}

const struct conn_hooks init_hooks = {
	.ready = init_ready,
	.closed = init_closed,
	.untagged = init_untagged,
};
