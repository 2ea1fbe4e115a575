/* script_lines.h: a test file as logical lines (script_lines.c).  Used
 * by the script parser only. */
#ifndef IMAPSTRESS_SCRIPT_LINES_H
#define IMAPSTRESS_SCRIPT_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct sline {
	char *text;	/* NULL: a blank line */
	size_t len;	/* octets of text: a literal's may hold NUL */
	unsigned line;	/* physical line where it starts */
};

struct slines {
	struct sline *v;
	unsigned n, cap;
};

/* 0, or -1 with "PATH:LINE: why" in err. */
int slines_read(struct slines *ls, const char *path, const char *text,
		size_t len, char *err, size_t errlen);
void slines_free(struct slines *ls);

/* Is the line (n octets at s) one of imaptest's command-group
 * directives, "!sleep", "!output" or "!ordered" as its first word?  The
 * first pass keeps such lines (the step parser reads them:
 * script_parse_directive.c); every other "!word" line is the
 * preprocessor's. */
bool slines_group_directive(const char *s, size_t n);

/* Format "PATH:LINE: why" (both escaped) into err; returns -1. */
int slines_fail(char *err, size_t errlen, const char *path, unsigned line,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
