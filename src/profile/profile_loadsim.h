/* profile_loadsim.h: the LoadSim extension of imaptest's profile format.
 * Exchange's Load Simulator describes a user as actions per 8-hour day
 * (send mail 12, browse mail 20, ...) and a mailbox to create first (100
 * messages in the inbox, ...); these keys say the same in a profile file:
 *
 *   global:   day_length, day_compressed_to (time compression),
 *             distribution_lists, distribution_list_{min,avg,max}_size,
 *             score_weight_ACTION, init_* (the mailbox table)
 *   user { }: ACTION_per_day, received_mail_per_day,
 *             sent_mail_per_day (counting recipients),
 *             send_recipients_{min,avg,max}
 *   client { }: client_mode = online | cached
 *
 * Parsing only: a LoadSim key is valid input; the profile user driver is
 * what will act on the actions (--profile-check says so), `imapstress
 * init` acts on the init_* keys today.  The IMAP meaning of each action is
 * in the man page (PROFILE FILES, LoadSim extension). */
#ifndef IMAPSTRESS_PROFILE_LOADSIM_H
#define IMAPSTRESS_PROFILE_LOADSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* LoadSim's user actions, in the order of the seed's table. */
enum loadsim_action {
	LS_SEND_MAIL,
	LS_CLEAN_INBOX,
	LS_BROWSE_MAIL,
	LS_FREE_BUSY,
	LS_MEETING_REQUEST,
	LS_MAKE_APPOINTMENT,
	LS_BROWSE_CALENDAR,
	LS_JOURNAL,
	LS_LOG_OFF,
	LS_BROWSE_CONTACTS,
	LS_CREATE_CONTACT,
	LS_N_ACTIONS
};

/* "send_mail", ... (the key is NAME_per_day, the weight score_weight_NAME). */
extern const char *const loadsim_action_name[LS_N_ACTIONS];

enum loadsim_client_mode {
	LS_MODE_UNSET,		/* no client_mode: not a LoadSim client */
	LS_MODE_ONLINE,		/* re-fetches headers on each browse */
	LS_MODE_CACHED		/* CONDSTORE/QRESYNC sync, COMPRESS */
};

#define LS_NAME_MAX 64		/* init_deleted_folder, init_folder_prefix */
/* Clean inbox empties the deleted folder past this many messages: about
 * a day of the cached scenario's cleans (20), so a compressed day empties
 * it about once per user, and it stays near the size of the seed's other
 * folders (10). */
#define LS_DELETED_MAX_DEFAULT 20

/* One user { } block's LoadSim keys.  Rates are per day_length. */
struct loadsim_user {
	bool any;			/* some LoadSim key was given */
	double per_day[LS_N_ACTIONS];
	double received_per_day;	/* informational: others' sends */
	double sent_per_day;		/* recipients counted */
	unsigned rcpt_min, rcpt_max;	/* 0: not given */
	double rcpt_avg;		/* 0: sent_per_day / send_mail */
	/* deleted_folder_max_messages: clean inbox empties the deleted
	 * folder when it holds more (LS_DELETED_MAX_DEFAULT when not
	 * given). */
	unsigned deleted_max;
	unsigned seen[24];		/* line each key was set on */
};

/* The mailbox `imapstress init` creates; `has` says which were given. */
struct loadsim_init {
	unsigned inbox, deleted, new_folders, folder_messages;
	unsigned calendar, contacts;
	uint64_t msg_size;		/* mean, octets */
	char deleted_folder[LS_NAME_MAX + 1];
	char folder_prefix[LS_NAME_MAX + 1];
	unsigned has;			/* bit per LS_INIT_* */
};

enum loadsim_init_key {
	LS_INIT_INBOX, LS_INIT_DELETED, LS_INIT_NEW_FOLDERS,
	LS_INIT_FOLDER_MESSAGES, LS_INIT_CALENDAR, LS_INIT_CONTACTS,
	LS_INIT_SIZE, LS_INIT_DELETED_FOLDER, LS_INIT_FOLDER_PREFIX,
	LS_INIT_N
};

struct profile_loadsim {
	bool any;			/* some LoadSim key in the file */
	uint64_t day_length_us;		/* default 8 h */
	uint64_t day_compressed_us;	/* 0: the day runs in real time */
	unsigned dl_count, dl_min, dl_avg, dl_max;
	double weight[LS_N_ACTIONS];
	bool has_weights;
	struct loadsim_init init;
	struct loadsim_user users[64];	/* per user block (PROFILE_MAX_BLOCKS) */
	enum loadsim_client_mode mode[64];	/* per client block */
	unsigned seen_global[40];
	unsigned mode_line[64];
};

struct profile;

/* Where a key line is (the parser's section). */
enum loadsim_where { LS_IN_ROOT, LS_IN_USER, LS_IN_CLIENT };

/* A key the base table did not know.  1: not a LoadSim key either (the
 * caller says "unknown key"); 0: set; -1: bad, `why` holds the problem
 * (values in it escaped), for the caller's "FILE:LINE: KEY: why". */
int profile_loadsim_key(struct profile *p, enum loadsim_where in,
			unsigned block, const char *key, const char *val,
			unsigned line, char *why, size_t n);

/* After the last line: defaults and the checks across keys (min <= avg <=
 * max).  -1 with `why`, and *line / *key saying where. */
int profile_loadsim_finish(struct profile *p, unsigned *line,
			   const char **key, char *why, size_t n);

/* A folder name init can STATUS and APPEND to as written: printable
 * ASCII (no modified UTF-7 to encode), no IMAP wildcards, quotes or
 * backslashes, no blank at either end, 1..LS_NAME_MAX long.  0 with it
 * copied to out (LS_NAME_MAX + 1), or -1 with why. */
int profile_loadsim_folder_name(const char *s, char *out, const char **why);

/* The time compression factor: day_length / day_compressed_to (1 when the
 * day runs in real time). */
double profile_loadsim_speedup(const struct profile_loadsim *ls);

/* --profile-check: what the LoadSim keys say (nothing when there are none). */
void profile_loadsim_print(const struct profile *p, FILE *out);

#endif
