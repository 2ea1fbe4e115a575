/* fake_store_msgs.c: the message commands of fakeimapd's mail-store
 * mode: FETCH (the items a profile user asks for, with BODY[] sections
 * cut from the generated text), STORE and SEARCH, in their sequence and
 * UID forms, and the flag and message-set helpers fake_store_cmd.c
 * shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_store.h"
#include "util/xmalloc.h"

static const struct {
	const char *name;
	unsigned bit;
} fake_flag_names[] = {
	{ "\\Seen", FAKE_F_SEEN }, { "\\Answered", FAKE_F_ANSWERED },
	{ "\\Flagged", FAKE_F_FLAGGED }, { "\\Deleted", FAKE_F_DELETED },
	{ "\\Draft", FAKE_F_DRAFT },
};
#define FAKE_N_FLAGS (sizeof(fake_flag_names) / sizeof(fake_flag_names[0]))

/* "(\Seen \Draft)" or "\Seen": the system flags in it (keywords are
 * accepted and not kept). */
unsigned
fake_parse_flags(const char *p)
{
	unsigned f = 0;
	while (*p == '(' || *p == ' ')
		p++;
	while (*p != '\0' && *p != ')') {
		size_t len = strcspn(p, " )");
		for (size_t i = 0; i < FAKE_N_FLAGS; i++)
			if (strlen(fake_flag_names[i].name) == len &&
			    strncasecmp(p, fake_flag_names[i].name, len) == 0)
				f |= fake_flag_names[i].bit;
		p += len;
		while (*p == ' ')
			p++;
	}
	return f;
}

static void
fake_out_flags(struct fake_conn *c, unsigned f)
{
	const char *sep = "";
	fake_outs(c, "FLAGS (");
	for (size_t i = 0; i < FAKE_N_FLAGS; i++) {
		if (f & fake_flag_names[i].bit) {
			fake_outf(c, "%s%s", sep, fake_flag_names[i].name);
			sep = " ";
		}
	}
	fake_outs(c, ")");
}

/* Sequence number of uid in the session's view, or 0. */
static size_t
fake_view_seq(const struct fake_sess *s, uint32_t uid)
{
	size_t lo = 0, hi = s->nview;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->view[mid] == uid)
			return mid + 1;
		if (s->view[mid] < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Calls fn for every message of the set that still exists, in order:
 * by UID, or by sequence number of the view. */
void
fake_each(struct fake_sess *s, const char *set, bool uid, fake_each_fn fn,
	  void *arg)
{
	struct fake_box *b = s->sel;
	uint64_t lo, hi;
	if (uid) {
		uint64_t star = b->n > 0 ? b->m[b->n - 1].uid : 0;
		while (fake_seq_next(&set, star, &lo, &hi) > 0)
			for (size_t i = 0; i < b->n; i++)
				if (b->m[i].uid >= lo && b->m[i].uid <= hi)
					fn(s->c, &b->m[i],
					   fake_view_seq(s, b->m[i].uid), arg);
		return;
	}
	while (fake_seq_next(&set, s->nview, &lo, &hi) > 0) {
		for (uint64_t q = lo; q <= hi && q != 0; q++) {
			long i = fake_store_find(b, s->view[q - 1]);
			if (i >= 0)
				fn(s->c, &b->m[i], (size_t)q, arg);
		}
	}
}

/* ---- FETCH -------------------------------------------------------------- */

struct fake_fetch {
	const struct fake_cmd *cmd;
	const char *items;
	bool flags, size, envelope, structure, internaldate;
};

/* One BODY[...] / BODY.PEEK[...] / RFC822* item's data for message m. */
static void
fake_out_section(struct fake_conn *c, const char *sec, size_t sec_len,
		 const char *text, size_t len, size_t hlen)
{
	const char *data = text;
	size_t n = len;
	char *fields = NULL;

	if (sec_len >= 6 && strncasecmp(sec, "HEADER", 6) == 0) {
		n = hlen;
		if (sec_len > 13 && strncasecmp(sec, "HEADER.FIELDS", 13) == 0) {
			bool not = sec_len > 17 &&
				strncasecmp(sec + 13, ".NOT", 4) == 0;
			const char *list = memchr(sec, '(', sec_len);
			fields = xmalloc(hlen + 1);
			n = 0;
			for (const char *l = text; l < text + hlen - 2;) {
				const char *e = strstr(l, "\r\n") + 2;
				size_t name_len = strcspn(l, ":");
				bool hit = false;
				for (const char *f = list ? list + 1 : "";
				     *f != '\0' && *f != ')' && f < sec + sec_len;) {
					size_t fl = strcspn(f, " )");
					hit = hit || (fl == name_len &&
						      strncasecmp(f, l, fl) == 0);
					f += fl;
					while (*f == ' ')
						f++;
				}
				if (hit != not) {
					memcpy(fields + n, l, (size_t)(e - l));
					n += (size_t)(e - l);
				}
				l = e;
			}
			memcpy(fields + n, "\r\n", 2);
			n += 2;
			data = fields;
		}
	} else if ((sec_len == 4 && strncasecmp(sec, "TEXT", 4) == 0) ||
		   (sec_len == 1 && sec[0] == '1')) {
		data = text + hlen;
		n = len - hlen;
	}
	fake_outs(c, " BODY[");
	fake_out(c, sec, sec_len);
	fake_outf(c, "] {%zu}\r\n", n);
	fake_out(c, data, n);
	free(fields);
}

static void
fake_fetch_one(struct fake_conn *c, struct fake_msg *m, size_t seq, void *arg)
{
	struct fake_fetch *f = arg;
	struct fake_sess *s = c->sess;
	size_t hlen = 0;
	char *text = NULL;

	if (seq == 0)
		return;
	/* A BODY[ without .PEEK sets \Seen (RFC 3501 6.4.5). */
	for (const char *p = f->items; (p = strcasestr(p, "BODY[")) != NULL; p++)
		if (!s->read_only && !(m->flags & FAKE_F_SEEN)) {
			m->flags |= FAKE_F_SEEN;
			f->flags = true;
		}
	fake_outf(c, "* %zu FETCH (UID %u", seq, m->uid);
	if (f->flags) {
		fake_outs(c, " ");
		fake_out_flags(c, m->flags);
	}
	if (f->size)
		fake_outf(c, " RFC822.SIZE %u", m->size);
	if (f->internaldate)
		fake_outs(c, " INTERNALDATE \"01-Jan-2024 00:00:00 +0000\"");
	if (f->envelope)
		fake_outf(c, " ENVELOPE (\"Mon, 01 Jan 2024 00:00:00 +0000\" "
			  "\"fakeimapd message %010u\" ((NIL NIL \"sender\" "
			  "\"example.invalid\")) NIL NIL ((NIL NIL \"user\" "
			  "\"example.invalid\")) NIL NIL NIL "
			  "\"<%010u@fakeimapd.invalid>\")", m->uid, m->uid);
	if (fake_items_want_body(f->items) || f->structure) {
		text = xmalloc(m->size);
		fake_store_text(text, m->size, s->u, m->uid, &hlen);
	}
	if (f->structure)
		fake_outf(c, " BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
			  "\"us-ascii\") NIL NIL \"7bit\" %zu %zu NIL NIL NIL)",
			  m->size - hlen, (m->size - hlen) / 74 + 1);
	for (const char *p = f->items; text != NULL && *p != '\0'; p++) {
		const char *open = NULL;
		if (strncasecmp(p, "BODY[", 5) == 0)
			open = p + 5;
		else if (strncasecmp(p, "BODY.PEEK[", 10) == 0)
			open = p + 10;
		if (open != NULL) {
			const char *close = strchr(open, ']');
			if (close == NULL)
				break;
			fake_out_section(c, open, (size_t)(close - open), text,
					 m->size, hlen);
			p = close;
		} else if (strncasecmp(p, "RFC822", 6) == 0 &&
			   strncasecmp(p, "RFC822.SIZE", 11) != 0) {
			bool hdr = strncasecmp(p, "RFC822.HEADER", 13) == 0;
			fake_outf(c, " %s {%zu}\r\n", hdr ? "RFC822.HEADER" :
				  "RFC822", hdr ? hlen : (size_t)m->size);
			fake_out(c, text, hdr ? hlen : m->size);
			p += hdr ? 12 : 5;
		}
	}
	free(text);
	fake_outs(c, ")\r\n");
	c->loop->stats.fetch_bodies += fake_items_want_body(f->items);
}

static bool
fake_has_item(const char *items, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = items; (p = strcasestr(p, name)) != NULL; p += n) {
		bool start = p == items || strchr(" (", p[-1]) != NULL;
		bool end = p[n] == '\0' || strchr(" )", p[n]) != NULL;
		if (start && end)
			return true;
	}
	return false;
}

unsigned
fake_s_fetch(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *items = fake_skip_word(cmd->args);
	if (!fake_seq_valid(cmd->args) || *items == '\0') {
		fake_tagged(c, cmd, "BAD FETCH needs a sequence set and items");
		return 0;
	}
	struct fake_fetch f = { .cmd = cmd, .items = items };
	bool fast = fake_has_item(items, "FAST"), all = fake_has_item(items, "ALL"),
	     full = fake_has_item(items, "FULL");
	f.flags = fast || all || full || fake_has_item(items, "FLAGS");
	f.size = fast || all || full || fake_has_item(items, "RFC822.SIZE");
	f.internaldate = fast || all || full ||
		fake_has_item(items, "INTERNALDATE");
	f.envelope = all || full || fake_has_item(items, "ENVELOPE");
	f.structure = fake_has_item(items, "BODYSTRUCTURE") ||
		fake_has_item(items, "BODY") || full;
	c->loop->stats.fetches++;
	fake_sess_sync(c->sess, cmd->uid);
	fake_each(c->sess, cmd->args, cmd->uid, fake_fetch_one, &f);
	return fake_h_ok(c, cmd);
}

/* ---- STORE, SEARCH ------------------------------------------------------ */

struct fake_storeop {
	const struct fake_cmd *cmd;
	char how;		/* '+', '-' or '=' */
	unsigned flags;
	bool silent;
};

static void
fake_store_one(struct fake_conn *c, struct fake_msg *m, size_t seq, void *arg)
{
	struct fake_storeop *op = arg;
	if (op->how == '+')
		m->flags |= op->flags;
	else if (op->how == '-')
		m->flags &= ~op->flags;
	else
		m->flags = op->flags;
	if (op->silent || seq == 0)
		return;
	fake_outf(c, "* %zu FETCH (", seq);
	if (op->cmd->uid)
		fake_outf(c, "UID %u ", m->uid);
	fake_out_flags(c, m->flags);
	fake_outs(c, ")\r\n");
}

unsigned
fake_s_store(struct fake_conn *c, const struct fake_cmd *cmd)
{
	const char *item = fake_skip_word(cmd->args);
	const char *flags = fake_skip_word(item);
	if (!fake_seq_valid(cmd->args) || *item == '\0' || *flags == '\0') {
		fake_tagged(c, cmd, "BAD STORE needs a sequence set, an item and flags");
		return 0;
	}
	if (c->sess->read_only) {
		fake_tagged(c, cmd, "NO mailbox is read-only");
		return 0;
	}
	struct fake_storeop op = { .cmd = cmd, .how = '=' };
	if (*item == '+' || *item == '-')
		op.how = *item++;
	size_t len = strcspn(item, " ");
	op.silent = len >= 7 && strncasecmp(item + len - 7, ".SILENT", 7) == 0;
	op.flags = fake_parse_flags(flags);
	fake_sess_sync(c->sess, cmd->uid);
	fake_each(c->sess, cmd->args, cmd->uid, fake_store_one, &op);
	return fake_h_ok(c, cmd);
}

static void
fake_search_one(struct fake_conn *c, struct fake_msg *m, size_t seq, void *arg)
{
	if (seq != 0)
		fake_outf(c, " %zu", *(bool *)arg ? (size_t)m->uid : seq);
}

static void
fake_search_foreign(struct fake_conn *c, struct fake_msg *m, size_t seq,
		    void *arg)
{
	if (!m->marked)
		fake_search_one(c, m, seq, arg);
}

/* Every message matches: enough for a client that looks for its mail.
 * The foreign-mail check is answered from what came in: the messages
 * whose header had no X-Imapstress field. */
unsigned
fake_s_search(struct fake_conn *c, const struct fake_cmd *cmd)
{
	bool uid = cmd->uid;
	fake_sess_sync(c->sess, uid);
	fake_outs(c, "* SEARCH");
	fake_each(c->sess, "1:*", false, fake_is_guard_search(cmd) ?
		  fake_search_foreign : fake_search_one, &uid);
	fake_outs(c, "\r\n");
	return fake_h_ok(c, cmd);
}
