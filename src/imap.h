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

/* Does the space-separated capability list s (len n) contain cap
 * (case-insensitive, whole word)? */
bool imap_caps_has(const char *s, size_t n, const char *cap);

#endif
