/* fake_store.h: fakeimapd's mail-store mode (--lmtp-port), a fake LMTP
 * and IMAP pair with a known push delay for profile-mode tests.
 *
 * Users and their mailboxes live in memory, made on first use (any
 * LOGIN is accepted; an LMTP recipient "name+Detail@domain" is user
 * "name", mailbox "Detail", else INBOX; the IMAP login name is cut at
 * '@' the same way).  LMTP answers a delivery with 250 per recipient
 * and puts the message in the mailbox --push-delay-ms later; then every
 * connection of that user in IDLE with that mailbox selected gets its
 * `* N EXISTS` at once, and other connections see it at their next
 * command.  Messages have UIDs, flags and a size; their text is
 * generated from the UID, so FETCH answers with a real message.
 *
 * One event loop only (--threads 1 is forced): the store is shared by
 * every connection without locks. */
#ifndef FAKE_STORE_H
#define FAKE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fake.h"

#define FAKE_F_SEEN 0x01u
#define FAKE_F_ANSWERED 0x02u
#define FAKE_F_FLAGGED 0x04u
#define FAKE_F_DELETED 0x08u
#define FAKE_F_DRAFT 0x10u

struct fake_msg {
	uint32_t uid;
	unsigned flags;
	uint32_t size;		/* of its generated text */
	bool marked;		/* what came in had the X-Imapstress field */
};

struct fake_box {
	char *name;
	uint32_t uidvalidity, uidnext;
	struct fake_msg *m;	/* in UID order */
	size_t n, cap;
	struct fake_box *next;
};

struct fake_sess;

struct fake_user {
	char *name;
	struct fake_box *boxes;
	struct fake_sess *sessions;	/* its logged-in connections */
	struct fake_user *next;
};

/* A logged-in connection: its user, its selected mailbox and the UIDs it
 * has been told about (its sequence numbers). */
struct fake_sess {
	struct fake_conn *c;
	struct fake_user *u;
	struct fake_box *sel;
	bool read_only;
	bool notify;		/* NOTIFY SET, not NONE (fake_notify.c) */
	unsigned notified;	/* notifications sent since the SET */
	uint32_t *view;
	size_t nview, cap;
	struct fake_sess *next;	/* in u->sessions */
};

struct fake_store_stats {
	uint64_t lmtp_sessions, lmtp_rcpts, lmtp_delivered, pushes;
	uint64_t notify_sets, notify_status, notify_overflows;	/* fake_notify.c */
	/* Each pushed delivery's own 250 -> EXISTS time, as this process
	 * saw it: the machine's share of a client's push latency (a timer
	 * that fires late on a busy machine), for tests and benchmarks to
	 * tell it from the client's. */
	uint32_t *lag_us;
	size_t nlag, caplag;
};

struct fake_store {
	struct event_base *base;
	uint64_t push_delay_us;
	unsigned notify_overflow;	/* --notify-overflow: 0 never */
	struct fake_user *users;
	struct fake_store_stats st;
	struct fake_lmtp_conn *lmtp_conns;
	struct evconnlistener *lmtp_listener;
	struct fake_delivery *pending;	/* not yet in their mailbox */
};

/* fake_store.c */
struct fake_store *fake_store_new(struct event_base *base,
				  uint64_t push_delay_us);
void fake_store_free(struct fake_store *st);
struct fake_user *fake_store_user(struct fake_store *st, const char *name,
				  size_t len);
/* The mailbox named (INBOX in any case is INBOX), or NULL / made. */
struct fake_box *fake_store_box(struct fake_user *u, const char *name,
				bool create);
bool fake_store_box_delete(struct fake_user *u, const char *name);
/* A new message at the end of b; its UID. */
uint32_t fake_store_add(struct fake_box *b, unsigned flags, uint32_t size,
			bool marked);
/* Index of uid in b, or -1. */
long fake_store_find(const struct fake_box *b, uint32_t uid);
void fake_store_remove(struct fake_box *b, size_t idx);
/* The generated text of a message: headers with its UID, then a body;
 * fake_store_text_len tells its length, the header part's too. */
size_t fake_store_text(char *buf, size_t len, const struct fake_user *u,
		       uint32_t uid, size_t *header_len);
/* The size a message of about want bytes gets (at least the headers). */
uint32_t fake_store_size_for(uint32_t want);

/* Sessions. */
struct fake_sess *fake_sess_login(struct fake_store *st, struct fake_conn *c,
				  const char *name, size_t len);
void fake_sess_select(struct fake_sess *s, struct fake_box *b, bool ro);
/* Tell s what changed in its mailbox: new messages as EXISTS, and with
 * expunges true, vanished ones as EXPUNGE (not allowed during FETCH,
 * STORE and SEARCH by sequence number). */
void fake_sess_sync(struct fake_sess *s, bool expunges);
/* Messages arrived in (or left) b: every session of u in IDLE on it
 * hears now.  Returns how many sessions were told. */
unsigned fake_store_push(struct fake_user *u, struct fake_box *b);
/* A delivery answered at t_250_us was pushed now: its lag recorded. */
void fake_store_lag(struct fake_store *st, uint64_t t_250_us);
/* The median of the lags recorded, 0 when none. */
uint64_t fake_store_lag_p50(struct fake_store *st);
void fake_store_conn_gone(struct fake_conn *c);

/* fake_notify.c: NOTIFY (RFC 5465), enough for a profile client: SET
 * (any events: MessageNew for the selected mailbox and INBOX) or NONE;
 * SET STATUS also says INBOX's STATUS at once.  fake_notify_push: b
 * changed, s is between commands under NOTIFY: EXISTS when b is
 * selected, STATUS when b is INBOX and another is; true when told. */
unsigned fake_s_notify(struct fake_conn *c, const struct fake_cmd *cmd);
bool fake_notify_push(struct fake_sess *s, struct fake_box *b);

/* fake_store_msgs.c: FETCH, STORE, SEARCH; the system flags in a flag
 * list; fn for every message of a set that still exists, in order (by
 * UID, or by the session's sequence numbers; seq 0 when not in its
 * view). */
#define FAKE_NAME_MAX 256
unsigned fake_s_fetch(struct fake_conn *c, const struct fake_cmd *cmd);
unsigned fake_s_store(struct fake_conn *c, const struct fake_cmd *cmd);
unsigned fake_s_search(struct fake_conn *c, const struct fake_cmd *cmd);
unsigned fake_parse_flags(const char *p);
typedef void (*fake_each_fn)(struct fake_conn *c, struct fake_msg *m,
			     size_t seq, void *arg);
void fake_each(struct fake_sess *s, const char *set, bool uid, fake_each_fn fn,
	       void *arg);

/* fake_store_cmd.c: the IMAP commands in mail-store mode.  True when it
 * handled cmd (its flags in *flags), false to fall back to fake_cmd.c. */
bool fake_store_command(struct fake_conn *c, const struct fake_cmd *cmd,
			unsigned *flags);

/* fake_lmtp.c */
/* Listens on loopback (cfg->listen's address, port 0 = any) and returns
 * the port; dies on error. */
unsigned fake_lmtp_listen(struct fake_store *st, const struct fake_cfg *cfg,
			  unsigned port);
void fake_lmtp_free_all(struct fake_store *st);

#endif
