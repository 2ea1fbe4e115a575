/* imap_cmd.h: building IMAP commands into an evbuffer: strings quoted or
 * sent as literals, LITERAL+ when the server has it and synchronizing
 * literals otherwise.  A command with synchronizing literals records the
 * offsets at which the sender must stop and wait for a "+" continuation. */
#ifndef IMAPSTRESS_IMAP_CMD_H
#define IMAPSTRESS_IMAP_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct evbuffer;

#define IMAP_CMD_MAX_SPLITS 64
/* Text a command keeps inline before it needs its evbuffer. */
#define IMAP_CMD_INLINE 256

struct imap_cmd {
	struct evbuffer *buf;
	/* imap_cmd_inline(): the text so far, while it fits and nothing has
	 * been added by reference; then it moves to buf.  A short command
	 * (NOOP, FETCH, STORE) then goes to the output in one copy, not
	 * through a chain of its own that is allocated, moved and freed per
	 * command (10% of the client's CPU on pipelined NOOPs). */
	char text[IMAP_CMD_INLINE];
	size_t text_len;
	bool inline_on;
	/* Where text goes once a referenced body has been added: libevent
	 * would give text added after a reference chain a fresh chain as
	 * big as that body (a 75 KB allocation for " {4096+}\r\n"), so it
	 * is built here and moved over whole.  NULL: write to buf. */
	struct evbuffer *side;
	bool after_ref;
	/* Byte offsets in buf after which a "+" must be awaited. */
	size_t splits[IMAP_CMD_MAX_SPLITS];
	unsigned n_splits;
	bool literal_plus;	/* server advertised LITERAL+ */
	/* Where the command's words start, after its tag and space, as the
	 * tag's writer marked it (imap_cmd_mark_words); 0: not marked.  A
	 * reader of every command (the foreign-mail gate) then needs no
	 * search for the tag's end. */
	uint16_t words_at;
};

/* The accessors below are inline: every command calls them (callgrind:
 * 30 instructions of calls per pipelined NOOP). */
static inline void
imap_cmd_init(struct imap_cmd *c, struct evbuffer *buf, bool literal_plus)
{
	c->buf = buf;
	c->side = NULL;
	c->after_ref = false;
	c->n_splits = 0;
	c->literal_plus = literal_plus;
	c->text_len = 0;
	c->inline_on = false;
	c->words_at = 0;
}
/* Keep the text inline (see struct imap_cmd) until it outgrows it or a
 * reference is added; buf then gets it first.  Call right after init. */
static inline void
imap_cmd_inline(struct imap_cmd *c)
{
	c->inline_on = true;
}
/* True when the whole command is still inline: *text, *len is all of it
 * (buf holds nothing).  False once it has moved to buf. */
static inline bool
imap_cmd_inline_text(const struct imap_cmd *c, const char **text, size_t *len)
{
	if (!c->inline_on)
		return false;
	*text = c->text;
	*len = c->text_len;
	return true;
}
/* The command's length so far, wherever its text is. */
size_t imap_cmd_len(const struct imap_cmd *c);
/* Use side (an empty evbuffer the caller keeps) for text after references. */
static inline void
imap_cmd_set_side(struct imap_cmd *c, struct evbuffer *side)
{
	c->side = side;
}
/* Append n octets by reference (they must outlive the send). */
void imap_cmd_add_ref(struct imap_cmd *c, const void *data, size_t n);
/* Move inline text, then text waiting in side, into buf; call before
 * sending buf. */
void imap_cmd_flush(struct imap_cmd *c);

/* The text so far is the tag and its space: the words start here.  Only
 * while the text is inline (right after imap_cmd_inline and the tag). */
static inline void
imap_cmd_mark_words(struct imap_cmd *c)
{
	if (c->inline_on && c->text_len < UINT16_MAX)
		c->words_at = (uint16_t)c->text_len;
}

/* Room for n octets at the end of the inline text, for text made in
 * place (a tag: no copy through a buffer of the caller's), or NULL when
 * the text is not inline or has not the room; imap_cmd_wrote then adds
 * the k octets written there. */
static inline char *
imap_cmd_room(struct imap_cmd *c, size_t n)
{
	return c->inline_on && n <= sizeof(c->text) - c->text_len ?
	    c->text + c->text_len : NULL;
}
static inline void
imap_cmd_wrote(struct imap_cmd *c, size_t k)
{
	c->text_len += k;
}

/* imap_cmd_add when the text does not stay inline. */
void imap_cmd_add_out(struct imap_cmd *c, const char *s, size_t n);
/* Append raw text.  Inline: every command adds its tag, its words and
 * its "\r\n" this way, most of them short and while the text is inline,
 * a copy of a length often known when compiling (callgrind: a call and
 * a generic copy each, 66 instructions of a pipelined NOOP). */
static inline void
imap_cmd_add(struct imap_cmd *c, const char *s, size_t n)
{
	if (c->inline_on && n <= sizeof(c->text) - c->text_len) {
		memcpy(c->text + c->text_len, s, n);
		c->text_len += n;
		return;
	}
	imap_cmd_add_out(c, s, n);
}
/* Inline, so that the length of a constant is known when compiling
 * (every command adds its verb and its "\r\n" this way). */
static inline void
imap_cmd_adds(struct imap_cmd *c, const char *s)
{
	imap_cmd_add(c, s, strlen(s));
}
void imap_cmd_printf(struct imap_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append "{N+}\r\n" (LITERAL+) or "{N}\r\n" and a split point; the caller
 * then appends exactly N octets.  Returns false when too many sync
 * literals were used in one command. */
bool imap_cmd_literal(struct imap_cmd *c, uint64_t n);

/* An astring: quoted when it can be ("\"" and "\\" escaped), a literal
 * when it holds CR, LF, NUL or 8-bit octets. */
bool imap_cmd_astring(struct imap_cmd *c, const char *s, size_t n);

/* Can s be sent as a quoted string? */
bool imap_cmd_quotable(const char *s, size_t n);

/* "1,3:7,9" from a sorted array of sequence numbers (runs collapsed). */
void imap_cmd_seqset(struct imap_cmd *c, const uint32_t *seqs, unsigned n);
/* The decimal digits of v at buf (room for 20; no NUL); returns how many.
 * By hand: tags, sequence sets and the fake server's replies are on every
 * command's path, and snprintf cost more than the rest of building them. */
size_t imap_fmt_u64(char *buf, uint64_t v);
/* The same set as text into buf (cut short if it does not fit); returns
 * its length. */
size_t imap_seqset_str(char *buf, size_t size, const uint32_t *seqs,
		       unsigned n);

#endif
