/* store_map.c: see store_map.h.  A chained hash on the name "user\tbox". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imap/imap_args.h"
#include "model/mbox_model.h"
#include "model/store_map.h"
#include "util/xmalloc.h"
#include "util/strhash.h"

#define STORE_MAP_BUCKETS 4096

struct store_entry {
	struct store_entry *next;
	struct mbox_store *store;
	char name[];
};

struct store_map {
	struct store_entry *bucket[STORE_MAP_BUCKETS];
	/* The parse workspaces every store of the map uses (see
	 * mbox_store_use_args): one pair, not one per mailbox. */
	struct imap_args *args, *sub_args;
	uint32_t track_max;	/* each new store's (store_map_new) */
};

struct store_map *
store_map_new(uint32_t track_max)
{
	struct store_map *m = xcalloc(1, sizeof(*m));
	m->track_max = track_max;
	m->args = imap_args_new(0);
	m->sub_args = imap_args_new(0);
	return m;
}

void
store_map_free(struct store_map *m)
{
	if (m == NULL)
		return;
	for (unsigned i = 0; i < STORE_MAP_BUCKETS; i++) {
		struct store_entry *e = m->bucket[i], *next;
		for (; e != NULL; e = next) {
			next = e->next;
			mbox_store_free(e->store);
			free(e);
		}
	}
	imap_args_free(m->args);
	imap_args_free(m->sub_args);
	free(m);
}

struct mbox_store *
store_map_get(struct store_map *m, const char *user, const char *box)
{
	/* Every SELECT looks its mailbox up: the key is built on the stack
	 * when it fits, without printf (malloc, snprintf and free were
	 * ~1,900 instructions a SELECT). */
	size_t ul = strlen(user), bl = strlen(box), len = ul + bl + 2;
	char stack[256];
	char *name = len <= sizeof(stack) ? stack : xmalloc(len);
	memcpy(name, user, ul);
	name[ul] = '\t';
	memcpy(name + ul + 1, box, bl + 1);
	uint32_t b = strhash(name) % STORE_MAP_BUCKETS;
	struct store_entry *e;
	for (e = m->bucket[b]; e != NULL; e = e->next) {
		if (strcmp(e->name, name) == 0)
			break;
	}
	if (e == NULL) {
		e = xmalloc(sizeof(*e) + len);
		memcpy(e->name, name, len);
		e->store = mbox_store_new(name, MBOX_DEFAULT_MAX_MSGS);
		/* a run's views hold what it can use, not what a server
		 * claims (--track-max; the default: 50 views of a
		 * million-message mailbox in 25 MB) */
		mbox_store_set_track_max(e->store, m->track_max);
		mbox_store_use_args(e->store, m->args, m->sub_args);
		e->next = m->bucket[b];
		m->bucket[b] = e;
	}
	if (name != stack)
		free(name);
	return e->store;
}

void
store_map_each(struct store_map *m, void (*fn)(struct mbox_store *s, void *arg),
	       void *arg)
{
	for (unsigned i = 0; i < STORE_MAP_BUCKETS; i++)
		for (struct store_entry *e = m->bucket[i]; e != NULL; e = e->next)
			fn(e->store, arg);
}
