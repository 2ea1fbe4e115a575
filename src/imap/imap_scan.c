/* imap_scan.c: the out-of-line token scanners of the tokenizer (see
 * imap_scan.h): sections in brackets, quoted strings that need more than
 * the inline fast path (an escape, a line break, no closing quote), and
 * literals.  Separate from imap_args.c, which builds the tree, because
 * finding where a token ends is a concern of its own: octet classes,
 * vector and word-at-a-time scanning, and the error for each malformed
 * token. */
#include <stdarg.h>
#include <stdio.h>

#include "imap/imap_scan.h"

const unsigned char imap_scan_atom_end_tab[256] = {
	[0x00 ... 0x1f] = 1, [' '] = 1, ['('] = 1, [')'] = 1, ['['] = 1,
	[0x7f] = 1,
};

const unsigned char imap_scan_quoted_stop_tab[256] = {
	['"'] = 1, ['\\'] = 1, ['\r'] = 1, ['\n'] = 1,
};

/* What needs a look inside a section ("[...]" in an atom). */
static const unsigned char scan_section_stop[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['['] = 1, [']'] = 1, [0x7f] = 1,
};

/* Always 0, the scanners' error return, as "return scan_fail(...)". */
static size_t
scan_fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static size_t
scan_fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, IMAP_SCAN_ERR_SIZE, fmt, ap);
	va_end(ap);
	return 0;
}

/* The first '"', '[', ']' or CTL from p on (what a section cares about),
 * or len. */
static inline size_t
scan_section_stop_at(const char *text, size_t len, size_t p)
{
#ifdef __SSE2__
	for (; len - p >= 16; p += 16) {
		__m128i v = imap_scan_load16(text + p);
		unsigned m = imap_scan_mask16(_mm_or_si128(
			_mm_or_si128(IMAP_SCAN_CTL(v), IMAP_SCAN_EQ(v, '"')),
			_mm_or_si128(_mm_or_si128(IMAP_SCAN_EQ(v, '['),
						  IMAP_SCAN_EQ(v, ']')),
				     IMAP_SCAN_EQ(v, 0x7f))));
		if (m != 0)
			return p + (unsigned)__builtin_ctz(m);
	}
#endif
	for (; len - p >= 8; p += 8) {
		uint64_t w = imap_scan_le64(text + p);
		uint64_t m = IMAP_SCAN_HAS_LESS(w, 0x20) |
			     IMAP_SCAN_HAS_BYTE(w, '"') |
			     IMAP_SCAN_HAS_BYTE(w, '[') |
			     IMAP_SCAN_HAS_BYTE(w, ']') |
			     IMAP_SCAN_HAS_BYTE(w, 0x7f);
		if (m != 0)
			return p + imap_scan_first(m);
	}
	while (p < len && !scan_section_stop[(unsigned char)text[p]])
		p++;
	return p;
}

size_t
imap_scan_section(const char *text, size_t len, size_t p, char *err)
{
	size_t open = p;
	unsigned depth = 0;

	for (; (p = scan_section_stop_at(text, len, p)) < len; p++) {
		unsigned char c = (unsigned char)text[p];
		if (c < 0x20 || c == 0x7f)
			return scan_fail(err, "control character 0x%02x in "
					 "section at offset %zu", c, p);
		if (c == '"') {
			for (p++; p < len && text[p] != '"'; p++)
				if (text[p] == '\\')
					p++;
			if (p >= len)
				break;
		} else if (c == '[') {
			depth++;
		} else if (--depth == 0) {	/* ']' */
			return p + 1;
		}
	}
	return scan_fail(err, "unterminated '[' in atom at offset %zu", open);
}

size_t
imap_scan_quoted(const char *text, size_t len, size_t p, bool *escaped,
		 char *err)
{
	size_t start = p;

	*escaped = false;
	for (;;) {
		bool quote;
		p = imap_scan_quoted_end(text, len, p, &quote);
		if (quote || p >= len)
			break;
		if (text[p] == '\r' || text[p] == '\n')
			return scan_fail(err, "line break in quoted string "
					 "at offset %zu", p);
		/* A backslash.  As the very last octet it ends the string,
		 * which then needs no closing quote: a quirk of the first
		 * version, kept so that the checks report what they did. */
		if (p + 1 >= len)
			break;
		if (text[p + 1] != '"' && text[p + 1] != '\\')
			return scan_fail(err, "bad escape '\\%c' in quoted "
					 "string at offset %zu", text[p + 1],
					 p);
		*escaped = true;
		p += 2;
	}
	if (p >= len)
		return scan_fail(err, "unterminated quoted string at offset "
				 "%zu", start - 1);
	return p + 1;
}

size_t
imap_scan_literal(const char *text, size_t len, size_t p, size_t start,
		  enum imap_arg_type *type, const char **s, size_t *n,
		  uint64_t *size, char *err)
{
	size_t d0 = ++p;
	uint64_t v = 0;

	while (p < len && text[p] >= '0' && text[p] <= '9') {
		unsigned dig = (unsigned)(text[p] - '0');
		if (v > (UINT64_MAX - dig) / 10)
			return scan_fail(err, "literal size too large at "
					 "offset %zu", start);
		v = v * 10 + dig;
		p++;
	}
	if (p == d0)
		return scan_fail(err, "malformed literal at offset %zu",
				 start);
	bool skipped = false;
	if (p < len && (text[p] == '+' || text[p] == '!')) {
		skipped = text[p] == '!';
		p++;
	}
	if (p >= len || text[p] != '}')
		return scan_fail(err, "malformed literal at offset %zu",
				 start);
	p++;
	*size = v;
	if (skipped) {
		*type = IMAP_ARG_LITERAL_SKIPPED;
		*s = text + start;
		*n = p - start;
		return p;
	}
	if (len - p < 2 || text[p] != '\r' || text[p + 1] != '\n')
		return scan_fail(err, "literal at offset %zu not followed by "
				 "CRLF", start);
	p += 2;
	if (v > len - p)
		return scan_fail(err, "literal of %llu octets at offset %zu "
				 "truncated (%zu present)",
				 (unsigned long long)v, start, len - p);
	*type = IMAP_ARG_LITERAL;
	*s = text + p;
	*n = (size_t)v;
	return p + (size_t)v;
}

/* Octets imap_scan_list_end must look at; the rest it steps over. */
static const bool list_stop_tab[256] = {
	[0x00 ... 0x1f] = true, [0x7f] = true, ['('] = true, [')'] = true,
	['"'] = true, ['{'] = true, ['~'] = true, ['['] = true,
};

size_t
imap_scan_list_end(const char *text, size_t len, size_t p)
{
	unsigned depth = 0;
	char err[IMAP_SCAN_ERR_SIZE];

	while (p < len) {
		while (!list_stop_tab[(unsigned char)text[p]])
			if (++p == len)
				return 0;
		unsigned char c = (unsigned char)text[p];
		switch (c) {
		case '(':
			if (++depth > IMAP_ARGS_MAX_DEPTH)
				return 0;
			p++;
			break;
		case ')':
			p++;
			if (--depth == 0)
				return p;
			break;
		case '"': {
			bool quote, escaped;
			size_t e = imap_scan_quoted_end(text, len, p + 1, &quote);
			p = quote ? e + 1 : imap_scan_quoted(text, len, p + 1,
							     &escaped, err);
			if (p == 0)
				return 0;
			break;
		}
		case '~':
			if (p + 1 >= len || text[p + 1] != '{')
				return 0;
			p++;
			/* fall through */
		case '{': {
			enum imap_arg_type type;
			const char *s;
			size_t n;
			uint64_t size;
			p = imap_scan_literal(text, len, p, p, &type, &s, &n,
					      &size, err);
			if (p == 0)
				return 0;
			break;
		}
		case '[':
			return 0;
		default:
			if (c < 0x20 || c == 0x7f)
				return 0;
			p++;
			break;
		}
	}
	return 0;
}
