/* latency_log.c: see latency_log.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "stats/hist.h"
#include "stats/latency_log.h"

int
latency_log_open(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		    0644);
}

void
latency_log_write(int fd, enum op op, uint64_t us)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s %" PRIu64 "\n",
			 op_table[op].name, us);
	if (write(fd, line, (size_t)n) != n) {
		/* Test aid: a short log must not pass for a complete one. */
		static const char msg[] = "imapstress: --latency-log: write failed\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)w;
		abort();
	}
}

static void
print_row(const char *name, const struct hist *h)
{
	uint64_t v[3];

	hist_p50_p95_p99(h, v);
	printf("%s count=%" PRIu64 " min=%" PRIu64 " p50=%" PRIu64
	       " p95=%" PRIu64 " p99=%" PRIu64 " max=%" PRIu64 "\n", name,
	       hist_count(h), hist_min(h), v[0], v[1], v[2], hist_max(h));
}

int
latency_main(int argc, char **argv)
{
	struct hist *h[OP_COUNT], *all = hist_new();
	int status = 0;

	for (int op = 0; op < OP_COUNT; op++)
		h[op] = hist_new();
	if (argc < 2) {
		fprintf(stderr, "usage: imapstress latency FILE...\n");
		status = 2;
	}
	for (int a = 1; a < argc && status == 0; a++) {
		FILE *f = fopen(argv[a], "r");
		char line[128];
		unsigned long lineno = 0;
		char shown[1024];
		escape_text(shown, sizeof(shown), argv[a], strlen(argv[a]));
		if (f == NULL) {
			fprintf(stderr, "imapstress latency: %s: %s\n", shown,
				strerror(errno));
			status = 2;
			break;
		}
		while (status == 0 && fgets(line, sizeof(line), f) != NULL) {
			char name[32];
			uint64_t us;
			char end;
			lineno++;
			int op = -1;
			if (sscanf(line, "%31s %" SCNu64 "%c", name, &us, &end) == 3 &&
			    end == '\n')
				op = op_lookup(name, (unsigned)strlen(name));
			if (op < 0) {
				fprintf(stderr, "imapstress latency: %s:%lu: not "
					"\"COMMAND MICROSECONDS\"\n", shown, lineno);
				status = 2;
				break;
			}
			hist_record(h[op], us);
			hist_record(all, us);
		}
		fclose(f);
	}
	if (status == 0) {
		for (int op = 0; op < OP_COUNT; op++)
			if (hist_count(h[op]) > 0)
				print_row(op_table[op].name, h[op]);
		print_row("all", all);
	}
	for (int op = 0; op < OP_COUNT; op++)
		hist_free(h[op]);
	hist_free(all);
	return status;
}
