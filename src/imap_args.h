/* imap_args.h: tokenize the text of an IMAP response into a small tree.
 *
 * Input is the text imap.h delivers (struct imap_resp .text or .line):
 * literals no larger than the capture limit are kept inline as
 * "{N}\r\n<N octets>" (also "{N+}" and literal8 "~{N}"), larger ones appear
 * as "{N!}" meaning "N octets, content skipped".
 *
 * Tokens live in one array owned by a reusable struct imap_args: parsing
 * allocates nothing per token (the array and a scratch buffer for unescaped
 * quoted strings grow only when a bigger response than ever before
 * arrives, never beyond max_tokens).  Token pointers stay valid until the
 * next imap_args_parse() or imap_args_free() on the same object.
 *
 * The tree: the returned root is a LIST holding the top-level arguments
 * (its str/len is the whole text, without parentheses).  Children of a
 * list follow it in the array in pre-order; walk them with
 *
 *     for (a = imap_arg_child(list); a != NULL; a = imap_arg_next(a))
 *
 * Token types:
 *   ATOM     anything else, NIL and numbers included ("NIL", "12",
 *            "\Seen").  A '[' inside an atom runs to its matching ']',
 *            spaces and parentheses included, so
 *            BODY[HEADER.FIELDS (MESSAGE-ID)]<0> is ONE atom, as in IMAP's
 *            fetch-att grammar.
 *   QUOTED   "..." with \" and \\ unescaped (any other escape, CR or LF is
 *            an error).
 *   LITERAL  inline literal: str/len is the content, size == len.
 *   LITERAL_SKIPPED  "{N!}": size == N, str/len is the "{N!}" text.
 *   LIST     "( ... )": count children; str/len is the raw text including
 *            the parentheses (useful for hashing or logging).
 * Response codes ("[UIDNEXT 5]") are the caller's business. */
#ifndef IMAPSTRESS_IMAP_ARGS_H
#define IMAPSTRESS_IMAP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum imap_arg_type {
	IMAP_ARG_ATOM,
	IMAP_ARG_QUOTED,
	IMAP_ARG_LITERAL,
	IMAP_ARG_LITERAL_SKIPPED,
	IMAP_ARG_LIST
};

struct imap_arg {
	enum imap_arg_type type;
	/* Offsets in tokens from this one (0 = none); relative so the array
	 * may grow while parsing.  Use imap_arg_next()/imap_arg_child(). */
	int32_t next_off;
	uint32_t count;		/* LIST: number of children */
	const char *str;	/* not NUL-terminated */
	size_t len;
	uint64_t size;		/* LITERAL, LITERAL_SKIPPED: octets */
};

#define IMAP_ARGS_DEFAULT_MAX	8192u	/* tokens */
#define IMAP_ARGS_MAX_DEPTH	128u	/* nested lists */

struct imap_args;

/* max_tokens bounds the token array (0 = IMAP_ARGS_DEFAULT_MAX); it
 * counts the root list too. */
struct imap_args *imap_args_new(unsigned max_tokens);
void imap_args_free(struct imap_args *a);	/* NULL is a no-op */

/* Returns the root LIST, or NULL with imap_args_error() describing the
 * problem and its offset (unterminated quoted string or list, unexpected
 * ')', bad escape, control character, malformed or truncated literal,
 * missing space between arguments, too many tokens, nesting too deep). */
const struct imap_arg *imap_args_parse(struct imap_args *a, const char *text,
				       size_t len);
const char *imap_args_error(const struct imap_args *a);
unsigned imap_args_count(const struct imap_args *a);	/* incl. the root */

/* Walking. */
const struct imap_arg *imap_arg_next(const struct imap_arg *arg);
const struct imap_arg *imap_arg_child(const struct imap_arg *list); /* NULL if empty or not a list */
const struct imap_arg *imap_arg_nth(const struct imap_arg *list, unsigned i);

/* Predicates and conversions. */
bool imap_arg_is_string(const struct imap_arg *arg);	/* QUOTED or LITERAL */
bool imap_arg_is_nil(const struct imap_arg *arg);
/* Case-insensitive comparison of an ATOM's whole text with s. */
bool imap_arg_atom_eq(const struct imap_arg *arg, const char *s);
/* Same for an ATOM, QUOTED or LITERAL and a counted string. */
bool imap_arg_text_eq(const struct imap_arg *arg, const char *s, size_t n);

/* Decimal number parsing: 0 on success, -1 when the text is empty or not
 * all digits, -2 when the value does not fit in uint64_t. */
int imap_parse_u64(const char *s, size_t n, uint64_t *out);
/* The same for an ATOM (any other token type gives -1). */
int imap_arg_u64(const struct imap_arg *arg, uint64_t *out);

#endif
