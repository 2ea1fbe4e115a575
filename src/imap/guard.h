/* guard.h: the foreign-mail guard's memory and its one rule (issue 31).
 * A run never destroys mail it did not put on the server: before the
 * first destructive command (guard_destructive) goes into a mailbox, the
 * mailbox must be known to hold only our mail, marked with the
 * X-Imapstress header (GUARD_HEADER).  What the run learnt is kept here,
 * one entry per (user, mailbox), for every session of a worker (or, in
 * test= mode, of the process): one check per mailbox per run.
 *
 * This file is only the table and the rule, without a connection;
 * asking the server is the engine's (conn_guard.c, which also knows
 * which of imaptest's states destroy: conn_guard_destructive) and the
 * script runner's (script_guard.c). */
#ifndef IMAPSTRESS_GUARD_H
#define IMAPSTRESS_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The marker every message imapstress puts on a server carries, and the
 * search that finds the messages without it: RFC 3501 6.4.4, an empty
 * string matches every message that has the field. */
#define GUARD_HEADER "X-Imapstress"
#define GUARD_SEARCH "UID SEARCH NOT HEADER " GUARD_HEADER " \"\""
/* The option that turns the guard off. */
#define GUARD_OPTION "--allow-foreign-mail"

enum guard_verdict {
	GUARD_UNKNOWN,	/* not checked yet */
	GUARD_PENDING,	/* a session's search is out */
	GUARD_SAFE,	/* only our mail: destructive commands may go */
	GUARD_REFUSED	/* foreign mail, or no trustworthy answer */
};

struct guard;

struct guard *guard_new(void);
void guard_free(struct guard *g);		/* NULL is a no-op */

/* The entry of (user, box), made UNKNOWN on first use.  Entries are
 * never removed or moved: the index stays valid for the run.  INBOX is
 * the same mailbox in any case (RFC 3501 5.1). */
uint32_t guard_entry(struct guard *g, const char *user, const char *box,
		     size_t box_len);
enum guard_verdict guard_verdict(const struct guard *g, uint32_t e);
void guard_set(struct guard *g, uint32_t e, enum guard_verdict v);
/* Entry e's names: valid until the next guard_entry (one arena holds
 * them all and grows). */
const char *guard_box(const struct guard *g, uint32_t e);
const char *guard_user(const struct guard *g, uint32_t e);

/* Who waits for entry e's answer (opaque: a connection).  guard_take_
 * waiters hands them over (the caller frees the array) and forgets them. */
void guard_wait(struct guard *g, uint32_t e, void *waiter);
void **guard_take_waiters(struct guard *g, uint32_t e, unsigned *n);
/* A waiter that goes away (its session closed) before the answer. */
void guard_unwait(struct guard *g, uint32_t e, void *waiter);

/* The searching session's tally of the answer: an untagged SEARCH or
 * ESEARCH naming n messages (n < 0: one that could not be read).
 * guard_judge, at the search's tagged OK: SAFE when answers were read
 * and named none, else REFUSED with *foreign (how many) or *why (no
 * answer came, or one could not be read).  The tally starts afresh. */
void guard_tally(struct guard *g, uint32_t e, int64_t n);
enum guard_verdict guard_judge(struct guard *g, uint32_t e, uint32_t *foreign,
			       const char **why);

/* What a destructive command's text may start with: a space (skipped
 * before its first word) or a first letter of UID, EXPUNGE, MOVE,
 * DELETE, CLOSE, STORE in either case (guard.c). */
extern const bool guard_lead[256];
/* The rule past its first octet: the words (guard.c). */
bool guard_destructive_words(const char *text, size_t len);
/* THE rule: does this command (its text, without the tag) destroy
 * mail?  EXPUNGE, UID EXPUNGE, MOVE, UID MOVE, DELETE of a mailbox,
 * CLOSE (it expunges), a STORE that adds \Deleted (+FLAGS or FLAGS;
 * -FLAGS removes it).  Inline: every command a run sends passes here
 * (conn_guard_gate), and the first octet turns most away (NOOP, FETCH,
 * LIST, ...) with no call and no word compared; the rest are read word
 * by word. */
static inline bool
guard_destructive_text(const char *text, size_t len)
{
	if (len == 0 || !guard_lead[(unsigned char)text[0]])
		return false;
	return guard_destructive_words(text, len);
}

/* A destructive command that names a mailbox (DELETE), not the selected
 * one; guard_box_arg: that name (a quoted string unquoted in place is
 * not possible: only names without escapes are returned), its length, 0
 * when it is not one imapstress would send. */
bool guard_names_box(const char *text, size_t len);
/* The k-th mailbox argument (0: the first) of CREATE, DELETE, RENAME. */
size_t guard_box_arg(const char *text, size_t len, unsigned k,
		     const char **box);

/* The refusal line (without a newline) into buf: names the user, the
 * mailbox, how many messages lack the marker (foreign), or why the
 * answer cannot be trusted (why != NULL), and the option. */
void guard_refusal(char *buf, size_t size, const char *user, const char *box,
		   uint32_t foreign, const char *why);

/* The messages a search answer names: "* SEARCH 1 2 5" (count the
 * numbers) or "* ESEARCH (TAG "x") UID ALL 1:3,7" / "... COUNT 4"
 * (text: what follows the keyword).  -1 when it cannot be read. */
int64_t guard_count_search(const char *text, size_t len);
int64_t guard_count_esearch(const char *text, size_t len);

#endif
