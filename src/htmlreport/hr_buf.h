/* hr_buf.h: the growing text buffer the HTML page is assembled in, and
 * the one escaping function every text from a server, a file or the
 * command line passes through before it lands in the page (hr_buf.c). */
#ifndef IMAPSTRESS_HR_BUF_H
#define IMAPSTRESS_HR_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct hbuf {
	char *p;
	size_t len, cap;
};

void hb_init(struct hbuf *b);
void hb_free(struct hbuf *b);
void hb_put(struct hbuf *b, const char *s);
void hb_putn(struct hbuf *b, const char *s, size_t n);
/* printf-style; the caller's format is ours, its %s arguments must be
 * ours too (use hb_esc for anything else). */
void hb_printf(struct hbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* n bytes of s as HTML text or attribute value: & < > " ' as entities;
 * control octets (below 0x20 but tab, and DEL) and bytes that are not
 * UTF-8 as the visible text "\xNN", so no raw control character and no
 * invalid UTF-8 ever reaches the page; valid UTF-8 passes. */
void hb_escn(struct hbuf *b, const char *s, size_t n);
void hb_esc(struct hbuf *b, const char *s);	/* NULL is "" */

/* A number for an attribute or a path: %.6g, and never "nan"/"inf"
 * (a gap is the caller's business): those print as 0. */
void hb_num(struct hbuf *b, double v);
/* A number for people: 3 significant digits at most, thousands kept
 * whole (12345 not 1.23e+04). */
void hb_human(struct hbuf *b, double v);

#endif
