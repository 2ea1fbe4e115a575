/* imap_resp.h: internal to the response parser, between imap.c (framing
 * the byte stream into responses) and imap_resp.c (decoding each one).
 * The public API stays in imap.h. */
#ifndef IMAPSTRESS_IMAP_RESP_H
#define IMAPSTRESS_IMAP_RESP_H

#include <stddef.h>

#include "imap/imap.h"

/* Split the complete response line[0..len) (CRLF removed, captured
 * literals inline) into *r; literal_bytes and literals are left 0 for the
 * framing to fill in.  Returns 0, or -1 with a message quoting the
 * response in err (errsz octets; err may be NULL when errsz is 0). */
int imap_resp_decode(struct imap_resp *r, const char *line, size_t len,
		     char *err, size_t errsz);

/* A printable excerpt of server bytes for error messages: escaped by
 * escape_text (escape.h), and cut with "..." when it does not fit.
 * Returns out. */
const char *imap_resp_excerpt(char *out, size_t outsz, const char *s,
			      size_t n);

#endif
