/* init_spec.h: what `imapstress init` creates in every mailbox (the
 * folders and how many messages each holds), and the plan of what is
 * missing given what the server holds.
 *
 * The default is the LoadSim mailbox of the Exchange report: 100 messages
 * in INBOX, 1 in "Deleted Items", 10 new folders (Folder01 .. Folder10) of
 * 10 messages, a 75 KB mean message.  The profile's init_* keys
 * (profile_loadsim.h) and init's options change it, options last. */
#ifndef IMAPSTRESS_INIT_SPEC_H
#define IMAPSTRESS_INIT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile_loadsim.h"

#define INIT_NAME_MAX LS_NAME_MAX	/* folder names and the prefix */
#define INIT_MAX_FOLDERS 1004		/* INBOX, Deleted, Calendar,
					 * Contacts and 1000 new ones */

struct init_folder {
	char name[INIT_NAME_MAX + 8];	/* prefix + 2..4 digits */
	uint32_t want;			/* messages it must hold */
};

/* The table, as counts (what options and profile keys set). */
struct init_table {
	unsigned inbox, deleted, new_folders, folder_messages;
	unsigned calendar, contacts;	/* folders "Calendar", "Contacts";
					 * 0: not created */
	uint64_t msg_size;		/* mean octets of the size mix */
	char deleted_folder[INIT_NAME_MAX + 1];	/* "Deleted Items" */
	char folder_prefix[INIT_NAME_MAX + 1];	/* "Folder" */
};

/* The table, as the folders each user gets. */
struct init_spec {
	struct init_folder *f;
	unsigned n;
	uint64_t msg_size;
	uint64_t msgs_per_user;		/* sum of want */
};

/* The seed's table. */
void init_table_defaults(struct init_table *t);
/* The profile's init_* keys that were given (ls->init.has). */
void init_table_from_profile(struct init_table *t, const struct loadsim_init *in);
/* Folders in order: INBOX, the deleted folder (when deleted > 0 or
 * it was named), the new folders PREFIX01.. (width 2, or more past 99),
 * Calendar, Contacts (when > 0).  -1 with a message when two come out
 * with the same name (a prefix of "INBOX" with no new folders, ...). */
int init_spec_build(struct init_spec *s, const struct init_table *t,
		    char *err, size_t errlen);
void init_spec_free(struct init_spec *s);

/* What STATUS said of one folder. */
struct init_have {
	bool exists;		/* STATUS answered OK */
	uint32_t messages;	/* its MESSAGES */
};

/* The work for one folder: CREATE it or not, how many to APPEND (none
 * when it holds as many or more: init never deletes). */
struct init_todo {
	bool create;
	uint32_t append;
};

/* The plan of one user, from STATUS answers, folder by folder; the sum of
 * the APPENDs it needs. */
uint64_t init_plan(const struct init_spec *s, const struct init_have *have,
		   struct init_todo *todo);

/* The check after: how folder i compares with what was asked. */
enum init_verdict {
	INIT_OK,		/* holds exactly what was asked */
	INIT_MORE,		/* holds more (mail delivered meanwhile, or a
				 * larger table before): reported, not an
				 * error, since init never deletes */
	INIT_FEWER,		/* holds fewer: an error */
	INIT_MISSING		/* STATUS said NO: an error */
};
enum init_verdict init_verdict(const struct init_folder *f,
			       const struct init_have *h);

#endif
