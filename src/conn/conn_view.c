/* conn_view.c: a connection's view of its mailbox (src/model/): made fresh
 * at each SELECT, its errors counted as mailbox-state errors, the FETCH
 * answers it does not keep counted once, a STATUS of the selected mailbox
 * told to it; and the checkpoint's CHECK, whose answer says which view the
 * checkpoint compares. */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "conn/shared.h"
#include "imap/imap_args.h"
#include "model/store_map.h"
#include "util/log.h"

void
conn_view_err(void *arg, enum mbox_err kind, const char *msg)
{
	struct conn *c = arg;
	stats_state_err(c->env->stats, kind);
	conn_log_state_err(c, kind, "%s (%s): %.200s", msg, mbox_err_name(kind),
			   c->cmd.cur_resp != NULL ? c->cmd.cur_resp->line : "");
}

/* The view did not keep a message the server told about: the run did
 * not measure it, so it is counted, and said once per run (every view
 * has the same bound). */
static void
conn_view_untracked(void *arg)
{
	struct conn *c = arg;

	ctr_add(&c->env->stats->untracked_fetches, 1);
	if (!atomic_exchange(&c->env->sh->live->warned_untracked, true))
		log_warn("a mailbox view keeps at most %u messages "
			 "(--track-max): FETCH answers past that are checked, "
			 "not kept, and counted as untracked_fetches",
			 c->env->cfg->track_max);
}

/* Is the mailbox a "* STATUS" names (an atom or a quoted string at the
 * start of text) box?  INBOX in any case (RFC 3501 5.1); a literal or a
 * name we cannot read is not, so nothing is taken for a deviation. */
static bool
status_names_box(const char *t, size_t n, const char *box)
{
	char name[256];
	size_t len = 0, i = 0, bl = strlen(box);
	bool quoted = n > 0 && t[0] == '"';

	for (i = quoted ? 1 : 0; i < n && t[i] != (quoted ? '"' : ' '); i++) {
		if (quoted && t[i] == '\\' && ++i == n)
			return false;
		if (len == sizeof(name))
			return false;
		name[len++] = t[i];
	}
	if ((quoted && i == n) || len != bl)
		return false;
	if (bl == 5 && imap_ci_eq(box, "INBOX", 5))
		return imap_ci_eq(name, box, bl);
	return memcmp(name, box, bl) == 0;
}

/* "* STATUS box (...)" of the mailbox the view models: Cyrus 3.6 can count
 * a new message there that no EXISTS ever announces (mbox_view_on_status). */
void
conn_view_on_status(struct conn *c, const struct imap_resp *r)
{
	if (c->login.lstate == LSTATE_SELECTED &&
	    status_names_box(r->text, r->text_len, c->env->cfg->box))
		mbox_view_on_status(c->mbox.view);
}

void
conn_view_select_done(struct conn *c, const struct imap_resp *r)
{
	c->cmd.cur_resp = r;
	mbox_view_on_resp_text(c->mbox.view, r->text, r->text_len);
	mbox_view_select_done(c->mbox.view);
	c->cmd.cur_resp = NULL;
	/* Without UIDNEXT the checks that compare UIDs with it have nothing
	 * to compare with (Courier-IMAP sends none): say so, once. */
	if (mbox_view_uidnext(c->mbox.view) == 0 &&
	    !atomic_exchange(&c->env->sh->live->warned_uidnext, true))
		log_warn("server sent no UIDNEXT when the mailbox was selected: "
			 "the uidnext checks (a new message's UID not below "
			 "it, an old one's below it) and the checkpoint's "
			 "search for new messages \\Recent nowhere are off "
			 "for such selections");
}

/* A SELECT is about to go out: a fresh view on this user's mailbox. */
void
conn_view_select(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	struct mbox_store *s;

	if (c->env->stores == NULL)
		return;
	s = store_map_get(c->env->stores, c->login.user, cfg->box);
	if (c->mbox.view != NULL && mbox_view_store(c->mbox.view) != s) {
		mbox_view_free(c->mbox.view);
		c->mbox.view = NULL;
	}
	if (c->mbox.view == NULL) {
		struct mbox_view_opts o = {
			.own_msgs = cfg->own_msgs,
			.own_flags = cfg->own_flags,
			.check_modseq = (c->setup.caps & CAP_CONDSTORE) != 0,
			.err_cb = conn_view_err,
			.err_arg = c,
			.untracked_cb = conn_view_untracked,
		};
		c->mbox.view = mbox_view_new(s, c->life.slot + 1, &o);
	}
	mbox_view_reset(c->mbox.view);
}

bool
conn_send_check(struct conn *c)
{
	if (c->st != CONN_S_SESSION || c->bev == NULL ||
	    c->login.lstate != LSTATE_SELECTED || c->mbox.view == NULL)
		return false;
	c->mbox.cp = CONN_CP_SENT;
	conn_send_internal(c, CONN_I_CHECK, "CHECK");
	return true;
}

bool
conn_check_pending(const struct conn *c)
{
	return c->mbox.cp == CONN_CP_SENT || c->mbox.cp == CONN_CP_STALE;
}

struct mbox_view *
conn_checked_view(const struct conn *c)
{
	return c->mbox.cp == CONN_CP_SENT || c->mbox.cp == CONN_CP_ANSWERED ? c->mbox.view : NULL;
}

void
conn_check_done(struct conn *c)
{
	c->mbox.cp = conn_check_pending(c) ? CONN_CP_STALE : CONN_CP_NONE;
}

void
conn_view_begin(struct conn *c)
{
	conn_view_select(c);
	c->mbox.view_active = c->mbox.view != NULL;
}

struct mbox_view *
conn_view(const struct conn *c)
{
	return c->mbox.view;
}
