/* script_load.c: a test file from disk (bounded, regular files only) and
 * its NAME.mbox beside it, and the clean-up run that follows the last
 * test (script.h).  (script_free is script_parse.c's, which
 * builds the struct and frees it on a parse error.) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/infile.h"
#include "script/script.h"
#include "script/script_lines.h"
#include "util/xmalloc.h"

struct script *
script_load(const char *path, char *err, size_t errlen)
{
	char why[256];
	size_t n;
	struct stat st;
	/* infile.c: regular files only, never more than the bound read */
	char *buf = infile_read(path, SCRIPT_MAX_FILE, &n, why, sizeof(why));

	if (buf == NULL) {
		slines_fail(err, errlen, path, 0, "%s", why);
		return NULL;
	}
	struct script *s = script_parse(path, buf, n, err, errlen);
	free(buf);
	if (s == NULL)
		return NULL;
	size_t pl = strlen(path);
	char *mbox = xmalloc(pl + sizeof("/default.mbox"));
	memcpy(mbox, path, pl);
	memcpy(mbox + pl, ".mbox", 6);
	if (stat(mbox, &st) == 0 && S_ISREG(st.st_mode)) {
		s->mbox_path = mbox;
		script_idates_load(s);
		return s;
	}
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	memcpy(mbox + dl, "default.mbox", sizeof("default.mbox"));
	if (stat(mbox, &st) == 0 && S_ISREG(st.st_mode)) {
		s->mbox_path = mbox;
		if (!s->messages_given)
			s->messages = 0;
		script_idates_load(s);
		return s;
	}
	free(mbox);
	return s;
}

struct script *
script_cleanup_new(void)
{
	struct script *s = xcalloc(1, sizeof(*s));

	s->path = xstrdup("(clean-up)");
	s->name = xstrdup("(clean-up)");
	s->connections = 1;
	s->messages = 0;
	s->state = SCRIPT_ST_AUTH;
	s->ignore_extra_untagged = true;
	s->cleanup = true;
	return s;
}
