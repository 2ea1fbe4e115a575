/* script_append.c: the test's mbox messages on the wire, each with its
 * "From " line's date as INTERNALDATE (script_idate.c), as imaptest.  The
 * set-up's APPENDs (script_run.c) and imaptest's bodiless APPEND in a
 * script ("append" alone, or "append MAILBOX [(flags)] [date]" with no
 * literal and no CATENATE: the next message of the mbox goes to that
 * mailbox) take the messages in turn from one counter, as imaptest's one
 * mbox source does.  Into the test's own mailboxes a message goes as the
 * mbox has it: imaptest's tests compare BODY[] and MIME headers whole,
 * and those mailboxes are known to be this run's without a marker
 * (script_guard.c); into any other mailbox it carries the marker, as
 * all mail imapstress leaves on a server does. */
#include <string.h>
#include <strings.h>

#include "script/script_run_int.h"

bool
sappend_next(struct script_run *r, struct sbuf *b, bool with_date, bool marked)
{
	unsigned have = r->pool ? msg_pool_count(r->pool) : 0;

	if (have == 0)
		return false;
	unsigned idx = r->appended++ % have;
	const struct msg *msg = msg_pool_get(r->pool, idx);
	/* the "From " line's date, when every message has its line */
	if (r->s->n_idates == have && r->s->idates[idx] != NULL && with_date)
		sbuf_addf(b, " \"%s\"", r->s->idates[idx]);
	if (!marked) {
		sbuf_addf(b, " {%zu}\r\n", msg->len);
		sbuf_add(b, msg->data, msg->len);
		return true;
	}
	char head[MSG_HEAD_MAX + 1];
	size_t hl = msg_head(head, msg, r->env.run_id, r->appended);
	sbuf_addf(b, " {%zu}\r\n", msg_wire_len(msg));
	sbuf_add(b, head, hl);
	sbuf_add(b, msg->data, msg->len);
	return true;
}

/* The mailbox a bodiless APPEND names (rest: after "append "), as an
 * atom or a quoted string without escapes; 0 when it is neither (then
 * the message is marked: not known to be one of ours). */
static size_t
append_box(const char *rest, size_t rl, const char **box)
{
	if (rl > 0 && rest[0] == '"') {
		const char *q = memchr(rest + 1, '"', rl - 1);
		if (q == NULL || memchr(rest + 1, '\\', (size_t)(q - rest - 1)))
			return 0;
		*box = rest + 1;
		return (size_t)(q - rest - 1);
	}
	const char *sp = memchr(rest, ' ', rl);
	*box = rest;
	return sp ? (size_t)(sp - rest) : rl;
}

/* Is w (n octets) the word "catenate" in any case? */
static bool
has_catenate(const char *s, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i++)
		if (strncasecmp(s + i, "catenate", 8) == 0 &&
		    (i == 0 || s[i - 1] == ' ') &&
		    (i + 8 == n || s[i + 8] == ' ' || s[i + 8] == '('))
			return true;
	return false;
}

bool
sappend_fill(struct script_run *r, const char *text, size_t len,
	     struct sbuf *out)
{
	if (len < 6 || strncasecmp(text, "append", 6) != 0 ||
	    (len > 6 && text[6] != ' '))
		return false;
	const char *rest = text + 6;
	size_t rl = len - 6;
	while (rl > 0 && *rest == ' ') {
		rest++;
		rl--;
	}
	if (memmem(rest, rl, "}\r\n", 3) != NULL || has_catenate(rest, rl))
		return false;
	struct sbuf b = { 0 };
	const char *box = r->box;
	size_t bl = strlen(r->box);
	sbuf_adds(&b, "append ");
	if (rl == 0)
		sbuf_add_quoted(&b, r->box);
	else {
		sbuf_add(&b, rest, rl);
		bl = append_box(rest, rl, &box);
	}
	bool ours = bl > 0 && sguard_ours(r, box, bl);
	/* a date the script gives wins over the mbox's */
	if (!sappend_next(r, &b, memchr(rest, '"', rl) == NULL, !ours)) {
		sbuf_reset(&b);
		return false;
	}
	sbuf_reset(out);
	*out = b;
	return true;
}
