/* fake_mark.c: which messages carry imapstress's marker, the
 * X-Imapstress header field (src/imap/guard.h), so that fakeimapd can
 * answer the foreign-mail check, UID SEARCH NOT HEADER X-Imapstress "",
 * from what it holds: a message whose header has the field is the
 * tool's, any other is foreign.  A test that is not about the guard then
 * runs as before, and one that is about it sets up foreign mail on
 * purpose (--foreign, an APPEND without the field, a script's rule). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "fake.h"

static const char fake_mark_field[] = "x-imapstress:";
#define FAKE_MARK_FIELD_LEN (sizeof(fake_mark_field) - 1)

void
fake_mark_start(struct fake_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->ok = true;
}

/* The header, a line at a time: a line that begins with the field name
 * (any case, RFC 5322 2.2) marks the message; the empty line ends the
 * header, and with it the search. */
void
fake_mark_feed(struct fake_mark *m, const char *p, size_t n)
{
	for (size_t i = 0; i < n && !m->done; i++) {
		unsigned char b = (unsigned char)p[i];
		if (b == '\n') {
			if (m->len == 0)
				m->done = true;
			m->len = 0;
			m->ok = true;
			continue;
		}
		if (b == '\r')
			continue;
		if (m->ok && m->len < FAKE_MARK_FIELD_LEN)
			m->ok = tolower(b) == fake_mark_field[m->len];
		if (m->len < UINT16_MAX)
			m->len++;
		if (m->ok && m->len == FAKE_MARK_FIELD_LEN) {
			m->found = true;
			m->done = true;
		}
	}
}

bool
fake_is_guard_search(const struct fake_cmd *cmd)
{
	return cmd->uid && fake_eq(cmd->name, "SEARCH") &&
	    strcasecmp(cmd->args, "NOT HEADER X-Imapstress \"\"") == 0;
}
