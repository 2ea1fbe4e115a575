/* hr_input.c: reading the report's inputs: a run's --json lines, and
 * result files merged on the fly by `imapstress merge` into the same
 * lines (so both kinds draw through one page). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htmlreport/hr_int.h"
#include "merge/merge.h"
#include "report/result.h"
#include "util/xmalloc.h"

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
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		goto out;
	}
	if (lineno == 0) {
		snprintf(err, errlen, "%s: empty", path);
		goto out;
	}
	rc = 0;
out:
	free(line);
	return rc;
}

/* merge's report goes to stdout; -q keeps it quiet, --json writes the
 * lines this reader takes. */
int
hr_read_results(char **paths, int n, struct hr_run *r, char *err,
		size_t errlen)
{
	char tmp[] = "/tmp/imapstress-report.XXXXXX";
	const char *td = getenv("TMPDIR");
	char *tpath;

	/* Each file's header first: a refused one is named with its line
	 * before anything runs. */
	for (int i = 0; i < n; i++) {
		struct result_reader *rd = result_reader_open(paths[i], err,
							      errlen);
		if (rd == NULL)
			return -1;
		const struct result_header *h = result_reader_header(rd);
		if (i == 0) {
			r->args = xstrdup(h->args_key);
			r->mode = xstrdup(h->mode);
		}
		result_reader_free(rd);
	}
	if (td != NULL && *td != '\0') {
		size_t len = strlen(td) + sizeof("/imapstress-report.XXXXXX");
		tpath = xmalloc(len);
		snprintf(tpath, len, "%s/imapstress-report.XXXXXX", td);
	} else {
		tpath = xstrdup(tmp);
	}
	int fd = mkstemp(tpath);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", tpath,
			 strerror(errno));
		free(tpath);
		return -1;
	}
	close(fd);
	char **av = xcalloc((size_t)n + 5, sizeof(*av));
	av[0] = (char *)"merge";
	av[1] = (char *)"-q";
	av[2] = (char *)"--json";
	av[3] = tpath;
	for (int i = 0; i < n; i++)
		av[4 + i] = paths[i];
	/* merge prints its terminal report on stdout even with -q (that
	 * quiets the per-second lines): stdout is /dev/null meanwhile. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	int st = merge_main(n + 4, av);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	free(av);
	int rc = -1;
	if (st == 2) {
		snprintf(err, errlen, "the result files were refused (the "
			 "line above says why)");
	} else {
		FILE *f = fopen(tpath, "r");
		if (f == NULL)
			snprintf(err, errlen, "%s: %s", tpath, strerror(errno));
		else {
			rc = hr_read_jsonl(tpath, f, r, err, errlen);
			fclose(f);
		}
	}
	unlink(tpath);
	free(tpath);
	return rc;
}
