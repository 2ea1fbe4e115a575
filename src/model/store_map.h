/* store_map.h: a worker's mailbox models, one struct mbox_store per
 * (user, mailbox), found by name.  Owned by one worker thread: users are
 * partitioned across workers, so a mailbox's sessions share one store and
 * nobody needs a lock.  The stores share the map's parse workspaces
 * (mbox_store_use_args), so a map must not be used from two threads. */
#ifndef IMAPSTRESS_STORE_MAP_H
#define IMAPSTRESS_STORE_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct mbox_store;
struct store_map;

/* track_max: the message entries each view of the map's stores may hold
 * (mbox_store_set_track_max; 0 = no bound). */
struct store_map *store_map_new(uint32_t track_max);
void store_map_free(struct store_map *m);	/* frees the stores; NULL ok */

/* The store for user's mailbox box, created on first use. */
struct mbox_store *store_map_get(struct store_map *m, const char *user,
				 const char *box);

/* Call fn for every store. */
void store_map_each(struct store_map *m,
		    void (*fn)(struct mbox_store *s, void *arg), void *arg);

#endif
