/* result_tokens.c: the small parsers result_read.c's lines are made of:
 * whole numbers, doubles, "key=value" tokens, command and action names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats/actions.h"
#include "plan/ops.h"
#include "merge/result_tokens.h"

bool
result_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	*v = x;
	return *end == '\0' && errno == 0;
}

bool
result_parse_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s != '\0' && *end == '\0' && errno == 0;
}

/* "key=value" tokens after the keyword, split in place. */
char *
result_next_pair(char **p, char **val)
{
	char *tok = strsep(p, " ");
	if (tok == NULL)
		return NULL;
	char *eq = strchr(tok, '=');
	*val = eq ? eq + 1 : NULL;
	if (eq)
		*eq = '\0';
	return tok;
}

/* -1 for no such command, and for no name at all (a line cut short). */
int
result_op_by_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int op = 0; op < OP_COUNT; op++)
		if (strcmp(op_table[op].name, name) == 0)
			return op;
	return -1;
}

/* NULL-safe: the action named name, or -1. */
int
result_act_by_name(const char *name)
{
	return name != NULL ? action_from_name(name) : -1;
}

/* "NAME=W ..." into w[index of NAME]; false on an unknown name or a bad
 * number. */
bool
result_parse_weights(char *rest, int (*index_of)(const char *), double *w)
{
	char *k, *v;

	while ((k = result_next_pair(&rest, &v)) != NULL) {
		int i = index_of(k);
		if (i < 0 || v == NULL || !result_parse_double(v, &w[i]))
			return false;
	}
	return true;
}
