/* result_tokens.h: the token parsers of result files (result_tokens.c),
 * for result_read.c. */
#ifndef IMAPSTRESS_RESULT_TOKENS_H
#define IMAPSTRESS_RESULT_TOKENS_H

#include <stdbool.h>
#include <stdint.h>

/* A whole decimal number, all of s; a double, all of s. */
bool result_parse_u64(const char *s, uint64_t *v);
bool result_parse_double(const char *s, double *v);
/* The next "key=value" token of *p (space separated), split in place:
 * the key, *val the value (NULL without '='); NULL at the end. */
char *result_next_pair(char **p, char **val);
/* The command / action named name, -1 for none and for NULL. */
int result_op_by_name(const char *name);
int result_act_by_name(const char *name);
/* "NAME=W ..." into w[index_of(NAME)]; false on an unknown name or a bad
 * number. */
bool result_parse_weights(char *rest, int (*index_of)(const char *),
			  double *w);

#endif
