/* json_write.c: the JSON value writers (json_write.h): strings escaped,
 * numbers with up to three decimals, keys.  For every writer of JSON
 * lines (report_json.c and its sections, `imapstress compare`); it calls
 * nothing of report/. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/json_write.h"

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one
 * (overlong forms, surrogates and values past U+10FFFF included). */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A JSON string.  Bytes that are not UTF-8 (an --sla text typed in a
 * Latin-1 terminal) become U+FFFD rather than making the line invalid. */
void
json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

	fputc('"', f);
	while (*p != '\0') {
		unsigned c = *p;
		size_t n = utf8_len(p);
		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c == '\n')
				fputs("\\n", f);
			else if (c == '\t')
				fputs("\\t", f);
			else if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
			p++;
		}
	}
	fputc('"', f);
}

/* Up to three decimals, trailing zeros dropped: 1, 2.5, 0.125. */
void
json_num(FILE *f, double v)
{
	char buf[64];

	if (!isfinite(v)) {
		fputs("0", f);
		return;
	}
	if (fabs(v) >= 1e15) {
		fprintf(f, "%.17g", v);
		return;
	}
	snprintf(buf, sizeof(buf), "%.3f", v);
	char *e = buf + strlen(buf) - 1;
	while (*e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
	fputs(strcmp(buf, "-0") == 0 ? "0" : buf, f);
}

void
json_key(FILE *f, const char *key)
{
	json_str(f, key);
	fputc(':', f);
}

void
json_u64(FILE *f, const char *key, uint64_t v)
{
	json_key(f, key);
	fprintf(f, "%" PRIu64, v);
}
