/* learn_lines.c: see learn_lines.h. */
#include <stdlib.h>
#include <string.h>

#include "learn/learn_lines.h"
#include "util/xmalloc.h"

void
ldir_reset(struct ldir *d)
{
	d->len = 0;
	d->lit_left = 0;
	d->n_lits = 0;
	d->overflow = false;
}

void
ldir_free(struct ldir *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

bool
ldir_pending(const struct ldir *d)
{
	return d->len > 0 || d->lit_left > 0;
}

static void
put(struct ldir *d, const char *p, size_t n)
{
	if (d->len + n > LDIR_MAX) {
		d->overflow = true;
		return;
	}
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->buf = xrealloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
	d->buf[d->len] = '\0';
}

/* "{123}", "{123+}" or "~{123}" at the end of the text: its size. */
static bool
literal_at_end(const char *t, size_t len, uint64_t *size)
{
	if (len < 3 || t[len - 1] != '}')
		return false;
	size_t i = len - 1;
	if (t[i - 1] == '+' || t[i - 1] == '-')
		i--;
	size_t end = i;
	while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9')
		i--;
	if (i == end || i == 0 || t[i - 1] != '{' || end - i > 12)
		return false;
	uint64_t n = 0;
	for (size_t k = i; k < end; k++)
		n = n * 10 + (uint64_t)(t[k] - '0');
	*size = n;
	return true;
}

/* Part of a literal's content: kept when small (a name). */
static void
lit_take(struct ldir *d, const char *p, size_t n)
{
	if (!d->capture || d->n_lits == 0)
		return;
	struct llit *lt = &d->lits[d->n_lits - 1];
	if (!lt->have_text)
		return;
	size_t have = strlen(lt->text);
	if (have + n >= sizeof(lt->text)) {
		lt->have_text = false;
		lt->text[0] = '\0';
		return;
	}
	memcpy(lt->text + have, p, n);
	lt->text[have + n] = '\0';
}

bool
ldir_feed(struct ldir *d, const char *text, size_t len, unsigned term,
	  uint64_t cut, unsigned line, double t)
{
	if (d->len == 0 && d->lit_left == 0) {
		d->line0 = line;
		d->t0 = t;
	}
	if (d->lit_left > 0) {
		uint64_t whole = len + cut + term;
		if (whole <= d->lit_left) {
			d->lit_left -= whole;
			lit_take(d, text, len);
			if (term >= 2)
				lit_take(d, "\r\n", 2);
			else if (term == 1)
				lit_take(d, "\n", 1);
			return false;
		}
		/* The literal ends inside this line; the command goes on. */
		size_t off = d->lit_left < len ? (size_t)d->lit_left : len;
		lit_take(d, text, off);
		text += off;
		len -= off;
		d->lit_left = 0;
	}
	put(d, text, len);
	uint64_t size;
	if (literal_at_end(text, len, &size)) {
		d->lit_left = size;
		if (d->n_lits < LDIR_LITS) {
			struct llit *lt = &d->lits[d->n_lits++];
			lt->size = size;
			lt->text[0] = '\0';
			lt->have_text = size < sizeof(lt->text);
		}
		if (size > 0)
			return false;
		/* {0}: nothing to skip, the command goes on next line */
		return false;
	}
	return true;
}
