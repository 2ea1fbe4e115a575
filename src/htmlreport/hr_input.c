/* hr_input.c: the inputs other subcommands read: result files merged on
 * the fly by `imapstress merge` into --json lines (so both kinds draw
 * through one page), and compare's JSON from the files it takes. */
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
