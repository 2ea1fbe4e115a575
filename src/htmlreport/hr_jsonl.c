/* hr_jsonl.c: a run's --json file (JSON Lines: ticks, then the summary)
 * into struct hr_run; any line that is not one of them, a line cut short
 * and an empty file are refused with the file and line.  Also a whole
 * file as one text (compare --json, capacity-answer.json). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"
#include "util/xmalloc.h"

int
hr_read_end(FILE *f, const char *path, unsigned long lines, char *err,
	    size_t errlen)
{
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		return -1;
	}
	if (lines == 0) {
		snprintf(err, errlen, "%s: empty", path);
		return -1;
	}
	return 0;
}

int
hr_read_whole(const char *path, char **text, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, len = 0, n;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	*text = xmalloc(cap);
	while ((n = fread(*text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap)
			*text = xrealloc(*text, cap *= 2);
	}
	fclose(f);
	(*text)[len] = '\0';
	if (memchr(*text, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: not a text file", path);
		return -1;
	}
	return 0;
}

int
hr_read_jsonl(const char *path, FILE *f, struct hr_run *r, char *err,
	      size_t errlen)
{
	char *line = NULL, jerr[160];
	size_t cap = 0, tcap = r->nt;
	unsigned long lineno = 0;
	ssize_t n;
	int rc = -1;

	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n == 0 || line[n - 1] != '\n') {
			snprintf(err, errlen, "%s:%lu: truncated (the last "
				 "line has no end: the run was killed while "
				 "writing it)", path, lineno);
			goto out;
		}
		if (memchr(line, '\0', (size_t)n) != NULL) {
			snprintf(err, errlen, "%s:%lu: not a text line", path,
				 lineno);
			goto out;
		}
		struct jv v;
		if (jv_parse(line, &v, jerr, sizeof(jerr)) < 0) {
			snprintf(err, errlen, "%s:%lu: not JSON: %s", path,
				 lineno, jerr);
			goto out;
		}
		const char *type = jv_str(jv_get(&v, "type"));
		if (type != NULL && strcmp(type, "tick") == 0 && !r->has_summary) {
			if (r->nt == tcap) {
				tcap = tcap ? tcap * 2 : 64;
				r->ticks = xrealloc(r->ticks,
						    tcap * sizeof(*r->ticks));
			}
			r->ticks[r->nt++] = v;
		} else if (type != NULL && strcmp(type, "summary") == 0 &&
			   !r->has_summary) {
			r->summary = v;
			r->has_summary = true;
		} else {
			jv_free(&v);
			snprintf(err, errlen, "%s:%lu: %s", path, lineno,
				 r->has_summary ? "a line after the summary "
				 "(one run per file)" : "not a line of "
				 "imapstress --json (its \"type\" is neither "
				 "tick nor summary)");
			goto out;
		}
	}
	rc = hr_read_end(f, path, lineno, err, errlen);
out:
	free(line);
	return rc;
}

