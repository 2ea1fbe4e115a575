/* msg_assert.h: what both message pool tests (test_msg.c,
 * test_msg_mbox.c) check every message against. */
#ifndef IMAPSTRESS_TEST_MSG_ASSERT_H
#define IMAPSTRESS_TEST_MSG_ASSERT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* The message as it goes on the wire (msg_head, then its bytes) carries
 * exactly one marker: first, naming run_id and this version, and no other
 * X-Imapstress line in its header section (up to the first empty line,
 * or all of it); its length is msg_wire_len. */
static inline void
assert_marked(const struct msg *m, uint64_t run_id, uint32_t seq,
	      const char *what)
{
	char want[MSG_MARK_LINE_LEN + 1], *w = malloc(msg_wire_len(m) + 1);
	size_t hl = msg_head(w, m, run_id, seq), n = hl + m->len, marks = 0;

	ck_assert_uint_eq(hl, msg_head_len(m));
	memcpy(w + hl, m->data, m->len);
	w[n] = '\0';
	ck_assert_uint_eq(n, msg_wire_len(m));
	snprintf(want, sizeof(want), "X-Imapstress: run=%016llx (imapstress %s)"
		 "\r\n", (unsigned long long)run_id, IMAPSTRESS_VERSION);
	ck_assert_uint_eq(strlen(want), MSG_MARK_LINE_LEN);
	ck_assert_msg(strncmp(w, want, MSG_MARK_LINE_LEN) == 0,
		      "%s: starts [%.80s]", what, w);
	if (m->needs_id)
		ck_assert_msg(strncmp(w + MSG_MARK_LINE_LEN, "Message-ID: <", 13)
			      == 0, "%s: no Message-ID second", what);
	char *end = strstr(w, "\r\n\r\n");
	end = end != NULL ? end + 2 : w + n;
	for (char *l = w; l < end; l = strstr(l, "\r\n") + 2)
		marks += strncasecmp(l, "X-Imapstress:", 13) == 0;
	ck_assert_msg(marks == 1, "%s: %zu marker lines", what, marks);
	free(w);
}

#endif
