/* mbox_private.h: the structures shared by the files of the mailbox
 * model: mbox_model.c (store), mbox_util.c (helpers), mbox_view.c,
 * mbox_codes.c, mbox_fetch.c and mbox_checkpoint.c.  Not for other
 * modules: use mbox_model.h. */
#ifndef IMAPSTRESS_MBOX_PRIVATE_H
#define IMAPSTRESS_MBOX_PRIVATE_H

#include <string.h>

#include "imap/imap_args.h"
#include "model/mbox_model.h"

/* Static metadata of one UID: exactly one 64-octet cache line (see
 * mbox_store.c).  Zero means "not known yet" for every field. */
struct mbox_rec {
	uint32_t uid;
	uint32_t owner;
	uint64_t size;
	/* INTERNALDATE: UTC seconds << 16 | the zone (int16 minutes east);
	 * 0 = not known (a date at the epoch is Dovecot's placeholder for
	 * an expunged message and never stored).  mbox_rec_idate*(). */
	int64_t idate;
	uint64_t env_hash, bs_hash;
	/* mbox_hash_raw of the octets that last gave env_hash/bs_hash */
	uint64_t env_raw, bs_raw;
	/* mbox_hash_raw of the Message-ID (0 = not known); its text, for
	 * reports only, is msgids[] at the same position (off the line). */
	uint64_t msgid_hash;
};

/* idate = utc * 65536 + tz: the low 16 bits are the zone's, and the
 * division is exact once the zone is taken off. */
static inline int16_t
mbox_rec_idate_tz(const struct mbox_rec *r)
{
	return (int16_t)(uint16_t)((uint64_t)r->idate & 0xffffu);
}

static inline int64_t
mbox_rec_idate(const struct mbox_rec *r)
{
	return (r->idate - mbox_rec_idate_tz(r)) / 65536;
}

static inline int64_t
mbox_rec_idate_pack(int64_t utc, int16_t tz)
{
	return (int64_t)((uint64_t)utc * 65536u + (uint64_t)(int64_t)tz);
}

/* The store's UID index: where a UID's record sits in recs[]. */
struct mbox_slot {
	uint32_t uid;	/* 0 = empty */
	uint32_t pos;
};

struct mbox_kw {
	char *name;
	uint32_t len;		/* strlen(name) */
	uint32_t owner;
};

/* The last FLAGS or PERMANENTFLAGS list of this store that parsed
 * without a report, and what it meant.  Every SELECT of a mailbox
 * repeats the same two lists, and tokenizing and interning them again was
 * about 6% of the default mix's client instructions (callgrind); keywords
 * are never dropped from a store, so a text means what it meant before. */
struct mbox_flags_memo {
	char *text;		/* NULL: nothing kept */
	size_t len, cap;
	unsigned sys;
	uint64_t kw;
	bool star;		/* PERMANENTFLAGS had \* */
};

struct mbox_range {
	uint32_t lo, hi;
};

struct mbox_store {
	char *name;
	uint32_t max_msgs;
	/* message entries a view of this store may hold (0 = no bound):
	 * past it, FETCHes of messages in holes are checked but not kept
	 * (mbox_store_set_track_max) */
	uint32_t track_max;
	uint32_t uidvalidity;
	struct mbox_rec *recs;	/* dense, 64-octet aligned: count in use */
	char **msgids;		/* parallel to recs: Message-ID text or NULL */
	uint32_t recs_cap, count;
	struct mbox_slot *slots;	/* open addressing, linear probing */
	uint32_t cap;		/* slots; a power of two */
	struct mbox_kw kw[MBOX_MAX_KEYWORDS];
	unsigned n_kw;
	uint32_t sys_owner[MBOX_SYS_FLAGS];
	bool seen_all_recent;	/* a view once saw every message \Recent */
	bool msgs_limit_told, kw_limit_told;
	struct mbox_flags_memo flags_memo, perm_memo;
	/* Parse workspace shared by the views: they all run in one thread
	 * and never hold tokens across calls.  Borrowed when given by
	 * mbox_store_use_args (the store_map's, for all its stores). */
	struct imap_args *args;
	struct imap_args *sub_args;	/* a LIST_RAW value inside args' */
	bool args_borrowed;
	struct mbox_range *ranges;
	size_t n_ranges, ranges_cap;
	struct mbox_range *drops;	/* seqs a VANISHED drops */
	size_t n_drops, drops_cap;
};

/* Per-message state bits (mbox_msg.st). */
enum {
	MSG_FLAGS_KNOWN = 1 << 0,
	MSG_FETCHED = 1 << 1,	/* FETCH FLAGS seen while its STORE ran */
	MSG_SILENT = 1 << 2,	/* touched by a .SILENT STORE */
	MSG_DOOMED = 1 << 3	/* named by the VANISHED being applied */
};

struct mbox_msg {
	uint32_t uid;
	uint32_t store_gen;	/* last own STORE touching it, 0 = none */
	uint64_t kw;
	uint64_t modseq;
	uint8_t sys;
	uint8_t st;
	uint32_t rec;		/* hint: its store record's position + 1 */
};

/* MBOX_PAGE messages at most; m == NULL: a hole of n unknown messages.
 * An own STORE over a hole marks the whole hole (hole_gen, hole_st: what
 * store_mark would have set), so a STORE of random numbers in a claimed
 * million costs no message memory; the marks reach the messages when the
 * page becomes real.  Marking more than the STORE named only skips
 * ownership checks of messages whose flags were unknown anyway. */
#define MBOX_PAGE	512u
struct mbox_page {
	uint32_t n;
	uint32_t known;		/* entries with a UID */
	struct mbox_msg *m;
	uint32_t hole_gen;
	uint8_t hole_st;
	/* entries allocated in m (n <= cap <= MBOX_PAGE; 0 for a hole): a
	 * page grows with its mailbox, because most mailboxes a session
	 * SELECTs hold a few messages and a full page is 20 KB to zero;
	 * 16 bits keep the header at 24 octets */
	uint16_t cap;
};

_Static_assert(MBOX_PAGE <= UINT16_MAX, "a page's room fits its cap");
_Static_assert(sizeof(struct mbox_page) <= 24, "a hole costs 24 octets");

/* Make room in page pg for need entries, the new ones zero; a hole
 * (m NULL, cap 0) becomes real even for need 0. */
void mbox_page_reserve(struct mbox_page *pg, uint32_t need);

struct mbox_reporter {
	mbox_err_cb cb;
	void *arg;
	unsigned n;
};

struct mbox_view {
	struct mbox_store *store;
	uint32_t conn_id;
	struct mbox_view_opts opts;
	struct mbox_reporter rep;
	const char *state;

	/* seq -> message, in pages (mbox_seqs.c); count = EXISTS */
	struct mbox_page *pages;
	uint32_t n_pages, pages_cap;
	uint32_t entries;	/* allocated in real pages: sum of their cap */
	uint32_t count;
	uint32_t known_uids;
	uint32_t cur, cur_first;	/* last page looked up, its seq - 1 */

	uint32_t recent;
	bool recent_uncertain;
	/* The last "* N RECENT": Dovecot sends one only when the count
	 * differs from it (imap-sync.c), so it is the count again after
	 * an EXISTS that has no RECENT after it (mbox_view_on_exists). */
	uint32_t recent_told;
	uint32_t uidnext, uidvalidity;
	uint64_t highestmodseq;

	/* The SELECT snapshot: messages seq <= old_count were there at
	 * SELECT and have UIDs below select_uidnext (0 = no snapshot). */
	uint32_t select_uidnext, old_count;

	bool flags_seen, perm_seen, can_create, readonly;
	bool disabled;		/* EXISTS over max_msgs: not tracking */
	/* A STATUS of this mailbox was answered since the last EXISTS: a
	 * seq above count is the server's unannounced message. */
	bool status_since_exists;
	/* STATIC_* bits: the static items of the FETCH being read whose
	 * change was reported (mbox_fetch_told) */
	uint8_t fetch_told;
	uint64_t kw_in_flags, kw_permanent;

	/* Own STOREs: gens above idle_gen are in flight while inflight>0. */
	uint32_t store_gen, idle_gen, inflight;
};

/* mbox_store.c (records) and mbox_model.c */
void mbox_report(struct mbox_reporter *r, enum mbox_err kind,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct mbox_rec *mbox_store_get(const struct mbox_store *s, uint32_t uid);
/* Lookup or insert; NULL when max_msgs UIDs are held already. */
struct mbox_rec *mbox_store_add(struct mbox_store *s, uint32_t uid);
/* mbox_store_add through a position remembered in *hint (updated). */
struct mbox_rec *mbox_store_hinted(struct mbox_store *s, uint32_t uid,
				   uint32_t *hint);
void mbox_store_remove(struct mbox_store *s, uint32_t uid);
void mbox_store_clear(struct mbox_store *s);
int mbox_store_kw_intern(struct mbox_store *s, const char *name, size_t len);

/* At most this much of a server's text goes into a report: printf's
 * precision for "%.*s". */
#define MBOX_EXCERPT(n) ((int)((n) > 120 ? 120 : (n)))

/* mbox_struct.c: the checks of these FETCH items against record r */
void mbox_fetch_envelope(struct mbox_view *v, struct mbox_rec *r,
			 const struct imap_arg *val);
void mbox_fetch_bodystructure(struct mbox_view *v, struct mbox_rec *r,
			      const struct imap_arg *val);
/* The Message-ID header in a BODY[HEADER.FIELDS (...)] literal. */
void mbox_header_msgid(struct mbox_view *v, struct mbox_rec *r,
		       const char *s, size_t n);
/* Is this item name a BODY[HEADER.FIELDS (...)] naming MESSAGE-ID? */
bool mbox_is_msgid_section(const struct imap_arg *name);

/* mbox_util.c */
/* Case-insensitive: are the n octets at s exactly word?  Inline, so that
 * a literal word's strlen is a constant: a response code is compared with
 * up to seven of them. */
static inline bool
mbox_word_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && imap_ci_eq(s, word, n);
}
/* "\Seen" -> MBOX_F_SEEN; 0 when not a system flag. */
unsigned mbox_sys_flag(const char *name, size_t len);
/* "\Seen $Label1" into buf (always NUL-terminated). */
void mbox_flags_fmt(const struct mbox_store *s, unsigned sys, uint64_t kw,
		    char *buf, size_t size);
/* Hash of a token subtree, case-folded, strings quoted or literal alike;
 * 0 when it holds a skipped literal. */
uint64_t mbox_hash_arg(const struct imap_arg *a);
/* Hash of n octets as they are: equal octets give equal hashes. */
uint64_t mbox_hash_raw(const char *s, size_t n);
bool mbox_parse_idate(const char *s, size_t n, int64_t *utc, int16_t *tz);
void mbox_fmt_idate(int64_t utc, int16_t tz, char *buf, size_t size);
/* The "<...>" part of a Message-ID value, else the value trimmed; at
 * most MBOX_MSGID_MAX octets. */
#define MBOX_MSGID_MAX	255u
void mbox_msgid_norm(const char *s, size_t n, const char **out,
		     size_t *out_len);
/* Parse a sequence/UID set; '*' means star.  Ranges go to s->ranges,
 * normalised lo <= hi, sorted and merged (so mbox_ranges_has is a binary
 * search and their sizes add up to the set's size).  -1 on a malformed
 * set. */
int mbox_parse_set(struct mbox_store *s, const char *set, size_t len,
		   uint32_t star);
bool mbox_ranges_has(const struct mbox_store *s, uint32_t v);

/* mbox_seqs.c: the seq -> message map (1 <= seq <= v->count).  _get
 * never allocates (a hole reads as zeros); _mut makes the page real.
 * UIDs change only through mbox_msg_set_uid (it counts known UIDs). */
const struct mbox_msg *mbox_msg_get(const struct mbox_view *v, uint32_t seq);
struct mbox_msg *mbox_msg_mut(struct mbox_view *v, uint32_t seq);
/* mbox_msg_mut, or NULL when seq lies in a hole that would take the view
 * past its store's track_max entries. */
struct mbox_msg *mbox_msg_track(struct mbox_view *v, uint32_t seq);
void mbox_msg_set_uid(struct mbox_view *v, uint32_t seq, uint32_t uid);
void mbox_msgs_grow(struct mbox_view *v, uint32_t n);	/* unknown ones */
void mbox_msgs_truncate(struct mbox_view *v, uint32_t n);
void mbox_msgs_delete(struct mbox_view *v, uint32_t seq);
void mbox_msgs_free(struct mbox_view *v);
/* The nearest seq before / after seq with a known UID; 0 = none. */
uint32_t mbox_msgs_prev_known(const struct mbox_view *v, uint32_t seq);
uint32_t mbox_msgs_next_known(const struct mbox_view *v, uint32_t seq);
/* If seq is in a hole: mark the hole for STORE generation gen (silent:
 * a .SILENT one) and return how many seqs from seq on it covers; else 0. */
uint32_t mbox_msgs_hole_mark(struct mbox_view *v, uint32_t seq, uint32_t gen,
			     bool silent);
/* Drop, in one pass, the messages marked MSG_DOOMED and those whose seq
 * lies in drop[] (sorted, disjoint); fn sees each one first with its old
 * seq (in ascending order).  O(count + pages). */
typedef void (*mbox_drop_fn)(void *arg, const struct mbox_msg *m,
			     uint32_t old_seq);
void mbox_msgs_compact(struct mbox_view *v, const struct mbox_range *drop,
		       size_t n_drop, mbox_drop_fn fn, void *arg);

/* One FETCH reports one change of a static item once: a FETCH may name
 * an item twice ("RFC822.SIZE RFC822.SIZE", both answered), or the
 * Message-ID twice (ENVELOPE and a MESSAGE-ID header section).  true
 * the first time item is told in the FETCH being read. */
enum {
	STATIC_SIZE = 1 << 0,
	STATIC_IDATE = 1 << 1,
	STATIC_ENVELOPE = 1 << 2,
	STATIC_BODYSTRUCTURE = 1 << 3,
	STATIC_MSGID = 1 << 4
};
static inline bool
mbox_fetch_told(struct mbox_view *v, unsigned item)
{
	bool first = !(v->fetch_told & item);

	v->fetch_told |= (uint8_t)item;
	return first;
}

/* mbox_view.c */
void mbox_view_expunge_seq(struct mbox_view *v, uint32_t seq);
/* A FETCH (fetch) or EXPUNGE of seq above count, reported as
 * SEQ_TOO_HIGH or, after a STATUS (mbox_view_on_status), UNANNOUNCED;
 * true when the view grew to seq and the FETCH is to be checked. */
bool mbox_view_seq_above(struct mbox_view *v, uint32_t seq, bool fetch);
/* What expunging m costs the RECENT count and the store; count is the
 * number of messages just before it goes. */
void mbox_view_forget(struct mbox_view *v, const struct mbox_msg *m,
		      uint32_t count);
/* Is the flag baseline of m trustworthy for the ownership checks? */
bool mbox_msg_baseline(const struct mbox_view *v, const struct mbox_msg *m);

#endif
