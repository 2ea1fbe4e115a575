/* users_cached.h: what makes a LoadSim "cached mode" client (client_mode =
 * cached) cheaper than an online one, as Outlook's cached Exchange mode is:
 * it keeps a cache of INBOX (the highest UID whose headers it has, the
 * highest MODSEQ it has seen, the UIDVALIDITY they belong to) and asks the
 * server only for what changed.  Declares users_cached.c's functions
 * (ucached_) for the files of src/users/ that call them; the driver's types
 * are in users_int.h. */
#ifndef IMAPSTRESS_USERS_CACHED_H
#define IMAPSTRESS_USERS_CACHED_H

#include "users/users_int.h"

/* Set-up step 0 of a cached client: COMPRESS, ENABLE QRESYNC; true when
 * a command went out (done, the set-up's, gets its reply and calls
 * ucached_prepared, then goes on). */
bool ucached_prepare(struct uconn *uc, conn_done_fn done);
/* What the COMPRESS or ENABLE reply st says (counted, QRESYNC on). */
void ucached_prepared(struct uconn *uc, struct conn *c, enum conn_reply st);
/* The set-up's SELECT INBOX, with QRESYNC when the cache has something. */
void ucached_select(struct uconn *uc, char *cmd, size_t n);
/* An untagged response to the set-up's SELECT INBOX; and its OK. */
void ucached_untagged(struct uconn *uc, const struct imap_resp *r);
void ucached_selected(struct uconn *uc);
/* A FETCH of browse mail: `sync` for the CHANGEDSINCE of known UIDs, else
 * the headers of new ones. */
void ucached_fetch(struct uconn *uc, const struct imap_resp *r, bool sync);

#endif
