/* imap_rec.h: the parser tests' rendering of events (test_imap.c,
 * test_imap_transcript.c).  Each event is one line
 *     <kind> <tag> <num> <cond> <keyword> <literals>/<literal bytes> |<text>
 * (kind T/U/C, tag "*" or "+" when untagged/continuation, "-" for absent
 * num/keyword, CR/LF/non-printables escaped), and the callback checks that
 * tag, number, keyword and text are exactly where they belong in line, so
 * comparing these renderings compares every field. */
#ifndef IMAPSTRESS_TEST_IMAP_REC_H
#define IMAPSTRESS_TEST_IMAP_REC_H

#include <stddef.h>
#include <stdint.h>

#include "imap/imap.h"

struct rec {
	char *s;
	size_t len, cap;
	unsigned events;
	unsigned stop_every;	/* callback returns 1 on every Nth event */
	const char *bad;	/* first failed invariant in the callback */
};

/* Check records every ck_assert (a write per call), far too slow for the
 * millions of events of the split tests, so the callback only notes the
 * first failure and the caller asserts once. */
#define REC_CHECK(r, cond)						\
	do {								\
		if (!(cond) && (r)->bad == NULL)			\
			(r)->bad = #cond;				\
	} while (0)

void rec_put(struct rec *r, const char *s, size_t n);
void rec_printf(struct rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The parser callback: renders the event into r (arg). */
int rec_cb(void *arg, const struct imap_resp *x);
/* A parser rendering into r (emptied) with these limits. */
struct imap_parser *new_rec_parser(struct rec *r, size_t max_line,
				   uint64_t max_literal, size_t capture);

/* A string literal as pointer, length. */
#define S(x) x, sizeof(x) - 1

#endif
