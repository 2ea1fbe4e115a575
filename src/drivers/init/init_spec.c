/* init_spec.c: the init table, its folders, and the plan (init_spec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drivers/init/init_spec.h"
#include "util/xmalloc.h"

void
init_table_defaults(struct init_table *t)
{
	memset(t, 0, sizeof(*t));
	t->inbox = 100;
	t->deleted = 1;
	t->new_folders = 10;
	t->folder_messages = 10;
	t->msg_size = 75 * 1024;
	snprintf(t->deleted_folder, sizeof(t->deleted_folder), "Deleted Items");
	snprintf(t->folder_prefix, sizeof(t->folder_prefix), "Folder");
}

void
init_table_from_profile(struct init_table *t, const struct loadsim_init *in)
{
#define HAS(k) (in->has & (1u << (k)))
	if (HAS(LS_INIT_INBOX))
		t->inbox = in->inbox;
	if (HAS(LS_INIT_DELETED))
		t->deleted = in->deleted;
	if (HAS(LS_INIT_NEW_FOLDERS))
		t->new_folders = in->new_folders;
	if (HAS(LS_INIT_FOLDER_MESSAGES))
		t->folder_messages = in->folder_messages;
	if (HAS(LS_INIT_CALENDAR))
		t->calendar = in->calendar;
	if (HAS(LS_INIT_CONTACTS))
		t->contacts = in->contacts;
	if (HAS(LS_INIT_SIZE))
		t->msg_size = in->msg_size;
	if (HAS(LS_INIT_DELETED_FOLDER))
		memcpy(t->deleted_folder, in->deleted_folder,
		       sizeof(t->deleted_folder));
	if (HAS(LS_INIT_FOLDER_PREFIX))
		memcpy(t->folder_prefix, in->folder_prefix,
		       sizeof(t->folder_prefix));
#undef HAS
}

static void
add(struct init_spec *s, const char *name, uint32_t want)
{
	struct init_folder *f = &s->f[s->n++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	f->want = want;
	s->msgs_per_user += want;
}

/* IMAP names INBOX in any case; every other name as written. */
static bool
same_name(const char *a, const char *b)
{
	if (strcasecmp(a, "INBOX") == 0 || strcasecmp(b, "INBOX") == 0)
		return strcasecmp(a, b) == 0;
	return strcmp(a, b) == 0;
}

int
init_spec_build(struct init_spec *s, const struct init_table *t, char *err,
		size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->f = xcalloc(INIT_MAX_FOLDERS, sizeof(*s->f));
	s->msg_size = t->msg_size;
	add(s, "INBOX", t->inbox);
	if (t->deleted > 0)
		add(s, t->deleted_folder, t->deleted);
	/* Folder01 .. Folder10 sort as they are numbered. */
	int width = t->new_folders > 999 ? 4 : t->new_folders > 99 ? 3 : 2;
	for (unsigned i = 1; i <= t->new_folders; i++) {
		char name[sizeof(s->f[0].name)];
		snprintf(name, sizeof(name), "%s%0*u", t->folder_prefix, width, i);
		add(s, name, t->folder_messages);
	}
	if (t->calendar > 0)
		add(s, "Calendar", t->calendar);
	if (t->contacts > 0)
		add(s, "Contacts", t->contacts);
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned j = i + 1; j < s->n; j++)
			if (same_name(s->f[i].name, s->f[j].name)) {
				snprintf(err, errlen, "two folders of the init "
					 "table are both named '%s' (choose "
					 "another deleted folder or prefix)",
					 s->f[i].name);
				init_spec_free(s);
				return -1;
			}
	return 0;
}

void
init_spec_free(struct init_spec *s)
{
	free(s->f);
	s->f = NULL;
	s->n = 0;
}

uint64_t
init_plan(const struct init_spec *s, const struct init_have *have,
	  struct init_todo *todo)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < s->n; i++) {
		/* INBOX always exists (RFC 3501 5.1): never CREATE it, even
		 * if a server's STATUS said NO for a moment. */
		todo[i].create = !have[i].exists && i != 0;
		uint32_t held = have[i].exists ? have[i].messages : 0;
		todo[i].append = held < s->f[i].want ? s->f[i].want - held : 0;
		sum += todo[i].append;
	}
	return sum;
}

enum init_verdict
init_verdict(const struct init_folder *f, const struct init_have *h)
{
	if (!h->exists)
		return INIT_MISSING;
	if (h->messages == f->want)
		return INIT_OK;
	return h->messages > f->want ? INIT_MORE : INIT_FEWER;
}
