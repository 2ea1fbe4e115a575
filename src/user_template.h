/* user_template.h: imaptest's user= template.  Up to two printf-style
 * integer conversions, %d or %i with an optional 0 flag and width
 * ("u%04d" -> u0001), filled with the user number and then the domain
 * number; %% is a literal %.  Nothing else, so no template can reach
 * printf with a conversion it does not expect. */
#ifndef IMAPSTRESS_USER_TEMPLATE_H
#define IMAPSTRESS_USER_TEMPLATE_H

#include <stddef.h>

/* The widest field accepted: enough for any padding seen in the wild,
 * small enough that a name always fits its buffer. */
#define USER_TEMPLATE_MAX_WIDTH 20

/* 0 if `t` is a valid template, else -1 with the reason in err. */
int user_template_check(const char *t, char *err, size_t errlen);

/* Fill a checked template into out (always NUL-terminated; a name
 * longer than outlen is cut). */
void user_template_fill(const char *t, unsigned user_no, unsigned domain_no,
			char *out, size_t outlen);

#endif
