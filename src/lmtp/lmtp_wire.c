/* lmtp_wire.c: the byte-level pieces of LMTP and SMTP that need no
 * session: reply lines, EHLO keywords, enhanced status codes,
 * dot-stuffing, address checks, writing to the socket, the stats block. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "util/escape.h"
#include "stats/hist.h"
#include "lmtp/lmtp_int.h"
#include "util/xmalloc.h"

int
lmtp_reply_line(const char *line, size_t len, int *code, bool *last,
		const char **text, size_t *text_len)
{
	if (len < 3 || !isdigit((unsigned char)line[0]) ||
	    !isdigit((unsigned char)line[1]) || !isdigit((unsigned char)line[2]))
		return -1;
	/* RFC 5321 4.2: the first digit is 2..5 (1yz is never used). */
	if (line[0] < '2' || line[0] > '5')
		return -1;
	*code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
	if (len == 3) {
		*last = true;
		*text = line + 3;
		*text_len = 0;
		return 0;
	}
	if (line[3] != ' ' && line[3] != '-')
		return -1;
	*last = line[3] == ' ';
	*text = line + 4;
	*text_len = len - 4;
	return 0;
}

/* Keyword kw (upper case) at the start of text: its length when a blank,
 * '=' or the end follows it, else 0. */
static size_t
kw_at(const char *text, size_t len, const char *kw)
{
	size_t n = strlen(kw);

	if (len < n || strncasecmp(text, kw, n) != 0)
		return 0;
	return len == n || text[n] == ' ' || text[n] == '=' ? n : 0;
}

void
lmtp_ehlo_line(struct lmtp_ext *e, const char *text, size_t len)
{
	size_t n;

	if (kw_at(text, len, "PIPELINING"))
		e->pipelining = true;
	else if (kw_at(text, len, "8BITMIME"))
		e->eightbit = true;
	else if (kw_at(text, len, "STARTTLS"))
		e->starttls = true;
	else if ((n = kw_at(text, len, "SIZE")) != 0) {
		uint64_t v = 0;
		e->size = true;
		/* RFC 1870: SIZE [limit]; 0 or none is no fixed limit. */
		for (size_t i = n + 1; i < len && isdigit((unsigned char)text[i]) &&
		     v < UINT64_MAX / 10; i++)
			v = v * 10 + (uint64_t)(text[i] - '0');
		e->size_max = v;
	} else if ((n = kw_at(text, len, "AUTH")) != 0) {
		/* AUTH mech mech ... (and the pre-RFC "AUTH=mech") */
		for (size_t i = n; i < len;) {
			while (i < len && (text[i] == ' ' || text[i] == '='))
				i++;
			size_t j = i;
			while (j < len && text[j] != ' ')
				j++;
			if (kw_at(text + i, j - i, "PLAIN"))
				e->auth_plain = true;
			else if (kw_at(text + i, j - i, "LOGIN"))
				e->auth_login = true;
			i = j;
		}
	}
}

/* 1..3 digits at *p, advanced past them; -1 without one. */
static int
esc_num(const char **p)
{
	int v = 0, k = 0;

	while (k < 3 && isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		(*p)++;
		k++;
	}
	return k > 0 && !isdigit((unsigned char)**p) ? v : -1;
}

int
lmtp_enhanced(const char *text, int *klass, int *subject, int *detail)
{
	const char *p = text;

	if (*p != '2' && *p != '4' && *p != '5')
		return -1;
	*klass = *p++ - '0';
	if (*p++ != '.' || (*subject = esc_num(&p)) < 0 || *p++ != '.' ||
	    (*detail = esc_num(&p)) < 0)
		return -1;
	return *p == '\0' || *p == ' ' ? 0 : -1;
}

void
lmtp_printable(char *out, size_t n, const char *text, size_t len)
{
	escape_text(out, n, text, len);
}

bool
lmtp_addr_ok(const char *a)
{
	size_t n = strlen(a);

	if (n == 0 || n > 256)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];
		if (c <= 0x20 || c >= 0x7f || c == '<' || c == '>')
			return false;
	}
	return true;
}

void
lmtp_dot_stuff(struct evbuffer *out, const char *data, size_t n, bool *at_bol)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		if (*at_bol && data[i] == '.') {
			/* Everything up to and including this dot, then the
			 * extra one. */
			evbuffer_add(out, data + start, i + 1 - start);
			evbuffer_add(out, ".", 1);
			start = i + 1;
		}
		*at_bol = data[i] == '\n';
	}
	if (start < n)
		evbuffer_add(out, data + start, n - start);
}

struct lmtp_stats *
lmtp_stats_new(void)
{
	struct lmtp_stats *s = xcalloc(1, sizeof(*s));

	s->lat_total = hist_new();
	s->lat_data = hist_new();
	return s;
}

void
lmtp_stats_free(struct lmtp_stats *s)
{
	if (s == NULL)
		return;
	hist_free(s->lat_total);
	hist_free(s->lat_data);
	free(s);
}
