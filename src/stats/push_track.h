/* push_track.h: matching one user's deliveries to what its IDLE
 * connection sees, for push latency (actions.h).
 *
 * LMTP's 250 does not say which UID the message gets, so the match is by
 * order: the driver reports each 250 for the user's INBOX, then how many
 * new messages each EXISTS announced and each UID FETCH of new mail
 * returned; the oldest deliveries waiting are taken first.  A delivery no
 * EXISTS announced within the timeout is counted once as push missed and
 * stays in line, so a late EXISTS still takes it (without a latency
 * sample) rather than crediting the next delivery.
 *
 * The same for NOTIFY (RFC 5465): its EXISTS, or the STATUS of INBOX
 * while another folder is selected, says how many are new.
 *
 * One per user, on its worker's thread (the same single writer as the
 * shard it records into). */
#ifndef IMAPSTRESS_PUSH_TRACK_H
#define IMAPSTRESS_PUSH_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/actions.h"

/* Deliveries kept waiting per user at most; older ones are dropped and
 * counted as missed (a user whose IDLE never answers must not grow). */
#define PUSH_TRACK_MAX 4096

struct push_track;

struct push_track *push_track_new(void);
void push_track_free(struct push_track *p);	/* NULL is a no-op */

/* How the user's connection waits (actions.h): its samples and misses
 * go under that mechanism's names.  IDLE until set; a session sets it
 * once it knows (a NOTIFY client whose NOTIFY SET was refused waits in
 * IDLE, and is counted so). */
void push_track_set_mech(struct push_track *p, enum push_mech m);
enum push_mech push_track_mech(const struct push_track *p);

/* LMTP's 250 for this user's INBOX, at t_us (clock_us()). */
void push_track_delivered(struct push_track *p, struct act_stats *a,
			  uint64_t t_us);
/* The same for a 250 of either source: its EXISTS sample also goes to
 * PUSH_EXISTS_SUBMIT (submitted) or PUSH_EXISTS_LMTP. */
void push_track_delivered_via(struct push_track *p, struct act_stats *a,
			      uint64_t t_us, bool submitted);
/* The user's IDLE connection saw n new messages (EXISTS grew by n) at now:
 * the n oldest deliveries not yet announced get a PUSH_EXISTS sample.
 * Messages beyond those waiting (the user's own APPENDs) are ignored. */
void push_track_exists(struct push_track *p, struct act_stats *a, unsigned n,
		       uint64_t now);
/* n new messages announced earlier were fetched at now: PUSH_FETCH
 * samples for the n oldest announced, which then leave the line. */
void push_track_fetched(struct push_track *p, struct act_stats *a, unsigned n,
			uint64_t now);
/* Count deliveries waiting longer than timeout_us for their EXISTS as
 * missed (once each); drop announced ones never fetched within it.  Call
 * from a timer, e.g. once a second. */
void push_track_expire(struct push_track *p, struct act_stats *a, uint64_t now,
		       uint64_t timeout_us);
/* The user left IDLE or lost its connection: forget what waits, counting
 * nothing (a user not connected cannot miss a push). */
void push_track_reset(struct push_track *p);
/* Deliveries still in line (announced or not). */
unsigned push_track_waiting(const struct push_track *p);
/* The memory p holds: the line's ring only while something waits. */
size_t push_track_bytes(const struct push_track *p);

/* What became of this user's deliveries, for --profile-counts: each 250
 * is announced (EXISTS or STATUS, in time or late), dropped (the user's
 * session went away, or the line was full, before it was announced), or
 * still unannounced; missed counts those not announced in time.  So
 * delivered = announced + dropped + push_track_unannounced(). */
struct push_track_counts {
	uint64_t delivered, announced, dropped, missed;
};
const struct push_track_counts *push_track_counts(const struct push_track *p);
unsigned push_track_unannounced(const struct push_track *p);

#endif
