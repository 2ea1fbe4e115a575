/* lmtp_int.h: private between src/lmtp/ files: the wire helpers
 * (lmtp_wire.c) and the client (lmtp_client.c). */
#ifndef IMAPSTRESS_LMTP_INT_H
#define IMAPSTRESS_LMTP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lmtp/lmtp.h"

/* One reply line, without its CRLF: "250-text", "250 text" or "250".
 * Fills the code (200..599), whether it is the reply's last line, and the
 * text after the separator.  -1 when it is not a reply line. */
int lmtp_reply_line(const char *line, size_t len, int *code, bool *last,
		    const char **text, size_t *text_len);

/* Copies text into out (n bytes) escaped (escape.h): server text never
 * reaches a terminal or a log raw. */
void lmtp_printable(char *out, size_t n, const char *text, size_t len);

/* An address lmtp_deliver accepts. */
bool lmtp_addr_ok(const char *a);

#endif
