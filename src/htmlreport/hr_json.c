/* hr_json.c: the report's JSON reader (hr_json.h).  Recursive descent
 * with a depth limit: the inputs are a few levels deep, a hostile file
 * must not blow the stack. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_json.h"
#include "util/xmalloc.h"

#define JSON_MAX_DEPTH 64

struct jp {
	const char *s, *p;
	char *err;
	size_t errlen;
};

static int
jerr(struct jp *j, const char *what)
{
	snprintf(j->err, j->errlen, "column %zu: %s",
		 (size_t)(j->p - j->s) + 1, what);
	return -1;
}

static void
ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' ||
	       *j->p == '\r')
		j->p++;
}

static int value(struct jp *j, struct jv *v, int depth);

static int
hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t
put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at j->p (on its opening quote) into a new NUL-terminated
 * buffer: escapes decoded; the output is never longer than the input. */
static int
string(struct jp *j, char **out)
{
	const char *p = ++j->p;
	const char *e = p;
	while (*e != '"') {
		if (*e == '\0')
			return jerr(j, "string not closed");
		if (*e == '\\' && e[1] != '\0')
			e++;
		e++;
	}
	char *d = xmalloc((size_t)(e - p) + 1), *o = d;
	while (p < e) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20) {
			free(d);
			j->p = p;
			return jerr(j, "control character in a string");
		}
		if (c != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		unsigned cp;
		switch (*p) {
		case '"': case '\\': case '/': *o++ = *p++; continue;
		case 'b': *o++ = '\b'; p++; continue;
		case 'f': *o++ = '\f'; p++; continue;
		case 'n': *o++ = '\n'; p++; continue;
		case 'r': *o++ = '\r'; p++; continue;
		case 't': *o++ = '\t'; p++; continue;
		case 'u':
			if (e - p < 5 || hex4(p + 1, &cp) < 0)
				break;
			p += 5;
			/* A surrogate pair is one code point; a lone half
			 * becomes U+FFFD (4 escaped bytes > 3 written). */
			if (cp >= 0xd800 && cp <= 0xdbff && e - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u') {
				unsigned lo;
				if (hex4(p + 2, &lo) == 0 && lo >= 0xdc00 &&
				    lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;
			o += put_utf8(o, cp);
			continue;
		default:
			break;
		}
		free(d);
		j->p = p;
		return jerr(j, "bad escape in a string");
	}
	*o = '\0';
	j->p = e + 1;
	*out = d;
	return 0;
}

static int
number(struct jp *j, struct jv *v)
{
	const char *p = j->p;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return jerr(j, "not JSON (expected a value)");
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return jerr(j, "bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return jerr(j, "bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	errno = 0;
	v->t = J_NUM;
	v->n = strtod(j->p, NULL);
	if (!isfinite(v->n))
		return jerr(j, "number out of range");
	j->p = p;
	return 0;
}

static int
members(struct jp *j, struct jv *v, int depth, bool obj)
{
	size_t cap = 0;
	char close = obj ? '}' : ']';

	j->p++;
	ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (v->nk == cap) {
			cap = cap ? cap * 2 : 8;
			v->kids = xrealloc(v->kids, cap * sizeof(*v->kids));
			if (obj)
				v->keys = xrealloc(v->keys, cap * sizeof(char *));
		}
		ws(j);
		if (obj) {
			if (*j->p != '"')
				return jerr(j, "expected a key");
			if (string(j, &v->keys[v->nk]) < 0)
				return -1;
			ws(j);
			if (*j->p != ':') {
				free(v->keys[v->nk]);
				return jerr(j, "expected ':'");
			}
			j->p++;
		}
		memset(&v->kids[v->nk], 0, sizeof(v->kids[0]));
		int rc = value(j, &v->kids[v->nk], depth + 1);
		v->nk++;	/* freed by jv_free, even half built */
		if (rc < 0)
			return -1;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		return jerr(j, obj ? "expected ',' or '}'" :
			    "expected ',' or ']'");
	}
}

static int
word(struct jp *j, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(j->p, w, n) != 0)
		return jerr(j, "not JSON (expected a value)");
	j->p += n;
	return 0;
}

static int
value(struct jp *j, struct jv *v, int depth)
{
	memset(v, 0, sizeof(*v));
	if (depth > JSON_MAX_DEPTH)
		return jerr(j, "nested too deep");
	ws(j);
	switch (*j->p) {
	case '{':
		v->t = J_OBJ;
		return members(j, v, depth, true);
	case '[':
		v->t = J_ARR;
		return members(j, v, depth, false);
	case '"':
		v->t = J_STR;
		return string(j, &v->s);
	case 't':
		v->t = J_BOOL;
		v->b = true;
		return word(j, "true");
	case 'f':
		v->t = J_BOOL;
		return word(j, "false");
	case 'n':
		return word(j, "null");
	case '\0':
		return jerr(j, "unexpected end");
	default:
		return number(j, v);
	}
}

int
jv_parse(const char *text, struct jv *v, char *err, size_t errlen)
{
	struct jp j = { text, text, err, errlen };

	if (value(&j, v, 0) < 0) {
		jv_free(v);
		return -1;
	}
	ws(&j);
	if (*j.p != '\0') {
		jv_free(v);
		return jerr(&j, "text after the value");
	}
	return 0;
}

void
jv_free(struct jv *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->nk; i++) {
		jv_free(&v->kids[i]);
		if (v->keys != NULL)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct jv *
jv_get(const struct jv *v, const char *key)
{
	if (v == NULL || v->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < v->nk; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->kids[i];
	return NULL;
}

const struct jv *
jv_at(const struct jv *v, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, v);
	while (v != NULL && (k = va_arg(ap, const char *)) != NULL)
		v = jv_get(v, k);
	va_end(ap);
	return v;
}

double
jv_num(const struct jv *v, double dflt)
{
	return v != NULL && v->t == J_NUM ? v->n : dflt;
}

const char *
jv_str(const struct jv *v)
{
	return v != NULL && v->t == J_STR ? v->s : NULL;
}
