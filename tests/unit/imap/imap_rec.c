/* imap_rec.c: see imap_rec.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "imap_rec.h"
#include "util/xmalloc.h"

void
rec_put(struct rec *r, const char *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		r->cap = (r->len + n + 1) * 2;
		r->s = xrealloc(r->s, r->cap);
	}
	memcpy(r->s + r->len, s, n);
	r->len += n;
	r->s[r->len] = '\0';
}

void
rec_printf(struct rec *r, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		ck_abort_msg("rec_printf overflow");
	rec_put(r, tmp, (size_t)n);
}

static void
rec_esc(struct rec *r, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r')
			rec_put(r, "\\r", 2);
		else if (c == '\n')
			rec_put(r, "\\n", 2);
		else if (c >= 0x20 && c < 0x7f)
			rec_put(r, (const char *)&s[i], 1);
		else
			rec_printf(r, "\\x%02x", c);
	}
}

static const char *const cond_names[] = {
	"NONE", "OK", "NO", "BAD", "BYE", "PREAUTH"
};

int
rec_cb(void *arg, const struct imap_resp *x)
{
	struct rec *r = arg;
	const char *line = x->line, *end = x->line + x->line_len;
	const char *after_kw = x->keyword + x->keyword_len;

	REC_CHECK(r, line[x->line_len] == '\0');
	REC_CHECK(r, x->text >= line && x->text + x->text_len == end);
	REC_CHECK(r, x->keyword >= line && after_kw <= end);
	if (x->kind != IMAP_CONTINUATION)
		REC_CHECK(r, x->text == end
				 ? after_kw == end || after_kw + 1 == end
				 : x->text == after_kw + 1);
	switch (x->kind) {
	case IMAP_TAGGED:
		REC_CHECK(r, x->tag == line && x->tag_len > 0);
		REC_CHECK(r, x->keyword == line + x->tag_len + 1);
		REC_CHECK(r, !x->has_num);
		rec_put(r, "T ", 2);
		rec_put(r, x->tag, x->tag_len);
		break;
	case IMAP_UNTAGGED: {
		char num[16] = "";
		if (x->has_num)
			snprintf(num, sizeof(num), "%u ", x->num);
		REC_CHECK(r, strncmp(line, "* ", 2) == 0);
		REC_CHECK(r, strncmp(line + 2, num, strlen(num)) == 0);
		REC_CHECK(r, x->keyword == line + 2 + strlen(num));
		rec_put(r, "U *", 3);
		break;
	}
	case IMAP_CONTINUATION:
		REC_CHECK(r, line[0] == '+');
		REC_CHECK(r, x->text == line + (line[1] == ' ' ? 2 : 1));
		REC_CHECK(r, !x->has_num && x->cond == IMAP_COND_NONE);
		rec_put(r, "C +", 3);
		break;
	}
	if (x->has_num)
		rec_printf(r, " %u", x->num);
	else
		rec_put(r, " -", 2);
	rec_printf(r, " %s ", cond_names[x->cond]);
	if (x->keyword_len)
		rec_esc(r, x->keyword, x->keyword_len);
	else
		rec_put(r, "-", 1);
	rec_printf(r, " %u/%llu |", x->literals,
		   (unsigned long long)x->literal_bytes);
	rec_esc(r, x->text, x->text_len);
	rec_put(r, "\n", 1);
	r->events++;
	return r->stop_every && r->events % r->stop_every == 0;
}

struct imap_parser *
new_rec_parser(struct rec *r, size_t max_line, uint64_t max_literal,
	       size_t capture)
{
	struct imap_limits lim = { max_line, max_literal, capture };
	memset(r, 0, sizeof(*r));
	rec_put(r, "", 0);
	return imap_parser_new(&lim, rec_cb, r);
}
