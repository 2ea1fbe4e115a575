/* script_guard.c: the foreign-mail guard (imap/guard.h) of the scripted
 * tests.  The set-up deletes every mailbox named "<mailbox>*" before it
 * creates the test mailbox; before the first such DELETE of the process
 * each of them is opened read-only (EXAMINE) and, when it holds mail,
 * searched for messages without the marker; then CLOSE (after EXAMINE it
 * expunges nothing) and the DELETEs.  Once a set-up found the prefix
 * clean, every "<mailbox>*" mailbox is this process's work: the set-up
 * appends the mbox's messages there as they are, without the marker
 * (imaptest's tests compare whole messages), as a test's own APPENDs
 * of literal text are, and the clean-up run after the last test deletes
 * them all, so that no unmarked mail of ours outlives the run.  A
 * script's step may destroy only there, and only after that check: a
 * destructive command (guard_destructive_text) in another selected
 * mailbox, or a DELETE of another name, ends the run as the stress
 * mix's refusal does (exit 2, nothing sent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap/guard.h"
#include "script/script_run_int.h"
#include "util/xmalloc.h"

/* The entry that says the prefix was found clean in this process. */
static uint32_t
prefix_entry(struct script_run *r)
{
	char key[300];
	snprintf(key, sizeof(key), "%s*", r->box);
	return guard_entry(r->env.guard, r->env.user, key, strlen(key));
}

static bool
prefix_clear(struct script_run *r)
{
	return r->env.guard == NULL ||
	    guard_verdict(r->env.guard, prefix_entry(r)) == GUARD_SAFE;
}

static void
refuse(struct script_run *r, const char *box, uint32_t foreign,
       const char *why, unsigned line)
{
	char msg[1024];
	guard_refusal(msg, sizeof(msg), r->env.user, box, foreign, why);
	r->out.foreign = true;
	srun_finish(r, SCRIPT_FAIL, line, xstrdup(msg));
}

bool
sguard_next(struct script_run *r, struct sbuf *b)
{
	if (prefix_clear(r))
		return false;
	if (r->guard_i >= r->n_boxes) {
		guard_set(r->env.guard, prefix_entry(r), GUARD_SAFE);
		return false;
	}
	const char *box = r->boxes[r->guard_i] + 1;	/* past the flag */
	if (r->guard_phase == SG_EXAMINE) {
		r->guard_exists = 0;
		r->guard_examined = true;
		sbuf_adds(b, "EXAMINE ");
		sbuf_add_quoted(b, box);
	} else {
		sbuf_adds(b, GUARD_SEARCH);
	}
	return true;
}

void
sguard_untagged(struct script_run *r, const struct imap_resp *resp)
{
	enum imap_kw kw = imap_resp_kw(resp);
	uint32_t e;

	if (r->env.guard == NULL)
		return;
	if (kw == IMAP_KW_EXISTS && resp->has_num) {
		r->guard_exists = resp->num;
		return;
	}
	if (r->guard_phase != SG_SEARCH)
		return;
	e = guard_entry(r->env.guard, r->env.user, r->boxes[r->guard_i] + 1,
			strlen(r->boxes[r->guard_i] + 1));
	if (kw == IMAP_KW_SEARCH)
		guard_tally(r->env.guard, e,
			    guard_count_search(resp->text, resp->text_len));
	else if (kw == IMAP_KW_ESEARCH)
		guard_tally(r->env.guard, e,
			    guard_count_esearch(resp->text, resp->text_len));
}

bool
sguard_tagged(struct script_run *r, const struct imap_resp *resp)
{
	const char *box = r->boxes[r->guard_i] + 1;
	bool noselect = r->boxes[r->guard_i][0] == 'N';
	uint32_t e = guard_entry(r->env.guard, r->env.user, box, strlen(box));
	uint32_t foreign;
	const char *why;
	char reason[300];

	if (resp->cond != IMAP_COND_OK &&
	    !(r->guard_phase == SG_EXAMINE && noselect)) {
		/* A \Noselect name holds no mail; any other refusal leaves
		 * the mailbox unknown. */
		snprintf(reason, sizeof(reason), "the server answered %s to %s: "
			 "%.200s", resp->cond == IMAP_COND_NO ? "NO" : "BAD",
			 r->guard_phase == SG_EXAMINE ? "EXAMINE" : GUARD_SEARCH,
			 resp->line);
		refuse(r, box, 0, reason, 0);
		return false;
	}
	if (r->guard_phase == SG_EXAMINE && resp->cond == IMAP_COND_OK &&
	    r->guard_exists > 0) {
		r->guard_phase = SG_SEARCH;
		return true;
	}
	if (r->guard_phase == SG_SEARCH &&
	    guard_judge(r->env.guard, e, &foreign, &why) != GUARD_SAFE) {
		refuse(r, box, foreign, why, 0);
		return false;
	}
	r->guard_phase = SG_EXAMINE;
	r->guard_i++;
	return true;
}

void
sguard_listed(struct script_run *r, const struct imap_resp *resp,
	      const char *name, size_t len)
{
	/* The flags: "(\HasNoChildren \Noselect) ..." */
	const char *close = memchr(resp->text, ')', resp->text_len);
	size_t flen = close ? (size_t)(close - resp->text) : 0;
	bool noselect = false;
	for (size_t i = 0; i + 9 <= flen; i++)
		if (strncasecmp(resp->text + i, "\\Noselect", 9) == 0 ||
		    (i + 12 <= flen &&
		     strncasecmp(resp->text + i, "\\NonExistent", 12) == 0))
			noselect = true;
	char *s = xmalloc(len + 2);
	s[0] = noselect ? 'N' : 'S';
	memcpy(s + 1, name, len);
	s[len + 1] = '\0';
	r->boxes = xrealloc(r->boxes, (r->n_boxes + 1) * sizeof(char *));
	r->boxes[r->n_boxes++] = s;
}

/* --- the steps --------------------------------------------------------- */

bool
sguard_ours(const struct script_run *r, const char *box, size_t len)
{
	size_t n = strlen(r->box);
	return len >= n && memcmp(box, r->box, n) == 0;
}

bool
sguard_step(struct script_run *r, unsigned conn, const char *text,
	    unsigned line)
{
	struct rconn *c = &r->conn[conn];
	size_t len = strlen(text);
	const char *box;
	size_t n;
	size_t p = strspn(text, " ");

	if (strncasecmp(text + p, "SELECT ", 7) == 0 ||
	    strncasecmp(text + p, "EXAMINE ", 8) == 0) {
		n = guard_box_arg(text, len, 0, &box);
		free(c->selected);
		c->selected = n > 0 ? xstrndup(box, n) : NULL;
		return true;
	}
	if (r->env.guard == NULL || !guard_destructive_text(text, len))
		return true;
	/* The test's names are ours only once a set-up of this process has
	 * checked them: a test with state: nonauth has no set-up. */
	if (!prefix_clear(r)) {
		refuse(r, r->box, 0, "a script's destructive command before any "
		       "set-up checked the test mailbox's names (state: nonauth "
		       "has no set-up)", line);
		return false;
	}
	if (guard_names_box(text, len)) {
		n = guard_box_arg(text, len, 0, &box);
		if (n > 0 && sguard_ours(r, box, n))
			return true;
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(n > 0 ? n : 9),
			 n > 0 ? box : "(unknown)");
		refuse(r, name, 0, "a script's DELETE outside the test mailbox's "
		       "names", line);
		return false;
	}
	if (c->selected != NULL && sguard_ours(r, c->selected, strlen(c->selected)))
		return true;
	refuse(r, c->selected ? c->selected : "(none selected)", 0,
	       "a script's destructive command outside the test mailbox's "
	       "names", line);
	return false;
}
