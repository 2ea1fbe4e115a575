/* fuzz_script.c: libFuzzer harness for the scripted-test file parser.
 *
 *   make -f tests/fuzz/Makefile build-fuzz/fuzz_script
 *   build-fuzz/fuzz_script tests/fuzz/seeds-script
 *
 * The input is a test file.  script_parse either refuses it with one
 * printable line "fuzz:LINE: why", or returns a script whose every part
 * the runner relies on holds: steps have commands, results come at or
 * after their command, connection numbers are in range, every expected
 * reply compiles to a pattern and every command's variables parse.
 * !ifenv reads the environment: the harness clears the two names its
 * seeds use, so a result never depends on who runs it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "script/script_pat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fz_require(bool ok, const char *what, const char *detail)
{
	if (!ok) {
		fprintf(stderr, "fuzz_script: invariant failed: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsetenv("HAVE_FOO");
	setenv("HAVE_BAR", "1", 1);
	return 0;
}

static void
fz_check(const struct script *s)
{
	char err[256];

	fz_require(s->connections >= 1 && s->connections <= SCRIPT_MAX_CONNS,
		   "connections in range", NULL);
	fz_require(s->messages >= -1, "messages >= -1", NULL);
	fz_require(s->state <= SCRIPT_ST_SELECTED, "state in range", NULL);
	for (unsigned i = 0; i < s->n_steps; i++) {
		const struct script_step *st = &s->steps[i];
		fz_require(st->n_cmds >= 1, "a step has a command", NULL);
		fz_require(st->conn < s->connections, "step connection in range", NULL);
		for (unsigned k = 0; k < st->n_cmds; k++) {
			const struct script_cmd *c = &st->cmds[k];
			fz_require(c->text[0] != '\0', "command text", NULL);
			fz_require(c->result_line >= c->line, "result after command", NULL);
			fz_require(c->result <= SCRIPT_R_ANY, "result kind", NULL);
			fz_require(st->n_cmds == 1 || c->tag != NULL,
				   "a pipelined group is tagged", NULL);
		}
		for (unsigned k = 0; k < st->n_untagged; k++) {
			/* by its length: a literal may hold a NUL (h-suite) */
			const char *t = st->untagged[k].text;
			struct spat *p = spat_compile(t, st->untagged[k].len, err,
						      sizeof(err));
			fz_require(p != NULL, "an accepted reply compiles", err);
			spat_free(p);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[300];
	/* a copy of exactly size octets: reads past it are ASan's to see */
	char *buf = malloc(size ? size : 1);

	fz_require(buf != NULL, "malloc", NULL);
	memcpy(buf, data, size);
	memset(err, 'X', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	struct script *s = script_parse("fuzz", buf, size, err, sizeof(err));
	if (s == NULL) {
		fz_require(strncmp(err, "fuzz:", 5) == 0, "message names the file", err);
		for (const char *p = err; *p; p++)
			fz_require(*p >= 0x20 && *p < 0x7f, "message printable", err);
	} else {
		fz_check(s);
		script_free(s);
	}
	free(buf);
	return 0;
}
