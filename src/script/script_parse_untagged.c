/* script_parse_untagged.c: the untagged reply lines of a test file, of
 * imaptest's three kinds (script.h, enum script_exist).  "* " is a reply
 * that must come, "! " one that must not, "? " one that may; each is an
 * expected reply of the step whose command it follows, up to that
 * step's last result line. */
#include <stdlib.h>
#include <string.h>

#include "script/script_parse_int.h"
#include "util/xmalloc.h"

int
sparse_untagged_mark(const char *t)
{
	static const char marks[] = "*!?";
	const char *m = t[0] ? strchr(marks, t[0]) : NULL;

	if (m == NULL || (t[1] != ' ' && t[1] != '\0'))
		return -1;
	return (int)(m - marks);	/* the order of enum script_exist */
}

int
sparse_untagged(struct pstate *p, const struct sline *l, const char *rest)
{
	char m[2] = { rest[0], '\0' };

	if (p->cur == NULL)
		return sparse_fail(p, l->line, "an untagged reply before any "
				   "command%s", "");
	if (p->sealed)
		return sparse_fail(p, l->line, "an untagged reply after its "
				   "command's result line%s", "");
	if (rest[1] != ' ' || *sparse_skip_sp(rest + 1) == '\0')
		return sparse_fail(p, l->line, "'%s' must be followed by a "
				   "space and the reply", m);
	struct script_step *st = p->cur;
	const char *u = sparse_skip_sp(rest + 1);
	size_t ul = l->len - (size_t)(u - l->text);
	st->untagged = xrealloc(st->untagged,
				(st->n_untagged + 1) * sizeof(*st->untagged));
	struct script_line *sl = &st->untagged[st->n_untagged++];
	sl->text = xstrndup(u, ul);
	sl->len = ul;
	sl->line = l->line;
	sl->exist = (enum script_exist)sparse_untagged_mark(rest);
	return 0;
}
