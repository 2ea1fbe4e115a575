/* fake_cmd.c: the normal-mode IMAP command handlers over a per-connection
 * in-memory mailbox where UID == sequence number and every message is
 * the same pre-built one. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fake.h"
#include "fake_store.h"
#include "imap/imap_cmd.h"
#include "util/xmalloc.h"

typedef unsigned (*fake_handler_fn)(struct fake_conn *c,
				    const struct fake_cmd *cmd);

void
fake_tagged(struct fake_conn *c, const struct fake_cmd *cmd, const char *text)
{
	fake_outs(c, cmd->tag);
	fake_out(c, " ", 1);
	fake_outs(c, text);
	fake_out(c, "\r\n", 2);
}

void
fake_cmd_greet(struct fake_conn *c)
{
	if (c->sh->script != NULL && fake_script_greet(c))
		return;
	fake_reply_begin(c, 0);
	fake_out(c, c->sh->greeting, c->sh->greeting_len);
	fake_reply_end(c, 0);
}

/* "tag APPEND {N}": the mailbox itself is the first literal, so that
 * literal is not a message. */
bool
fake_cmd_first_literal_is_mailbox(const char *cmd)
{
	const char *p = strchr(cmd, ' ');
	if (p == NULL)
		return false;
	p++;
	if (strncasecmp(p, "APPEND ", 7) != 0)
		return false;
	p += 7;
	while (*p == ' ')
		p++;
	return *p == '{';
}

/* ---- sequence sets ----------------------------------------------------- */

static bool
fake_seq_number(const char **pp, uint64_t star, uint64_t *out)
{
	const char *p = *pp;
	if (*p == '*') {
		*out = star;
		*pp = p + 1;
		return true;
	}
	if (*p < '1' || *p > '9')
		return false;
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	*out = v;
	*pp = p;
	return true;
}

/* Parses the next range of a sequence set, clipped to 1..exists.
 * Returns 1 with a range (possibly empty: lo > hi), 0 at the end of the
 * set, -1 on a syntax error. */
int
fake_seq_next(const char **pp, uint64_t exists, uint64_t *lo, uint64_t *hi)
{
	const char *p = *pp;
	if (*p == ' ' || *p == '\0')
		return 0;
	if (*p == ',')
		p++;
	uint64_t a, b;
	if (!fake_seq_number(&p, exists, &a))
		return -1;
	b = a;
	if (*p == ':') {
		p++;
		if (!fake_seq_number(&p, exists, &b))
			return -1;
	}
	if (*p != ',' && *p != ' ' && *p != '\0')
		return -1;
	if (*p == ',' && (p[1] == ' ' || p[1] == '\0'))
		return -1;
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	if (a < 1)
		a = 1;
	if (b > exists)
		b = exists;
	*lo = a;
	*hi = b;
	*pp = p;
	return 1;
}

bool
fake_seq_valid(const char *set)
{
	uint64_t lo, hi;
	int r;
	if (*set == '\0' || *set == ' ')
		return false;
	while ((r = fake_seq_next(&set, UINT64_MAX, &lo, &hi)) > 0)
		;
	return r == 0;
}

const char *
fake_skip_word(const char *p)
{
	while (*p != ' ' && *p != '\0')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

/* ---- handlers ---------------------------------------------------------- */

unsigned
fake_h_ok(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outs(c, cmd->tag);
	fake_out(c, " OK ", 4);
	if (cmd->uid)
		fake_out(c, "UID ", 4);
	fake_outs(c, cmd->name);
	fake_outs(c, " completed\r\n");
	return 0;
}

static unsigned
fake_h_capability(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outf(c, "* CAPABILITY %s\r\n", c->sh->cfg->caps);
	fake_tagged(c, cmd, "OK CAPABILITY completed");
	return 0;
}

static unsigned
fake_h_login(struct fake_conn *c, const struct fake_cmd *cmd)
{
	if (*cmd->args == '\0') {
		fake_tagged(c, cmd, "BAD LOGIN needs a user name and a password");
		return 0;
	}
	c->loop->stats.logins++;
	c->logged_in = true;
	fake_tagged(c, cmd, "OK LOGIN completed");
	return fake_fault_login_ok(c);
}

static unsigned
fake_h_authenticate(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *ir = fake_skip_word(cmd->args);
	if (strncasecmp(cmd->args, "PLAIN", 5) != 0 ||
	    (cmd->args[5] != ' ' && cmd->args[5] != '\0')) {
		fake_tagged(c, cmd, "NO [CANNOT] only AUTHENTICATE PLAIN is supported");
		return 0;
	}
	if (*ir == '\0') {
		/* No SASL-IR: ask for the response, keep the tag for it. */
		snprintf(c->tag, sizeof(c->tag), "%s", cmd->tag);
		c->rstate = FAKE_R_AUTH;
		fake_out(c, "+ \r\n", 4);
		return 0;
	}
	c->loop->stats.logins++;
	c->logged_in = true;
	fake_tagged(c, cmd, "OK AUTHENTICATE completed");
	return fake_fault_login_ok(c);
}

void
fake_cmd_auth_response(struct fake_conn *c, const char *line)
{
	struct fake_cmd cmd = { .tag = c->tag, .name = "AUTHENTICATE", .args = "" };
	unsigned flags = 0;
	fake_reply_begin(c, fake_reply_delay(c));
	if (strcmp(line, "*") == 0) {
		fake_tagged(c, &cmd, "BAD AUTHENTICATE cancelled");
	} else {
		c->loop->stats.logins++;
		c->logged_in = true;
		fake_tagged(c, &cmd, "OK AUTHENTICATE completed");
		flags = fake_fault_login_ok(c);
	}
	fake_reply_end(c, flags);
	if (c->logged_in)
		fake_fault_after_login(c);
}

static unsigned
fake_h_enable(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outf(c, "* ENABLED %s\r\n", cmd->args);
	fake_tagged(c, cmd, "OK ENABLE completed");
	return 0;
}

static unsigned
fake_h_id(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outs(c, "* ID (\"name\" \"fakeimapd\")\r\n");
	fake_tagged(c, cmd, "OK ID completed");
	return 0;
}

static unsigned
fake_h_list(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outf(c, "* %s (\\HasNoChildren) \"/\" INBOX\r\n",
		  fake_eq(cmd->name, "LSUB") ? "LSUB" : "LIST");
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_namespace(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outs(c, "* NAMESPACE ((\"\" \"/\")) NIL NIL\r\n");
	return fake_h_ok(c, cmd);
}

const char *
fake_mailbox_end(const char *p)
{
	if (*p != '"')
		return p + strcspn(p, " ");
	for (p++; *p != '\0' && *p != '"'; p++)
		if (*p == '\\' && p[1] != '\0')
			p++;
	return *p == '"' ? p + 1 : p;
}

void
fake_out_status_items(struct fake_conn *c, const char *items,
		      const char *const *names, const uint64_t *values, size_t n)
{
	bool first = true;
	fake_outs(c, " (");
	for (const char *p = items + 1; *p != '\0' && *p != ')';) {
		size_t len = strcspn(p, " )");
		for (size_t i = 0; i < n; i++) {
			if (strlen(names[i]) == len &&
			    strncasecmp(p, names[i], len) == 0) {
				fake_outf(c, "%s%s %llu", first ? "" : " ",
					  names[i], (unsigned long long)values[i]);
				first = false;
			}
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	fake_outs(c, ")\r\n");
}

static unsigned
fake_h_status(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *mb = cmd->args;
	const char *end = fake_mailbox_end(mb);
	const char *items = strchr(end, '(');
	if (mb == end || items == NULL) {
		fake_tagged(c, cmd, "BAD STATUS needs a mailbox and (items)");
		return 0;
	}
	fake_outs(c, "* STATUS ");
	if (*mb == '{')
		fake_outs(c, "INBOX");
	else
		fake_out(c, mb, (size_t)(end - mb));
	static const char *const names[] = { "MESSAGES", "RECENT", "UIDNEXT",
		"UIDVALIDITY", "UNSEEN", "DELETED", "HIGHESTMODSEQ", "SIZE" };
	uint64_t n = c->exists;
	uint64_t values[] = { n, 0, n + 1, 1, 0, 0, 1, n * c->sh->cfg->msg_size };
	fake_out_status_items(c, items, names, values,
			      sizeof(names) / sizeof(names[0]));
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_select(struct fake_conn *c, const struct fake_cmd *cmd)
{
	if (*cmd->args == '\0') {
		fake_tagged(c, cmd, "BAD missing mailbox name");
		return 0;
	}
	bool ro = fake_eq(cmd->name, "EXAMINE");
	c->selected = true;
	/* Clients may STORE keywords ($Label1 ...); a real server announces
	 * keywords in FLAGS before using them in FETCH FLAGS. */
	fake_outf(c, "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft "
		  "$Label1 $Label2)\r\n"
		  "* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen "
		  "\\Draft \\*)] Flags permitted.\r\n"
		  "* %llu EXISTS\r\n* 0 RECENT\r\n"
		  "* OK [UIDVALIDITY 1] UIDs valid\r\n"
		  "* OK [UIDNEXT %llu] Predicted next UID\r\n"
		  "%s OK [%s] %s completed\r\n",
		  (unsigned long long)c->exists,
		  (unsigned long long)c->exists + 1, cmd->tag,
		  ro ? "READ-ONLY" : "READ-WRITE", ro ? "EXAMINE" : "SELECT");
	return 0;
}

static unsigned
fake_h_append(struct fake_conn *c, const struct fake_cmd *cmd)
{
	if (cmd->messages == 0) {
		fake_tagged(c, cmd, "BAD APPEND needs a message literal");
		return 0;
	}
	struct fake_stats *st = &c->loop->stats;
	uint64_t first = c->exists + 1;
	c->exists += cmd->messages;
	for (unsigned i = 0; i < cmd->messages; i++) {
		if (cmd->marked != NULL && cmd->marked[i])
			continue;
		if (c->n_foreign == c->cap_foreign) {
			c->cap_foreign = c->cap_foreign ? 2 * c->cap_foreign : 8;
			c->foreign = xrealloc(c->foreign, c->cap_foreign *
					      sizeof(*c->foreign));
		}
		c->foreign[c->n_foreign++] = first + i;
	}
	st->appends += cmd->messages;
	st->append_bytes += cmd->message_bytes;
	fake_outf(c, "* %llu EXISTS\r\n", (unsigned long long)c->exists);
	if (cmd->messages == 1)
		fake_outf(c, "%s OK [APPENDUID 1 %llu] APPEND completed\r\n",
			  cmd->tag, (unsigned long long)first);
	else
		fake_outf(c, "%s OK [APPENDUID 1 %llu:%llu] APPEND completed\r\n",
			  cmd->tag, (unsigned long long)first,
			  (unsigned long long)c->exists);
	return 0;
}

bool
fake_items_want_body(const char *items)
{
	if (strcasestr(items, "BODY[") != NULL ||
	    strcasestr(items, "BODY.PEEK[") != NULL)
		return true;
	for (const char *p = items; (p = strcasestr(p, "RFC822")) != NULL;) {
		p += 6;
		if (*p != '.' || strncasecmp(p, ".SIZE", 5) != 0)
			return true;
	}
	return false;
}

static unsigned
fake_h_fetch(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *set = cmd->args;
	const char *items = fake_skip_word(set);
	if (!fake_seq_valid(set) || *items == '\0') {
		fake_tagged(c, cmd, "BAD FETCH needs a sequence set and items");
		return 0;
	}
	const struct fake_shared *sh = c->sh;
	bool body = fake_items_want_body(items);
	struct fake_stats *st = &c->loop->stats;
	uint64_t lo, hi;
	char line[96];
	st->fetches++;
	while (fake_seq_next(&set, c->exists, &lo, &hi) > 0) {
		for (uint64_t s = lo; s <= hi && s != 0; s++) {
			size_t n = 0;
			memcpy(line, "* ", 2);
			n = 2 + imap_fmt_u64(line + 2, s);
			memcpy(line + n, " FETCH (UID ", 12);
			n += 12;
			n += imap_fmt_u64(line + n, s);
			if (!body) {
				memcpy(line + n, " FLAGS (\\Seen))\r\n", 17);
				fake_out(c, line, n + 17);
				continue;
			}
			fake_out(c, line, n);
			fake_out(c, sh->body_suffix, sh->body_suffix_len);
			fake_out_ref(c, sh->msg, (size_t)sh->cfg->msg_size);
			fake_out(c, ")\r\n", 3);
			st->fetch_bodies++;
		}
	}
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_store(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *set = cmd->args;
	const char *item = fake_skip_word(set);
	const char *flags = fake_skip_word(item);
	if (!fake_seq_valid(set) || *item == '\0' || *flags == '\0') {
		fake_tagged(c, cmd, "BAD STORE needs a sequence set, an item and flags");
		return 0;
	}
	size_t item_len = strcspn(item, " ");
	bool silent = item_len >= 7 &&
		strncasecmp(item + item_len - 7, ".SILENT", 7) == 0;
	size_t flags_len = strlen(flags);
	if (*flags == '(' && flags_len >= 2 && flags[flags_len - 1] == ')') {
		flags++;
		flags_len -= 2;
	}
	uint64_t lo, hi;
	while (!silent && fake_seq_next(&set, c->exists, &lo, &hi) > 0) {
		for (uint64_t s = lo; s <= hi && s != 0; s++) {
			fake_outf(c, "* %llu FETCH (UID %llu FLAGS (",
				  (unsigned long long)s, (unsigned long long)s);
			fake_out(c, flags, flags_len);
			fake_out(c, "))\r\n", 4);
		}
	}
	return fake_h_ok(c, cmd);
}

/* The foreign-mail check: the messages without the marker, by UID (the
 * sequence number here).  The pre-built ones lack it when --foreign
 * says so or it did not fit in --msg-size; an appended one when its
 * header had no X-Imapstress field. */
static unsigned
fake_h_guard_search(struct fake_conn *c, const struct fake_cmd *cmd)
{
	uint64_t pre = c->sh->msg_marked ? c->sh->cfg->foreign :
	    c->sh->cfg->messages;
	fake_outs(c, "* SEARCH");
	for (uint64_t s = 1; s <= pre && s <= c->exists; s++)
		fake_outf(c, " %llu", (unsigned long long)s);
	for (size_t i = 0; i < c->n_foreign; i++)
		if (c->foreign[i] <= c->exists)
			fake_outf(c, " %llu", (unsigned long long)c->foreign[i]);
	fake_out(c, "\r\n", 2);
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_search(struct fake_conn *c, const struct fake_cmd *cmd)
{
	if (fake_is_guard_search(cmd))
		return fake_h_guard_search(c, cmd);
	fake_outs(c, "* SEARCH");
	for (uint64_t s = 1; s <= 3 && s <= c->exists; s++)
		fake_outf(c, " %llu", (unsigned long long)s);
	fake_out(c, "\r\n", 2);
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_idle(struct fake_conn *c, const struct fake_cmd *cmd)
{
	snprintf(c->tag, sizeof(c->tag), "%s", cmd->tag);
	c->rstate = FAKE_R_IDLE;
	fake_outs(c, "+ idling\r\n");
	return 0;
}

void
fake_cmd_idle_line(struct fake_conn *c, const char *line)
{
	if (!fake_eq(line, "DONE")) {
		fake_reply_now(c, "* BAD expected DONE", 0);
		return;
	}
	c->rstate = FAKE_R_COMMAND;
	fake_reply_begin(c, fake_reply_delay(c));
	fake_outf(c, "%s OK IDLE terminated\r\n", c->tag);
	fake_reply_end(c, 0);
}

static unsigned
fake_h_close(struct fake_conn *c, const struct fake_cmd *cmd)
{
	c->selected = false;
	return fake_h_ok(c, cmd);
}

static unsigned
fake_h_logout(struct fake_conn *c, const struct fake_cmd *cmd)
{
	fake_outs(c, "* BYE logging out\r\n");
	fake_tagged(c, cmd, "OK LOGOUT completed");
	return FAKE_P_CLOSE;
}

struct fake_handler {
	const char *name;
	fake_handler_fn fn;
	bool uid_ok;            /* may follow UID */
};

static const struct fake_handler fake_handlers[] = {
	{ "FETCH", fake_h_fetch, true },
	{ "APPEND", fake_h_append, false },
	{ "NOOP", fake_h_ok, false },
	{ "STORE", fake_h_store, true },
	{ "SELECT", fake_h_select, false },
	{ "EXAMINE", fake_h_select, false },
	{ "SEARCH", fake_h_search, true },
	{ "LOGIN", fake_h_login, false },
	{ "AUTHENTICATE", fake_h_authenticate, false },
	{ "CAPABILITY", fake_h_capability, false },
	{ "LOGOUT", fake_h_logout, false },
	{ "IDLE", fake_h_idle, false },
	{ "EXPUNGE", fake_h_ok, true },
	{ "CHECK", fake_h_ok, false },
	{ "CLOSE", fake_h_close, false },
	{ "UNSELECT", fake_h_close, false },
	{ "STATUS", fake_h_status, false },
	{ "LIST", fake_h_list, false },
	{ "LSUB", fake_h_list, false },
	{ "ENABLE", fake_h_enable, false },
	{ "ID", fake_h_id, false },
	{ "NAMESPACE", fake_h_namespace, false },
	{ "COPY", fake_h_ok, true },
	{ "MOVE", fake_h_ok, true },
	{ "CREATE", fake_h_ok, false },
	{ "DELETE", fake_h_ok, false },
	{ "RENAME", fake_h_ok, false },
	{ "SUBSCRIBE", fake_h_ok, false },
	{ "UNSUBSCRIBE", fake_h_ok, false },
};

static const struct fake_handler *
fake_handler_find(const struct fake_cmd *cmd)
{
	for (size_t i = 0; i < sizeof(fake_handlers) / sizeof(fake_handlers[0]);
	     i++) {
		const struct fake_handler *h = &fake_handlers[i];
		if (fake_eq(h->name, cmd->name))
			return cmd->uid && !h->uid_ok ? NULL : h;
	}
	return NULL;
}

/* Splits the next word off *p in place (NUL-terminates it). */
static char *
fake_cut_word(char **p)
{
	char *w = *p;
	char *sp = strchr(w, ' ');
	if (sp == NULL) {
		*p = w + strlen(w);
	} else {
		*sp = '\0';
		*p = sp + 1;
	}
	return w;
}

void
fake_cmd_dispatch(struct fake_conn *c)
{
	struct fake_cmd cmd = { 0 };
	char *p = c->cmd;
	if (*p == '\0') {
		fake_reply_now(c, "* BAD empty command line", 0);
		return;
	}
	cmd.tag = fake_cut_word(&p);
	if (*cmd.tag == '\0' || *p == '\0' || *p == ' ') {
		fake_reply_now(c, "* BAD expected: tag SP command", 0);
		return;
	}
	if (strlen(cmd.tag) > FAKE_TAG_MAX) {
		fake_reply_now(c, "* BAD tag too long", 0);
		return;
	}
	cmd.name = fake_cut_word(&p);
	if (fake_eq(cmd.name, "UID")) {
		cmd.uid = true;
		cmd.name = fake_cut_word(&p);
	}
	cmd.args = p;
	if (fake_eq(cmd.name, "APPEND") && !cmd.uid) {
		cmd.messages = c->lit_count - (c->lit_mailbox ? 1u : 0u);
		cmd.message_bytes = c->lit_bytes - c->lit_mailbox_bytes;
		/* (a literal cut short by a fault leaves fewer marks) */
		if (c->n_lit_marks == cmd.messages)
			cmd.marked = c->lit_marks;
	}
	c->loop->stats.commands++;
	if (c->sh->script != NULL) {
		fake_script_command(c, &cmd);
		return;
	}
	if (fake_fault_command(c, &cmd))
		return;

	const struct fake_handler *h = fake_handler_find(&cmd);
	bool was_logged_in = c->logged_in;
	fake_reply_begin(c, fake_cmd_delay(c, cmd.name));
	unsigned flags = 0;
	if (c->sh->store != NULL && fake_store_command(c, &cmd, &flags))
		;	/* mail-store mode (fake_store_cmd.c) */
	else if (h == NULL)
		fake_tagged(c, &cmd, "BAD unknown command");
	else
		flags = h->fn(c, &cmd);
	fake_reply_end(c, flags);
	if (!was_logged_in && c->logged_in)
		fake_fault_after_login(c);
}
