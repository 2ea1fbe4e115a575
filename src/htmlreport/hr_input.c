/* hr_input.c: reading the report's inputs: a run's --json lines, and
 * result files merged on the fly by `imapstress merge` into the same
 * lines (so both kinds draw through one page). */
#include <errno.h>
#include <stdbool.h>
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

/* What a subcommand wrote on stderr: when it refused its input, its
 * first line (already escaped by it) without its "imapstress NAME: "
 * becomes err; otherwise it goes on to stderr as it was. */
static void
pass_on(FILE *said, bool refused, char *err, size_t errlen)
{
	char line[2048];

	rewind(said);
	if (refused) {
		if (fgets(line, sizeof(line), said) == NULL)
			return;
		line[strcspn(line, "\n")] = '\0';
		const char *m = line;
		if (strncmp(m, "imapstress ", 11) == 0 &&
		    strstr(m, ": ") != NULL)
			m = strstr(m, ": ") + 2;
		snprintf(err, errlen, "%s", m);
		return;
	}
	size_t n;
	while ((n = fread(line, 1, sizeof(line), said)) > 0)
		fwrite(line, 1, n, stderr);
}

/* Runs a subcommand's main (merge, compare) with argv av (ac of them,
 * av[tmp_at] left for the temporary file it writes its JSON to), its terminal
 * output sent to /dev/null: both print their report on stdout, and the
 * page may be going there.  The file's name in *tmp (to unlink and free)
 * and the subcommand's status; -1 when no file could be made. */
int
hr_sub_json(int (*fn)(int, char **), char **av, int ac, int tmp_at,
	    char **tmp, int *status, char *err, size_t errlen)
{
	const char *td = getenv("TMPDIR");
	size_t len;

	if (td == NULL || *td == '\0')
		td = "/tmp";
	len = strlen(td) + sizeof("/imapstress-report.XXXXXX");
	*tmp = xmalloc(len);
	snprintf(*tmp, len, "%s/imapstress-report.XXXXXX", td);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", *tmp,
			 strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	close(fd);
	av[tmp_at] = *tmp;
	/* Its stderr is kept aside: a refusal becomes our one line, and
	 * anything else it said is passed on after. */
	FILE *said = tmpfile();
	fflush(stdout);
	fflush(stderr);
	int saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	if (said != NULL)
		dup2(fileno(said), STDERR_FILENO);
	*status = fn(ac, av);
	fflush(stdout);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	if (saved_err >= 0) {
		dup2(saved_err, STDERR_FILENO);
		close(saved_err);
	}
	if (said != NULL) {
		pass_on(said, *status == 2, err, errlen);
		fclose(said);
	}
	return 0;
}

/* merge -q --json TMP FILE...: the lines this reader takes. */
int
hr_read_results(char **paths, int n, struct hr_run *r, char *err,
		size_t errlen)
{
	char *tmp;
	int st;

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
	char **av = xcalloc((size_t)n + 5, sizeof(*av));
	av[0] = (char *)"merge";
	av[1] = (char *)"-q";
	av[2] = (char *)"--json";
	for (int i = 0; i < n; i++)
		av[4 + i] = paths[i];
	int rc = hr_sub_json(merge_main, av, n + 4, 3, &tmp, &st, err,
			     errlen);
	free(av);
	if (rc < 0)
		return -1;
	rc = -1;
	if (st != 2) {
		FILE *f = fopen(tmp, "r");
		if (f == NULL)
			snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		else {
			rc = hr_read_jsonl(tmp, f, r, err, errlen);
			fclose(f);
		}
	}
	unlink(tmp);
	free(tmp);
	if (rc == 0)
		rc = hr_read_hists(paths, n, r, err, errlen);
	return rc;
}
