/* script_ns.c: where the test mailbox lives (script_run.h).  A server
 * may keep personal mailboxes under a prefix (Courier: "INBOX." with
 * separator "."), and there CREATE of a top-level "imaptest" is refused.
 * When the user left box= alone, the set-up asks NAMESPACE (RFC 2342,
 * part of IMAP4rev2) and puts the test mailbox under the first personal
 * namespace's prefix.  imaptest does not: it always uses "imaptest".
 * When CREATE is refused all the same, sns_hint says where the name came
 * from and what to give box=. */
#include <stdlib.h>
#include <string.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

void
sns_reset(struct sns *ns)
{
	free(ns->prefix);
	free(ns->sep);
	memset(ns, 0, sizeof(*ns));
}

bool
sns_wanted(struct script_run *r)
{
	const char *caps = r->caps.s ? r->caps.s : "";

	if (!r->env.mailbox_auto) {
		r->ns.state = SNS_FIXED;
		return false;
	}
	if (!imap_caps_has(caps, r->caps.len, "NAMESPACE") &&
	    !imap_caps_has(caps, r->caps.len, "IMAP4rev2")) {
		r->ns.state = SNS_NOT_OFFERED;
		return false;
	}
	r->ns.state = SNS_ASKED;
	return true;
}

static bool
is_string(const struct imap_arg *a)
{
	return a != NULL && (a->type == IMAP_ARG_QUOTED ||
			     a->type == IMAP_ARG_LITERAL ||
			     (a->type == IMAP_ARG_ATOM &&
			      !(a->len == 3 && strncasecmp(a->str, "NIL", 3) == 0)));
}

/* Sent in a quoted string by the set-up: printable ASCII only. */
static bool
quotable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* "* NAMESPACE ((prefix sep) ...) other shared": the first personal
 * one.  A second NAMESPACE reply in the same command is ignored. */
void
sns_reply(struct script_run *r, const struct imap_resp *resp)
{
	if (r->ns.personal || r->ns.unusable)
		return;
	const struct imap_arg *root = imap_args_parse(r->m.args, resp->text,
						      resp->text_len);
	const struct imap_arg *pers = root ? imap_arg_child(root) : NULL;
	const struct imap_arg *first = pers && pers->type == IMAP_ARG_LIST
				       ? imap_arg_child(pers) : NULL;
	const struct imap_arg *pfx = first && first->type == IMAP_ARG_LIST
				     ? imap_arg_child(first) : NULL;
	if (!is_string(pfx))
		return;		/* NIL, or not the RFC's form: no prefix */
	const struct imap_arg *sep = imap_arg_next(pfx);
	if (!quotable(pfx->str, pfx->len) ||
	    (is_string(sep) && !quotable(sep->str, sep->len))) {
		r->ns.unusable = true;
		r->ns.prefix = xstrndup(pfx->str, pfx->len);
		return;
	}
	r->ns.personal = true;
	r->ns.prefix = xstrndup(pfx->str, pfx->len);
	if (is_string(sep))
		r->ns.sep = xstrndup(sep->str, sep->len);
}

void
sns_done(struct script_run *r, bool ok)
{
	struct sns *ns = &r->ns;

	if (!ok) {
		ns->state = SNS_FAILED;
		return;
	}
	ns->state = SNS_ANSWERED;
	if (!ns->personal || ns->prefix[0] == '\0')
		return;
	size_t pl = strlen(ns->prefix);
	const char *sep = ns->sep ? ns->sep : "";
	size_t sl = strlen(sep);
	/* The prefix normally ends in its separator ("INBOX."); add it
	 * when it does not. */
	bool add = sl > 0 && (pl < sl || strcmp(ns->prefix + pl - sl, sep) != 0);
	struct sbuf b = { 0 };
	sbuf_adds(&b, ns->prefix);
	if (add)
		sbuf_adds(&b, sep);
	sbuf_adds(&b, r->env.mailbox);
	free(r->box);
	r->box = sbuf_take(&b);
}

void
sns_hint(const struct script_run *r, struct sbuf *b)
{
	const struct sns *ns = &r->ns;
	static const char give[] = "; give box= a mailbox this user may create";

	sbuf_adds(b, "hint: ");
	switch (ns->state) {
	case SNS_FIXED:
		sbuf_adds(b, "the name is box='");
		sbuf_add_escaped(b, r->box, strlen(r->box));
		sbuf_adds(b, "'");
		sbuf_adds(b, give);
		sbuf_adds(b, " (NAMESPACE tells where personal mailboxes live)");
		return;
	case SNS_NOT_OFFERED:
		sbuf_adds(b, "the server offers no NAMESPACE, so the test "
			  "mailbox is at the top level");
		break;
	case SNS_FAILED:
		sbuf_adds(b, "NAMESPACE failed, so the test mailbox is at the "
			  "top level");
		break;
	case SNS_ASKED:
	case SNS_ANSWERED:
		if (ns->unusable) {
			sbuf_adds(b, "NAMESPACE's personal prefix '");
			sbuf_add_escaped(b, ns->prefix, strlen(ns->prefix));
			sbuf_adds(b, "' has octets a quoted string cannot "
				  "carry, so the test mailbox is at the top level");
		} else if (ns->personal && ns->prefix[0] != '\0') {
			sbuf_adds(b, "the name is the personal namespace's prefix '");
			sbuf_add_escaped(b, ns->prefix, strlen(ns->prefix));
			sbuf_adds(b, "' (from NAMESPACE) and '");
			sbuf_add_escaped(b, r->env.mailbox, strlen(r->env.mailbox));
			sbuf_adds(b, "'");
		} else {
			sbuf_adds(b, "NAMESPACE gives the personal mailboxes no "
				  "prefix, so the test mailbox is at the top level");
		}
		break;
	}
	sbuf_adds(b, give);
	if (ns->state != SNS_ANSWERED || !ns->personal) {
		sbuf_adds(b, " (with personal mailboxes under 'INBOX.': box=INBOX.");
		sbuf_add_escaped(b, r->env.mailbox, strlen(r->env.mailbox));
		sbuf_adds(b, ")");
	}
}
