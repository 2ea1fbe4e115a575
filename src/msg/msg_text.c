/* msg_text.c: what the generated pools are written with: a growable
 * arena and a writer of CRLF lines of bounded width (see msg_private.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg/msg_private.h"
#include "util/xmalloc.h"

void
gbuf_reserve(struct gbuf *b, size_t more)
{
	if (b->cap - b->len >= more)
		return;
	size_t cap = b->cap != 0 ? b->cap : 4096;
	while (cap - b->len < more)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

void
gbuf_add(struct gbuf *b, const char *s, size_t n)
{
	gbuf_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void
gbuf_printf(struct gbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	gbuf_reserve(b, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Exactly n bytes of CRLF-terminated lines of at most 76 characters
 * (n != 1: one byte cannot end in CRLF).  A line that would leave exactly
 * 1 byte is made one longer (or shorter), and a line shorter than asked
 * leaves more, so the rest is 0 or >= 2 and the last line, written
 * exactly, always fits. */
void
gen_lines(struct gbuf *b, struct rng *r, size_t n, size_t min_w,
    size_t max_w, unsigned blank_pct, line_fn *line)
{
	gbuf_reserve(b, n);
	char *p = b->p + b->len;
	size_t left = n, w;
	bool prev_blank = true;

	while (left >= 2) {
		if (left <= 78) {
			w = line(p, left - 2, true, r);
		} else if (!prev_blank && msg_chance(r, blank_pct)) {
			w = 0;
		} else {
			w = min_w + rng_below(r, max_w - min_w + 1);
			if (left - w - 2 == 1)
				w = w < 76 ? w + 1 : w - 1;
			w = line(p, w, false, r);
		}
		prev_blank = w == 0;
		memcpy(p + w, "\r\n", 2);
		p += w + 2;
		left -= w + 2;
	}
	b->len += n - left;
}
