/* userfile.c: see userfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "userfile.h"
#include "xmalloc.h"

#define USERFILE_MAX (64u << 20)

static char *
read_all(const char *path, char *err, size_t errlen)
{
	char why[256];
	size_t len;
	char *text = infile_read(path, USERFILE_MAX, &len, why, sizeof(why));
	if (text == NULL)
		snprintf(err, errlen, "userfile=%s: %s", path, why);
	return text;
}

struct userfile *
userfile_load(const char *path, char *err, size_t errlen)
{
	char *text = read_all(path, err, errlen);
	if (text == NULL)
		return NULL;

	struct userfile *u = xcalloc(1, sizeof(*u));
	unsigned cap = 64, lineno = 0;
	u->text = text;
	u->e = xcalloc(cap, sizeof(*u->e));
	for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		size_t l = strlen(line);
		if (l > 0 && line[l - 1] == '\r')
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		char *colon = strchr(line, ':');
		const char *pass = NULL;
		if (colon != NULL) {
			*colon = '\0';
			pass = colon + 1;
			if (strncmp(pass, "{PLAIN}", 7) == 0)
				pass += 7;
		}
		if (line[0] == '\0') {
			snprintf(err, errlen, "userfile=%s line %u: empty user name",
				 path, lineno);
			userfile_free(u);
			return NULL;
		}
		if (u->n == cap) {
			cap *= 2;
			u->e = xrealloc(u->e, cap * sizeof(*u->e));
		}
		u->e[u->n].user = line;
		u->e[u->n].pass = pass;
		u->n++;
	}
	if (u->n == 0) {
		snprintf(err, errlen, "userfile=%s: no users in it", path);
		userfile_free(u);
		return NULL;
	}
	return u;
}

void
userfile_free(struct userfile *u)
{
	if (u == NULL)
		return;
	free(u->e);
	free(u->text);
	free(u);
}
