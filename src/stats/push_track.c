/* push_track.c: one user's deliveries waiting to be seen, as a ring in
 * delivery order.  The announced ones (EXISTS seen) are always a prefix
 * of the ring, because EXISTS takes the oldest unannounced first and
 * FETCH takes from the head. */
#include <stdbool.h>
#include <stdlib.h>

#include "stats/push_track.h"
#include "stats/stats.h"
#include "util/xmalloc.h"

struct push_wait {
	uint64_t t_250;		/* LMTP's 250 */
	uint64_t t_exists;	/* EXISTS seen; 0 until then */
	bool missed;		/* counted as missed: no more samples */
	bool submitted;		/* by submission, else over LMTP */
};

struct push_track {
	struct push_wait *w;
	unsigned cap, head, len;
	unsigned announced;	/* w[head .. head+announced) saw EXISTS */
	enum push_mech mech;
	struct push_track_counts n;
};

static struct push_wait *
at(const struct push_track *p, unsigned i)
{
	return &p->w[(p->head + i) % p->cap];
}

struct push_track *
push_track_new(void)
{
	return xcalloc(1, sizeof(struct push_track));
}

void
push_track_free(struct push_track *p)
{
	if (p == NULL)
		return;
	free(p->w);
	free(p);
}

void
push_track_set_mech(struct push_track *p, enum push_mech m)
{
	p->mech = m < PUSH_MECHS ? m : PUSH_M_IDLE;
}

enum push_mech
push_track_mech(const struct push_track *p)
{
	return p->mech;
}

static void
pop_head(struct push_track *p)
{
	p->head = (p->head + 1) % p->cap;
	p->len--;
	if (p->announced > 0)
		p->announced--;
}

/* The ring holds memory only while deliveries wait: most users have none
 * waiting most of the time (an EXISTS and the FETCH after it take a
 * delivery off within seconds), and a ring kept from a user's first mail
 * on was 208 octets that every LoadSim user grew into as the day went on
 * (issue 35: peak over idle memory).  Called where the line may have
 * emptied. */
static void
release_if_empty(struct push_track *p)
{
	if (p->len != 0 || p->w == NULL)
		return;
	free(p->w);
	p->w = NULL;
	p->cap = p->head = p->announced = 0;
}

static void
grow(struct push_track *p)
{
	/* From 4: one or two deliveries wait at a time, rarely more. */
	unsigned cap = p->cap ? p->cap * 2 : 4;
	struct push_wait *w = xcalloc(cap, sizeof(*w));
	for (unsigned i = 0; i < p->len; i++)
		w[i] = *at(p, i);
	free(p->w);
	p->w = w;
	p->cap = cap;
	p->head = 0;
}

void
push_track_delivered(struct push_track *p, struct act_stats *a, uint64_t t_us)
{
	push_track_delivered_via(p, a, t_us, false);
}

void
push_track_delivered_via(struct push_track *p, struct act_stats *a,
			 uint64_t t_us, bool submitted)
{
	if (p->len == PUSH_TRACK_MAX) {
		struct push_wait *old = at(p, 0);
		if (p->announced == 0 && !old->missed) {
			act_push_missed_by(a, p->mech, 1);
			p->n.missed++;
		}
		if (p->announced == 0)
			p->n.dropped++;
		pop_head(p);
	}
	p->n.delivered++;
	if (p->len == p->cap)
		grow(p);
	*at(p, p->len) = (struct push_wait){ .t_250 = t_us,
					     .submitted = submitted };
	p->len++;
}

static uint64_t
since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

void
push_track_exists(struct push_track *p, struct act_stats *a, unsigned n,
		  uint64_t now)
{
	while (n > 0 && p->announced < p->len) {
		struct push_wait *e = at(p, p->announced);
		e->t_exists = now ? now : 1;
		if (!e->missed) {
			uint64_t us = since(now, e->t_250);
			act_push(a, push_kind_of(p->mech, PUSH_EXISTS), us);
			act_push(a, e->submitted ? PUSH_EXISTS_SUBMIT
				 : PUSH_EXISTS_LMTP, us);
		}
		p->announced++;
		p->n.announced++;
		n--;
	}
}

void
push_track_fetched(struct push_track *p, struct act_stats *a, unsigned n,
		   uint64_t now)
{
	while (n > 0 && p->announced > 0) {
		struct push_wait *e = at(p, 0);
		if (!e->missed)
			act_push(a, push_kind_of(p->mech, PUSH_FETCH),
				 since(now, e->t_250));
		pop_head(p);
		n--;
	}
	release_if_empty(p);
}

void
push_track_expire(struct push_track *p, struct act_stats *a, uint64_t now,
		  uint64_t timeout_us)
{
	/* Announced but never fetched: no FETCH sample will come. */
	while (p->announced > 0 && since(now, at(p, 0)->t_exists) > timeout_us)
		pop_head(p);
	/* Unannounced, in delivery order: stop at the first one in time. */
	for (unsigned i = p->announced; i < p->len; i++) {
		struct push_wait *e = at(p, i);
		if (since(now, e->t_250) <= timeout_us)
			break;
		if (!e->missed) {
			e->missed = true;
			act_push_missed_by(a, p->mech, 1);
			p->n.missed++;
		}
	}
	release_if_empty(p);
}

void
push_track_reset(struct push_track *p)
{
	p->n.dropped += p->len - p->announced;
	p->head = p->len = p->announced = 0;
	release_if_empty(p);
}

const struct push_track_counts *
push_track_counts(const struct push_track *p)
{
	return &p->n;
}

unsigned
push_track_unannounced(const struct push_track *p)
{
	return p->len - p->announced;
}

size_t
push_track_bytes(const struct push_track *p)
{
	return sizeof(*p) + (size_t)p->cap * sizeof(*p->w);
}

unsigned
push_track_waiting(const struct push_track *p)
{
	return p->len;
}
