/* config_fixture.h: what the config tests share (test_config.c,
 * test_config_good.c, test_config_bad.c): a fresh struct config per test,
 * an error buffer that catches a missing terminator, parse() of a word
 * list, and the shape of an expected error.  Each file gets its own copy
 * of the statics. */
#ifndef IMAPSTRESS_TEST_CONFIG_FIXTURE_H
#define IMAPSTRESS_TEST_CONFIG_FIXTURE_H

#include <stddef.h>
#include <string.h>

#include "config/config.h"

#define OFF(f) offsetof(struct config, f)
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define GIB (1ULL << 30)

static struct config cfg;
static char err[256];

static inline void
setup(void)
{
	config_defaults(&cfg);
	memset(err, 'X', sizeof(err));	/* catch a missing terminator */
	err[sizeof(err) - 1] = '\0';
}

static inline void
teardown(void)
{
	config_free(&cfg);
}

/* argv[0] is the program, then up to 30 words, NULL-terminated. */
static inline int
parse(const char *const *words)
{
	char *av[32] = { (char *)"imapstress" };
	int ac = 1;
	while (ac < 31 && words[ac - 1] != NULL) {
		av[ac] = (char *)words[ac - 1];
		ac++;
	}
	return config_parse(&cfg, ac, av, err, sizeof(err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* An argv that must be refused, and the message it must get. */
struct bad {
	const char *argv[5];	/* NULL-terminated */
	const char *want;	/* the whole message, or its start */
};

#endif
