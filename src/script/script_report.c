/* script_report.c: see script_report.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "script/script_buf.h"
#include "run/exit_policy.h"
#include "script/script_report.h"
#include "util/xmalloc.h"

#define MAX_TESTS 10000

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
list_push(struct script_list *l, struct script *s, struct msg_pool *pool)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->pools = xrealloc(l->pools, (l->n + 1) * sizeof(*l->pools));
	l->v[l->n] = s;
	l->pools[l->n++] = pool;
}

static int
list_add(struct script_list *l, const char *file, char *err, size_t errlen)
{
	char why[900];
	struct script *s = script_load(file, why, sizeof(why));

	if (s == NULL) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	struct msg_pool *pool = NULL;
	if (s->mbox_path != NULL &&
	    (pool = msg_pool_from_mbox(s->mbox_path, why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "%s", why);
		script_free(s);
		return -1;
	}
	list_push(l, s, pool);
	return 0;
}

int
script_list_load(struct script_list *l, const char *path, char *err,
		 size_t errlen)
{
	struct stat st;
	struct sbuf e = { 0 };

	memset(l, 0, sizeof(*l));
	sbuf_add_escaped(&e, path, strlen(path));
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", e.s, strerror(errno));
		sbuf_reset(&e);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sbuf_reset(&e);
		if (list_add(l, path, err, errlen) < 0)
			return -1;
		list_push(l, script_cleanup_new(), NULL);
		return 0;
	}
	DIR *d = opendir(path);
	if (d == NULL) {
		snprintf(err, errlen, "%s: %s", e.s, strerror(errno));
		sbuf_reset(&e);
		return -1;
	}
	char **names = NULL;
	unsigned n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL && n < MAX_TESTS) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' ||
		    (len >= 5 && strcmp(de->d_name + len - 5, ".mbox") == 0))
			continue;
		char *full = xmalloc(strlen(path) + len + 2);
		sprintf(full, "%s/%s", path, de->d_name);
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
		names = xrealloc(names, (n + 1) * sizeof(char *));
		names[n++] = full;
	}
	closedir(d);
	/* An empty directory leaves names NULL, which qsort must not get
	 * even for 0 items (UBSan); it is refused below by name. */
	if (n > 1)
		qsort(names, n, sizeof(char *), name_cmp);
	int rc = 0;
	for (unsigned i = 0; i < n; i++) {
		if (rc == 0 && list_add(l, names[i], err, errlen) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	if (rc == 0 && l->n == 0) {
		snprintf(err, errlen, "%s: no test files in this directory", e.s);
		rc = -1;
	}
	sbuf_reset(&e);
	if (rc < 0)
		script_list_free(l);
	else
		list_push(l, script_cleanup_new(), NULL);
	return rc;
}

void
script_list_free(struct script_list *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		script_free(l->v[i]);
		msg_pool_free(l->pools[i]);
	}
	free(l->v);
	free(l->pools);
	memset(l, 0, sizeof(*l));
}

/* --- output --------------------------------------------------------------- */

struct script_report {
	FILE *json;
	bool json_stdout;
	unsigned passed, failed, skipped;
};

struct script_report *
script_report_new(const struct config *cfg, char *err, size_t errlen)
{
	struct script_report *r = xcalloc(1, sizeof(*r));

	if (cfg->json_path != NULL) {
		r->json_stdout = strcmp(cfg->json_path, "-") == 0;
		r->json = r->json_stdout ? stdout : fopen(cfg->json_path, "w");
		if (r->json == NULL) {
			snprintf(err, errlen, "--json %s: %s", cfg->json_path,
				 strerror(errno));
			free(r);
			return NULL;
		}
	}
	return r;
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The detail's lines (escaped already: printable), indented. */
static void
print_detail(FILE *out, const char *detail)
{
	for (const char *p = detail; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(out, "  %.*s\n", (int)len, p);
		p += len + (nl != NULL);
	}
}

/* The clean-up run is no test: silent when it deleted what the tests
 * left, a warning on stderr when it could not (the next run's
 * foreign-mail check will find those mailboxes and say so). */
static void
report_cleanup(const struct script_outcome *o)
{
	if (o->verdict != SCRIPT_FAIL || o->foreign)	/* the driver says that */
		return;
	fprintf(stderr, "imapstress: the clean-up after the last test failed; "
		"the test mailboxes may still be there:\n");
	print_detail(stderr, o->detail);
}

void
script_report_test(struct script_report *r, const struct script *s,
		   const struct script_outcome *o)
{
	static const char *const res[] = { "ok", "failed", "skipped" };
	struct sbuf name = { 0 };
	FILE *out = r->json_stdout ? stderr : stdout;

	if (s->cleanup) {
		report_cleanup(o);
		return;
	}
	sbuf_add_escaped(&name, s->name, strlen(s->name));
	if (o->verdict == SCRIPT_PASS) {
		r->passed++;
		fprintf(out, "%s: ok\n", name.s);
	} else if (o->verdict == SCRIPT_SKIP) {
		r->skipped++;
		fprintf(out, "%s: skipped: %s\n", name.s, o->detail);
	} else {
		r->failed++;
		if (o->line > 0)
			fprintf(out, "%s: FAILED (line %u)\n", name.s, o->line);
		else
			fprintf(out, "%s: FAILED\n", name.s);
		print_detail(out, o->detail);
	}
	if (r->json != NULL) {
		fputs("{\"test\":", r->json);
		json_str(r->json, s->name);
		unsigned total = 0;
		for (unsigned i = 0; i < s->n_steps; i++)
			total += s->steps[i].n_cmds;
		/* groups, failures and extension: imaptest's verdict lines
		 * count command groups and failed commands, of tests with and
		 * without capabilities apart (scripts/imaptest-suite sums
		 * them) */
		fprintf(r->json, ",\"result\":\"%s\",\"line\":%u,\"commands\":%u,"
			"\"total\":%u,\"groups\":%u,\"failures\":%u,"
			"\"extension\":%s,\"detail\":",
			res[o->verdict], o->line, o->commands, total, o->groups,
			o->failures, s->n_caps > 0 ? "true" : "false");
		json_str(r->json, o->detail ? o->detail : "");
		fputs("}\n", r->json);
	}
	sbuf_reset(&name);
}

void
script_report_output(struct script_report *r, const char *line, size_t len)
{
	struct sbuf b = { 0 };
	FILE *out = r->json_stdout ? stderr : stdout;

	sbuf_add_escaped(&b, line, len);
	fprintf(out, "%s\n", b.s ? b.s : "");
	fflush(out);
	sbuf_reset(&b);
}

int
script_report_end(struct script_report *r)
{
	FILE *out = r->json_stdout ? stderr : stdout;
	struct run_outcome o = { .failed = r->failed };

	fprintf(out, "%u passed, %u failed, %u skipped\n", r->passed, r->failed,
		r->skipped);
	if (r->json != NULL) {
		fprintf(r->json, "{\"passed\":%u,\"failed\":%u,\"skipped\":%u}\n",
			r->passed, r->failed, r->skipped);
		if (fflush(r->json) != 0)
			o.output_failed = true;
	}
	if (fflush(out) != 0)
		o.output_failed = true;
	return exit_policy_status(&o);
}

void
script_report_free(struct script_report *r)
{
	if (r == NULL)
		return;
	if (r->json != NULL && !r->json_stdout)
		fclose(r->json);
	free(r);
}
