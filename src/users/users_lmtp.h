/* users_lmtp.h: mail arriving for the users of one worker, over that
 * worker's LMTP client (lmtp.h) on its own event loop: INBOX and Spam (RCPT
 * TO:<user+Spam>, Dovecot's lmtp_save_to_detail_mailbox) when users_due.c
 * says, and LoadSim's mail (users_loadsim.c) when the profile has no
 * submission_port (else users_submit.c carries it).  Declares users_lmtp.c's
 * functions (ulmtp_) for the files of src/users/ that call them; the
 * driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_LMTP_H
#define IMAPSTRESS_USERS_LMTP_H

#include "users/users_int.h"

void ulmtp_attach(struct uworker *uw);
void ulmtp_detach(struct uworker *uw);
/* One mail of the user's INBOX or Spam interval. */
void ulmtp_deliver_own(struct user *u, enum ufolder f);
/* Deliver one new message to user `to` (same worker) over LMTP:
 * LoadSim's mail when the profile has no submission_port. */
void ulmtp_send(struct user *from, struct user *to);
bool ulmtp_busy(const struct uworker *uw);
/* A result of either client: counted as action act (deliver, submit) and
 * for the recipient (delivered, push clock started). */
struct lmtp_result;
void ulmtp_outcome(struct uworker *uw, const struct lmtp_result *r,
		   int act);
/* An LMTP or submission client's env for this worker: its loop, host
 * (numeric; NULL: the IMAP server's) and port, its share of
 * lmtp_max_parallel_count, the message pool, stats and callback (cb_arg
 * uw). */
struct lmtp_env;
struct lmtp_stats;
/* env's address: host (numeric; NULL: the IMAP server's) and port (also
 * POP3's, users_pop3.c). */
struct shared;
void ulmtp_addr(struct lmtp_env *env, const struct shared *sh,
		const char *host, unsigned port);
void ulmtp_env(struct lmtp_env *env, struct uworker *uw, const char *host,
	       unsigned port, struct lmtp_stats *stats,
	       void (*on_result)(void *, const struct lmtp_result *));

#endif
