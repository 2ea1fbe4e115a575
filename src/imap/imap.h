/* imap.h: a pure, incremental IMAP response parser.
 *
 * Bytes go in, in any split; one callback per complete server response
 * comes out.  No sockets, no event loop, no allocation per response once
 * warmed up.  Literals of any size are accepted up to a hard limit: small
 * ones are kept inline so the response can be tokenised, large ones are
 * counted and skipped (never buffered whole). */
#ifndef IMAPSTRESS_IMAP_H
#define IMAPSTRESS_IMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum imap_kind {
	IMAP_TAGGED,		/* "a1.5 OK ..." */
	IMAP_UNTAGGED,		/* "* ..." */
	IMAP_CONTINUATION	/* "+ ..." */
};

enum imap_cond {
	IMAP_COND_NONE,		/* untagged data: "* 3 EXISTS", "* CAPABILITY" */
	IMAP_COND_OK,
	IMAP_COND_NO,
	IMAP_COND_BAD,
	IMAP_COND_BYE,		/* untagged only */
	IMAP_COND_PREAUTH	/* untagged only (greeting) */
};

/* The keyword of a response, classified once by the parser so that its
 * consumers compare numbers, not strings. */
enum imap_kw {
	IMAP_KW_UNSET = 0,	/* not classified: a struct imap_resp made by
				 * hand; imap_resp_kw() classifies it then */
	IMAP_KW_OTHER,		/* none of the below */
	IMAP_KW_OK,
	IMAP_KW_NO,
	IMAP_KW_BAD,
	IMAP_KW_BYE,
	IMAP_KW_PREAUTH,
	IMAP_KW_CAPABILITY,
	IMAP_KW_ENABLED,
	IMAP_KW_ID,
	IMAP_KW_NAMESPACE,
	IMAP_KW_LIST,
	IMAP_KW_LSUB,
	IMAP_KW_STATUS,
	IMAP_KW_SEARCH,
	IMAP_KW_ESEARCH,
	IMAP_KW_FLAGS,
	IMAP_KW_EXISTS,
	IMAP_KW_RECENT,
	IMAP_KW_EXPUNGE,
	IMAP_KW_FETCH,
	IMAP_KW_VANISHED
};

struct imap_resp {
	enum imap_kind kind;
	enum imap_cond cond;

	/* Tagged: the tag.  Not NUL-terminated. */
	const char *tag;
	size_t tag_len;

	/* Untagged "* <num> <KEYWORD>": has_num and num set. */
	bool has_num;
	uint32_t num;

	/* Untagged: the first atom after "*" (or after the number), e.g.
	 * "EXISTS", "FETCH", "CAPABILITY", "OK", "BYE", as received (case
	 * kept).  Tagged: the condition atom ("OK"/"NO"/"BAD"). */
	const char *keyword;
	size_t keyword_len;
	/* The keyword classified (case-insensitive), for every kind of
	 * response; set by the parser. */
	enum imap_kw kw_id;

	/* Everything after the keyword and one space: for status responses
	 * the resp-text including any "[CODE ...]"; for data the arguments;
	 * for continuations the text after "+ ".  May be empty. */
	const char *text;
	size_t text_len;

	/* The whole response, without the final CRLF.  A literal no larger
	 * than the capture limit is kept in place as "{N}\r\n<N octets>"; a
	 * larger one appears as "{N!}" (internal marker: content skipped).
	 * The buffer is NUL-terminated at line[line_len]. */
	const char *line;
	size_t line_len;

	/* Literal octets in this response (captured and skipped), and count. */
	uint64_t literal_bytes;
	unsigned literals;
};

struct imap_limits {
	size_t max_line;	/* non-literal octets of one response; default 64 KiB */
	uint64_t max_literal;	/* largest literal accepted; default 256 MiB */
	size_t capture_literal;	/* literals <= this stay inline; default 4 KiB */
};

/* Return 0 to go on; non-zero stops imap_parser_feed() at once, which then
 * returns the bytes consumed so far including this response. */
typedef int (*imap_resp_cb)(void *arg, const struct imap_resp *resp);

struct imap_parser;

/* lim may be NULL for the defaults. */
struct imap_parser *imap_parser_new(const struct imap_limits *lim,
				    imap_resp_cb cb, void *arg);
void imap_parser_free(struct imap_parser *p);	/* NULL is a no-op */

/* Forget any partial response (e.g. after a reconnect). */
void imap_parser_reset(struct imap_parser *p);

/* The connection is about to wait (IDLE), maybe for minutes: once the
 * response being read is done (now, or at its end when called from the
 * callback), the buffer, grown to the largest response so far, goes
 * back to a few octets.  It grows again with the next long response.
 * (A new parser has no buffer until it is first fed.) */
void imap_parser_trim(struct imap_parser *p);

/* Feed len bytes.  Returns the number of bytes consumed (== len unless the
 * callback asked to stop), or -1 on a protocol error (line over the limit,
 * literal over the limit, malformed literal, missing tag, ...) after which
 * imap_parser_error() describes it and the parser must be reset. */
long imap_parser_feed(struct imap_parser *p, const char *data, size_t len);

const char *imap_parser_error(const struct imap_parser *p);

/* Octets of the current partial response received so far, and whether a
 * literal is being skipped: lets the caller tell a stall "mid-literal". */
uint64_t imap_parser_pending(const struct imap_parser *p);

/* Helpers over the reassembled text. */

/* If text starts with "[CODE ...]", set *code, *code_len to the code atom
 * (without the bracket) and *arg, *arg_len to what follows it up to ']'.
 * Returns false when there is no response code. */
bool imap_resp_code(const struct imap_resp *r, const char **code,
		    size_t *code_len, const char **arg, size_t *arg_len);

/* Case-insensitive: does the keyword equal kw? */
bool imap_resp_is(const struct imap_resp *r, const char *kw);

/* The IMAP_KW_* of the n octets at s (case-insensitive): IMAP_KW_OTHER
 * when none matches. */
enum imap_kw imap_kw_classify(const char *s, size_t n);

/* r->kw_id, or for a hand-made response (kw_id IMAP_KW_UNSET) the
 * classification of its keyword. */
static inline enum imap_kw
imap_resp_kw(const struct imap_resp *r)
{
	if (r->kw_id != IMAP_KW_UNSET)
		return r->kw_id;
	return r->keyword != NULL ? imap_kw_classify(r->keyword,
						     r->keyword_len)
				  : IMAP_KW_OTHER;
}

/* Does the space-separated capability list s (len n) contain cap
 * (case-insensitive, whole word)? */
bool imap_caps_has(const char *s, size_t n, const char *cap);
/* The next name in a space-separated capability list s[0..n) from *pos
 * (start with 0): sets name and len and moves *pos past it; false once
 * none is left. */
bool imap_caps_next(const char *s, size_t n, size_t *pos, const char **name,
		    size_t *len);

#endif
