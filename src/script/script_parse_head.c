/* script_parse_head.c: a test file's header (script.h): "key: value"
 * lines up to the first blank one, capabilities:, connections:,
 * messages:, state:, ignore_extra_untagged: and imaptest's "user N:"
 * lines. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_parse_int.h"
#include "util/xmalloc.h"

#define MAX_MESSAGES 100000
#define MAX_CAPS 64

static int
header_caps(struct pstate *p, const char *v, unsigned line)
{
	while (*(v = sparse_skip_sp(v)) != '\0') {
		size_t n = sparse_word_len(v);
		if (p->s->n_caps == MAX_CAPS)
			return sparse_fail(p, line, "more than %s "
					   "capabilities", "64");
		char *c = xstrndup(v, n);
		for (char *q = c; *q; q++)
			*q = (char)toupper((unsigned char)*q);
		p->s->caps = xrealloc(p->s->caps,
				      (p->s->n_caps + 1) * sizeof(char *));
		p->s->caps[p->s->n_caps++] = c;
		v += n;
	}
	return 0;
}

/* "user N: NAME": connection N logs in as NAME (script.h). */
static int
header_user(struct pstate *p, const char *text, size_t klen, unsigned line)
{
	unsigned long n;
	char *num = xstrndup(text + 5, klen - 5);
	int bad = sparse_num(num, SCRIPT_MAX_CONNS, &n) < 0 || n == 0;

	free(num);
	if (bad)
		return sparse_fail(p, line, "'user N:' needs N in 1..16 (the "
				   "connection that logs in as the user): "
				   "'%s'", text);
	const char *v = sparse_skip_sp(text + klen + 1);
	size_t vl = strlen(v);
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (vl == 0)
		return sparse_fail(p, line, "'%s' names no user", text);
	if (p->s->users[n - 1] != NULL)
		return sparse_fail(p, line, "a second user for one "
				   "connection: '%s'", text);
	p->s->users[n - 1] = xstrndup(v, vl);
	return 0;
}

static bool
is_user_key(const char *text, size_t klen)
{
	return klen > 5 && strncasecmp(text, "user ", 5) == 0;
}

static int
header_line(struct pstate *p, const char *text, unsigned line, unsigned *seen)
{
	static const char *const keys[] = {
		"capabilities", "connections", "messages", "state",
		"ignore_extra_untagged"
	};
	const char *colon = strchr(text, ':');
	size_t klen = colon ? (size_t)(colon - text) : 0;
	unsigned k;
	unsigned long n;

	if (colon != NULL && is_user_key(text, klen))
		return header_user(p, text, klen, line);
	for (k = 0; k < 5; k++)
		if (klen == strlen(keys[k]) && strncasecmp(text, keys[k], klen) == 0)
			break;
	if (colon == NULL || k == 5)
		return sparse_fail(p, line, "unknown header line '%s' (keys: "
				   "capabilities, connections, messages, "
				   "state, ignore_extra_untagged, user N; an "
				   "empty line ends the header)", text);
	if (*seen & (1u << k))
		return sparse_fail(p, line, "header key '%s' given twice",
				   keys[k]);
	*seen |= 1u << k;
	char *v = xstrdup(sparse_skip_sp(colon + 1));
	for (size_t e = strlen(v); e > 0 && (v[e - 1] == ' ' || v[e - 1] == '\t');)
		v[--e] = '\0';
	int r = 0;
	switch (k) {
	case 0:
		r = header_caps(p, v, line);
		break;
	case 1:
		if (sparse_num(v, SCRIPT_MAX_CONNS, &n) < 0 || n == 0)
			r = sparse_fail(p, line, "connections: '%s' is not a "
					"number in 1..16", v);
		else
			p->s->connections = (unsigned)n;
		break;
	case 2:
		p->s->messages_given = true;
		if (strcasecmp(v, "all") == 0)
			p->s->messages = -1;
		else if (sparse_num(v, MAX_MESSAGES, &n) < 0)
			r = sparse_fail(p, line, "messages: '%s' is neither "
					"'all' nor a number in 0..100000", v);
		else
			p->s->messages = (long)n;
		break;
	case 3:
		for (n = 0; n < 5; n++)
			if (strcasecmp(v, script_state_name(
					       (enum script_state)n)) == 0)
				break;
		if (n == 5)
			r = sparse_fail(p, line, "state: '%s' is not one of "
					"nonauth, auth, created, appended, "
					"selected", v);
		else
			p->s->state = (enum script_state)n;
		break;
	default:
		if (strcasecmp(v, "yes") == 0)
			p->s->ignore_extra_untagged = true;
		else if (strcasecmp(v, "no") == 0)
			p->s->ignore_extra_untagged = false;
		else
			r = sparse_fail(p, line, "ignore_extra_untagged: "
					"'%s' is not yes or no", v);
		break;
	}
	free(v);
	return r;
}

/* The header is there when the first line looks like "key:". */
static bool
looks_like_header(const char *text)
{
	size_t i = 0;

	while (isalpha((unsigned char)text[i]) || text[i] == '_')
		i++;
	if (i == 4 && text[i] == ' ' && strncasecmp(text, "user", 4) == 0)
		while (isdigit((unsigned char)text[++i]))
			;
	return i > 0 && text[i] == ':';
}

int
sparse_header(struct pstate *p, unsigned *i)
{
	const struct slines *ls = p->ls;
	unsigned seen = 0;

	if (*i >= ls->n || !looks_like_header(ls->v[*i].text))
		return 0;
	for (; *i < ls->n && ls->v[*i].text != NULL; (*i)++)
		if (header_line(p, ls->v[*i].text, ls->v[*i].line, &seen) < 0)
			return -1;
	for (unsigned c = p->s->connections; c < SCRIPT_MAX_CONNS; c++)
		if (p->s->users[c] != NULL) {
			char n[16];
			unsigned last = ls->v[*i > 0 ? *i - 1 : 0].line;
			snprintf(n, sizeof(n), "%u", c + 1);
			return sparse_fail(p, last, "'user %s:' names a "
					   "connection this test does not have "
					   "(see connections:)", n);
		}
	return 0;
}
