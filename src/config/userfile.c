/* userfile.c: see userfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/infile.h"
#include "config/userfile.h"
#include "util/xmalloc.h"

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

/* A control character in a name or password would go into LOGIN as it
 * is (a CR or LF ends the command line early): refused, as config_login.c
 * refuses it on the command line.  The name is shown escaped, the
 * password not at all. */
static int
check_line(const char *path, unsigned lineno, const char *user,
	   const char *pass, char *err, size_t errlen)
{
	size_t at = escape_find_ctl(user);

	if (user[at] != '\0')
		snprintf(err, errlen, "userfile=%s line %u: control character "
			 "\\x%02x in the user name \"%s\"", path, lineno,
			 (unsigned char)user[at], user);
	else if (pass != NULL && pass[at = escape_find_ctl(pass)] != '\0')
		snprintf(err, errlen, "userfile=%s line %u: control character "
			 "\\x%02x at octet %zu of the password of \"%s\" (not "
			 "shown)", path, lineno, (unsigned char)pass[at], at + 1,
			 user);
	else
		return 0;
	escape_in_place(err, errlen);
	return -1;
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
		if (check_line(path, lineno, line, pass, err, errlen) < 0) {
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
