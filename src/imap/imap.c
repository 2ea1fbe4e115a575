/* imap.c: incremental IMAP response parser (see imap.h): the framing.
 * Each complete response goes to imap_resp.c, which decodes its head and
 * holds the helpers over a delivered response; this file only turns bytes
 * in any split into whole responses, within bounded memory.
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

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "imap/imap.h"
#include "imap/imap_resp.h"
#include "util/xmalloc.h"

#define IMAP_DEF_MAX_LINE	(64 * 1024)
#define IMAP_DEF_MAX_LITERAL	(256ull * 1024 * 1024)
#define IMAP_DEF_CAPTURE	(4 * 1024)
#define IMAP_CAPTURE_FACTOR	8
#define IMAP_BUF_INITIAL	512
/* After imap_parser_trim: enough for an EXISTS while idling.  512 octets
 * (and more once a FETCH of headers grew it) were a tenth of a LoadSim
 * user's memory, kept through hours in IDLE. */
#define IMAP_BUF_IDLE		64
#define IMAP_ERR_MAX		256	/* an error message, with its NUL */

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

	bool trim;		/* imap_parser_trim: at the response's end */
	bool failed;
	/* Why it failed, on the heap: NULL until then.  Inline, 256 octets
	 * were 40% of the parser and an eighth of a LoadSim user's memory
	 * (heaptrack, 3,000 users), kept by every connection for the one
	 * message it may never need. */
	char *err;
};

/* Test-only: the internal buffer's capacity, to prove it stays small.
 * Declared here rather than in imap.h because it is not part of the API. */
size_t imap_parser_bufcap(const struct imap_parser *p);

static void
imap_fail(struct imap_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
imap_set_err(struct imap_parser *p, const char *msg)
{
	free(p->err);
	p->err = xstrdup(msg);
	p->failed = true;
}

static void
imap_fail(struct imap_parser *p, const char *fmt, ...)
{
	char msg[IMAP_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	imap_set_err(p, msg);
}

/* The buffer's growth, apart from the test whether it must grow: kept
 * out of line so that imap_append stays small enough to be inlined into
 * the feed loop (when the parser's first buffer moved here from
 * imap_parser_new, GCC stopped inlining it: +48 user instructions a
 * pipelined FETCH, callgrind). */
static __attribute__((noinline)) void
imap_grow(struct imap_parser *p, size_t need)
{
	size_t ncap = p->cap ? p->cap : IMAP_BUF_INITIAL;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p->buf = xrealloc(p->buf, ncap);
	p->cap = ncap;
}

static inline void
imap_reserve(struct imap_parser *p, size_t need)
{
	if (need > p->cap)
		imap_grow(p, need);
}

static inline void
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
	if (p->trim) {
		p->trim = false;
		if (p->cap > IMAP_BUF_IDLE) {
			/* A new small buffer and the old one freed whole, not a
			 * realloc in place: that split off the rest (448 octets
			 * of the first 512) as a free chunk of an odd size which
			 * no later request fitted, one per user (malloc_info,
			 * 10,000 LoadSim users: 9,855 free chunks of 448 octets,
			 * 4.4 MB).  Freed whole, it is the size the next
			 * connection's first buffer asks for, and is reused. */
			free(p->buf);
			p->buf = xmalloc(IMAP_BUF_IDLE);
			p->cap = IMAP_BUF_IDLE;
		}
	}
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
	/* No buffer until the first octets come: made then, it is taken on
	 * the thread that reads (a worker, whose later trims and growths
	 * reuse its free memory), not on the one that set the connection up,
	 * whose arena nothing else allocates from once the run is going. */
	return p;
}

void
imap_parser_free(struct imap_parser *p)
{
	if (p == NULL)
		return;
	free(p->buf);
	free(p->err);
	free(p);
}

void
imap_parser_reset(struct imap_parser *p)
{
	imap_clear_response(p);
	p->failed = false;
	free(p->err);
	p->err = NULL;
}

void
imap_parser_trim(struct imap_parser *p)
{
	p->trim = true;
	if (p->len == 0 && p->state == IMAP_PS_TEXT)
		imap_clear_response(p);		/* between responses: now */
}

const char *
imap_parser_error(const struct imap_parser *p)
{
	return p->err ? p->err : "";
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
			  imap_resp_excerpt(ex, sizeof(ex), s + b, n - 1 - b));
		return -1;
	}
	if (overflow || v > p->max_literal) {
		imap_fail(p, "literal of %s bytes exceeds max-literal %llu",
			  imap_resp_excerpt(ex, sizeof(ex), d, dl),
			  (unsigned long long)p->max_literal);
		return -1;
	}
	*size = v;
	return 1;
}

/* The response in p->buf did not decode: decode it again, for the
 * message this time.  Apart from the hot path, so that its buffer is not
 * in imap_segment_done's frame: with it (IMAP_ERR_MAX octets) GCC no
 * longer inlined that into imap_parser_feed, which cost every response
 * a call (callgrind: 27 instructions per pipelined NOOP, 82 per FETCH of
 * a body). */
static __attribute__((noinline, cold)) void
imap_decode_failed(struct imap_parser *p)
{
	struct imap_resp r;
	char why[IMAP_ERR_MAX];

	(void)imap_resp_decode(&r, p->buf, p->len, why, sizeof(why));
	imap_set_err(p, why);
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
	if (imap_resp_decode(&r, p->buf, p->len, NULL, 0) < 0) {
		imap_decode_failed(p);
		return -1;
	}
	r.literal_bytes = p->lit_bytes;
	r.literals = p->lits;
	int stop = p->cb ? p->cb(p->cb_arg, &r) : 0;
	imap_clear_response(p);
	return stop != 0;
}

/* memchr(s, '\n', n), inline: responses are short, and the call costs
 * as much as the search. */
static inline const char *
imap_find_lf(const char *s, size_t n)
{
#ifdef __SSE2__
	const __m128i lf = _mm_set1_epi8('\n');
	size_t i = 0;

	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)
					    (s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf));
		if (m != 0)
			return s + i + (unsigned)__builtin_ctz(m);
	}
	for (; i < n; i++)
		if (s[i] == '\n')
			return s + i;
	return NULL;
#else
	return memchr(s, '\n', n);
#endif
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

		const char *lf = imap_find_lf(s, n);
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
