/* hr_json.h: a small JSON reader for the report's inputs (a run's --json
 * lines, compare --json): one value per call, into a tree the page
 * builders walk.  Strict: anything RFC 8259 does not allow is refused
 * with the column, so a damaged file is named rather than half drawn. */
#ifndef IMAPSTRESS_HR_JSON_H
#define IMAPSTRESS_HR_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	bool b;
	double n;
	char *s;		/* J_STR: NUL-terminated (a \u0000 ends it) */
	size_t nk;		/* J_ARR, J_OBJ: members */
	struct jv *kids;
	char **keys;		/* J_OBJ */
};

/* Parses all of text (whitespace around allowed) into *v.  -1 with a
 * message naming the column (1-based) in err. */
int jv_parse(const char *text, struct jv *v, char *err, size_t errlen);
void jv_free(struct jv *v);		/* its contents; NULL ok */

/* The member key of an object, NULL if v is not one or has none. */
const struct jv *jv_get(const struct jv *v, const char *key);
/* Walks a list of keys ending in NULL. */
const struct jv *jv_at(const struct jv *v, ...);
/* Its number, or dflt when v is NULL or not a number. */
double jv_num(const struct jv *v, double dflt);
/* Its string, or NULL. */
const char *jv_str(const struct jv *v);

#endif
