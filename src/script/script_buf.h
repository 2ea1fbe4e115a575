/* script_buf.h: a growing NUL-terminated byte string, for the script
 * parser, matcher and report (messages, expanded commands, escaped
 * server text). */
#ifndef IMAPSTRESS_SCRIPT_BUF_H
#define IMAPSTRESS_SCRIPT_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct sbuf {
	char *s;	/* always NUL-terminated once anything was added */
	size_t len, cap;
};

void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The octets of s made safe for a terminal or a log by escape.h's
 * escape_text (\xNN for anything outside printable ASCII): every server
 * or file byte the script code shows goes through here. */
void sbuf_add_escaped(struct sbuf *b, const char *s, size_t n);
/* The string (never NULL: "" when empty); the buffer is emptied and the
 * caller owns the result. */
char *sbuf_take(struct sbuf *b);
/* s as an IMAP quoted string (the set-up's user, password and mailbox
 * names). */
void sbuf_add_quoted(struct sbuf *b, const char *s);
void sbuf_reset(struct sbuf *b);

#endif
