/* users_heap.h: a binary min-heap of (time, user, kind), the one queue
 * behind both of a worker's schedules (users_int.h): the deliveries of every
 * user, connected or not (one entry per user and kind, so a user costs 16
 * bytes per interval and no libevent timer), and the users waiting for a
 * free connection slot.  Declares users_heap.c's functions (uheap_) for the
 * files of src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_HEAP_H
#define IMAPSTRESS_USERS_HEAP_H

#include "users/users_int.h"

void uheap_push(struct uheap *h, uint64_t t, uint32_t user, uint32_t kind);
/* The earliest entry if it is due at `now`. */
bool uheap_pop(struct uheap *h, uint64_t now, struct uheap_ent *out);
uint64_t uheap_next(const struct uheap *h);	/* UINT64_MAX: empty */
void uheap_free(struct uheap *h);

#endif
