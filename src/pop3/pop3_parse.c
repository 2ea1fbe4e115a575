/* pop3_parse.c: the POP3 response parser (see pop3_parse.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pop3/pop3_parse.h"
#include "util/xmalloc.h"

static const char *const perr_text[POP3_PE_COUNT] = {
	[POP3_PE_NONE] = "no error",
	[POP3_PE_LINE] = "line over the length limit",
	[POP3_PE_SIZE] = "response over the size limit",
	[POP3_PE_STATUS] = "status line neither +OK nor -ERR",
	[POP3_PE_STOP] = "stopped",
};

const char *
pop3_perr_text(enum pop3_perr e)
{
	return (unsigned)e < POP3_PE_COUNT ? perr_text[e] : "?";
}

void
pop3_parser_init(struct pop3_parser *p, size_t max_line, uint64_t max_resp)
{
	memset(p, 0, sizeof(*p));
	p->max_line = max_line ? max_line : POP3_MAX_LINE_DEFAULT;
	p->max_resp = max_resp ? max_resp : POP3_MAX_RESP_DEFAULT;
	p->line = xmalloc(p->max_line + 1);
}

void
pop3_parser_free(struct pop3_parser *p)
{
	free(p->line);
	p->line = NULL;
}

void
pop3_parser_reset(struct pop3_parser *p)
{
	p->len = 0;
	p->overlong = false;
	p->in_body = false;
	p->resp_bytes = 0;
	p->err = POP3_PE_NONE;
}

bool
pop3_parser_idle(const struct pop3_parser *p)
{
	return p->len == 0 && !p->in_body && p->err == POP3_PE_NONE;
}

/* "+OK" or "-ERR" (any case, as clients accept), then the end or a
 * blank: the text after it. */
static int
status_of(const char *l, size_t n, bool *ok, const char **text, size_t *tlen)
{
	size_t k;

	if (n >= 3 && strncasecmp(l, "+OK", 3) == 0) {
		*ok = true;
		k = 3;
	} else if (n >= 4 && strncasecmp(l, "-ERR", 4) == 0) {
		*ok = false;
		k = 4;
	} else {
		return -1;
	}
	if (k < n && l[k] != ' ')
		return -1;
	if (k < n)
		k++;
	*text = l + k;
	*tlen = n - k;
	return 0;
}

/* A complete line (CR dropped): its event. */
static enum pop3_perr
line_done(struct pop3_parser *p, pop3_ev_fn fn, void *arg)
{
	struct pop3_ev ev = { 0 };
	const char *l = p->line;
	size_t n = p->len;

	p->len = 0;
	if (p->in_body) {
		if (n == 1 && l[0] == '.') {
			ev.kind = POP3_EV_END;
			p->in_body = false;
			p->resp_bytes = 0;
		} else {
			/* RFC 1939 3: a line that starts with the
			 * termination octet had one prepended. */
			if (n > 0 && l[0] == '.') {
				l++;
				n--;
			}
			ev.kind = POP3_EV_LINE;
			ev.text = l;
			ev.len = n;
		}
		return fn(arg, &ev) < 0 ? POP3_PE_STOP : POP3_PE_NONE;
	}
	ev.kind = POP3_EV_STATUS;
	if (status_of(l, n, &ev.ok, &ev.text, &ev.len) < 0)
		return POP3_PE_STATUS;
	int r = fn(arg, &ev);
	if (r < 0)
		return POP3_PE_STOP;
	/* Only +OK opens a body (RFC 1939 3: -ERR is one line). */
	p->in_body = r > 0 && ev.ok;
	if (!p->in_body)
		p->resp_bytes = 0;
	return POP3_PE_NONE;
}

enum pop3_perr
pop3_parser_feed(struct pop3_parser *p, const char *data, size_t n,
		 pop3_ev_fn fn, void *arg, size_t *used)
{
	size_t i = 0;

	while (p->err == POP3_PE_NONE && i < n) {
		const char *nl = memchr(data + i, '\n', n - i);
		size_t take = nl != NULL ? (size_t)(nl - (data + i)) : n - i;
		/* As if byte by byte, so that where the input is cut never
		 * changes the outcome: each byte counts towards the response
		 * (line ends too) before it joins the line, and a line may
		 * hold max_line bytes plus the CR of its CRLF. */
		uint64_t room_resp = p->max_resp - p->resp_bytes;
		size_t room_line = p->max_line + 1 - p->len;
		if (room_resp < take + (nl != NULL) && room_resp <= room_line) {
			p->err = POP3_PE_SIZE;
			break;
		}
		if (room_line < take) {
			p->err = POP3_PE_LINE;
			break;
		}
		p->resp_bytes += take + (nl != NULL);
		memcpy(p->line + p->len, data + i, take);
		p->len += take;
		i += take;
		if (nl == NULL)
			break;
		i++;
		if (p->len > 0 && p->line[p->len - 1] == '\r')
			p->len--;
		if (p->len > p->max_line) {
			p->err = POP3_PE_LINE;
			break;
		}
		p->err = line_done(p, fn, arg);
	}
	if (used != NULL)
		*used = i;
	return p->err;
}

int
pop3_scan_line(const char *text, size_t len, uint32_t *n, const char **word,
	       size_t *word_len)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < len && isdigit((unsigned char)text[i]) && v <= UINT32_MAX)
		v = v * 10 + (uint64_t)(text[i++] - '0');
	if (i == 0 || v == 0 || v > UINT32_MAX || i >= len || text[i] != ' ')
		return -1;
	while (i < len && text[i] == ' ')
		i++;
	size_t j = i;
	while (j < len && text[j] != ' ')
		j++;
	if (j == i)
		return -1;
	*n = (uint32_t)v;
	*word = text + i;
	*word_len = j - i;
	return 0;
}

/* Digits at *i (at most 19): their value; -1 without one. */
static int
scan_u64(const char *t, size_t len, size_t *i, uint64_t *v)
{
	size_t k = *i;

	*v = 0;
	while (k < len && isdigit((unsigned char)t[k]) && k - *i < 19)
		*v = *v * 10 + (uint64_t)(t[k++] - '0');
	if (k == *i || (k < len && isdigit((unsigned char)t[k])))
		return -1;
	*i = k;
	return 0;
}

int
pop3_scan_stat(const char *text, size_t len, uint32_t *n, uint64_t *size)
{
	size_t i = 0;
	uint64_t c;

	/* "0 0" is a valid STAT: the count may be 0, unlike a line's N. */
	if (scan_u64(text, len, &i, &c) < 0 || c > UINT32_MAX || i >= len ||
	    text[i] != ' ')
		return -1;
	while (i < len && text[i] == ' ')
		i++;
	if (scan_u64(text, len, &i, size) < 0 || (i < len && text[i] != ' '))
		return -1;
	*n = (uint32_t)c;
	return 0;
}
