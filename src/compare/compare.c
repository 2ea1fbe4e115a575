/* compare.c: the options of `imapstress compare` and its steps: load
 * both sides (compare_load.c), refuse files that do not measure the same
 * thing (compare_match.c), the rows with their intervals and verdicts
 * (compare_verdict.c, compare_boot.c), and the text or JSON
 * (compare_text.c, compare_json.c).  Exit 1 when a row is worse, so
 * that a CI job can gate an upgrade on it; 2 when it cannot say (bad
 * usage, a file refused, output lost). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "compare/compare_int.h"
#include "util/escape.h"
#include "util/xmalloc.h"

/* Bounds of the options: fewer resamples than this leave the 2.5%
 * quantile to a handful of values. */
#define CMP_RESAMPLES_MIN 100u
#define CMP_RESAMPLES_MAX 1000000u

static int
complain(const char *msg)
{
	char safe[2048];
	escape_text(safe, sizeof(safe), msg, strlen(msg));
	fprintf(stderr, "imapstress compare: %s\n", safe);
	return 2;
}

static int
usage(void)
{
	fputs("usage: imapstress compare [--threshold PCT] [--seed N] "
	      "[--resamples N]\n"
	      "           [--min-count N] [--json FILE|-] BASE-RESULT... -- "
	      "NEW-RESULT...\n", stderr);
	return 2;
}

static bool
parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end == '\0' && errno == 0;
}

/* "5" or "5%": percent, 0 <= t < 100. */
static bool
parse_pct(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno != 0)
		return false;
	if (*end == '%')
		end++;
	return *end == '\0' && *v >= 0 && *v < 100;
}

struct cli {
	struct cmp_opts o;
	const char *json;		/* NULL, "-" or a file */
	char **side[2];			/* BASE, NEW */
	unsigned n[2];
};

/* One option and its value (argv[*i + 1]); -1 for a bad one (said). */
static int
option(struct cli *c, int argc, char **argv, int *i)
{
	const char *name = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	char msg[600];
	uint64_t u = 0;
	bool ok;

	if (val == NULL) {
		snprintf(msg, sizeof(msg), "%s needs a value", name);
		return complain(msg), -1;
	}
	if (strcmp(name, "--threshold") == 0) {
		ok = parse_pct(val, &c->o.threshold);
		c->o.threshold /= 100.0;
	} else if (strcmp(name, "--seed") == 0) {
		ok = parse_u64(val, &c->o.seed);
	} else if (strcmp(name, "--resamples") == 0) {
		ok = parse_u64(val, &u) && u >= CMP_RESAMPLES_MIN &&
		    u <= CMP_RESAMPLES_MAX;
		c->o.resamples = (unsigned)u;
	} else if (strcmp(name, "--min-count") == 0) {
		ok = parse_u64(val, &c->o.min_count);
	} else if (strcmp(name, "--json") == 0) {
		ok = *val != '\0';
		c->json = val;
	} else {
		snprintf(msg, sizeof(msg), "unknown option %s", name);
		complain(msg);
		return usage(), -1;
	}
	if (!ok) {
		snprintf(msg, sizeof(msg), "%s '%s': %s", name, val,
			 strcmp(name, "--threshold") == 0 ?
			 "expected a percentage from 0 to below 100, e.g. 5 or 5%" :
			 strcmp(name, "--resamples") == 0 ?
			 "expected a whole number from 100 to 1000000" :
			 strcmp(name, "--json") == 0 ? "expected a file or -" :
			 "expected a whole number");
		return complain(msg), -1;
	}
	(*i)++;
	return 0;
}

static int
parse(struct cli *c, int argc, char **argv)
{
	int side = 0;
	bool sep = false;

	c->o = (struct cmp_opts){ .threshold = 0.05, .seed = 1,
				  .resamples = 2000, .min_count = 100 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0 && !sep) {
			sep = true;
			side = 1;
		} else if (a[0] == '-' && a[1] != '\0') {
			if (option(c, argc, argv, &i) < 0)
				return -1;
		} else {
			c->side[side][c->n[side]++] = argv[i];
		}
	}
	if (!sep || c->n[0] == 0 || c->n[1] == 0) {
		complain(!sep ? "no '--' between the BASE and the NEW files" :
			 "each side needs at least one result file");
		return usage(), -1;
	}
	return 0;
}

/* Writes the report; -1 when it could not be written (said). */
static int
output(const struct cli *c, const struct cmp_report *r)
{
	char msg[600];
	FILE *j = NULL;

	if (c->json != NULL && strcmp(c->json, "-") != 0 &&
	    (j = fopen(c->json, "w")) == NULL) {
		snprintf(msg, sizeof(msg), "--json %s: cannot create: %s",
			 c->json, strerror(errno));
		return complain(msg), -1;
	}
	if (c->json != NULL && strcmp(c->json, "-") == 0)
		cmp_print_json(stdout, r);
	else
		cmp_print_text(stdout, r);
	if (j != NULL) {
		cmp_print_json(j, r);
		if (ferror(j) | (fclose(j) != 0)) {
			snprintf(msg, sizeof(msg), "--json %s: write failed: %s",
				 c->json, strerror(errno));
			return complain(msg), -1;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		snprintf(msg, sizeof(msg), "standard output: write failed: %s",
			 strerror(errno));
		return complain(msg), -1;
	}
	return 0;
}

static int
compare_run(struct cli *c)
{
	struct cmp_side s[2] = { { .name = "BASE" }, { .name = "NEW" } };
	struct cmp_file *files = xcalloc(c->n[0] + c->n[1], sizeof(*files));
	unsigned n_files = 0, n_rows = 0;
	char err[1100], note[1024];
	int status = 2;
	struct cmp_row *rows = NULL;

	if (cmp_side_load(&s[0], c->side[0], c->n[0], files, &n_files, err,
			  sizeof(err)) < 0 ||
	    cmp_side_load(&s[1], c->side[1], c->n[1], files, &n_files, err,
			  sizeof(err)) < 0 ||
	    cmp_match(files, n_files, err, sizeof(err), note,
		      sizeof(note)) < 0) {
		complain(err);
		goto out;
	}
	if (*note != '\0') {
		snprintf(err, sizeof(err), "note: %s", note);
		complain(err);
	}
	rows = cmp_rows(&s[0], &s[1], &c->o, &n_rows);
	struct cmp_report r = { &s[0], &s[1], &c->o, rows, n_rows,
				cmp_worse(rows, n_rows) > 0 ? 1 : 0 };
	status = output(c, &r) < 0 ? 2 : r.exit_status;
out:
	free(rows);
	for (unsigned i = 0; i < n_files; i++)
		free(files[i].h.args_key);
	free(files);
	cmp_side_free(&s[0]);
	cmp_side_free(&s[1]);
	return status;
}

int
compare_main(int argc, char **argv)
{
	struct cli c = { .json = NULL };
	int status;

	c.side[0] = xcalloc((size_t)argc, sizeof(char *));
	c.side[1] = xcalloc((size_t)argc, sizeof(char *));
	status = parse(&c, argc, argv) < 0 ? 2 : compare_run(&c);
	free(c.side[0]);
	free(c.side[1]);
	return status;
}
