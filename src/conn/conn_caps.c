/* conn_caps.c: the CAP_ bits of a server's capability list (the
 * greeting's, LOGIN's, a CAPABILITY reply's), for conn_resp.c. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "conn/conn_int.h"

/* ASCII case-insensitive: `name` (len octets) against `upper`, the name
 * we know in upper case. */
static bool
cap_eq(const char *name, const char *upper, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (ch >= 'a' && ch <= 'z')
			ch = (unsigned char)(ch - ('a' - 'A'));
		if (ch != (unsigned char)upper[i])
			return false;
	}
	return true;
}

/* The bit of one capability name, 0 for one we do not use.  By length
 * first: Dovecot's list after LOGIN has ~60 names, and every session
 * parses it twice (greeting and LOGIN); a scan of a name table per name
 * with strncasecmp was 12% of the client's instructions per session with
 * one APPEND per session (callgrind). */
static unsigned
cap_bit(const char *s, size_t len)
{
#define CAP_IS(name, bit) \
	do { if (cap_eq(s, name, len)) return bit; } while (0)
	switch (len) {
	case 2:
		CAP_IS("ID", CAP_ID);
		break;
	case 4:
		CAP_IS("IDLE", CAP_IDLE);
		CAP_IS("SORT", CAP_SORT);
		CAP_IS("MOVE", CAP_MOVE);
		break;
	case 6:
		CAP_IS("ENABLE", CAP_ENABLE);
		CAP_IS("NOTIFY", CAP_NOTIFY);
		break;
	case 7:
		CAP_IS("UIDPLUS", CAP_UIDPLUS);
		CAP_IS("QRESYNC", CAP_QRESYNC);
		CAP_IS("SASL-IR", CAP_SASL_IR);
		break;
	case 8:
		CAP_IS("LITERAL+", CAP_LITERALPLUS);
		CAP_IS("LITERAL-", CAP_LITERALMINUS);
		CAP_IS("STARTTLS", CAP_STARTTLS);
		break;
	case 9:
		CAP_IS("CONDSTORE", CAP_CONDSTORE);
		CAP_IS("IMAP4REV2", CAP_IMAP4REV2);
		break;
	case 10:
		CAP_IS("AUTH=PLAIN", CAP_AUTH_PLAIN);
		break;
	case 11:
		CAP_IS("MULTIAPPEND", CAP_MULTIAPPEND);
		break;
	case 13:
		CAP_IS("LOGINDISABLED", CAP_LOGINDISABLED);
		break;
	case 16:
		CAP_IS("COMPRESS=DEFLATE", CAP_COMPRESS);
		break;
	case 17:
		CAP_IS("THREAD=REFERENCES", CAP_THREAD);
		break;
	default:
		break;
	}
#undef CAP_IS
	return 0;
}

/* The last two lists this thread parsed and their bits.  A server sends
 * the same two lists in every session (the greeting's, then LOGIN's), and
 * comparing ~600 octets is a tenth of looking up ~60 names (callgrind, the
 * default mix against Dovecot: the parse was 6% of the client's
 * instructions). */
#define CAPS_MEMO_TEXT 1024
struct caps_memo {
	size_t len;		/* 0: empty */
	unsigned caps;
	char text[CAPS_MEMO_TEXT];
};
static _Thread_local struct caps_memo caps_memo[2];
static _Thread_local unsigned caps_memo_next;

static unsigned parse_names(const char *s, size_t n);

unsigned
conn_caps_parse(const char *s, size_t n)
{
	if (n == 0 || n > CAPS_MEMO_TEXT)
		return parse_names(s, n);
	for (unsigned i = 0; i < 2; i++)
		if (caps_memo[i].len == n && memcmp(caps_memo[i].text, s, n) == 0)
			return caps_memo[i].caps;
	struct caps_memo *m = &caps_memo[caps_memo_next];
	caps_memo_next ^= 1;
	m->caps = parse_names(s, n);
	m->len = n;
	memcpy(m->text, s, n);
	return m->caps;
}

/* One pass over the list (names separated by spaces), each name looked
 * up by cap_bit. */
static unsigned
parse_names(const char *s, size_t n)
{
	unsigned caps = CAP_KNOWN;
	const char *p = s, *end = s + n;

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		const char *name = p;
		while (p < end && *p != ' ')
			p++;
		if (p > name)
			caps |= cap_bit(name, (size_t)(p - name));
	}
	return caps;
}
