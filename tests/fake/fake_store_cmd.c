/* fake_store_cmd.c: the IMAP commands of fakeimapd's mail-store mode,
 * over the store of fake_store.c: enough for a profile user to live
 * (LOGIN, LIST, STATUS, CREATE, DELETE, SELECT, IDLE, NOOP, APPEND,
 * EXPUNGE, COPY, MOVE, CLOSE with their UID forms; FETCH, STORE and
 * SEARCH are in fake_store_msgs.c).
 * CAPABILITY, ENABLE, ID, NAMESPACE, LOGOUT and AUTHENTICATE stay with
 * fake_cmd.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_store.h"
#include "util/xmalloc.h"

/* A mailbox or user argument: an atom or a quoted string, into out.
 * False for a literal, an empty or an over-long one. */
static bool
fake_arg_string(const char **pp, char *out, size_t n)
{
	const char *p = *pp;
	size_t o = 0;
	if (*p == '{' || *p == '\0')
		return false;
	if (*p == '"') {
		for (p++; *p != '\0' && *p != '"'; p++) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			if (o + 1 >= n)
				return false;
			out[o++] = *p;
		}
		if (*p != '"')
			return false;
		p++;
	} else {
		for (; *p != '\0' && *p != ' ' && *p != ')'; p++) {
			if (o + 1 >= n)
				return false;
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	while (*p == ' ')
		p++;
	*pp = p;
	return o > 0;
}

/* ---- mailboxes ---------------------------------------------------------- */

static void
fake_out_quoted(struct fake_conn *c, const char *s)
{
	fake_out(c, "\"", 1);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fake_out(c, "\\", 1);
		fake_out(c, s, 1);
	}
	fake_out(c, "\"", 1);
}

static unsigned
fake_s_list(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char ref[FAKE_NAME_MAX], pat[FAKE_NAME_MAX];
	bool lsub = fake_eq(cmd->name, "LSUB");
	/* "" is an empty quoted string: fake_arg_string refuses it. */
	if (strncmp(p, "\"\" ", 3) == 0) {
		ref[0] = '\0';
		p += 3;
	} else if (!fake_arg_string(&p, ref, sizeof(ref))) {
		fake_tagged(c, cmd, "BAD LIST needs a reference and a pattern");
		return 0;
	}
	if (strcmp(p, "\"\"") == 0) {
		fake_outs(c, "* LIST (\\Noselect) \"/\" \"\"\r\n");
		return fake_h_ok(c, cmd);
	}
	if (!fake_arg_string(&p, pat, sizeof(pat))) {
		fake_tagged(c, cmd, "BAD LIST needs a reference and a pattern");
		return 0;
	}
	for (struct fake_box *b = c->sess->u->boxes; b != NULL; b = b->next) {
		fake_outf(c, "* %s (\\HasNoChildren) \"/\" ", lsub ? "LSUB" : "LIST");
		fake_out_quoted(c, b->name);
		fake_outs(c, "\r\n");
	}
	return fake_h_ok(c, cmd);
}

static unsigned
fake_s_status(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char name[FAKE_NAME_MAX];
	if (!fake_arg_string(&p, name, sizeof(name)) || *p != '(') {
		fake_tagged(c, cmd, "BAD STATUS needs a mailbox and (items)");
		return 0;
	}
	struct fake_box *b = fake_store_box(c->sess->u, name, false);
	if (b == NULL) {
		fake_tagged(c, cmd, "NO [NONEXISTENT] no such mailbox");
		return 0;
	}
	uint64_t unseen = 0, deleted = 0, size = 0;
	for (size_t i = 0; i < b->n; i++) {
		unseen += !(b->m[i].flags & FAKE_F_SEEN);
		deleted += (b->m[i].flags & FAKE_F_DELETED) != 0;
		size += b->m[i].size;
	}
	static const char *const names[] = { "MESSAGES", "RECENT", "UIDNEXT",
		"UIDVALIDITY", "UNSEEN", "DELETED", "SIZE" };
	uint64_t values[] = { b->n, 0, b->uidnext, b->uidvalidity, unseen,
			      deleted, size };
	fake_outs(c, "* STATUS ");
	fake_out_quoted(c, b->name);
	fake_out_status_items(c, p, names, values,
			      sizeof(names) / sizeof(names[0]));
	return fake_h_ok(c, cmd);
}

static unsigned
fake_s_create_delete(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char name[FAKE_NAME_MAX];
	if (!fake_arg_string(&p, name, sizeof(name))) {
		fake_tagged(c, cmd, "BAD needs a mailbox name");
		return 0;
	}
	bool exists = fake_store_box(c->sess->u, name, false) != NULL;
	if (fake_eq(cmd->name, "CREATE")) {
		if (exists) {
			fake_tagged(c, cmd, "NO [ALREADYEXISTS] mailbox exists");
			return 0;
		}
		fake_store_box(c->sess->u, name, true);
	} else if (!exists) {
		fake_tagged(c, cmd, "NO [NONEXISTENT] no such mailbox");
		return 0;
	} else if (!fake_store_box_delete(c->sess->u, name)) {
		fake_tagged(c, cmd, "NO [INUSE] INBOX or a selected mailbox");
		return 0;
	}
	return fake_h_ok(c, cmd);
}

static unsigned
fake_s_select(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char name[FAKE_NAME_MAX];
	bool ro = fake_eq(cmd->name, "EXAMINE");
	if (!fake_arg_string(&p, name, sizeof(name))) {
		fake_tagged(c, cmd, "BAD missing mailbox name");
		return 0;
	}
	struct fake_box *b = fake_store_box(c->sess->u, name, false);
	fake_sess_select(c->sess, b, ro);
	if (b == NULL) {
		fake_tagged(c, cmd, "NO [NONEXISTENT] no such mailbox");
		return 0;
	}
	fake_outf(c, "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n"
		  "* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen "
		  "\\Draft \\*)] Flags permitted.\r\n"
		  "* %zu EXISTS\r\n* 0 RECENT\r\n"
		  "* OK [UIDVALIDITY %u] UIDs valid\r\n"
		  "* OK [UIDNEXT %u] Predicted next UID\r\n"
		  "%s OK [%s] %s completed\r\n", c->sess->nview, b->uidvalidity,
		  b->uidnext, cmd->tag, ro ? "READ-ONLY" : "READ-WRITE",
		  ro ? "EXAMINE" : "SELECT");
	return 0;
}

/* "tag OK [CODE validity set] NAME completed" for APPENDUID/COPYUID. */
static void
fake_out_uidset(struct fake_conn *c, const uint32_t *uids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fake_outf(c, "%s%u", i ? "," : "", uids[i]);
}

static unsigned
fake_s_append(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char name[FAKE_NAME_MAX];
	if (cmd->messages == 0 || !fake_arg_string(&p, name, sizeof(name))) {
		fake_tagged(c, cmd, "BAD APPEND needs a mailbox and a message "
			    "literal (the mailbox not as a literal)");
		return 0;
	}
	struct fake_box *b = fake_store_box(c->sess->u, name, false);
	if (b == NULL) {
		fake_tagged(c, cmd, "NO [TRYCREATE] no such mailbox");
		return 0;
	}
	unsigned flags = *p == '(' ? fake_parse_flags(p) : 0;
	uint32_t *uids = xcalloc(cmd->messages, sizeof(*uids));
	uint64_t each = cmd->message_bytes / cmd->messages;
	for (unsigned i = 0; i < cmd->messages; i++)
		uids[i] = fake_store_add(b, flags, (uint32_t)(each +
			(i == 0 ? cmd->message_bytes % cmd->messages : 0)),
			cmd->marked != NULL && cmd->marked[i]);
	c->loop->stats.appends += cmd->messages;
	c->loop->stats.append_bytes += cmd->message_bytes;
	if (c->sess->sel == b)
		fake_sess_sync(c->sess, true);
	fake_store_push(c->sess->u, b);
	fake_outf(c, "%s OK [APPENDUID %u ", cmd->tag, b->uidvalidity);
	fake_out_uidset(c, uids, cmd->messages);
	fake_outs(c, "] APPEND completed\r\n");
	free(uids);
	return 0;
}

/* Removes the \Deleted messages of the selected mailbox (of set, when
 * given, by UID); the session hears them as EXPUNGE, IDLE ones too. */
static void
fake_expunge(struct fake_sess *s, const char *set, bool tell)
{
	struct fake_box *b = s->sel;
	uint64_t lo = 1, hi = UINT32_MAX;
	for (size_t i = 0; i < b->n;) {
		bool in = set == NULL;
		const char *p = set;
		while (!in && p != NULL &&
		       fake_seq_next(&p, b->m[b->n - 1].uid, &lo, &hi) > 0)
			in = b->m[i].uid >= lo && b->m[i].uid <= hi;
		if (in && (b->m[i].flags & FAKE_F_DELETED))
			fake_store_remove(b, i);
		else
			i++;
	}
	if (tell)
		fake_sess_sync(s, true);
	fake_store_push(s->u, b);
}

static unsigned
fake_s_expunge(struct fake_conn *c, const struct fake_cmd *cmd)
{
	if (cmd->uid && !fake_seq_valid(cmd->args)) {
		fake_tagged(c, cmd, "BAD UID EXPUNGE needs a UID set");
		return 0;
	}
	if (c->sess->read_only) {
		fake_tagged(c, cmd, "NO mailbox is read-only");
		return 0;
	}
	fake_expunge(c->sess, cmd->uid ? cmd->args : NULL, true);
	return fake_h_ok(c, cmd);
}

struct fake_copy {
	struct fake_box *dst;
	uint32_t *src, *dstu;
	size_t n, cap;
};

static void
fake_copy_one(struct fake_conn *c, struct fake_msg *m, size_t seq, void *arg)
{
	struct fake_copy *cp = arg;
	if (cp->n == cp->cap) {
		cp->cap = cp->cap ? 2 * cp->cap : 16;
		cp->src = xrealloc(cp->src, cp->cap * sizeof(*cp->src));
		cp->dstu = xrealloc(cp->dstu, cp->cap * sizeof(*cp->dstu));
	}
	cp->src[cp->n] = m->uid;
	cp->dstu[cp->n++] = fake_store_add(cp->dst, m->flags, m->size,
					   m->marked);
}

/* "[COPYUID validity src dst]" */
static void
fake_out_copyuid(struct fake_conn *c, const struct fake_copy *cp)
{
	fake_outf(c, "[COPYUID %u ", cp->dst->uidvalidity);
	fake_out_uidset(c, cp->src, cp->n);
	fake_outs(c, " ");
	fake_out_uidset(c, cp->dstu, cp->n);
	fake_outs(c, "]");
}

/* COPY and MOVE (RFC 6851: the COPYUID comes untagged, then the
 * EXPUNGEs of the moved messages, then the tagged OK). */
static unsigned
fake_s_copy(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = fake_skip_word(cmd->args);
	char name[FAKE_NAME_MAX];
	struct fake_sess *s = c->sess;
	bool move = fake_eq(cmd->name, "MOVE");
	if (!fake_seq_valid(cmd->args) || !fake_arg_string(&p, name, sizeof(name))) {
		fake_tagged(c, cmd, "BAD needs a sequence set and a mailbox");
		return 0;
	}
	struct fake_copy cp = { .dst = fake_store_box(s->u, name, false) };
	if (cp.dst == NULL) {
		fake_tagged(c, cmd, "NO [TRYCREATE] no such mailbox");
		return 0;
	}
	if (move && s->read_only) {
		fake_tagged(c, cmd, "NO mailbox is read-only");
		return 0;
	}
	if (cp.dst == s->sel) {
		fake_tagged(c, cmd, "NO source and destination are the same");
		return 0;
	}
	fake_sess_sync(s, cmd->uid);
	fake_each(s, cmd->args, cmd->uid, fake_copy_one, &cp);
	if (move && cp.n > 0) {
		fake_outs(c, "* OK ");
		fake_out_copyuid(c, &cp);
		fake_outs(c, " moved\r\n");
		for (size_t k = 0; k < cp.n; k++) {
			long i = fake_store_find(s->sel, cp.src[k]);
			if (i >= 0)
				fake_store_remove(s->sel, (size_t)i);
		}
		fake_sess_sync(s, true);
		fake_store_push(s->u, s->sel);
	}
	fake_store_push(s->u, cp.dst);
	if (move || cp.n == 0) {
		fake_h_ok(c, cmd);
	} else {
		fake_outf(c, "%s OK ", cmd->tag);
		fake_out_copyuid(c, &cp);
		fake_outs(c, " COPY completed\r\n");
	}
	free(cp.src);
	free(cp.dstu);
	return 0;
}

static unsigned
fake_s_close(struct fake_conn *c, const struct fake_cmd *cmd)
{
	/* CLOSE expunges silently (no EXPUNGE responses), UNSELECT not. */
	if (fake_eq(cmd->name, "CLOSE") && !c->sess->read_only)
		fake_expunge(c->sess, NULL, false);
	fake_sess_select(c->sess, NULL, false);
	return fake_h_ok(c, cmd);
}

static unsigned
fake_s_noop(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_sess_sync(c->sess, true);
	return fake_h_ok(c, cmd);
}

static unsigned
fake_s_idle(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_sess_sync(c->sess, true);
	snprintf(c->tag, sizeof(c->tag), "%s", cmd->tag);
	c->rstate = FAKE_R_IDLE;
	fake_outs(c, "+ idling\r\n");
	return 0;
}

static unsigned
fake_s_login(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *p = cmd->args;
	char user[FAKE_NAME_MAX];
	if (!fake_arg_string(&p, user, sizeof(user)) || *p == '\0') {
		fake_tagged(c, cmd, "BAD LOGIN needs a user name and a password");
		return 0;
	}
	fake_sess_login(c->sh->store, c, user, strlen(user));
	c->loop->stats.logins++;
	c->logged_in = true;
	fake_tagged(c, cmd, "OK LOGIN completed");
	return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

enum fake_need { FAKE_NEED_NONE, FAKE_NEED_LOGIN, FAKE_NEED_SELECTED };

static const struct {
	const char *name;
	unsigned (*fn)(struct fake_conn *c, const struct fake_cmd *cmd);
	enum fake_need need;
	bool uid_ok;
} fake_store_handlers[] = {
	{ "LOGIN", fake_s_login, FAKE_NEED_NONE, false },
	{ "LIST", fake_s_list, FAKE_NEED_LOGIN, false },
	{ "LSUB", fake_s_list, FAKE_NEED_LOGIN, false },
	{ "STATUS", fake_s_status, FAKE_NEED_LOGIN, false },
	{ "CREATE", fake_s_create_delete, FAKE_NEED_LOGIN, false },
	{ "DELETE", fake_s_create_delete, FAKE_NEED_LOGIN, false },
	{ "SELECT", fake_s_select, FAKE_NEED_LOGIN, false },
	{ "EXAMINE", fake_s_select, FAKE_NEED_LOGIN, false },
	{ "APPEND", fake_s_append, FAKE_NEED_LOGIN, false },
	{ "NOOP", fake_s_noop, FAKE_NEED_LOGIN, false },
	{ "CHECK", fake_s_noop, FAKE_NEED_LOGIN, false },
	{ "IDLE", fake_s_idle, FAKE_NEED_LOGIN, false },
	{ "NOTIFY", fake_s_notify, FAKE_NEED_LOGIN, false },
	{ "FETCH", fake_s_fetch, FAKE_NEED_SELECTED, true },
	{ "STORE", fake_s_store, FAKE_NEED_SELECTED, true },
	{ "SEARCH", fake_s_search, FAKE_NEED_SELECTED, true },
	{ "EXPUNGE", fake_s_expunge, FAKE_NEED_SELECTED, true },
	{ "COPY", fake_s_copy, FAKE_NEED_SELECTED, true },
	{ "MOVE", fake_s_copy, FAKE_NEED_SELECTED, true },
	{ "CLOSE", fake_s_close, FAKE_NEED_SELECTED, false },
	{ "UNSELECT", fake_s_close, FAKE_NEED_SELECTED, false },
};

bool
fake_store_command(struct fake_conn *c, const struct fake_cmd *cmd,
		   unsigned *flags)
{
	for (size_t i = 0; i < sizeof(fake_store_handlers) /
		     sizeof(fake_store_handlers[0]); i++) {
		if (!fake_eq(fake_store_handlers[i].name, cmd->name))
			continue;
		if (cmd->uid && !fake_store_handlers[i].uid_ok)
			return false;	/* fake_cmd.c says BAD */
		enum fake_need need = fake_store_handlers[i].need;
		if (need != FAKE_NEED_NONE && c->sess == NULL)
			fake_tagged(c, cmd, "NO not logged in");
		else if (need == FAKE_NEED_SELECTED && c->sess->sel == NULL)
			fake_tagged(c, cmd, "BAD no mailbox selected");
		else
			*flags = fake_store_handlers[i].fn(c, cmd);
		return true;
	}
	return false;
}
