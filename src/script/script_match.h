/* script_match.h: expected replies (script_pat.h) against what a server
 * sent, as the response parser delivers it (imap.h, imap_args.h).
 *
 *  - A variable with no value takes the server's (it is captured); with
 *    a value it must be equal.  Captures of a match that fails halfway
 *    are undone.  One argument may hold one unset variable beside text
 *    ("[uidvalidity $uv]"); named variables never match a list, `$` does.
 *  - $modseqN values are captured in order: $modseqN >= N, and for two of
 *    them the later one is at least the index gap above the earlier.
 *  - $N is message N as numbered when the step began: an EXPUNGE received
 *    during the step (smatch_note_expunge) renumbers it, so a reply
 *    matches whether the server sent the EXPUNGE before or after it.
 *  - Lists follow their directives; text compares case-insensitively
 *    except ${case:...}.  At the top level a status reply (OK, NO, BAD,
 *    BYE, PREAUTH) may carry more than the pattern (its human text).
 * A failed match says why in one line (server text escaped). */
#ifndef IMAPSTRESS_SCRIPT_MATCH_H
#define IMAPSTRESS_SCRIPT_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "imap/imap.h"
#include "imap/imap_args.h"
#include "script/script.h"
#include "script/script_buf.h"
#include "script/script_pat.h"

struct svars;

struct svars *svars_new(void);
void svars_free(struct svars *v);	/* NULL is a no-op */
void svars_set(struct svars *v, const char *name, const char *val);
/* The value of the variable named by n octets at name, or NULL. */
const char *svars_get(const struct svars *v, const char *name, size_t n);

struct smatch {
	struct svars *vars;
	struct imap_args *args;	/* scratch for the server's replies */
	unsigned *expunged;	/* sequence numbers EXPUNGEd this step */
	unsigned n_expunged, cap_expunged;
};

void smatch_init(struct smatch *m);
void smatch_free(struct smatch *m);
void smatch_step_begin(struct smatch *m);	/* $N: numbering as of now */
void smatch_note_expunge(struct smatch *m, unsigned seq);
/* Message $n as numbered now, 0 when it was expunged. */
unsigned smatch_seq(const struct smatch *m, unsigned n);

/* Does the untagged reply r match p?  why gets the reason when not. */
bool smatch_untagged(struct smatch *m, const struct spat *p,
		     const struct imap_resp *r, struct sbuf *why);

/* Does the tagged reply r have c's result and prefix? */
bool smatch_tagged(struct smatch *m, const struct script_cmd *c,
		   const struct imap_resp *r, struct sbuf *why);

/* A command line with its variables replaced.  0, or -1 with why (a
 * variable with no value). */
int smatch_expand(struct smatch *m, const char *text, struct sbuf *out,
		  struct sbuf *why);

#endif
