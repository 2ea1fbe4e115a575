/* learn_names.c: the names a log holds (users, mailboxes, FETCH item
 * sets, unmapped verbs), numbered in order of appearance and counted.
 * Outputs print a user or mailbox by its number unless it is one of the
 * names every mail client shares (INBOX, Sent, Drafts, ...), so no real
 * name leaves the logs. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn/learn_int.h"
#include "util/xmalloc.h"

int
lnames_find(const struct lnames *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->v[i]) == len && memcmp(t->v[i], name, len) == 0)
			return (int)i;
	return -1;
}

int
lnames_add(struct lnames *t, const char *name, size_t len)
{
	int i = lnames_find(t, name, len);
	if (i < 0) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
			t->count = xrealloc(t->count, t->cap * sizeof(*t->count));
		}
		t->v[t->n] = xstrndup(name, len);
		t->count[t->n] = 0;
		i = (int)t->n++;
	}
	t->count[i]++;
	return i;
}

void
lnames_free(struct lnames *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->count);
	memset(t, 0, sizeof(*t));
}

/* Special-use mailboxes under the names clients give them: shown by their
 * role, which says nothing about the person. */
static const struct {
	const char *name, *role;
} box_roles[] = {
	{ "INBOX", "INBOX" }, { "Sent", "Sent" }, { "Sent Items", "Sent" },
	{ "Sent Messages", "Sent" }, { "Drafts", "Drafts" },
	{ "Trash", "Trash" }, { "Deleted Items", "Trash" },
	{ "Deleted Messages", "Trash" }, { "Junk", "Spam" },
	{ "Spam", "Spam" }, { "Junk E-mail", "Spam" },
	{ "Archive", "Archive" }, { "Archives", "Archive" },
};

const char *
learn_box_role(const char *name)
{
	/* Personal namespace prefixes (INBOX.Sent, INBOX/Sent) too. */
	const char *base = name;
	if (strncasecmp(name, "INBOX", 5) == 0 &&
	    (name[5] == '.' || name[5] == '/'))
		base = name + 6;
	for (size_t i = 0; i < sizeof(box_roles) / sizeof(box_roles[0]); i++)
		if (strcasecmp(base, box_roles[i].name) == 0)
			return box_roles[i].role;
	return NULL;
}

/* A name the outputs can hold as it is: printable ASCII, no blank. */
static bool
plain_name(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s <= 0x20 || *s >= 0x7f)
			return false;
	return true;
}

void
learn_box_shown(const struct learn *l, int box, char *out, size_t len)
{
	const char *role = learn_box_role(l->boxes.v[box]);
	if (role != NULL)
		snprintf(out, len, "%s", role);
	else if (l->anonymize || !plain_name(l->boxes.v[box]))
		snprintf(out, len, "box%d", box + 1);
	else
		snprintf(out, len, "%s", l->boxes.v[box]);
}
