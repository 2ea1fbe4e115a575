/* msg_assert.h: what both message pool tests (test_msg.c,
 * test_msg_mbox.c) check every message against. */
#ifndef IMAPSTRESS_TEST_MSG_ASSERT_H
#define IMAPSTRESS_TEST_MSG_ASSERT_H

#include <string.h>

#include <check.h>

#include "msg/msg.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)

/* Only CRLF line endings, no NUL, ends in CRLF, every line at most
 * max_line octets (998 is RFC 5322's limit).  Check records every passing
 * assertion, so byte loops collect one verdict and assert once. */
static inline void
assert_crlf_text(const struct msg *m, size_t max_line, const char *what)
{
	const char *bad = NULL;
	size_t line = 0, i;

	if (m->len < 2 || memcmp(m->data + m->len - 2, "\r\n", 2) != 0)
		bad = "no CRLF at the end";
	for (i = 0; i < m->len && bad == NULL; i++) {
		char c = m->data[i];
		if (c == '\0')
			bad = "NUL";
		else if (c == '\r' && (i + 1 == m->len || m->data[i + 1] != '\n'))
			bad = "bare CR";
		else if (c == '\n' && (i == 0 || m->data[i - 1] != '\r'))
			bad = "bare LF";
		else if (c == '\n' && line - 1 > max_line)
			bad = "long line";
		line = c == '\n' ? 0 : line + 1;
	}
	ck_assert_msg(bad == NULL, "%s: %s at %zu", what, bad, i);
}

#endif
