/* imap_scan.h: where does this token end?  Internal to the tokenizer
 * (imap_args.c, which builds the tree; imap_scan.c, the out-of-line
 * scanners).
 *
 * Kept apart from the tree building because it is a different concern
 * (octet classes and the tricks that test many octets at once) and because
 * it is the part one tunes.  The two scanners every token goes through,
 * imap_scan_atom_end and imap_scan_quoted_end, are static inline here, not
 * in imap_scan.c: bench-parse measured them 3-5% slower per FETCH response
 * as calls.  The rarer cases (sections in brackets, quoted strings with an
 * escape or an error, literals) are calls into imap_scan.c.
 *
 * Errors: the out-of-line scanners return 0 (no token ends at offset 0)
 * with a message naming the problem and its offset in err, which holds
 * IMAP_SCAN_ERR_SIZE octets. */
#ifndef IMAPSTRESS_IMAP_SCAN_H
#define IMAPSTRESS_IMAP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif

#include "imap/imap_args.h"

#define IMAP_SCAN_ERR_SIZE	160

/* What ends an atom: SP, '(', ')', CTL, and '[' (which starts a section
 * that runs to its matching ']'). */
extern const unsigned char imap_scan_atom_end_tab[256];
/* What needs a look inside a quoted string: '"', '\\', CR, LF. */
extern const unsigned char imap_scan_quoted_stop_tab[256];

/* Eight octets at a time, with the classic carry tricks: HAS_ZERO flags
 * the zero octets of a word, HAS_LESS those below n.  Each flags its
 * first hit exactly (it may flag octets above a hit, never below), so
 * with little-endian loads the lowest flag of an OR of them is the first
 * octet that any of them matches. */
#define IMAP_SCAN_ONES		0x0101010101010101ull
#define IMAP_SCAN_HIGHS		(0x80 * IMAP_SCAN_ONES)
#define IMAP_SCAN_HAS_ZERO(x)	\
	(((x) - IMAP_SCAN_ONES) & ~(x) & IMAP_SCAN_HIGHS)
#define IMAP_SCAN_HAS_LESS(x, n)	/* n <= 128 */ \
	(((x) - (n) * IMAP_SCAN_ONES) & ~(x) & IMAP_SCAN_HIGHS)
#define IMAP_SCAN_HAS_BYTE(w, c)	\
	IMAP_SCAN_HAS_ZERO((w) ^ ((uint64_t)(c) * IMAP_SCAN_ONES))

static inline uint64_t
imap_scan_le64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif
	return v;
}

static inline size_t
imap_scan_first(uint64_t m)
{
	return (unsigned)__builtin_ctzll(m) / 8;
}

#ifdef __SSE2__
/* Sixteen octets at a time where SSE2 is there (every x86-64): most
 * tokens end within the first vector. */
#define IMAP_SCAN_V(c)		_mm_set1_epi8((char)(c))
#define IMAP_SCAN_EQ(v, c)	_mm_cmpeq_epi8((v), IMAP_SCAN_V(c))
/* octets below 0x20 */
#define IMAP_SCAN_CTL(v)	\
	_mm_cmpeq_epi8(_mm_subs_epu8((v), IMAP_SCAN_V(0x1f)), \
		       _mm_setzero_si128())

static inline __m128i
imap_scan_load16(const char *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static inline unsigned
imap_scan_mask16(__m128i m)
{
	return (unsigned)_mm_movemask_epi8(m);
}
/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif

/* The first octet from p on that ends an atom, or len; sets *bracket
 * when it is a '[' (known from the masks, without reading the octet
 * again). */
static inline size_t
imap_scan_atom_end(const char *text, size_t len, size_t p, bool *bracket)
{
#ifdef __SSE2__
	for (; len - p >= 16; p += 16) {
		__m128i v = imap_scan_load16(text + p);
		unsigned br = imap_scan_mask16(IMAP_SCAN_EQ(v, '['));
		unsigned m = imap_scan_mask16(_mm_or_si128(
			_mm_or_si128(_mm_or_si128(IMAP_SCAN_CTL(v),
						  IMAP_SCAN_EQ(v, ' ')),
				     _mm_or_si128(IMAP_SCAN_EQ(v, '('),
						  IMAP_SCAN_EQ(v, ')'))),
			IMAP_SCAN_EQ(v, 0x7f))) | br;
		if (m != 0) {
			*bracket = (m & -m & br) != 0;
			return p + (unsigned)__builtin_ctz(m);
		}
	}
/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif
	for (; len - p >= 8; p += 8) {
		uint64_t w = imap_scan_le64(text + p);
		uint64_t br = IMAP_SCAN_HAS_BYTE(w, '[');
		uint64_t m = IMAP_SCAN_HAS_LESS(w, 0x20) |
			     IMAP_SCAN_HAS_BYTE(w, ' ') |
			     IMAP_SCAN_HAS_BYTE(w, '(') |
			     IMAP_SCAN_HAS_BYTE(w, ')') | br |
			     IMAP_SCAN_HAS_BYTE(w, 0x7f);
		if (m != 0) {
			*bracket = (m & -m & br) != 0;
			return p + imap_scan_first(m);
		}
	}
	while (p < len && !imap_scan_atom_end_tab[(unsigned char)text[p]])
		p++;
	*bracket = p < len && text[p] == '[';
	return p;
}

/* The first '"', '\\', CR or LF from p on, or len; sets *quote when it is
 * a '"'. */
static inline size_t
imap_scan_quoted_end(const char *text, size_t len, size_t p, bool *quote)
{
#ifdef __SSE2__
	for (; len - p >= 16; p += 16) {
		__m128i v = imap_scan_load16(text + p);
		unsigned q = imap_scan_mask16(IMAP_SCAN_EQ(v, '"'));
		unsigned m = imap_scan_mask16(_mm_or_si128(
			IMAP_SCAN_EQ(v, '\\'),
			_mm_or_si128(IMAP_SCAN_EQ(v, '\r'),
				     IMAP_SCAN_EQ(v, '\n')))) | q;
		if (m != 0) {
			*quote = (m & -m & q) != 0;
			return p + (unsigned)__builtin_ctz(m);
		}
	}
/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif
	for (; len - p >= 8; p += 8) {
		uint64_t w = imap_scan_le64(text + p);
		uint64_t q = IMAP_SCAN_HAS_BYTE(w, '"');
		uint64_t m = q | IMAP_SCAN_HAS_BYTE(w, '\\') |
			     IMAP_SCAN_HAS_BYTE(w, '\r') |
			     IMAP_SCAN_HAS_BYTE(w, '\n');
		if (m != 0) {
			*quote = (m & -m & q) != 0;
			return p + imap_scan_first(m);
		}
	}
	while (p < len && !imap_scan_quoted_stop_tab[(unsigned char)text[p]])
		p++;
	*quote = p < len && text[p] == '"';
	return p;
}

/* A '[' inside an atom runs to its matching ']' (section specs hold
 * spaces, parentheses and possibly quoted header names).  p points at
 * the '['; returns the offset after the ']', or 0 on error. */
size_t imap_scan_section(const char *text, size_t len, size_t p, char *err);

/* Returns the offset after the atom starting at p, or 0 on error. */
static inline size_t
imap_scan_atom(const char *text, size_t len, size_t p, char *err)
{
	for (;;) {
		bool bracket;
		p = imap_scan_atom_end(text, len, p, &bracket);
		if (!bracket)
			return p;
		p = imap_scan_section(text, len, p, err);
		if (p == 0)
			return 0;
	}
}

/* The whole check of a quoted string, for when imap_scan_quoted_end did
 * not find its closing quote at once.  p points after the opening quote.
 * Returns the offset after the closing quote (the content is text[p] up
 * to the octet before it, escapes still in), or 0 on error; sets
 * *escaped when the content holds an escape. */
size_t imap_scan_quoted(const char *text, size_t len, size_t p,
			bool *escaped, char *err);

/* p points at '{' (literal8's '~' already skipped), start at the token.
 * Returns the offset after the literal (0 on error) and sets *type
 * (LITERAL or LITERAL_SKIPPED), *s, *n and *size as the token's. */
size_t imap_scan_literal(const char *text, size_t len, size_t p,
			 size_t start, enum imap_arg_type *type,
			 const char **s, size_t *n, uint64_t *size, char *err);

/* p points at a '(': the offset after its matching ')' when the list
 * holds only what a FETCH ENVELOPE or BODYSTRUCTURE may (atoms without
 * '[', quoted strings, literals, nested lists); 0 for anything else, and
 * the caller then tokenizes the list as usual, which names the problem.
 * Lets imap_args_parse_fetch() leave such a value whole. */
size_t imap_scan_list_end(const char *text, size_t len, size_t p);

#endif
