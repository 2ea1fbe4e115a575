/* imap_status.h: the text of an untagged STATUS response (RFC 3501
 * 7.2.4), "mailbox (MESSAGES 3 UIDNEXT 9 ...)", as NOTIFY (RFC 5465)
 * sends it unasked for mailboxes other than the selected one.  The
 * server's text is not trusted: the name is bounded, every number checked
 * for overflow, anything malformed refused with a reason. */
#ifndef IMAPSTRESS_IMAP_STATUS_H
#define IMAPSTRESS_IMAP_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longer mailbox names are refused (no folder of ours comes close). */
#define IMAP_STATUS_NAME_MAX 1024

enum imap_status_has {
	IMAP_STATUS_MESSAGES = 1 << 0,
	IMAP_STATUS_UIDNEXT = 1 << 1,
	IMAP_STATUS_UIDVALIDITY = 1 << 2,
	IMAP_STATUS_UNSEEN = 1 << 3
};

struct imap_status {
	char name[IMAP_STATUS_NAME_MAX + 1];	/* decoded, NUL-terminated */
	size_t name_len;
	unsigned has;				/* enum imap_status_has */
	uint32_t messages, uidnext, uidvalidity, unseen;
};

/* Parse text[0..len) (struct imap_resp's text of a STATUS: the mailbox as
 * an atom, a quoted string or an inline literal "{N}\r\n...", then the
 * parenthesized list; attributes we do not know are skipped, their value
 * a number).  0 on success; -1 with *why (a static string) otherwise. */
int imap_status_parse(const char *text, size_t len, struct imap_status *st,
		      const char **why);

/* Is the parsed name INBOX (any case, RFC 3501 5.1) or exactly `box`? */
bool imap_status_is(const struct imap_status *st, const char *box);

#endif
