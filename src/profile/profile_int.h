/* profile_int.h: private between the files of src/profile/ (the value
 * parsers in profile_values.c, the file parser in profile_parse.c and the
 * expansion in profile_expand.c).  Other modules include profile.h. */
#ifndef IMAPSTRESS_PROFILE_INT_H
#define IMAPSTRESS_PROFILE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

int profile_parse_time(const char *s, uint64_t *us, const char **why);
int profile_parse_bool(const char *s, bool *out, const char **why);
/* need_sign: the value must end in '%' (count=); otherwise it may. */
int profile_parse_pct(const char *s, bool need_sign, unsigned *out,
		      const char **why);
int profile_parse_fetch(const char *s, char **out, const char **why);
int profile_parse_template(const char *s, struct profile_template *t,
			   const char **why);
void profile_template_free(struct profile_template *t);
/* submission_* and lmtp_host (profile_submit.c):
 * 0 when set, -1 with why, 1 when key is none of them. */
int profile_submit_key(struct profile *p, const char *key, const char *val,
		       unsigned line, char *why, size_t n);

#endif
