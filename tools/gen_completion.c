/* gen_completion: writes the bash completion from its template, with the
 * option and state names taken from the program's own tables (the rows
 * argv is parsed with, and the state table), so the completion can never
 * offer a name imapstress does not know or miss one it does.
 *
 *   gen_completion completion/imapstress.bash.in > build/imapstress.bash
 *
 * The template's @LONG_OPTIONS@, @VALUED_OPTIONS@ (those that take a
 * value), @WORDS@ and @STATES@ become space-separated lists: long options
 * with "--", imaptest words with a
 * trailing "=" when they take a value (both forms for an optional value),
 * and the state names a NAME=P word or --state takes. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "plan/ops.h"

struct lists {
	char longs[8192], valued[8192], words[8192];
};

static void
add(char *dst, size_t cap, const char *a, const char *b)
{
	size_t n = strlen(dst);
	int w = snprintf(dst + n, cap - n, "%s%s%s", n ? " " : "", a, b);
	if (w < 0 || (size_t)w >= cap - n) {
		fprintf(stderr, "gen_completion: list too long at %s%s\n", a, b);
		exit(1);
	}
}

static void
on_name(enum config_name_kind kind, const char *name, int val, void *arg)
{
	struct lists *l = arg;

	if (kind == CONFIG_NAME_LONG) {
		add(l->longs, sizeof(l->longs), "--", name);
		if (val == CONFIG_VAL_REQ)
			add(l->valued, sizeof(l->valued), "--", name);
		return;
	}
	if (val != CONFIG_VAL_REQ)
		add(l->words, sizeof(l->words), name, "");
	if (val != CONFIG_VAL_NONE)
		add(l->words, sizeof(l->words), name, "=");
}

/* Names a user types: imaptest's CHECKPOINT! is set by checkpoint=. */
static void
states(char *dst, size_t cap)
{
	for (int op = 0; op < OP_COUNT; op++) {
		const char *n = op_table[op].name;
		bool plain = true;
		for (const char *p = n; *p; p++)
			plain = plain && isalnum((unsigned char)*p);
		if (plain)
			add(dst, cap, n, "");
	}
}

int
main(int argc, char **argv)
{
	static struct lists l;
	static char st[4096];
	char line[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: gen_completion TEMPLATE\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (in == NULL) {
		perror(argv[1]);
		return 1;
	}
	config_each_name(on_name, &l);
	states(st, sizeof(st));
	while (fgets(line, sizeof(line), in) != NULL) {
		const struct { const char *key, *val; } sub[] = {
			{ "@LONG_OPTIONS@", l.longs }, { "@WORDS@", l.words },
			{ "@VALUED_OPTIONS@", l.valued },
			{ "@STATES@", st },
		};
		char *p = line;
		for (;;) {
			char *at = NULL;
			size_t k, which = 0;
			for (k = 0; k < sizeof(sub) / sizeof(sub[0]); k++) {
				char *q = strstr(p, sub[k].key);
				if (q != NULL && (at == NULL || q < at)) {
					at = q;
					which = k;
				}
			}
			if (at == NULL)
				break;
			fwrite(p, 1, (size_t)(at - p), stdout);
			fputs(sub[which].val, stdout);
			p = at + strlen(sub[which].key);
		}
		fputs(p, stdout);
	}
	fclose(in);
	return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}
