/* users_submit.h: the mail profile users send, by SMTP submission (RFC 6409)
 * to the profile's submission_host:submission_port, on a second client of
 * the worker's loop (lmtp.h, LMTP_PROTO_SUBMIT): each message AUTHenticates
 * as its sender with the sender's password (the userfile's, else the run's
 * pass=) unless submission_auth = none, and the envelope sender is the
 * sender's name.  Declares users_submit.c's functions (usubmit_) for the
 * files of src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_SUBMIT_H
#define IMAPSTRESS_USERS_SUBMIT_H

#include "users/users_int.h"

/* Users' sends over SMTP submission, authenticated as
 * themselves (uw->submit, when the profile gives submission_port). */
void usubmit_attach(struct uworker *uw);
void usubmit_detach(struct uworker *uw);
/* A user's send to `to`: by submission when the profile has a
 * submission_port, else ulmtp_send. */
void usubmit_send(struct user *from, struct user *to);
/* A message to n users of from's worker (LoadSim's recipients and
 * meeting attendees): with submission one message with n RCPTs (distinct,
 * at most the worker's users), else n LMTP deliveries. */
void usubmit_send_list(struct user *from, unsigned n);
bool usubmit_busy(const struct uworker *uw);
/* submission_tls = starttls: run->submit_tls, on the main thread before
 * any worker (tls.c's warm-up); 0, or -1 with a message.  _free: NULL
 * ok. */
int usubmit_tls_new(struct users *run, char *err, size_t n);
void usubmit_tls_free(struct users *run);

#endif
