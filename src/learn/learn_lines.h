/* learn_lines.h: one direction of a recorded session put back together:
 * lines joined across literals into whole commands (or server
 * responses), each literal replaced by its {N} and skipped by its octet
 * count, whatever lines its content spans.  Used by both readers. */
#ifndef IMAPSTRESS_LEARN_LINES_H
#define IMAPSTRESS_LEARN_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "learn/learn_int.h"

#define LDIR_LITS 64
/* A command longer than this (literals not counted) is bad input. */
#define LDIR_MAX (1u << 20)

struct ldir {
	char *buf;
	size_t len, cap;
	uint64_t lit_left;	/* octets of the current literal still to come */
	bool capture;		/* keep small literals' text (client side) */
	struct llit lits[LDIR_LITS];
	size_t n_lits;
	unsigned line0;		/* where the unit began */
	double t0;
	bool overflow;
};

/* Feed one line: its text without the line end, `term` octets of line
 * end it had on the wire, `cut` octets a writer left out.  Returns true
 * when a whole unit is in d->buf (the caller uses it, then ldir_reset). */
bool ldir_feed(struct ldir *d, const char *text, size_t len, unsigned term,
	       uint64_t cut, unsigned line, double t);
void ldir_reset(struct ldir *d);
void ldir_free(struct ldir *d);
/* A unit was started and not finished (a truncated session). */
bool ldir_pending(const struct ldir *d);

#endif
