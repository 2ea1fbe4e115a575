/* script_buf.c: see script_buf.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "script/script_buf.h"
#include "util/xmalloc.h"

static void
sbuf_grow(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	sbuf_grow(b, n);
	if (n > 0)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void
sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sbuf_add(b, small, (size_t)n);
		return;
	}
	sbuf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
sbuf_add_escaped(struct sbuf *b, const char *s, size_t n)
{
	size_t need = escape_len(s, n);

	sbuf_grow(b, need);
	b->len += escape_text(b->s + b->len, need + 1, s, n);
}

char *
sbuf_take(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void
sbuf_reset(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void
sbuf_add_quoted(struct sbuf *b, const char *s)
{
	sbuf_add(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sbuf_add(b, "\\", 1);
		sbuf_add(b, s, 1);
	}
	sbuf_add(b, "\"", 1);
}
