/* imap_status.c: an untagged STATUS's text, by hand: one pass, no
 * allocation, every length and number bounded (imap_status.h). */
#include <string.h>
#include <strings.h>

#include "imap/imap_status.h"

struct scan {
	const char *p, *end;
	const char *why;
};

static int
fail(struct scan *s, const char *why)
{
	s->why = why;
	return -1;
}

static int
put(struct imap_status *st, struct scan *s, char ch)
{
	if (ch == '\0')
		return fail(s, "NUL in the mailbox name");
	if (st->name_len == IMAP_STATUS_NAME_MAX)
		return fail(s, "mailbox name too long");
	st->name[st->name_len++] = ch;
	return 0;
}

/* An atom: up to the space before the list (RFC 3501's ASTRING-CHAR,
 * loosely: no space, parenthesis, quote or control). */
static int
name_atom(struct imap_status *st, struct scan *s)
{
	while (s->p < s->end && *s->p != ' ') {
		unsigned char ch = (unsigned char)*s->p;
		if (ch < 0x20 || ch == 0x7f || ch == '(' || ch == ')' ||
		    ch == '"' || ch == '{')
			return fail(s, "bad character in the mailbox name");
		if (put(st, s, (char)ch) < 0)
			return -1;
		s->p++;
	}
	return st->name_len > 0 ? 0 : fail(s, "empty mailbox name");
}

static int
name_quoted(struct imap_status *st, struct scan *s)
{
	for (s->p++; s->p < s->end; s->p++) {
		char ch = *s->p;
		if (ch == '"') {
			s->p++;
			return 0;
		}
		if (ch == '\r' || ch == '\n')
			return fail(s, "line break in a quoted mailbox name");
		if (ch == '\\') {
			if (++s->p == s->end || (*s->p != '"' && *s->p != '\\'))
				return fail(s, "bad escape in a quoted mailbox "
					    "name");
			ch = *s->p;
		}
		if (put(st, s, ch) < 0)
			return -1;
	}
	return fail(s, "unterminated quoted mailbox name");
}

/* "{N}\r\n" or "{N+}\r\n", then N octets (the parser keeps a small
 * literal inline; "{N!}", one it skipped, names no mailbox we can use). */
static int
name_literal(struct imap_status *st, struct scan *s)
{
	uint64_t n = 0;
	const char *d = ++s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9' &&
	       n <= IMAP_STATUS_NAME_MAX)
		n = n * 10 + (uint64_t)(*s->p++ - '0');
	if (s->p == d)
		return fail(s, "malformed literal");
	if (n > IMAP_STATUS_NAME_MAX)
		return fail(s, "mailbox name too long");
	if (s->p < s->end && *s->p == '+')
		s->p++;
	if (s->end - s->p < 3 || memcmp(s->p, "}\r\n", 3) != 0)
		return fail(s, "malformed literal");
	s->p += 3;
	if ((uint64_t)(s->end - s->p) < n)
		return fail(s, "literal shorter than its length");
	for (uint64_t i = 0; i < n; i++)
		if (put(st, s, *s->p++) < 0)
			return -1;
	return 0;
}

/* A number of at most max (digits only; no sign, no overflow). */
static int
number(struct scan *s, uint64_t max, uint64_t *v)
{
	const char *d = s->p;

	*v = 0;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		uint64_t x = (uint64_t)(*s->p++ - '0');
		if (*v > (max - x) / 10)
			return fail(s, "number out of range");
		*v = *v * 10 + x;
	}
	return s->p > d ? 0 : fail(s, "a STATUS attribute without a number");
}

static const struct {
	const char *name;
	unsigned bit;
	size_t off;
} known[] = {
	{ "MESSAGES", IMAP_STATUS_MESSAGES,
	  offsetof(struct imap_status, messages) },
	{ "UIDNEXT", IMAP_STATUS_UIDNEXT, offsetof(struct imap_status, uidnext) },
	{ "UIDVALIDITY", IMAP_STATUS_UIDVALIDITY,
	  offsetof(struct imap_status, uidvalidity) },
	{ "UNSEEN", IMAP_STATUS_UNSEEN, offsetof(struct imap_status, unseen) },
};

/* "ATT number", one of the list. */
static int
attribute(struct imap_status *st, struct scan *s)
{
	const char *a = s->p;
	uint64_t v;

	while (s->p < s->end && *s->p != ' ' && *s->p != ')') {
		unsigned char ch = (unsigned char)*s->p++;
		if (ch < 0x20 || ch >= 0x7f || ch == '(')
			return fail(s, "bad character in a STATUS attribute");
	}
	size_t n = (size_t)(s->p - a);
	if (n == 0 || s->p == s->end || *s->p != ' ')
		return fail(s, "a STATUS attribute without a value");
	s->p++;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		if (strlen(known[k].name) != n ||
		    strncasecmp(a, known[k].name, n) != 0)
			continue;
		if (number(s, UINT32_MAX, &v) < 0)
			return -1;
		*(uint32_t *)(void *)((char *)st + known[k].off) = (uint32_t)v;
		st->has |= known[k].bit;
		return 0;
	}
	/* HIGHESTMODSEQ, SIZE, DELETED...: a number of up to 63 bits. */
	return number(s, INT64_MAX, &v);
}

int
imap_status_parse(const char *text, size_t len, struct imap_status *st,
		  const char **why)
{
	struct scan s = { text, text + len, NULL };
	int rc;

	memset(st, 0, sizeof(*st));
	if (len == 0)
		rc = fail(&s, "empty STATUS");
	else if (*s.p == '"')
		rc = name_quoted(st, &s);
	else if (*s.p == '{')
		rc = name_literal(st, &s);
	else
		rc = name_atom(st, &s);
	if (rc == 0 && (s.end - s.p < 2 || memcmp(s.p, " (", 2) != 0))
		rc = fail(&s, "no attribute list after the mailbox name");
	if (rc == 0) {
		s.p += 2;
		while (rc == 0 && s.p < s.end && *s.p != ')') {
			rc = attribute(st, &s);
			if (rc == 0 && s.p < s.end && *s.p == ' ')
				s.p++;
		}
	}
	if (rc == 0 && (s.p == s.end || *s.p != ')'))
		rc = fail(&s, "unterminated attribute list");
	if (rc == 0 && s.p + 1 != s.end)
		rc = fail(&s, "text after the attribute list");
	st->name[st->name_len] = '\0';
	if (rc < 0 && why != NULL)
		*why = s.why;
	return rc;
}

bool
imap_status_is(const struct imap_status *st, const char *box)
{
	if (strcasecmp(box, "INBOX") == 0)
		return st->name_len == 5 && strcasecmp(st->name, "INBOX") == 0;
	return st->name_len == strlen(box) && memcmp(st->name, box,
						      st->name_len) == 0;
}
