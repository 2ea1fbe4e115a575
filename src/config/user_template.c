/* user_template.c: see user_template.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/user_template.h"

struct conv {
	bool zero;
	unsigned width;
	size_t len;	/* bytes of the conversion after the '%' */
};

/* Parses the conversion after a '%': [0][width](d|i).  Returns 1 for an
 * integer conversion, 0 for "%%", -1 (with a reason) otherwise. */
static int
parse_conv(const char *p, struct conv *cv, char *err, size_t errlen)
{
	const char *q = p;

	*cv = (struct conv){ 0 };
	if (*q == '%') {
		cv->len = 1;
		return 0;
	}
	if (*q == '0') {
		cv->zero = true;
		q++;
	}
	while (*q >= '0' && *q <= '9') {
		cv->width = cv->width * 10 + (unsigned)(*q - '0');
		if (cv->width > USER_TEMPLATE_MAX_WIDTH) {
			snprintf(err, errlen, "field width over %d",
				 USER_TEMPLATE_MAX_WIDTH);
			return -1;
		}
		q++;
	}
	if (*q == 'd' || *q == 'i') {
		cv->len = (size_t)(q - p) + 1;
		return 1;
	}
	if (*q == '\0')
		snprintf(err, errlen, "'%%%.*s' at the end (write %%%% for a "
			 "literal %%)", (int)(q - p), p);
	else
		snprintf(err, errlen, "'%%%.*s' is not supported (only %%d, %%i, "
			 "%%0Nd and %%%%)", (int)(q - p) + 1, p);
	return -1;
}

int
user_template_check(const char *t, char *err, size_t errlen)
{
	unsigned n = 0;

	for (const char *p = t; *p != '\0'; p++) {
		struct conv cv;
		if (*p != '%')
			continue;
		int r = parse_conv(p + 1, &cv, err, errlen);
		if (r < 0)
			return -1;
		if (r > 0 && ++n > 2) {
			snprintf(err, errlen, "more than two %%d/%%i");
			return -1;
		}
		p += cv.len;
	}
	return 0;
}

void
user_template_fill(const char *t, unsigned user_no, unsigned domain_no,
		   char *out, size_t outlen)
{
	size_t o = 0;
	unsigned nth = 0;
	char dummy[8];

	if (outlen == 0)
		return;
	for (const char *p = t; *p != '\0' && o + 1 < outlen; p++) {
		struct conv cv;
		int r = *p == '%' ?
		    parse_conv(p + 1, &cv, dummy, sizeof(dummy)) : -1;
		if (r < 0) {
			out[o++] = *p;
			continue;
		}
		p += cv.len;
		if (r == 0) {
			out[o++] = '%';
			continue;
		}
		/* As "%0*u" / "%*u" would print it, cut to what fits; not
		 * printf: every session's user name is filled here. */
		char num[USER_TEMPLATE_MAX_WIDTH + 12];
		unsigned v = nth++ == 0 ? user_no : domain_no;
		size_t w = 0;
		do {
			num[sizeof(num) - 1 - w++] = (char)('0' + v % 10);
			v /= 10;
		} while (v != 0);
		while (w < cv.width)
			num[sizeof(num) - 1 - w++] = cv.zero ? '0' : ' ';
		size_t room = outlen - o - 1;
		size_t take = w < room ? w : room;
		memcpy(out + o, num + sizeof(num) - w, take);
		o += take;
	}
	out[o] = '\0';
}
