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
 *   LIST_RAW a list left untokenized by imap_args_parse_fetch(): str/len
 *            as for LIST, no children; parse str/len to look inside.
 * Response codes ("[UIDNEXT 5]") are the caller's business. */
#ifndef IMAPSTRESS_IMAP_ARGS_H
#define IMAPSTRESS_IMAP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum imap_arg_type {
	IMAP_ARG_ATOM,
	IMAP_ARG_QUOTED,
	IMAP_ARG_LITERAL,
	IMAP_ARG_LITERAL_SKIPPED,
	IMAP_ARG_LIST,
	IMAP_ARG_LIST_RAW	/* imap_args_parse_fetch only */
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
/* The same for the text of an untagged FETCH, "(item value ...)", except
 * that the list value of an ENVELOPE, BODYSTRUCTURE or BODY item comes as
 * one LIST_RAW token: most of a FETCH's tokens are in those, and the
 * mailbox model first checks whether their octets are the ones it has
 * seen before.  A value that is not a well-formed list is tokenized as
 * usual, so errors are the same as imap_args_parse()'s. */
const struct imap_arg *imap_args_parse_fetch(struct imap_args *a,
					     const char *text, size_t len);
const char *imap_args_error(const struct imap_args *a);
unsigned imap_args_count(const struct imap_args *a);	/* incl. the root */

/* ASCII case-insensitive equality of n octets (no locale, NUL is an
 * ordinary octet).  Inline: with a constant n it unrolls. */
static inline bool
imap_ci_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		/* equal, or the two cases of one letter */
		if (x != y && ((x ^ y) != 0x20 ||
			       (unsigned)((x | 0x20) - 'a') > 'z' - 'a'))
			return false;
	}
	return true;
}

/* imap_ci_eq for a literal lit of n octets, 4 <= n <= 16, a word at a
 * time (two overlapping ones): with a constant lit and n it is a few
 * instructions.  Octets of lit that are letters match either case. */
static inline uint64_t
imap_letter_bits(uint64_t w)	/* 0x20 in each octet that is a letter */
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t x = w | 0x20 * ones;
	uint64_t low7 = x & 0x7f * ones;
	uint64_t ge_a = low7 + (0x80 - 'a') * ones;
	uint64_t gt_z = low7 + (0x7f - 'z') * ones;

	return (ge_a & ~gt_z & ~x & 0x80 * ones) >> 2;
}

static inline bool
imap_ci_eq_word(const char *s, const char *lit, size_t k)	/* k: 4 or 8 */
{
	uint64_t w, e;

	if (k == 8) {
		memcpy(&w, s, 8);
		memcpy(&e, lit, 8);
	} else {
		uint32_t w4, e4;
		memcpy(&w4, s, 4);
		memcpy(&e4, lit, 4);
		w = w4;
		e = e4;
	}
	return ((w ^ e) & ~imap_letter_bits(e)) == 0;
}

static inline bool
imap_ci_eq_lit(const char *s, const char *lit, size_t n)
{
	size_t k = n >= 8 ? 8 : 4;

	return imap_ci_eq_word(s, lit, k) &&
	       imap_ci_eq_word(s + n - k, lit + n - k, k);
}

/* Walking.  Inline: the model calls these for every token it reads. */
static inline const struct imap_arg *
imap_arg_next(const struct imap_arg *arg)
{
	return arg->next_off ? arg + arg->next_off : NULL;
}

/* NULL if list is NULL, empty or not a list. */
static inline const struct imap_arg *
imap_arg_child(const struct imap_arg *list)
{
	if (list == NULL || list->type != IMAP_ARG_LIST || list->count == 0)
		return NULL;
	return list + 1;
}

const struct imap_arg *imap_arg_nth(const struct imap_arg *list, unsigned i);

/* Predicates and conversions. */
static inline bool
imap_arg_is_string(const struct imap_arg *arg)	/* QUOTED or LITERAL */
{
	return arg != NULL && (arg->type == IMAP_ARG_QUOTED ||
			       arg->type == IMAP_ARG_LITERAL);
}

/* Case-insensitive comparison of an ATOM's whole text with the n octets
 * at s. */
static inline bool
imap_arg_atom_eqn(const struct imap_arg *arg, const char *s, size_t n)
{
	return arg != NULL && arg->type == IMAP_ARG_ATOM && arg->len == n &&
	       imap_ci_eq(arg->str, s, n);
}

/* The same with a NUL-terminated s; for a string literal the compiler
 * folds the strlen. */
static inline bool
imap_arg_atom_eq(const struct imap_arg *arg, const char *s)
{
	return imap_arg_atom_eqn(arg, s, strlen(s));
}

static inline bool
imap_arg_is_nil(const struct imap_arg *arg)
{
	return imap_arg_atom_eqn(arg, "NIL", 3);
}

/* Case-insensitive comparison of an ATOM, QUOTED or LITERAL and a counted
 * string. */
static inline bool
imap_arg_text_eq(const struct imap_arg *arg, const char *s, size_t n)
{
	return arg != NULL && arg->type != IMAP_ARG_LIST &&
	       arg->type != IMAP_ARG_LITERAL_SKIPPED && arg->len == n &&
	       imap_ci_eq(arg->str, s, n);
}

/* Decimal number parsing: 0 on success, -1 when the text is empty or not
 * all digits, -2 when the value does not fit in uint64_t. */
int imap_parse_u64(const char *s, size_t n, uint64_t *out);
/* The same for an ATOM (any other token type gives -1). */
int imap_arg_u64(const struct imap_arg *arg, uint64_t *out);

#endif
