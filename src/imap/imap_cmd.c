/* imap_cmd.c: see imap_cmd.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>

#include "imap/imap_cmd.h"

/* Room for the text of a set of up to 100 sequence numbers. */
#define FETCH_SET_MAX_TEXT 1200

/* The inline text goes to buf (empty until now), and so does all that
 * follows. */
static void
cmd_spill(struct imap_cmd *c)
{
	if (!c->inline_on)
		return;
	c->inline_on = false;
	if (c->text_len > 0)
		evbuffer_add(c->buf, c->text, c->text_len);
	c->text_len = 0;
}

/* Where text goes now. */
static struct evbuffer *
cmd_out(struct imap_cmd *c)
{
	return c->after_ref ? c->side : c->buf;
}

/* Append text where it goes now. */
static void
cmd_put(struct imap_cmd *c, const void *s, size_t n)
{
	if (c->inline_on) {
		if (n <= sizeof(c->text) - c->text_len) {
			memcpy(c->text + c->text_len, s, n);
			c->text_len += n;
			return;
		}
		cmd_spill(c);
	}
	evbuffer_add(cmd_out(c), s, n);
}

size_t
imap_cmd_len(const struct imap_cmd *c)
{
	return c->text_len + evbuffer_get_length(c->buf) +
	    (c->after_ref ? evbuffer_get_length(c->side) : 0);
}

void
imap_cmd_flush(struct imap_cmd *c)
{
	cmd_spill(c);
	if (c->after_ref && evbuffer_get_length(c->side) > 0)
		evbuffer_add_buffer(c->buf, c->side);
}

void
imap_cmd_add_ref(struct imap_cmd *c, const void *data, size_t n)
{
	imap_cmd_flush(c);
	evbuffer_add_reference(c->buf, data, n, NULL, NULL);
	if (c->side != NULL)
		c->after_ref = true;
}

void
imap_cmd_add_out(struct imap_cmd *c, const char *s, size_t n)
{
	cmd_put(c, s, n);
}

void
imap_cmd_printf(struct imap_cmd *c, const char *fmt, ...)
{
	va_list ap;
	if (c->inline_on) {
		size_t room = sizeof(c->text) - c->text_len;
		va_start(ap, fmt);
		int n = vsnprintf(c->text + c->text_len, room, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < room) {
			c->text_len += (size_t)n;
			return;
		}
		cmd_spill(c);	/* did not fit: print it again into buf */
	}
	va_start(ap, fmt);
	evbuffer_add_vprintf(cmd_out(c), fmt, ap);
	va_end(ap);
}

bool
imap_cmd_literal(struct imap_cmd *c, uint64_t n)
{
	/* "{n+}\r\n" or "{n}\r\n", without printf (every APPEND has one) */
	char hdr[32];
	size_t len;

	if (!c->literal_plus && c->n_splits == IMAP_CMD_MAX_SPLITS)
		return false;
	hdr[0] = '{';
	len = 1 + imap_fmt_u64(hdr + 1, n);
	if (c->literal_plus)
		hdr[len++] = '+';
	memcpy(hdr + len, "}\r\n", 3);
	cmd_put(c, hdr, len + 3);
	if (!c->literal_plus)
		c->splits[c->n_splits++] = imap_cmd_len(c);
	return true;
}

bool
imap_cmd_quotable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\0' || ch == '\r' || ch == '\n' || ch >= 0x80)
			return false;
	}
	return true;
}

bool
imap_cmd_astring(struct imap_cmd *c, const char *s, size_t n)
{
	if (!imap_cmd_quotable(s, n)) {
		if (!imap_cmd_literal(c, n))
			return false;
		cmd_put(c, s, n);
		return true;
	}
	cmd_put(c, "\"", 1);
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			cmd_put(c, s + start, i - start);
			cmd_put(c, "\\", 1);
			start = i;
		}
	}
	cmd_put(c, s + start, n - start);
	cmd_put(c, "\"", 1);
	return true;
}

size_t
imap_fmt_u64(char *buf, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

size_t
imap_seqset_str(char *buf, size_t size, const uint32_t *seqs, unsigned n)
{
	size_t o = 0;
	unsigned i = 0;

	if (size == 0)
		return 0;
	/* a range takes at most 22 octets and the NUL one more */
	while (i < n && o + 24 < size) {
		unsigned j = i;
		while (j + 1 < n && seqs[j + 1] <= seqs[j] + 1)
			j++;
		if (i != 0)
			buf[o++] = ',';
		o += imap_fmt_u64(buf + o, seqs[i]);
		if (seqs[j] != seqs[i]) {
			buf[o++] = ':';
			o += imap_fmt_u64(buf + o, seqs[j]);
		}
		i = j + 1;
	}
	buf[o] = '\0';
	return o;
}

void
imap_cmd_seqset(struct imap_cmd *c, const uint32_t *seqs, unsigned n)
{
	/* 100 numbers of at most 10 digits and a separator each. */
	char buf[FETCH_SET_MAX_TEXT];
	size_t len = imap_seqset_str(buf, sizeof(buf), seqs, n);
	cmd_put(c, buf, len);
}
