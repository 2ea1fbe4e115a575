/* The one Check runner: runs every registered suite (or those named in
 * argv) and exits non-zero on any failure; `--list` prints the suites'
 * names, one a line, for scripts/unit-lanes to share them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"

#define MAX_SUITES 128
static suite_fn suites[MAX_SUITES];
static const char *names[MAX_SUITES];
static int n_suites;

void
test_register_suite(suite_fn fn, const char *name)
{
	if (n_suites == MAX_SUITES) {
		fprintf(stderr, "too many suites\n");
		abort();
	}
	names[n_suites] = name;
	suites[n_suites++] = fn;
}

int
main(int argc, char **argv)
{
	SRunner *sr = NULL;
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (int i = 0; i < n_suites; i++)
			printf("%s\n", names[i]);
		return EXIT_SUCCESS;
	}
	for (int i = 0; i < n_suites; i++) {
		/* argv may name suites (the registering function's name,
		 * e.g. imap_suite) to run only those. */
		int wanted = argc < 2;
		for (int a = 1; a < argc; a++)
			if (strcmp(argv[a], names[i]) == 0)
				wanted = 1;
		if (!wanted)
			continue;
		Suite *s = suites[i]();
		if (sr == NULL)
			sr = srunner_create(s);
		else
			srunner_add_suite(sr, s);
	}
	if (sr == NULL) {
		fprintf(stderr, "no suite matched\n");
		return 2;
	}
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
