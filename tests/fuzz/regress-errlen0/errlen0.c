/* regress-errlen0: config_parse with errlen 0 reads past the error buffer.
 *
 * config_parse guards its own `err[0] = '\0'` with errlen > 0, so errlen 0
 * looks allowed; but config_fail then scrubs line breaks with a loop that
 * reads err until a NUL, which a zero-length buffer never holds (and with
 * err == NULL it is a NULL dereference).
 *
 *   clang -fsanitize=address,undefined -g -std=c11 -D_GNU_SOURCE -Isrc \
 *       tests/fuzz/regress-errlen0/errlen0.c src/config.c src/config_opts.c \
 *       src/units.c src/ops.c src/xmalloc.c src/log.c -lm -o /tmp/errlen0 \
 *     && /tmp/errlen0
 *
 * Today: AddressSanitizer heap-buffer-overflow (READ of size 1) in
 * config_fail, config.c:36, from config_parse_uint <- h_uint <- opt_run <-
 * parse_word <- config_parse.  Fixed: exits 0, silently. */
#include <stdlib.h>
#include <string.h>

#include "config.h"

int
main(void)
{
	struct config cfg;
	char *argv[] = { "imapstress", "clients=abc", NULL };
	char *err = malloc(1);	/* one byte, but errlen 0: not to be touched */
	int rc;

	if (err == NULL)
		return 2;
	memset(err, 'X', 1);
	config_defaults(&cfg);
	rc = config_parse(&cfg, 2, argv, err, 0);
	config_free(&cfg);
	free(err);
	return rc == -1 ? 0 : 1;
}
