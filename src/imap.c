/* imap.c: incremental IMAP response parser (see imap.h).
 *
 * The server stream is a sequence of text segments, each ended by LF (a CR
 * before it is dropped), and literals.  A segment ending in "{N}", "{N+}" or
 * "~{N}" announces N octets of literal data, after which the same response
 * goes on with another segment; any other segment ends the response.
 *
 * One growable buffer holds the reassembled response.  Literal data is
 * copied into it only when small ("captured"); big literals are counted down
 * as they arrive and never stored, so memory per connection stays bounded by
 * the limits below whatever the server sends:
 *
 *   - max_line bounds the text of one response outside its literals (line
 *     endings not counted).  It is checked before every append, so a line
 *     that never ends fails after at most max_line + 1 buffered octets.
 *   - Captured literal data of one response is capped at 8 * capture_literal.
 *     A literal that would go over that budget is skipped instead of
 *     captured (it shows as "{N!}"), which keeps a long but legitimate
 *     response (e.g. an ENVELOPE full of small literals) from being an error.
 *
 * So the buffer never exceeds about 2 * max_line + 8 * capture_literal: the
 * "\r\n" we store after each captured "{N}" and the '!' of each skipped one
 * are at most 2 octets per 3 octets of counted text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap.h"
#include "xmalloc.h"

#define IMAP_DEF_MAX_LINE	(64 * 1024)
#define IMAP_DEF_MAX_LITERAL	(256ull * 1024 * 1024)
#define IMAP_DEF_CAPTURE	(4 * 1024)
#define IMAP_CAPTURE_FACTOR	8
#define IMAP_BUF_INITIAL	512

enum imap_pstate {
	IMAP_PS_TEXT,		/* in a text segment, waiting for LF */
	IMAP_PS_CAPTURE,	/* copying literal data into buf */
	IMAP_PS_SKIP		/* counting down literal data, not stored */
};

struct imap_parser {
	size_t max_line;
	uint64_t max_literal;
	size_t capture_literal;
	size_t capture_budget;

	imap_resp_cb cb;
	void *cb_arg;

	char *buf;
	size_t len, cap;

	enum imap_pstate state;
	size_t seg_start;	/* where the current text segment begins in buf */
	size_t text_done;	/* counted text of the finished segments */
	size_t captured;	/* captured literal octets so far */
	uint64_t lit_left;	/* literal octets still to come */
	uint64_t lit_bytes;
	unsigned lits;
	uint64_t pending;	/* raw octets of this response received */

	bool failed;
	char err[256];
};

/* Test-only: the internal buffer's capacity, to prove it stays small.
 * Declared here rather than in imap.h because it is not part of the API. */
size_t imap_parser_bufcap(const struct imap_parser *p);

static void
imap_fail(struct imap_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
imap_fail(struct imap_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	p->failed = true;
}

/* A printable excerpt of server bytes for error messages: control and
 * non-ASCII octets become '?' and long input is cut with "...". */
static const char *
imap_excerpt(char *out, size_t outsz, const char *s, size_t n)
{
	size_t max = outsz - 4, o = 0;
	for (size_t i = 0; i < n && o < max; i++) {
		unsigned char c = (unsigned char)s[i];
		out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (n > max)
		memcpy(out + o, "...", 3), o += 3;
	out[o] = '\0';
	return out;
}

static void
imap_reserve(struct imap_parser *p, size_t need)
{
	if (need <= p->cap)
		return;
	size_t ncap = p->cap ? p->cap : IMAP_BUF_INITIAL;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p->buf = xrealloc(p->buf, ncap);
	p->cap = ncap;
}

static void
imap_append(struct imap_parser *p, const char *s, size_t n)
{
	imap_reserve(p, p->len + n + 1);
	memcpy(p->buf + p->len, s, n);
	p->len += n;
}

static void
imap_clear_response(struct imap_parser *p)
{
	p->state = IMAP_PS_TEXT;
	p->len = 0;
	p->seg_start = 0;
	p->text_done = 0;
	p->captured = 0;
	p->lit_left = 0;
	p->lit_bytes = 0;
	p->lits = 0;
	p->pending = 0;
}

struct imap_parser *
imap_parser_new(const struct imap_limits *lim, imap_resp_cb cb, void *arg)
{
	struct imap_parser *p = xcalloc(1, sizeof(*p));
	p->max_line = lim && lim->max_line ? lim->max_line : IMAP_DEF_MAX_LINE;
	p->max_literal = lim && lim->max_literal ? lim->max_literal
						 : IMAP_DEF_MAX_LITERAL;
	p->capture_literal = lim && lim->capture_literal ? lim->capture_literal
							 : IMAP_DEF_CAPTURE;
	p->capture_budget = p->capture_literal > SIZE_MAX / IMAP_CAPTURE_FACTOR
				    ? SIZE_MAX
				    : p->capture_literal * IMAP_CAPTURE_FACTOR;
	p->cb = cb;
	p->cb_arg = arg;
	imap_reserve(p, IMAP_BUF_INITIAL);
	return p;
}

void
imap_parser_free(struct imap_parser *p)
{
	if (p == NULL)
		return;
	free(p->buf);
	free(p);
}

void
imap_parser_reset(struct imap_parser *p)
{
	imap_clear_response(p);
	p->failed = false;
	p->err[0] = '\0';
}

const char *
imap_parser_error(const struct imap_parser *p)
{
	return p->err;
}

uint64_t
imap_parser_pending(const struct imap_parser *p)
{
	return p->pending;
}

size_t
imap_parser_bufcap(const struct imap_parser *p)
{
	return p->cap;
}

static bool
imap_is_tag_char(unsigned char c)
{
	/* ASTRING-CHAR minus '+': printable ASCII except atom-specials
	 * (but ']' is allowed), and '+' which marks a continuation. */
	if (c <= 0x20 || c >= 0x7f)
		return false;
	return strchr("(){%*\"\\+", c) == NULL;
}

static bool
imap_atom_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* Split the completed response in buf into r.  Only the head is examined,
 * so literal data later in the line is never misread. */
static int
imap_parse_head(struct imap_parser *p, struct imap_resp *r)
{
	const char *s = p->buf, *end = p->buf + p->len, *q;
	char ex[48];

	memset(r, 0, sizeof(*r));
	r->line = s;
	r->line_len = p->len;
	r->literal_bytes = p->lit_bytes;
	r->literals = p->lits;
	r->tag = r->keyword = r->text = s;

	if (p->len == 0) {
		imap_fail(p, "empty response line");
		return -1;
	}
	if (s[0] == '+') {
		r->kind = IMAP_CONTINUATION;
		q = s + 1;
		if (q < end && *q == ' ')
			q++;
		r->keyword = q;
		r->text = q;
		r->text_len = (size_t)(end - q);
		return 0;
	}
	if (s[0] == '*') {
		r->kind = IMAP_UNTAGGED;
		if (p->len > 1 && s[1] != ' ') {
			imap_fail(p, "untagged response without a space after "
				  "\"*\": \"%s\"", imap_excerpt(ex, sizeof(ex),
								s, p->len));
			return -1;
		}
		q = s + 2;
		if (q < end && *q >= '0' && *q <= '9') {
			uint64_t v = 0;
			while (q < end && *q >= '0' && *q <= '9' &&
			       v <= UINT32_MAX)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (v > UINT32_MAX) {
				imap_fail(p, "number in untagged response out "
					  "of range (max 4294967295): \"%s\"",
					  imap_excerpt(ex, sizeof(ex), s,
						       p->len));
				return -1;
			}
			if (q < end && *q != ' ') {
				imap_fail(p, "malformed number in untagged "
					  "response: \"%s\"",
					  imap_excerpt(ex, sizeof(ex), s,
						       p->len));
				return -1;
			}
			r->has_num = true;
			r->num = (uint32_t)v;
			q++;
		}
	} else {
		r->kind = IMAP_TAGGED;
		q = s;
		while (q < end && *q != ' ') {
			if (!imap_is_tag_char((unsigned char)*q)) {
				if (q == s)
					imap_fail(p, "response does not start "
						  "with a tag, \"*\" or \"+\": "
						  "\"%s\"", imap_excerpt(ex,
						  sizeof(ex), s, p->len));
				else
					imap_fail(p, "invalid character 0x%02x "
						  "in tag: \"%s\"",
						  (unsigned char)*q,
						  imap_excerpt(ex, sizeof(ex),
							       s, p->len));
				return -1;
			}
			q++;
		}
		if (q == s) {
			imap_fail(p, "response does not start with a tag, "
				  "\"*\" or \"+\": \"%s\"",
				  imap_excerpt(ex, sizeof(ex), s, p->len));
			return -1;
		}
		r->tag_len = (size_t)(q - s);
		q++;
	}

	/* The keyword: the next atom, up to a space or the end. */
	if (q > end)
		q = end;
	const char *kw = q;
	const char *sp = memchr(kw, ' ', (size_t)(end - kw));
	const char *kwend = sp ? sp : end;
	r->keyword = kw;
	r->keyword_len = (size_t)(kwend - kw);
	r->text = sp ? sp + 1 : end;
	r->text_len = (size_t)(end - r->text);

	if (r->kind == IMAP_TAGGED) {
		if (imap_atom_eq(kw, r->keyword_len, "OK"))
			r->cond = IMAP_COND_OK;
		else if (imap_atom_eq(kw, r->keyword_len, "NO"))
			r->cond = IMAP_COND_NO;
		else if (imap_atom_eq(kw, r->keyword_len, "BAD"))
			r->cond = IMAP_COND_BAD;
		else {
			imap_fail(p, "tagged response without OK/NO/BAD: "
				  "\"%s\"", imap_excerpt(ex, sizeof(ex), s,
							 p->len));
			return -1;
		}
		return 0;
	}
	if (r->keyword_len == 0) {
		imap_fail(p, "untagged response without a keyword: \"%s\"",
			  imap_excerpt(ex, sizeof(ex), s, p->len));
		return -1;
	}
	/* Status conditions only in "* OK ..." form; "* 3 OK" is data. */
	if (!r->has_num) {
		if (imap_atom_eq(kw, r->keyword_len, "OK"))
			r->cond = IMAP_COND_OK;
		else if (imap_atom_eq(kw, r->keyword_len, "NO"))
			r->cond = IMAP_COND_NO;
		else if (imap_atom_eq(kw, r->keyword_len, "BAD"))
			r->cond = IMAP_COND_BAD;
		else if (imap_atom_eq(kw, r->keyword_len, "BYE"))
			r->cond = IMAP_COND_BYE;
		else if (imap_atom_eq(kw, r->keyword_len, "PREAUTH"))
			r->cond = IMAP_COND_PREAUTH;
	}
	return 0;
}

/* Does the segment s[0..n) end with a literal announcement?  Returns 1 and
 * sets *size, *plus (the "+}" form) when it does, 0 when it is plain text,
 * -1 (error set) when it looks like one but is malformed.  Only a brace
 * group with no space inside is taken for a literal, so resp-text such as
 * "{see the manual}" stays text. */
static int
imap_literal_spec(struct imap_parser *p, const char *s, size_t n,
		  uint64_t *size, bool *plus)
{
	char ex[48];
	if (n == 0 || s[n - 1] != '}')
		return 0;
	size_t b = n - 1;
	while (b > 0 && s[b - 1] != '{' && s[b - 1] != ' ')
		b--;
	if (b == 0 || s[b - 1] != '{')
		return 0;
	const char *d = s + b;
	size_t dl = n - 1 - b;
	*plus = dl > 0 && d[dl - 1] == '+';
	if (*plus)
		dl--;
	bool overflow = false, bad = dl == 0;
	uint64_t v = 0;
	for (size_t i = 0; i < dl && !bad; i++) {
		unsigned dig = (unsigned)(unsigned char)d[i] - '0';
		if (dig > 9)
			bad = true;
		else if (v > (UINT64_MAX - dig) / 10)
			overflow = true;
		else if (!overflow)
			v = v * 10 + dig;
	}
	if (bad) {
		imap_fail(p, "malformed literal \"{%s}\"",
			  imap_excerpt(ex, sizeof(ex), s + b, n - 1 - b));
		return -1;
	}
	if (overflow || v > p->max_literal) {
		imap_fail(p, "literal of %s bytes exceeds max-literal %llu",
			  imap_excerpt(ex, sizeof(ex), d, dl),
			  (unsigned long long)p->max_literal);
		return -1;
	}
	*size = v;
	return 1;
}

/* A text segment has been completed (its LF consumed, CR dropped).  Start
 * a literal, or deliver the response.  Returns -1 on error, 1 when the
 * callback asked to stop, else 0. */
static int
imap_segment_done(struct imap_parser *p)
{
	const char *seg = p->buf + p->seg_start;
	size_t n = p->len - p->seg_start;
	uint64_t size;
	bool plus;
	int lit = imap_literal_spec(p, seg, n, &size, &plus);

	if (lit < 0)
		return -1;
	if (lit > 0) {
		p->text_done += n;
		p->lits++;
		p->lit_bytes += size;
		if (size <= p->capture_literal &&
		    size <= p->capture_budget - p->captured) {
			p->captured += (size_t)size;
			imap_append(p, "\r\n", 2);
			imap_reserve(p, p->len + (size_t)size + 1);
			p->state = IMAP_PS_CAPTURE;
		} else {
			/* "{N}" or "{N+}" becomes "{N!}". */
			if (plus)
				p->len--;
			p->len--;
			imap_append(p, "!}", 2);
			p->state = IMAP_PS_SKIP;
		}
		p->lit_left = size;
		if (size == 0) {
			p->state = IMAP_PS_TEXT;
			p->seg_start = p->len;
		}
		return 0;
	}

	struct imap_resp r;
	p->buf[p->len] = '\0';
	if (imap_parse_head(p, &r) < 0)
		return -1;
	int stop = p->cb ? p->cb(p->cb_arg, &r) : 0;
	imap_clear_response(p);
	return stop != 0;
}

long
imap_parser_feed(struct imap_parser *p, const char *data, size_t len)
{
	size_t off = 0;

	if (p->failed)
		return -1;
	while (off < len) {
		const char *s = data + off;
		size_t n = len - off;

		if (p->state != IMAP_PS_TEXT) {
			size_t take = p->lit_left < n ? (size_t)p->lit_left : n;
			if (p->state == IMAP_PS_CAPTURE) {
				memcpy(p->buf + p->len, s, take);
				p->len += take;
			}
			p->lit_left -= take;
			p->pending += take;
			off += take;
			if (p->lit_left == 0) {
				p->state = IMAP_PS_TEXT;
				p->seg_start = p->len;
			}
			continue;
		}

		const char *lf = memchr(s, '\n', n);
		size_t seg = lf ? (size_t)(lf - s) : n;
		size_t cur = p->len - p->seg_start + seg;
		bool cr = seg ? s[seg - 1] == '\r'
			      : (cur > 0 && p->buf[p->len - 1] == '\r');
		/* A CR at the very end may be the line ending, so it is not
		 * held against the limit until we know. */
		if (p->text_done + cur - cr > p->max_line) {
			imap_fail(p, "response line longer than %zu bytes",
				  p->max_line);
			return -1;
		}
		imap_append(p, s, seg);
		off += seg;
		p->pending += seg;
		if (lf == NULL)
			break;
		off++;
		p->pending++;
		if (cr)
			p->len--;
		int rc = imap_segment_done(p);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return (long)off;
	}
	return (long)off;
}

bool
imap_resp_code(const struct imap_resp *r, const char **code,
	       size_t *code_len, const char **arg, size_t *arg_len)
{
	const char *t = r->text;
	size_t n = r->text_len;
	if (n < 2 || t[0] != '[')
		return false;
	const char *close = memchr(t, ']', n);
	if (close == NULL)
		return false;
	const char *c = t + 1;
	const char *sp = memchr(c, ' ', (size_t)(close - c));
	const char *cend = sp ? sp : close;
	if (cend == c)
		return false;
	*code = c;
	*code_len = (size_t)(cend - c);
	*arg = sp ? sp + 1 : close;
	*arg_len = (size_t)(close - *arg);
	return true;
}

bool
imap_resp_is(const struct imap_resp *r, const char *kw)
{
	return r->keyword != NULL && imap_atom_eq(r->keyword, r->keyword_len,
						  kw);
}

bool
imap_caps_has(const char *s, size_t n, const char *cap)
{
	size_t cl = strlen(cap);
	size_t i = 0;
	if (cl == 0)
		return false;
	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		size_t st = i;
		while (i < n && s[i] != ' ')
			i++;
		if (i - st == cl && strncasecmp(s + st, cap, cl) == 0)
			return true;
	}
	return false;
}
