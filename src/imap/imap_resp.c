/* imap_resp.c: decoding one framed response (see imap.h): its kind, tag,
 * number, keyword and condition, and the helpers that read a delivered
 * struct imap_resp (keyword classification, response codes, capability
 * lists).
 *
 * Separate from imap.c, which frames the byte stream into responses
 * (segments, literals captured or skipped, limits) and hands each complete
 * one here: what a response means is a concern of its own, and these
 * functions see only the reassembled line, never the parser's state. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "imap/imap.h"
#include "util/escape.h"
#include "imap/imap_resp.h"

static void
resp_fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
resp_fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

const char *
imap_resp_excerpt(char *out, size_t outsz, const char *s, size_t n)
{
	/* escape.h's one escaping function, and "..." when it was cut. */
	size_t o = escape_text(out, outsz - 3, s, n);
	if (o < escape_len(s, n))
		memcpy(out + o, "...", 4);
	return out;
}

static bool
imap_is_tag_char(unsigned char c)
{
	/* ASTRING-CHAR minus '+': printable ASCII except atom-specials
	 * (but ']' is allowed), and '+' which marks a continuation. */
	if (c <= 0x20 || c >= 0x7f)
		return false;
	/* A switch, not strchr(): it runs for every octet of every tag. */
	switch (c) {
	case '(': case ')': case '{': case '%': case '*': case '"':
	case '\\': case '+':
		return false;
	default:
		return true;
	}
}

/* ASCII only, whatever the locale: equal, or the two cases of one
 * letter. */
static inline bool
imap_ci_word(const char *s, const char *word, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)s[i];
		unsigned char y = (unsigned char)word[i];
		if (x != y && ((x ^ y) != 0x20 ||
			       (unsigned)((x | 0x20) - 'a') > 'z' - 'a'))
			return false;
	}
	return true;
}

static bool
imap_atom_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && imap_ci_word(s, word, n);
}

/* Sorted by length: imap_kw_first says where each length starts. */
static const struct {
	const char *name;
	enum imap_kw kw;
} imap_kw_names[] = {
	{ "OK", IMAP_KW_OK }, { "NO", IMAP_KW_NO }, { "ID", IMAP_KW_ID },
	{ "BAD", IMAP_KW_BAD }, { "BYE", IMAP_KW_BYE },
	{ "LIST", IMAP_KW_LIST }, { "LSUB", IMAP_KW_LSUB },
	{ "FETCH", IMAP_KW_FETCH }, { "FLAGS", IMAP_KW_FLAGS },
	{ "EXISTS", IMAP_KW_EXISTS }, { "RECENT", IMAP_KW_RECENT },
	{ "STATUS", IMAP_KW_STATUS }, { "SEARCH", IMAP_KW_SEARCH },
	{ "EXPUNGE", IMAP_KW_EXPUNGE }, { "PREAUTH", IMAP_KW_PREAUTH },
	{ "ENABLED", IMAP_KW_ENABLED }, { "ESEARCH", IMAP_KW_ESEARCH },
	{ "VANISHED", IMAP_KW_VANISHED }, { "NAMESPACE", IMAP_KW_NAMESPACE },
	{ "CAPABILITY", IMAP_KW_CAPABILITY },
};
#define IMAP_KW_NAMES	(sizeof(imap_kw_names) / sizeof(imap_kw_names[0]))
#define IMAP_KW_MAXLEN	10

/* First entry of each length in imap_kw_names, and one past the last. */
static const unsigned char imap_kw_first[IMAP_KW_MAXLEN + 2] = {
	[0] = 0, [1] = 0, [2] = 0, [3] = 3, [4] = 5, [5] = 7, [6] = 9,
	[7] = 13, [8] = 17, [9] = 18, [10] = 19, [11] = 20,
};
_Static_assert(IMAP_KW_NAMES == 20, "imap_kw_first must index every name");

enum imap_kw
imap_kw_classify(const char *s, size_t n)
{
	if (n == 0 || n > IMAP_KW_MAXLEN)
		return IMAP_KW_OTHER;
	if (n == 5 && imap_ci_word(s, "FETCH", 5))	/* most of them */
		return IMAP_KW_FETCH;
	unsigned char c = (unsigned char)(s[0] & ~0x20);	/* letters: upper */
	for (unsigned i = imap_kw_first[n]; i < imap_kw_first[n + 1]; i++) {
		const char *w = imap_kw_names[i].name;
		if (w[0] == c && imap_ci_word(s, w, n))
			return imap_kw_names[i].kw;
	}
	return IMAP_KW_OTHER;
}

/* Only the head is examined, so literal data later in the line is never
 * misread. */
int
imap_resp_decode(struct imap_resp *r, const char *line, size_t len,
		 char *err, size_t errsz)
{
	const char *s = line, *end = line + len, *q;
	char ex[48];

	memset(r, 0, sizeof(*r));
	r->line = s;
	r->line_len = len;
	r->tag = r->keyword = r->text = s;

	if (len == 0) {
		resp_fail(err, errsz, "empty response line");
		return -1;
	}
	if (s[0] == '+') {
		r->kind = IMAP_CONTINUATION;
		r->kw_id = IMAP_KW_OTHER;	/* its keyword is empty */
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
		if (len > 1 && s[1] != ' ') {
			resp_fail(err, errsz, "untagged response without a space after "
				  "\"*\": \"%s\"", imap_resp_excerpt(ex, sizeof(ex),
								s, len));
			return -1;
		}
		q = s + 2;
		if (q < end && *q >= '0' && *q <= '9') {
			uint64_t v = 0;
			while (q < end && *q >= '0' && *q <= '9' &&
			       v <= UINT32_MAX)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (v > UINT32_MAX) {
				resp_fail(err, errsz, "number in untagged response out "
					  "of range (max 4294967295): \"%s\"",
					  imap_resp_excerpt(ex, sizeof(ex), s,
						       len));
				return -1;
			}
			if (q < end && *q != ' ') {
				resp_fail(err, errsz, "malformed number in untagged "
					  "response: \"%s\"",
					  imap_resp_excerpt(ex, sizeof(ex), s,
						       len));
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
					resp_fail(err, errsz, "response does not start "
						  "with a tag, \"*\" or \"+\": "
						  "\"%s\"", imap_resp_excerpt(ex,
						  sizeof(ex), s, len));
				else
					resp_fail(err, errsz, "invalid character 0x%02x "
						  "in tag: \"%s\"",
						  (unsigned char)*q,
						  imap_resp_excerpt(ex, sizeof(ex),
							       s, len));
				return -1;
			}
			q++;
		}
		if (q == s) {
			resp_fail(err, errsz, "response does not start with a tag, "
				  "\"*\" or \"+\": \"%s\"",
				  imap_resp_excerpt(ex, sizeof(ex), s, len));
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
	r->kw_id = imap_kw_classify(kw, r->keyword_len);
	r->text = sp ? sp + 1 : end;
	r->text_len = (size_t)(end - r->text);

	if (r->kind == IMAP_TAGGED) {
		if (r->kw_id == IMAP_KW_OK)
			r->cond = IMAP_COND_OK;
		else if (r->kw_id == IMAP_KW_NO)
			r->cond = IMAP_COND_NO;
		else if (r->kw_id == IMAP_KW_BAD)
			r->cond = IMAP_COND_BAD;
		else {
			resp_fail(err, errsz, "tagged response without OK/NO/BAD: "
				  "\"%s\"", imap_resp_excerpt(ex, sizeof(ex), s,
							 len));
			return -1;
		}
		return 0;
	}
	if (r->keyword_len == 0) {
		resp_fail(err, errsz, "untagged response without a keyword: \"%s\"",
			  imap_resp_excerpt(ex, sizeof(ex), s, len));
		return -1;
	}
	/* Status conditions only in "* OK ..." form; "* 3 OK" is data. */
	if (!r->has_num) {
		switch (r->kw_id) {
		case IMAP_KW_OK:
			r->cond = IMAP_COND_OK;
			break;
		case IMAP_KW_NO:
			r->cond = IMAP_COND_NO;
			break;
		case IMAP_KW_BAD:
			r->cond = IMAP_COND_BAD;
			break;
		case IMAP_KW_BYE:
			r->cond = IMAP_COND_BYE;
			break;
		case IMAP_KW_PREAUTH:
			r->cond = IMAP_COND_PREAUTH;
			break;
		default:
			break;
		}
	}
	return 0;
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
	size_t cl = strlen(cap), pos = 0, len;
	const char *name;
	if (cl == 0)
		return false;
	while (imap_caps_next(s, n, &pos, &name, &len))
		if (len == cl && strncasecmp(name, cap, cl) == 0)
			return true;
	return false;
}

bool
imap_caps_next(const char *s, size_t n, size_t *pos, const char **name, size_t *len)
{
	size_t i = *pos;
	while (i < n && s[i] == ' ')
		i++;
	size_t st = i;
	while (i < n && s[i] != ' ')
		i++;
	*pos = i;
	*name = s + st;
	*len = i - st;
	return i > st;
}
