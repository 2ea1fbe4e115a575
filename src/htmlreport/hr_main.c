/* hr_main.c: `imapstress report`: the options, what kind each input is
 * (by its first bytes, so a misnamed file is still read right), and the
 * one file written.  An input that is none of the kinds is refused with
 * its name and line, exit 2, before anything is written. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "htmlreport/htmlreport.h"
#include "htmlreport/hr_int.h"
#include "compare/compare.h"
#include "report/result.h"
#include "util/escape.h"
#include "util/xmalloc.h"

static const char usage_text[] =
"usage: imapstress report [-o FILE] [--title TEXT] INPUT...\n"
"       imapstress report [-o FILE] [--title TEXT] [COMPARE OPTIONS]\n"
"                         BASE-RESULT... -- NEW-RESULT...\n"
"INPUT: a run's --json file; or result files (--result: one run, or its\n"
"shards, merged); or a compare --json file; or a scripts/capacity\n"
"directory.  With --, the result files are compared as `imapstress\n"
"compare` compares them.  Writes one self-contained HTML page (default:\n"
"stdout).  See man imapstress, REPORT PAGES.\n";

enum hr_kind { HR_JSONL, HR_RESULT, HR_COMPARE, HR_CAPACITY };

static void
say(const char *msg)
{
	char safe[2048];
	escape_text(safe, sizeof(safe), msg, strlen(msg));
	fprintf(stderr, "imapstress report: %s\n", safe);
}

static int
refuse(const char *msg)
{
	say(msg);
	return 2;
}

/* What path is; -1 with a message when it is none of the kinds. */
static int
kind_of(const char *path, enum hr_kind *k, char *err, size_t errlen)
{
	struct stat st;
	char head[64];

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		*k = HR_CAPACITY;
		return 0;
	}
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	if (strncmp(head, RESULT_MAGIC, strlen(RESULT_MAGIC)) == 0) {
		*k = HR_RESULT;
		return 0;
	}
	if (n > 0 && head[0] == '{') {
		*k = strstr(head, "\"type\":\"compare\"") != NULL ?
			HR_COMPARE : HR_JSONL;
		return 0;
	}
	snprintf(err, errlen, "%s:1: %s", path, n == 0 ? "empty" :
		 "not an input of report (neither a --json file, a result "
		 "file, a compare --json nor a capacity directory)");
	return -1;
}

/* shown: the input as the page names it (path, or the result files a
 * compare was made from on the fly: not its temporary file). */
static int
compare_page(struct hbuf *b, const char *path, const char *shown, char *err,
	     size_t errlen)
{
	char *text = NULL, jerr[160];
	struct jv v;

	if (hr_read_whole(path, &text, err, errlen) < 0) {
		free(text);
		return -1;
	}
	if (jv_parse(text, &v, jerr, sizeof(jerr)) < 0) {
		/* One line: the compare JSON is a single line. */
		snprintf(err, errlen, "%s:1: not JSON: %s", path, jerr);
		free(text);
		return -1;
	}
	free(text);
	if (jv_get(&v, "rows") == NULL || jv_get(&v, "rows")->t != J_ARR) {
		snprintf(err, errlen, "%s:1: a compare --json has \"rows\"",
			 path);
		jv_free(&v);
		return -1;
	}
	hr_compare_page(b, &v, shown);
	jv_free(&v);
	return 0;
}

static char *
join(char **v, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = xcalloc(len, 1);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

static int
run_page(struct hbuf *b, enum hr_kind k, char **in, int n, char *err,
	 size_t errlen)
{
	struct hr_run r = { 0 };
	int rc;

	r.sources = join(in, n);
	if (k == HR_RESULT) {
		rc = hr_read_results(in, n, &r, err, errlen);
	} else {
		FILE *f = fopen(in[0], "r");
		if (f == NULL) {
			snprintf(err, errlen, "%s: %s", in[0], strerror(errno));
			hr_run_free(&r);
			return -1;
		}
		rc = hr_read_jsonl(in[0], f, &r, err, errlen);
		fclose(f);
	}
	if (rc == 0)
		hr_run_page(b, &r);
	hr_run_free(&r);
	return rc;
}

/* Written whole or not at all: a new name, then renamed over FILE.
 * -1 with a message in err. */
static int
write_file(const char *out, const struct hbuf *b, char *err, size_t errlen)
{
	size_t len = strlen(out) + 8;
	char *tmp = xmalloc(len);
	snprintf(tmp, len, "%s.tmp", out);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (f == NULL || fwrite(b->p, 1, b->len, f) != b->len ||
	    fclose(f) != 0 || rename(tmp, out) != 0) {
		snprintf(err, errlen, "%s: cannot write: %s", out,
			 strerror(errno));
		if (f != NULL)
			unlink(tmp);
		rc = -1;
	}
	free(tmp);
	return rc;
}

static int
write_out(const char *out, const struct hbuf *b)
{
	char err[1024];

	if (strcmp(out, "-") == 0) {
		if (fwrite(b->p, 1, b->len, stdout) != b->len ||
		    fflush(stdout) != 0)
			return say("standard output: cannot write"), 1;
		return 0;
	}
	if (write_file(out, b, err, sizeof(err)) < 0) {
		say(err);
		return 1;
	}
	snprintf(err, sizeof(err), "wrote %s (%zu bytes)", out, b->len);
	say(err);
	return 0;
}

long
htmlreport_run(const char *json_path, const char *args, const char *out,
	       char *err, size_t errlen)
{
	struct hr_run r = { 0 };
	struct hbuf b;
	long rc = -1;

	FILE *f = fopen(json_path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", json_path, strerror(errno));
		return -1;
	}
	r.sources = xstrdup(json_path);
	if (args != NULL)
		r.args = xstrdup(args);
	int ok = hr_read_jsonl(json_path, f, &r, err, errlen);
	fclose(f);
	if (ok == 0) {
		hb_init(&b);
		hr_page_open(&b, "imapstress: run report");
		hr_run_page(&b, &r);
		hr_page_close(&b);
		if (write_file(out, &b, err, errlen) == 0)
			rc = (long)b.len;
		hb_free(&b);
	}
	hr_run_free(&r);
	return rc;
}

/* report [opts] BASE... -- NEW...: compare's own JSON, then its page.
 * compare names a refused file itself (its line comes before ours). */
static int
compare_inputs(struct hbuf *b, char **in, int n, char *err, size_t errlen)
{
	char **av = xcalloc((size_t)n + 4, sizeof(*av));
	char *tmp;
	int st;

	av[0] = (char *)"compare";
	av[1] = (char *)"--json";
	for (int i = 0; i < n; i++)
		av[3 + i] = in[i];
	int rc = hr_sub_json(compare_main, av, n + 3, 2, &tmp, &st, err,
			     errlen);
	free(av);
	if (rc < 0)
		return -1;
	if (st != 2) {
		char *shown = join(in, n);
		rc = compare_page(b, tmp, shown, err, errlen);
		free(shown);
	}
	unlink(tmp);
	free(tmp);
	return st == 2 ? -1 : rc;
}

int
htmlreport_main(int argc, char **argv)
{
	const char *out = "-", *title = NULL;
	char **in = xcalloc((size_t)argc, sizeof(*in));
	int n = 0;
	char err[1024];
	bool cmp = false;

	/* With "--" the inputs are compare's: everything but our own
	 * options goes to it as given (its options included). */
	for (int i = 1; i < argc; i++)
		cmp |= strcmp(argv[i], "--") == 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) &&
		    i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(a, "--title") == 0 && i + 1 < argc) {
			title = argv[++i];
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_text, stdout);
			free(in);
			return 0;
		} else if (cmp) {
			in[n++] = argv[i];
		} else if (a[0] == '-' && a[1] != '\0') {
			snprintf(err, sizeof(err), "%s: unknown option (or its "
				 "value is missing)", a);
			say(err);
			fputs(usage_text, stderr);
			free(in);
			return 2;
		} else {
			in[n++] = argv[i];
		}
	}
	if (n == 0) {
		fputs(usage_text, stderr);
		free(in);
		return 2;
	}
	enum hr_kind k0 = cmp ? HR_COMPARE : HR_JSONL, k;
	for (int i = 0; !cmp && i < n; i++) {
		if (kind_of(in[i], &k, err, sizeof(err)) < 0) {
			free(in);
			return refuse(err);
		}
		if (i == 0)
			k0 = k;
		else if (k != k0 || k != HR_RESULT) {
			snprintf(err, sizeof(err), "%s: only result files "
				 "come several at a time (the shards of one "
				 "run); give one --json file, compare --json "
				 "or capacity directory", in[i]);
			free(in);
			return refuse(err);
		}
	}
	struct hbuf b;
	hb_init(&b);
	hr_page_open(&b, title != NULL ? title :
		     k0 == HR_COMPARE ? "imapstress: compare" :
		     k0 == HR_CAPACITY ? "imapstress: capacity" :
		     "imapstress: run report");
	int rc = cmp ? compare_inputs(&b, in, n, err, sizeof(err)) :
		 k0 == HR_COMPARE ? compare_page(&b, in[0], in[0], err, sizeof(err)) :
		 k0 == HR_CAPACITY ? hr_capacity_page(&b, in[0], err,
						      sizeof(err)) :
		 run_page(&b, k0, in, n, err, sizeof(err));
	free(in);
	if (rc < 0) {
		hb_free(&b);
		return refuse(err);
	}
	hr_page_close(&b);
	rc = write_out(out, &b);
	hb_free(&b);
	return rc;
}
