/* users_heap.c: a binary min-heap of (time, user, kind), the one queue
 * behind both of a worker's schedules (users_int.h): the deliveries of
 * every user, connected or not (one entry per user and kind, so a user
 * costs 16 bytes per interval and no libevent timer), and the users
 * waiting for a free connection slot. */
#include <stdlib.h>

#include "users/users_int.h"
#include "users/users_heap.h"
#include "util/xmalloc.h"

static bool
uheap_less(const struct uheap_ent *a, const struct uheap_ent *b)
{
	return a->t < b->t || (a->t == b->t && a->user < b->user);
}

void
uheap_push(struct uheap *h, uint64_t t, uint32_t user, uint32_t kind)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->e = xrealloc(h->e, h->cap * sizeof(*h->e));
	}
	size_t i = h->n++;
	struct uheap_ent e = { t, user, kind };
	while (i > 0 && uheap_less(&e, &h->e[(i - 1) / 2])) {
		h->e[i] = h->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->e[i] = e;
}

bool
uheap_pop(struct uheap *h, uint64_t now, struct uheap_ent *out)
{
	if (h->n == 0 || h->e[0].t > now)
		return false;
	*out = h->e[0];
	struct uheap_ent last = h->e[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && uheap_less(&h->e[c + 1], &h->e[c]))
			c++;
		if (!uheap_less(&h->e[c], &last))
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n > 0)
		h->e[i] = last;
	return true;
}

uint64_t
uheap_next(const struct uheap *h)
{
	return h->n > 0 ? h->e[0].t : UINT64_MAX;
}

void
uheap_free(struct uheap *h)
{
	free(h->e);
	h->e = NULL;
	h->n = h->cap = 0;
}
