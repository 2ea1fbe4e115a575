/* hr_buf.c: the page's buffer and its escaping (hr_buf.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_buf.h"
#include "util/xmalloc.h"

void
hb_init(struct hbuf *b)
{
	b->cap = 4096;
	b->p = xmalloc(b->cap);
	b->len = 0;
	b->p[0] = '\0';
}

void
hb_free(struct hbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static void
grow(struct hbuf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	while (b->len + n + 1 > b->cap)
		b->cap *= 2;
	b->p = xrealloc(b->p, b->cap);
}

void
hb_putn(struct hbuf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
hb_put(struct hbuf *b, const char *s)
{
	hb_putn(b, s, strlen(s));
}

void
hb_printf(struct hbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none:
 * overlong forms, surrogates and values past U+10FFFF are not. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t k;

	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	/* C1 controls (U+0080..U+009F) are controls too. */
	if (cp < 0xa0)
		return 0;
	return k;
}

void
hb_escn(struct hbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i];
		if (c >= 0x80) {
			size_t k = utf8_len(p + i, n - i);
			if (k == 0) {
				hb_printf(b, "\\x%02x", c);
				i++;
			} else {
				hb_putn(b, s + i, k);
				i += k;
			}
			continue;
		}
		switch (c) {
		case '&': hb_put(b, "&amp;"); break;
		case '<': hb_put(b, "&lt;"); break;
		case '>': hb_put(b, "&gt;"); break;
		case '"': hb_put(b, "&quot;"); break;
		case '\'': hb_put(b, "&#39;"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				hb_printf(b, "\\x%02x", c);
			else
				hb_putn(b, s + i, 1);
		}
		i++;
	}
}

void
hb_esc(struct hbuf *b, const char *s)
{
	if (s != NULL)
		hb_escn(b, s, strlen(s));
}

void
hb_num(struct hbuf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == 0)
		v = 0;	/* no "-0" */
	hb_printf(b, "%.6g", v);
}

void
hb_human(struct hbuf *b, double v)
{
	if (!isfinite(v))
		hb_put(b, "-");
	else if (fabs(v) >= 100 || v == floor(v))
		hb_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		hb_printf(b, "%.1f", v);
	else if (fabs(v) >= 1)
		hb_printf(b, "%.2f", v);
	else
		hb_printf(b, "%.3g", v);
}
