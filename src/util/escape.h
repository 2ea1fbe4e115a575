/* escape.h: THE one function through which every byte that came from a
 * server or from the command line passes before it reaches a terminal or
 * a log (log.c runs every message through it; so do the config error
 * buffer, the report's --sla lines and the rawlog's notes).
 *
 * Octets outside printable ASCII (0x20..0x7e) are written as "\xNN"
 * (ESC is "\x1b", CR "\x0d"), so a hostile server's BYE or [ALERT] text, or
 * a user= value with escapes in it, can neither move the cursor, retitle
 * the window nor break a line into two.  Non-ASCII is escaped too (a UTF-8
 * "ö" shows as "\xc3\xb6"): no terminal can misread it as a C1 control,
 * and one grep for [^ -~] checks a log.  Backslash itself is kept as it is
 * (IMAP text is full of \Seen), so the escaping is for safety, not
 * reversible.  Printable ASCII passes unchanged, so escaping twice is the
 * same as escaping once. */
#ifndef IMAPSTRESS_ESCAPE_H
#define IMAPSTRESS_ESCAPE_H

#include <stddef.h>

/* Escape len octets of src (NULs included) into dst, which gets at most
 * size - 1 characters and a NUL; an escape that does not fit whole is left
 * out, so a short buffer holds a prefix of what a long one would.  Returns
 * the length written.  size 0 writes nothing. */
size_t escape_text(char *dst, size_t size, const char *src, size_t len);

/* How long escape_text's result is with room enough. */
size_t escape_len(const char *src, size_t len);

/* The same, in place, for a NUL-terminated string in a buffer of size
 * octets (the config error buffer): the result is cut at size - 1 even
 * inside an escape, so a message formatted into a short buffer is exactly
 * the start of the same message in a long one. */
void escape_in_place(char *buf, size_t size);

/* The offset of the first control octet of NUL-terminated s (below 0x20,
 * or DEL), strlen(s) when it has none.  User names and passwords are
 * refused with one (config, userfile.c): a CR or LF would end the LOGIN
 * line early, an ESC would reach the rawlog and the server's logs. */
size_t escape_find_ctl(const char *s);

#endif
