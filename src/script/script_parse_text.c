/* script_parse_text.c: the words of a test file's lines, for every part
 * of the parser (script_parse_int.h): the names of the states and the
 * result kinds, words, numbers, and the "PATH:LINE: why" of an error.
 * It calls no other part of the parser. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_parse_int.h"
#include "util/xmalloc.h"

static const char *const state_names[] = {
	"nonauth", "auth", "created", "appended", "selected"
};

const char *
script_state_name(enum script_state st)
{
	return state_names[st];
}

const char *
script_result_name(enum script_result_kind r)
{
	static const char *const names[] = { "OK", "NO", "BAD", "\"\"" };
	return names[r];
}

int
sparse_fail(struct pstate *p, unsigned line, const char *fmt, const char *a)
{
	return slines_fail(p->err, p->errlen, p->s->path, line, fmt, a);
}

size_t
sparse_word_len(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0' && s[n] != ' ')
		n++;
	return n;
}

const char *
sparse_skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int
sparse_result_word(const char *s, size_t n)
{
	if (n == 2 && strncasecmp(s, "ok", 2) == 0)
		return SCRIPT_R_OK;
	if (n == 2 && strncasecmp(s, "no", 2) == 0)
		return SCRIPT_R_NO;
	if (n == 3 && strncasecmp(s, "bad", 3) == 0)
		return SCRIPT_R_BAD;
	if (n == 2 && s[0] == '"' && s[1] == '"')
		return SCRIPT_R_ANY;
	return -1;
}



int
sparse_num(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	*out = strtoul(v, &end, 10);
	return *end != '\0' || errno != 0 || *out > max ? -1 : 0;
}
