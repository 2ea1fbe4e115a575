/* profile.h: imaptest's profile file (profile=FILE, --profile FILE), parsed
 * into a plain struct, and its expansion into the users a run will play.
 *
 * The format (imaptest's docs/profile.md, read as a spec; our own parser):
 *
 *   # comment                       whole lines only, after optional blanks
 *   lmtp_port = 24                  global keys, outside any block
 *   user NAME {                     NAME optional; one line opens a block
 *     count = 10%                   ... key = value lines ...
 *   }                               alone on its line
 *   client NAME { ... }
 *
 * Durations are Dovecot's time settings: a number, optional blanks and a
 * unit (ms, s, sec(s), second(s), m, min(s), minute(s), h, hour(s), d,
 * day(s), w, week(s); none = seconds): "3 min", "10s", "2 mins", "1 hour".
 * A duration of 0 means "never" (the imaptest meaning) for the intervals.
 *
 * Every error is one line "FILE:LINE: KEY: problem" (the caller prefixes
 * the program name); keys imaptest has but imapstress does not implement
 * (mail_write_size, imap_search_query, ...) are refused by name, never
 * ignored.  imap_status_interval is read and unused, as imaptest does; a
 * client block with protocol = pop3 is played by POP3 sessions
 * (src/users/users_pop3.c) on pop3_port.
 *
 * Nothing here opens a socket or starts a timer: the profile user driver
 * (a later piece of work) reads these structs. */
#ifndef IMAPSTRESS_PROFILE_H
#define IMAPSTRESS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "msg/msg_sizes.h"
#include "profile/profile_loadsim.h"
#include "util/rng.h"

#define PROFILE_MAX_BLOCKS 64		/* of each kind */
/* total_user_count: Dovecot's documented tests use 2 and 4 million; a
 * user that is not connected costs the plan's 16 bytes and its name. */
#define PROFILE_MAX_USERS 50000000u
#define PROFILE_MAX_FILE (1u << 20)	/* bytes of profile text */
#define PROFILE_MAX_FETCH 1024		/* imap_fetch_* value length */
#define PROFILE_MAX_NAME 64		/* block name length */
#define PROFILE_POP3_PORT_DEFAULT 110	/* pop3_port unset (imaptest's) */
#define PROFILE_POP3S_PORT_DEFAULT 995	/* the same with ssl / --tls */

/* username_format, compiled: a literal prefix and suffix around one index
 * (imaptest's templates hold at most one), padded to `width` with `pad`. */
struct profile_template {
	char *text;		/* as written, for messages */
	char *prefix, *suffix;	/* %% already unescaped */
	bool has_index;		/* false: every user gets the same name */
	unsigned width;		/* 0 = no padding */
	char pad;
	unsigned trunc;		/* %Nn: at most N characters; 0 = all */
};

/* A `user NAME { }` block.  Durations in microseconds; 0 = never/none. */
struct profile_user_block {
	char name[PROFILE_MAX_NAME + 1];
	unsigned line;			/* where the block opened */
	unsigned count_pct;		/* count = N% */
	struct profile_template username;	/* when has_username */
	bool has_username;
	/* A username_format we cannot expand: refused at the end of the
	 * file unless the block has count = 0%, whose names imaptest never
	 * expands (its own profile.conf has `test%d` in such a block). */
	unsigned username_bad_line;		/* 0: none */
	char username_bad[160];			/* why, value escaped */
	char *userfile;			/* NULL unless userfile = */
	unsigned userfile_line;
	unsigned start_index;		/* username_start_index, default 1 */
	uint64_t session_length_us;	/* mail_session_length; 0 = forever */
	uint64_t inbox_delivery_us;	/* mail_inbox_delivery_interval */
	uint64_t spam_delivery_us;	/* mail_spam_delivery_interval */
	uint64_t action_delay_us;	/* mail_action_delay */
	uint64_t action_repeat_us;	/* mail_action_repeat_delay */
	uint64_t send_interval_us;	/* mail_send_interval */
	uint64_t write_duration_us;	/* mail_write_duration */
	unsigned reply_pct, delete_pct, move_pct, move_filter_pct;
	unsigned n_users;		/* after apportioning (profile_expand) */
};

/* protocol = imap (the default) or pop3. */
enum profile_protocol { PROFILE_PROTO_IMAP, PROFILE_PROTO_POP3 };
/* push: how a client waits for new mail between its jobs. */
enum profile_push {
	PROFILE_PUSH_IDLE,	/* IDLE (or NOOP polling: imap_idle = no) */
	PROFILE_PUSH_NOTIFY	/* NOTIFY SET (RFC 5465), no IDLE, no poll */
};

/* A `client NAME { }` block. */
struct profile_client_block {
	char name[PROFILE_MAX_NAME + 1];
	unsigned line;
	unsigned count_pct;
	unsigned connection_max;	/* connection_max_count; unset = 1,
					 * 0 = no IMAP client (LMTP only) */
	bool imap_idle;
	enum profile_push push;
	char *fetch_immediate;		/* NULL = imaptest's "UID" default */
	char *fetch_manual;		/* NULL = "BODY.PEEK[]" */
	uint64_t login_interval_us;	/* 0 = stay logged in */
	enum profile_protocol protocol;
	bool pop3_keep_mails;		/* POP3: RETR, never DELE */
	uint64_t status_interval_us;	/* imap_status_interval: parsed and
					 * unused, as in imaptest */
	unsigned n_users;		/* after profile_expand */
};

/* One user of the run, after expansion. */
struct profile_user {
	char *name;
	const char *pass;	/* from the userfile; NULL = the run's pass= */
	unsigned index;		/* its username_idx (or userfile line) */
	unsigned block;		/* index into profile.users */
	unsigned client;	/* index into profile.clients */
};

/* submission_auth: how profile users authenticate to submission_port. */
enum profile_submit_auth {
	PROFILE_SUBMIT_ANY,	/* PLAIN when offered, else LOGIN */
	PROFILE_SUBMIT_PLAIN,
	PROFILE_SUBMIT_LOGIN,
	PROFILE_SUBMIT_NONE	/* no AUTH (an MTA trusting 127.0.0.1) */
};

struct profile {
	char *path;
	unsigned lmtp_port;		/* required, 1..65535 */
	unsigned pop3_port;		/* POP3 clients' port; 0: the default */
	/* Users send their mail by SMTP submission when submission_port is
	 * set (profile_submit.c); mail from outside stays on LMTP. */
	char *submission_host;		/* NULL: the IMAP server's address */
	unsigned submission_port;	/* 0: no submission client */
	enum profile_submit_auth submission_auth;
	/* Appended as "@DOMAIN" to user names without '@' in the envelope
	 * (an MTA may refuse a bare name, as Dovecot's submission does);
	 * NULL: names as they are. */
	char *submission_domain;
	bool submission_tls;		/* submission_tls = starttls */
	/* Recipients of each message a user sends by submission (a
	 * distribution list): 1..PROFILE_MAX_RCPTS, default 1. */
	unsigned submission_rcpts;
	/* LMTP's own host (numeric), separate from the IMAP server's (a
	 * proxy in front of IMAP, LMTP straight to a backend); NULL: the
	 * IMAP server's address. */
	char *lmtp_host;
	char *pop3_host;		/* POP3 clients' host; NULL: IMAP's */
	/* pop3_auth = plain: POP3 clients log in by AUTH PLAIN (RFC 5034)
	 * rather than USER and PASS. */
	bool pop3_auth_plain;
	unsigned submission_seen[9];	/* lines of profile_submit.c's keys */
	unsigned lmtp_max_parallel;	/* 0 = unlimited */
	/* msg_sizes = SPEC: the run's message sizes as --msg-sizes gives
	 * them (which wins); .n == 0 when the file has none. */
	struct msg_sizes msg_sizes;
	unsigned total_users;		/* required */
	uint64_t rampup_us;
	struct profile_user_block users[PROFILE_MAX_BLOCKS];
	unsigned n_user_blocks;
	struct profile_client_block clients[PROFILE_MAX_BLOCKS];
	unsigned n_client_blocks;
	struct profile_loadsim loadsim;	/* the LoadSim extension's keys */
	/* Filled by profile_expand: */
	struct profile_user *u;
	unsigned n_u;			/* total_users less n_repeated */
	unsigned n_repeated;		/* names given twice: one user each */
	struct userfile *userfiles[PROFILE_MAX_BLOCKS];	/* per user block */
};

/* Parse `len` bytes of profile text (need not be NUL-terminated; a NUL
 * byte is an error).  `path` only names the file in messages.  NULL with
 * "PATH:LINE: KEY: problem" in err on any error. */
struct profile *profile_parse(const char *path, const char *text, size_t len,
			      char *err, size_t errlen);

/* Read PATH (a regular file of at most PROFILE_MAX_FILE bytes) and parse
 * it. */
struct profile *profile_load(const char *path, char *err, size_t errlen);

/* Split total_user_count over the user blocks and the client blocks by
 * their count= (largest remainder, so the shares add up exactly), name
 * every user (username_format with username_start_index, or the first
 * lines of the block's userfile) and give each a client kind: a
 * Fisher-Yates shuffle seeded with `seed`, so the same seed gives the same
 * assignment.  0, or -1 with a message naming the file, line and key. */
int profile_expand(struct profile *p, uint64_t seed, char *err, size_t errlen);

void profile_free(struct profile *p);		/* NULL is a no-op */

#define PROFILE_MAX_RCPTS 100

/* --submission-* and --lmtp-host over the file's submission_* and
 * lmtp_host keys, and the check that a submission key has a port: 0, or
 * -1 with a message. */
struct config;
int profile_submit_cli(struct profile *p, const struct config *cfg,
		       char *err, size_t n);
const char *profile_submit_auth_name(enum profile_submit_auth a);

/* username_format for index idx into out (always NUL-terminated); the
 * length it needed, like snprintf. */
size_t profile_template_expand(const struct profile_template *t, unsigned idx,
			       char *out, size_t n);

/* imaptest's randomized interval: around n, spread normal-like with
 * sigma = n/2, clamped to [0, 2n] so that the mean stays exactly n (a
 * user's deliveries per hour are then 3600 s / n on average).  Pure: all
 * randomness comes from r.  n = 0 gives 0. */
uint64_t profile_jitter_us(struct rng *r, uint64_t n_us);

/* The first start time of user i of n: spread linearly over rampup, as
 * imaptest does (user i starts at rampup * (i + 1) / n). */
uint64_t profile_start_offset_us(const struct profile *p, unsigned i,
				 unsigned n);

/* What a user does with a read INBOX mail (profile_action.c): imaptest's
 * order, delete, else move, else reply, each with its own percentage. */
enum profile_action { PROFILE_ACT_KEEP, PROFILE_ACT_DELETE, PROFILE_ACT_MOVE,
		      PROFILE_ACT_REPLY };
enum profile_action profile_pick_action(struct rng *r,
					const struct profile_user_block *ub);
/* The shares of read mail (0..1) that order gives. */
void profile_action_shares(const struct profile_user_block *ub, double *del,
			   double *move, double *reply);

/* Expected LMTP deliveries per hour (INBOX + Spam) of the expanded plan. */
double profile_deliveries_per_hour(const struct profile *p);

/* --profile-check: the expanded plan, a few lines per block. */
void profile_print_plan(const struct profile *p, FILE *out);

/* Shard i of n of the expanded plan's users: p->u[*lo .. *hi), one
 * contiguous slice (profile_shard.c; n 0 or 1: all of them).  -1 with a
 * message when there are fewer users than shards. */
int profile_shard(const struct profile *p, unsigned i, unsigned n,
		  unsigned *lo, unsigned *hi, char *err, size_t errlen);
/* --profile-check with a shard: its users, one line each (name, user
 * block, client kind), after the plan. */
void profile_print_shard(const struct profile *p, unsigned i, unsigned n,
			 unsigned lo, unsigned hi, FILE *out);

#endif
