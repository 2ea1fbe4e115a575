/* learn_cli.c: `imapstress learn`'s command line, the walk over the
 * files and directories it names, and the three outputs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "learn/learn.h"
#include "learn/learn_int.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define LEARN_DEPTH_MAX 16

static const char usage[] =
	"usage: imapstress learn [--anonymize] [-o PREFIX] [--until TIME]\n"
	"                        [--lmtp-port N] FILE|DIR...\n"
	"  reads Dovecot rawlogs (NAME.in/NAME.out) and imapstress rawlogs;\n"
	"  writes PREFIX.mix, PREFIX.profile, PREFIX.summary (PREFIX: learned)\n";

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* NAME.out is read with NAME.in; alone, it has no commands to learn. */
static bool
out_with_in(const char *path)
{
	size_t n = strlen(path);
	char *in = xmalloc(n);
	memcpy(in, path, n - 4);
	memcpy(in + n - 4, ".in", 4);
	struct stat st;
	bool ok = stat(in, &st) == 0;
	free(in);
	return ok;
}

static void
one_file(struct learn *l, const char *path)
{
	if (has_suffix(path, ".out")) {
		if (!out_with_in(path)) {
			log_warn("%s: a Dovecot .out without its .in: skipped",
				 path);
			l->files_skipped++;
		}
		return;
	}
	if (learn_file(l, path) == 0)
		l->files++;
	else
		l->files_skipped++;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in name order, so that a run reads the same logs the same way. */
static void
walk(struct learn *l, const char *path, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		log_warn("%s: %s: skipped", path, strerror(errno));
		l->files_skipped++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		one_file(l, path);
		return;
	}
	if (depth >= LEARN_DEPTH_MAX) {
		log_warn("%s: more than %d directories deep: skipped", path,
			 LEARN_DEPTH_MAX);
		return;
	}
	DIR *d = opendir(path);
	if (d == NULL) {
		log_warn("%s: %s: skipped", path, strerror(errno));
		l->files_skipped++;
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xrealloc(names, cap * sizeof(*names));
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = xmalloc(len);
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		/* Symbolic links inside a directory are not followed. */
		if (lstat(names[i], &st) == 0 && S_ISLNK(st.st_mode)) {
			log_warn("%s: a symbolic link: skipped", names[i]);
			l->files_skipped++;
		} else {
			walk(l, names[i], depth + 1);
		}
		free(names[i]);
	}
	free(names);
}

static int
write_all(struct learn *l, const char *prefix)
{
	size_t n = strlen(prefix) + 16;
	char *path = xmalloc(n);
	int rc = 0;
	snprintf(path, n, "%s.mix", prefix);
	rc |= learn_write_mix(l, path);
	snprintf(path, n, "%s.profile", prefix);
	rc |= learn_write_profile(l, path);
	snprintf(path, n, "%s.summary", prefix);
	rc |= learn_write_summary(l, path);
	free(path);
	return rc;
}

int
learn_main(int argc, char **argv)
{
	struct learn l;
	const char *prefix = "learned";
	int first = 0;
	memset(&l, 0, sizeof(l));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			first = i + 1;
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(a, "--anonymize") == 0) {
			l.anonymize = true;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				log_error("learn: %s needs a PREFIX", a);
				return 2;
			}
			prefix = argv[++i];
		} else if (strncmp(a, "--output=", 9) == 0 && a[9] != '\0') {
			prefix = a + 9;
		} else if (strcmp(a, "--lmtp-port") == 0 ||
			   strncmp(a, "--lmtp-port=", 12) == 0) {
			const char *v = a[11] == '=' ? a + 12 : i + 1 < argc ?
			    argv[++i] : "";
			char *e;
			long port = strtol(v, &e, 10);
			if (*v == '\0' || *e != '\0' || port < 1 || port > 65535) {
				log_error("learn: --lmtp-port %s: not a port "
					  "(1 to 65535)", v);
				return 2;
			}
			l.lmtp_port = (unsigned)port;
		} else if (strcmp(a, "--until") == 0 ||
			   strncmp(a, "--until=", 8) == 0) {
			const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ?
			    argv[++i] : "";
			char *e;
			l.until = strtod(v, &e);
			if (*v == '\0' || *e != '\0' || !(l.until > 0) ||
			    l.until > 1e11) {
				log_error("learn: --until %s: not a time in "
					  "seconds since 1970", v);
				return 2;
			}
		} else if (a[0] == '-' && a[1] != '\0') {
			log_error("learn: %s: unknown option", a);
			fputs(usage, stderr);
			return 2;
		} else {
			first = i;
			break;
		}
	}
	if (first == 0 || first >= argc) {
		log_error("learn: no FILE or DIR to learn from");
		fputs(usage, stderr);
		return 2;
	}
	for (int i = first; i < argc; i++)
		walk(&l, argv[i], 0);
	/* Server logs hold real people's names: never shown. */
	if (l.formats[LFMT_DOVECOT] + l.formats[LFMT_DOVECOT_TS] > 0)
		l.anonymize = true;
	learn_solve(&l.mix);
	int rc = 0;
	if (l.sessions == 0 || l.commands == 0) {
		log_error("learn: nothing learned: no IMAP session in %llu "
			  "files read (%llu skipped)",
			  (unsigned long long)l.files,
			  (unsigned long long)l.files_skipped);
		rc = 1;
	} else if (write_all(&l, prefix) != 0) {
		rc = 1;
	} else {
		printf("learned from %llu sessions (%llu commands, %llu files, "
		       "%llu skipped): %s.mix %s.profile %s.summary\n",
		       (unsigned long long)l.sessions,
		       (unsigned long long)l.commands,
		       (unsigned long long)l.files,
		       (unsigned long long)l.files_skipped, prefix, prefix,
		       prefix);
	}
	learn_free(&l);
	return rc;
}
