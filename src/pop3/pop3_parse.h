/* pop3_parse.h: a pure, incremental POP3 response parser (RFC 1939 3):
 * bytes in, events out.  No sockets, no event loop.
 *
 * A response is a status line ("+OK text" or "-ERR text") and, after a
 * +OK to a command that has one (CAPA, UIDL, LIST, RETR, TOP), a body of
 * lines ended by a line holding a single ".".  Only the caller knows
 * which command a response answers, so the status event's callback
 * returns whether a body follows.  Body lines come out one at a time,
 * dot-unstuffed ("..x" is ".x"), without their CRLF; the parser keeps one
 * line at most, so a 50 MB RETR costs max_line bytes of memory.
 *
 * Limits against a hostile server: a line longer than max_line bytes
 * (without its CRLF) or a response of more than max_resp bytes (status
 * line, body and line ends) stops the parser with an error that names
 * which; so does a status line that is neither +OK nor -ERR.  Errors are
 * sticky: feed returns the first one until pop3_parser_reset.  A line may
 * end in CRLF or a bare LF (the CR is dropped either way). */
#ifndef IMAPSTRESS_POP3_PARSE_H
#define IMAPSTRESS_POP3_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pop3_ev_kind {
	POP3_EV_STATUS,		/* ok, text: the status line after +OK/-ERR */
	POP3_EV_LINE,		/* text: one body line, unstuffed */
	POP3_EV_END		/* the body's "." */
};

struct pop3_ev {
	enum pop3_ev_kind kind;
	bool ok;		/* STATUS: +OK (true) or -ERR */
	const char *text;	/* STATUS: after "+OK " / "-ERR "; LINE: it */
	size_t len;
};

/* STATUS: return 1 when a body follows this status line, 0 when not, -1
 * to stop (POP3_PE_STOP).  LINE and END: 0 to go on, -1 to stop. */
typedef int (*pop3_ev_fn)(void *arg, const struct pop3_ev *ev);

enum pop3_perr {
	POP3_PE_NONE,
	POP3_PE_LINE,		/* a line over max_line */
	POP3_PE_SIZE,		/* a response over max_resp */
	POP3_PE_STATUS,		/* a status line neither +OK nor -ERR */
	POP3_PE_STOP,		/* the callback returned -1 */
	POP3_PE_COUNT
};

/* "line over the length limit", ... (for messages and reports). */
const char *pop3_perr_text(enum pop3_perr e);

#define POP3_MAX_LINE_DEFAULT 8192		/* RFC 1939: 512 for status */
#define POP3_MAX_RESP_DEFAULT (64u << 20)	/* one RETR's bytes */

struct pop3_parser {
	size_t max_line;
	uint64_t max_resp;
	char *line;		/* max_line + 1 */
	size_t len;		/* of the line so far */
	bool overlong;		/* the line passed max_line */
	bool in_body;
	uint64_t resp_bytes;	/* of the response so far */
	enum pop3_perr err;
};

/* 0 for either limit: its default. */
void pop3_parser_init(struct pop3_parser *p, size_t max_line,
		      uint64_t max_resp);
void pop3_parser_free(struct pop3_parser *p);
/* Forget a partial line, a body and an error: the next byte starts a
 * status line (after STLS, whose TLS layer starts afresh). */
void pop3_parser_reset(struct pop3_parser *p);
/* Feed n bytes; events go to fn as lines complete.  POP3_PE_NONE, or the
 * (sticky) error that stopped it; *used (may be NULL) says how many bytes
 * were taken (all of them without an error). */
enum pop3_perr pop3_parser_feed(struct pop3_parser *p, const char *data,
				size_t n, pop3_ev_fn fn, void *arg,
				size_t *used);
/* No partial line and no body open: between responses. */
bool pop3_parser_idle(const struct pop3_parser *p);

/* A UIDL or LIST body line, "N WORD": N (1..) and the word's extent.
 * -1 when it is not one. */
int pop3_scan_line(const char *text, size_t len, uint32_t *n,
		   const char **word, size_t *word_len);
/* STAT's "+OK N SIZE" text: N and SIZE; -1 when not. */
int pop3_scan_stat(const char *text, size_t len, uint32_t *n, uint64_t *size);

#endif
