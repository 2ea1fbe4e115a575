/* mbox_model.h: what a connection knows about its selected mailbox, and
 * imaptest's consistency checks on what the server tells it.
 *
 * PURE: no sockets, no event loop, no logging, no clocks, no locks.  Every
 * violation goes to the view's err_cb(arg, kind, message) and every entry
 * point returns how many it reported.  Messages read like imaptest's, e.g.
 * "seq too high (16 > 15, state=FETCH)"; the caller adds user, connection
 * and the server line ("Error: user[3]: <message>: <line>").
 *
 * Two layers, as in imaptest:
 *
 *  struct mbox_store: one per (user, mailbox), shared by the connections of
 *  ONE worker thread.  UIDVALIDITY; per UID the static metadata first seen
 *  (RFC822.SIZE, INTERNALDATE, 64-bit hashes of ENVELOPE and BODYSTRUCTURE,
 *  Message-ID); the keywords ever announced (they index the keyword bits of
 *  every view of the store, at most MBOX_MAX_KEYWORDS); owners for own_msgs
 *  and own_flags.  At most max_msgs UIDs (open addressing; a UID is dropped
 *  when a view sees it expunged).  Cross-session checks assume every
 *  session on this mailbox uses this store: sessions in other threads are
 *  invisible to it (pass recent_reliable=false to the checkpoint then).
 *
 *  struct mbox_view: one per connection, reset on every SELECT/EXAMINE.
 *  seq -> UID (0 = not known yet), flags per seq, EXISTS, RECENT, UIDNEXT,
 *  UIDVALIDITY, MODSEQ per message, HIGHESTMODSEQ, the keywords of the last
 *  FLAGS and PERMANENTFLAGS.
 *
 * Call sequence for one connection:
 *     mbox_view_reset(v)            SELECT/EXAMINE sent
 *     mbox_view_untagged(v, resp)   every untagged response (or the
 *                                   on_* entry points one by one)
 *     mbox_view_select_done(v)      tagged OK of the SELECT: snapshots
 *                                   EXISTS and UIDNEXT for check (c)
 *     mbox_view_store_begin/_end    around each STORE (own_msgs/own_flags)
 *
 * Checks (kind, short name):
 *  a) SEQ_TOO_HIGH  FETCH/EXPUNGE of seq > EXISTS: "seq too high (S > E)"
 *  b) EXISTS_BACKWARDS  EXISTS below the current count (EXPUNGE must come
 *     first); the map is truncated to resynchronise
 *  c) UID_CHANGED "UID changed for seq S: U1 -> U2"; UID_ORDER "UIDs not
 *     ascending: ..."; UIDNEXT "UID U below UIDNEXT N" for a message that
 *     arrived after SELECT, "... not below UIDNEXT" for one that was there
 *     at SELECT, and UIDNEXT going backwards
 *  d) STATIC_CHANGED "RFC822.SIZE changed for UID U: A -> B", likewise
 *     INTERNALDATE, ENVELOPE, BODYSTRUCTURE (hashes), Message-ID (from
 *     ENVELOPE or BODY[HEADER.FIELDS (MESSAGE-ID)]).  Dovecot's
 *     placeholders for an expunged message (size 0, all-NIL envelope,
 *     "text/plain 0 0" bodystructure, 1970 date) are ignored, as imaptest
 *     does.  Values are case-folded before hashing, like imaptest's
 *     strcasecmp; a structure holding a skipped literal is not compared.
 *     One FETCH reports each item's change once, named twice or not
 *     (the Message-ID from ENVELOPE and a header section is one item).
 *  e) KEYWORD "Keyword used without being in FLAGS: $X"; also a keyword
 *     dropped from FLAGS while messages still have it (as far as we know:
 *     not counting a message under this session's own STORE, running or
 *     .SILENT since, whose flags no FETCH has shown since) and a
 *     PERMANENTFLAGS keyword missing from FLAGS
 *  f) MODSEQ "MODSEQ went backwards for UID U: A -> B" and HIGHESTMODSEQ
 *     going backwards within a selection (only with check_modseq)
 *  g) UIDVALIDITY "UIDVALIDITY changed: A -> B" (the store then forgets its
 *     messages and adopts the new value)
 *  h) OWN_MSG / OWN_FLAG: see "Ownership" below
 *  i) EXPUNGE: EXPUNGE of seq 0; VANISHED naming a UID not in the view,
 *     one expunged earlier included (RFC 7162: SHOULD NOT); VANISHED of
 *     more UIDs than messages.  With some UIDs unknown, a vanished UID is
 *     taken to be an unknown slot before the next known UID (imaptest's
 *     rule: the highest free one), but one that existed at SELECT if the
 *     UID is below the UIDNEXT seen then, and one that arrived since if
 *     not (Cyrus: known 257 and 261 of 3, one arrival, "VANISHED
 *     257,261:262" leaves the arrival)
 *  RECENT: RECENT above EXISTS; checkpoint \Recent checks
 *  CHECKPOINT: views disagreeing at a checkpoint
 *  SYNTAX: unparsable data (FETCH not a list, bad flag, bad number, ...)
 *  UNANNOUNCED: a seq above EXISTS, as in a), but after a STATUS of the
 *     selected mailbox and no EXISTS since (mbox_view_on_status): a named
 *     server deviation, "seq S never announced (EXISTS E, ...)".  Cyrus
 *     3.6 counts a new message in STATUS, announces it with no EXISTS,
 *     and numbers it later (scripts/cyrus-unannounced shows the lines).
 *     A FETCH of such a seq grows the view to it, as the EXISTS the
 *     server owed would have, and is checked as usual; an EXPUNGE of one
 *     removes nothing the view had.  The next EXISTS ends it: it carries
 *     the server's whole count again.
 *  LIMIT: a tracking limit was hit (not a server fault; reported once)
 *
 * Ownership (own_msgs, own_flags), a simplified imaptest rule.  Owners are
 * connection ids; the first claimant wins (mbox_store_claim_msg/_flag),
 * so the workload claims before it STOREs and skips what it does not own.
 * Only the owner's view checks: when its FETCH FLAGS shows a change from
 * the flags it knew, outside the window of its own STOREs, that is
 *   own_msgs:  "Flags unexpectedly changed for owned message UID U: ..."
 *   own_flags: "Owned flag changed: \Seen (UID U)" (any message)
 * A message is unchecked from mbox_view_store_begin() until the STORE's
 * FETCH has been seen and the STORE ended (a .SILENT STORE, or one whose
 * FETCH never came, leaves the flags unknown until the next FETCH FLAGS).
 * \Recent is never owned.  Expected flags are not computed from the STORE
 * arguments (imaptest's "STORE didn't return FETCH FLAGS" is left out).
 *
 * What a server's claims cost (issue 13).  A view keeps its messages in
 * pages of MBOX_PAGE (512); a page nobody wrote to is a hole and costs no
 * message memory, so `* 1000000 EXISTS` costs about 2000 page headers
 * (48 KB) until messages are FETCHed; a real page holds room for its own
 * messages (from 8, doubling), so a mailbox of a few messages costs a few
 * hundred octets, not a page; there are at most 4 * EXISTS / 512
 * + 1 pages (mbox_seqs.c).  With P pages and B = 512, per response:
 *   EXISTS            O(added / B) growing, O(dropped pages) shrinking
 *   EXPUNGE           O(B + P), whatever the order (storms of `* 1
 *                     EXPUNGE`, descending, random, interleaved with EXISTS)
 *   FETCH             O(B + P) for the UID order check (the nearest known
 *                     UIDs either side, pages without one skipped), O(1)
 *                     amortised for neighbouring seqs, plus the items
 *   VANISHED          O(count + R log R + P) for R ranges (R is bounded by
 *                     the line length); never proportional to the UIDs the
 *                     ranges claim (`VANISHED 1:4294967295` is one pass)
 *   UID STORE begin   O(count), holes O(1) each
 *   checkpoint        O(count) per view
 * A view keeps at most track_max message entries when told
 * (mbox_store_set_track_max; imapstress: --track-max, default
 * MBOX_DEFAULT_TRACK), so a million FETCH answers cost no more than the
 * first 16384 kept; each answer not kept is told (untracked_cb).
 * A view tracks at most max_msgs messages (MBOX_DEFAULT_MAX_MSGS): past
 * that, one LIMIT report and no tracking until the next SELECT.  SEARCH
 * and ESEARCH results are not kept.
 *
 * Left out, on purpose: imaptest's header-value tracking beyond
 * Message-ID, BODY/BODY[] sizes, offline QRESYNC caches, search checks. */
#ifndef IMAPSTRESS_MBOX_MODEL_H
#define IMAPSTRESS_MBOX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imap/imap.h"
#include "model/mbox_err.h"

typedef void (*mbox_err_cb)(void *arg, enum mbox_err kind, const char *msg);
/* A FETCH answer for a message the view does not keep (its store's
 * track_max): checked, then forgotten.  Not a server fault, but what the
 * run leaves unmeasured, so the caller counts it and says so. */
typedef void (*mbox_untracked_cb)(void *arg);

/* System flag bits. */
enum {
	MBOX_F_ANSWERED = 1 << 0,
	MBOX_F_FLAGGED = 1 << 1,
	MBOX_F_DELETED = 1 << 2,
	MBOX_F_SEEN = 1 << 3,
	MBOX_F_DRAFT = 1 << 4,
	MBOX_F_RECENT = 1 << 5
};
#define MBOX_SYS_FLAGS		6
#define MBOX_MAX_KEYWORDS	64	/* keyword bits per message */
#define MBOX_DEFAULT_MAX_MSGS	1000000u
/* The message entries (32 octets each) one view keeps by default when
 * run by imapstress (--track-max, config.c): 512 KB, 32 full pages. */
#define MBOX_DEFAULT_TRACK	16384u

/* ---- store ---- */

struct mbox_store;

/* max_msgs 0 = MBOX_DEFAULT_MAX_MSGS; it bounds the UIDs stored and the
 * EXISTS a view tracks. */
struct mbox_store *mbox_store_new(const char *name, uint32_t max_msgs);
/* Bound each view of s to n message entries (0, the default: no bound;
 * pages already real still grow with EXISTS).  What a hostile server
 * tells costs memory only for messages a view can keep: a FETCH of a
 * message in a page not yet real, which would take the view past n
 * entries (the page's whole allocation), is checked (syntax, seq,
 * UIDNEXT, keywords, static data of UIDs already stored), told to the
 * view's untracked_cb and forgotten; messages already kept are checked
 * as before. */
void mbox_store_set_track_max(struct mbox_store *s, uint32_t n);
void mbox_store_free(struct mbox_store *s);	/* NULL is a no-op; views first */

/* The store's two parse workspaces (FETCH, FLAGS, VANISHED and the
 * ENVELOPE/BODYSTRUCTURE inside a FETCH) are given by its owner instead of
 * its own: store_map's stores all use their map's, one pair per worker
 * (issue 19: each grows to the largest FETCH seen, ~35 KB a store in the
 * default mix).  Safe because every parse is used up within the one call
 * that makes it, on the owner's thread.  The owner frees them, after the
 * stores. */
struct imap_args;
void mbox_store_use_args(struct mbox_store *s, struct imap_args *args,
			 struct imap_args *sub_args);

const char *mbox_store_name(const struct mbox_store *s);
uint32_t mbox_store_uidvalidity(const struct mbox_store *s);
uint32_t mbox_store_msg_count(const struct mbox_store *s);	/* UIDs held */

struct mbox_msg_info {
	uint64_t size;		/* RFC822.SIZE, 0 = unknown */
	int64_t idate;		/* INTERNALDATE as UTC seconds */
	int16_t idate_tz;	/* its zone in minutes east of UTC */
	bool have_idate;
	uint64_t envelope_hash, bodystructure_hash;	/* 0 = unknown */
	const char *message_id;	/* NULL = unknown */
	uint32_t owner;		/* own_msgs owner, 0 = none */
};
bool mbox_store_msg_info(const struct mbox_store *s, uint32_t uid,
			 struct mbox_msg_info *out);

/* Keywords ever announced: index <-> name (case-insensitive). */
int mbox_store_keyword_index(const struct mbox_store *s, const char *name,
			     size_t len);	/* -1 if unknown */
const char *mbox_store_keyword_name(const struct mbox_store *s, unsigned idx);
unsigned mbox_store_keyword_count(const struct mbox_store *s);

/* Ownership: 0 = nobody.  claim returns true when conn_id owns it after
 * the call (first claimant wins).  A message must be known to the store
 * (its UID seen in a FETCH) to be claimed.  Flags are system flags
 * ("\Seen") or keywords; \Recent cannot be owned. */
uint32_t mbox_store_msg_owner(const struct mbox_store *s, uint32_t uid);
bool mbox_store_claim_msg(struct mbox_store *s, uint32_t uid,
			  uint32_t conn_id);
uint32_t mbox_store_flag_owner(const struct mbox_store *s, const char *name,
			       size_t len);
bool mbox_store_claim_flag(struct mbox_store *s, const char *name, size_t len,
			   uint32_t conn_id);

/* ---- view ---- */

struct mbox_view_opts {
	bool own_msgs, own_flags, check_modseq;
	mbox_err_cb err_cb;	/* may be NULL: violations are only counted */
	void *err_arg;		/* err_cb's and untracked_cb's */
	mbox_untracked_cb untracked_cb;	/* may be NULL */
};

struct mbox_view;

/* conn_id: nonzero, the connection's stable id (owners are recorded by
 * it, so a reconnect in the same slot keeps its messages and flags). */
struct mbox_view *mbox_view_new(struct mbox_store *s, uint32_t conn_id,
				const struct mbox_view_opts *opts);
void mbox_view_free(struct mbox_view *v);	/* NULL is a no-op */

/* SELECT/EXAMINE sent (or [CLOSED] seen): forget the old selection. */
void mbox_view_reset(struct mbox_view *v);
/* Tagged OK of SELECT/EXAMINE. */
unsigned mbox_view_select_done(struct mbox_view *v);
/* Command name appended to "seq too high" messages (", state=FETCH");
 * must outlive its use (a string literal).  NULL to omit. */
void mbox_view_set_state(struct mbox_view *v, const char *state);

/* Dispatch one untagged response (EXISTS, RECENT, EXPUNGE, FETCH, FLAGS,
 * VANISHED, and OK/NO/BAD/BYE response codes).  Others are ignored. */
unsigned mbox_view_untagged(struct mbox_view *v, const struct imap_resp *r);

unsigned mbox_view_on_exists(struct mbox_view *v, uint32_t n);
/* The server answered a STATUS of the selected mailbox ("* STATUS box
 * (...)"): until the next EXISTS, a seq above EXISTS is
 * MBOX_ERR_UNANNOUNCED, not MBOX_ERR_SEQ_TOO_HIGH (see above). */
void mbox_view_on_status(struct mbox_view *v);
unsigned mbox_view_on_recent(struct mbox_view *v, uint32_t n);
unsigned mbox_view_on_expunge(struct mbox_view *v, uint32_t seq);
/* text: "1:3,7" or "(EARLIER) 1:3,7".  VANISHED (EARLIER) reports UIDs
 * expunged before (QRESYNC SELECT, UID FETCH (VANISHED)) and does not
 * change message numbers (RFC 7162), so it is only syntax-checked. */
unsigned mbox_view_on_vanished(struct mbox_view *v, const char *text,
			       size_t len);
/* text: the msg-att list "(UID 5 FLAGS (\Seen) ...)". */
unsigned mbox_view_on_fetch(struct mbox_view *v, uint32_t seq,
			    const char *text, size_t len);
/* text: the flag list "(\Answered ... $Label1)". */
unsigned mbox_view_on_flags(struct mbox_view *v, const char *text,
			    size_t len);
/* A response code: UIDVALIDITY, UIDNEXT, PERMANENTFLAGS, HIGHESTMODSEQ,
 * CLOSED, READ-ONLY, READ-WRITE (others ignored). */
unsigned mbox_view_on_code(struct mbox_view *v, const char *code,
			   size_t code_len, const char *arg, size_t arg_len);
/* resp-text that may start with "[CODE arg]". */
unsigned mbox_view_on_resp_text(struct mbox_view *v, const char *text,
				size_t len);

/* Around a STORE sent by this connection: set is the command's sequence
 * set (UID set when uid).  Returns the number of messages marked, -1 on a
 * malformed set.  _end on its tagged reply (any status). */
int mbox_view_store_begin(struct mbox_view *v, const char *set, size_t len,
			  bool uid, bool silent);
void mbox_view_store_end(struct mbox_view *v);

/* State, for the workload and tests.  seq is 1-based. */
uint32_t mbox_view_conn_id(const struct mbox_view *v);
struct mbox_store *mbox_view_store(const struct mbox_view *v);
uint32_t mbox_view_exists(const struct mbox_view *v);
/* Message entries the view holds in memory (32 octets each): what the
 * messages it was told about really cost. */
uint32_t mbox_view_entries(const struct mbox_view *v);
uint32_t mbox_view_recent(const struct mbox_view *v);
uint32_t mbox_view_uidnext(const struct mbox_view *v);
uint32_t mbox_view_uidvalidity(const struct mbox_view *v);
uint64_t mbox_view_highestmodseq(const struct mbox_view *v);
uint32_t mbox_view_uid(const struct mbox_view *v, uint32_t seq); /* 0 = unknown */
uint32_t mbox_view_seq_of_uid(const struct mbox_view *v, uint32_t uid); /* 0 = none */
/* false if the flags of seq are not known. */
bool mbox_view_flags(const struct mbox_view *v, uint32_t seq, unsigned *sys,
		     uint64_t *keywords);
uint64_t mbox_view_modseq(const struct mbox_view *v, uint32_t seq);
bool mbox_view_keyword_in_flags(const struct mbox_view *v, const char *name);
bool mbox_view_keyword_permanent(const struct mbox_view *v, const char *name);
bool mbox_view_can_create_keywords(const struct mbox_view *v); /* \* */

/* After every view of one store ran CHECK with nothing else in flight:
 * compare message count, UID map, flags and keywords of all views
 * ("Checkpoint: client C: ..."), a \Recent flag seen in two sessions, and,
 * when recent_reliable (no session of this mailbox ended since the store
 * was created, and none lives in another thread) and a view once saw every
 * message \Recent, "Checkpoint: Total RECENT count X != Y" and messages
 * that arrived after every SELECT but are \Recent nowhere.  Views of
 * another store than views[0]'s are skipped. */
unsigned mbox_view_checkpoint_compare(struct mbox_view *const *views,
				      unsigned n, bool recent_reliable,
				      mbox_err_cb cb, void *arg);

/* A copy of src as a view of dst (keywords mapped by name), for comparing
 * views kept by different threads: each thread copies its own views into
 * one store per mailbox, and the comparison reads only the copies.  Free
 * with mbox_view_free before dst. */
struct mbox_view *mbox_view_checkpoint_copy(const struct mbox_view *src,
					    struct mbox_store *dst);
/* Whether a view of s once saw every message \Recent (RECENT checks are
 * meaningful), and setting it on a store of copies. */
bool mbox_store_seen_all_recent(const struct mbox_store *s);
void mbox_store_set_seen_all_recent(struct mbox_store *s, bool yes);

#endif
