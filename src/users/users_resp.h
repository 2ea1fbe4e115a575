/* users_resp.h: what a user's working connection learns from the server's
 * untagged responses: the folders LIST shows, INBOX's UIDNEXT at SELECT,
 * EXISTS growing (new mail: push latency, then a fetch), EXPUNGE, and the
 * UIDs the fetch of new mail returns (queued for their action).  Declares
 * users_resp.c's functions (uresp_) for the files of src/users/ that call
 * them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_RESP_H
#define IMAPSTRESS_USERS_RESP_H

#include "users/users_int.h"

void uresp_untagged(struct uconn *uc, const struct imap_resp *r);

#endif
