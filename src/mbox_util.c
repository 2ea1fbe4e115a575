/* mbox_util.c: small pure helpers of the mailbox model: flag names, the
 * structure hash, INTERNALDATE, Message-ID and sequence sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox_private.h"
#include "xmalloc.h"

#define MSGID_MAX		255u

static const char *const sys_names[MBOX_SYS_FLAGS] = {
	"\\Answered", "\\Flagged", "\\Deleted", "\\Seen", "\\Draft",
	"\\Recent"
};

bool
mbox_word_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

unsigned
mbox_sys_flag(const char *name, size_t len)
{
	for (unsigned i = 0; i < MBOX_SYS_FLAGS; i++)
		if (strlen(sys_names[i]) == len &&
		    strncasecmp(sys_names[i], name, len) == 0)
			return 1u << i;
	return 0;
}

void
mbox_flags_fmt(const struct mbox_store *s, unsigned sys, uint64_t kw,
	       char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < MBOX_SYS_FLAGS + MBOX_MAX_KEYWORDS; i++) {
		const char *name;
		if (i < MBOX_SYS_FLAGS) {
			if (!(sys & (1u << i)))
				continue;
			name = sys_names[i];
		} else {
			unsigned k = i - MBOX_SYS_FLAGS;
			if (!(kw & (1ull << k)))
				continue;
			name = k < s->n_kw ? s->kw[k].name : "?";
		}
		int w = snprintf(buf + used, size - used, "%s%s",
				 used ? " " : "", name);
		if (w < 0 || (size_t)w >= size - used)
			return;	/* truncated: still NUL-terminated */
		used += (size_t)w;
	}
}

static void
fnv(uint64_t *h, unsigned char c)
{
	*h ^= c;
	*h *= 1099511628211ull;
}

static bool
hash_walk(const struct imap_arg *a, uint64_t *h)
{
	unsigned char tag;

	switch (a->type) {
	case IMAP_ARG_LITERAL_SKIPPED:
		return false;
	case IMAP_ARG_LIST:
		fnv(h, '(');
		for (const struct imap_arg *c = imap_arg_child(a); c != NULL;
		     c = imap_arg_next(c))
			if (!hash_walk(c, h))
				return false;
		fnv(h, ')');
		return true;
	case IMAP_ARG_ATOM:
		tag = 'A';
		break;
	default:
		tag = 'S';
		break;
	}
	fnv(h, tag);
	for (size_t i = 0; i < a->len; i++) {
		unsigned char c = (unsigned char)a->str[i];
		fnv(h, c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c);
	}
	fnv(h, 0);
	return true;
}

uint64_t
mbox_hash_arg(const struct imap_arg *a)
{
	uint64_t h = 14695981039346656037ull;

	if (!hash_walk(a, &h))
		return 0;
	return h ? h : 1;
}

static const char months[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * well-known algorithm). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static bool
digits(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* "17-Jul-1996 02:44:25 -0700"; the day may be " 7" or "7". */
bool
mbox_parse_idate(const char *s, size_t n, int64_t *utc, int16_t *tz)
{
	unsigned day, mon, year, hh, mm, ss, zh, zm;
	size_t p;

	if (n > 0 && s[0] == ' ') {
		s++;
		n--;
	}
	if (n >= 2 && s[1] == '-')
		p = 1;
	else if (n >= 3 && s[2] == '-')
		p = 2;
	else
		return false;
	if (!digits(s, p, &day))
		return false;
	s += p + 1;
	n -= p + 1;
	/* what is left, "Jul-1996 02:44:25 -0700", has a fixed layout */
	if (n != 23 || s[3] != '-' || s[8] != ' ' || s[11] != ':' ||
	    s[14] != ':' || s[17] != ' ' || (s[18] != '+' && s[18] != '-'))
		return false;
	for (mon = 0; mon < 12; mon++)
		if (strncasecmp(s, months[mon], 3) == 0)
			break;
	if (mon == 12 || !digits(s + 4, 4, &year) || !digits(s + 9, 2, &hh) ||
	    !digits(s + 12, 2, &mm) || !digits(s + 15, 2, &ss) ||
	    !digits(s + 19, 2, &zh) || !digits(s + 21, 2, &zm))
		return false;
	if (day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 ||
	    zm > 59)
		return false;
	int zone = (int)(zh * 60 + zm) * (s[18] == '-' ? -1 : 1);
	*utc = days_from_civil(year, mon + 1, day) * 86400 +
	       (int64_t)hh * 3600 + mm * 60 + ss - (int64_t)zone * 60;
	*tz = (int16_t)zone;
	return true;
}

void
mbox_fmt_idate(int64_t utc, int16_t tz, char *buf, size_t size)
{
	int64_t local = utc + (int64_t)tz * 60;
	int64_t days = (local >= 0 ? local : local - 86399) / 86400;
	int64_t secs = local - days * 86400;
	int64_t y;
	unsigned m, d;
	int az = tz < 0 ? -tz : tz;

	civil_from_days(days, &y, &m, &d);
	snprintf(buf, size, "%02u-%s-%04lld %02d:%02d:%02d %c%02d%02d", d,
		 months[m - 1], (long long)y, (int)(secs / 3600),
		 (int)(secs / 60 % 60), (int)(secs % 60), tz < 0 ? '-' : '+',
		 az / 60, az % 60);
}

void
mbox_msgid_norm(const char *s, size_t n, const char **out, size_t *out_len)
{
	const char *lt = memchr(s, '<', n);

	if (lt != NULL) {
		const char *gt = memchr(lt, '>', n - (size_t)(lt - s));
		if (gt != NULL) {
			*out = lt;
			*out_len = (size_t)(gt - lt) + 1;
			goto cap;
		}
	}
	while (n > 0 && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			 s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	*out = s;
	*out_len = n;
cap:
	if (*out_len > MSGID_MAX)
		*out_len = MSGID_MAX;
}

static bool
set_number(const char *s, size_t n, uint32_t star, uint32_t *out)
{
	uint64_t v;

	if (n == 1 && s[0] == '*') {
		*out = star;
		return true;
	}
	if (imap_parse_u64(s, n, &v) != 0 || v == 0 || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

int
mbox_parse_set(struct mbox_store *s, const char *set, size_t len,
	       uint32_t star)
{
	size_t p = 0;

	s->n_ranges = 0;
	if (len == 0)
		return -1;
	while (p <= len) {
		const char *e = memchr(set + p, ',', len - p);
		size_t end = e ? (size_t)(e - set) : len;
		const char *c = memchr(set + p, ':', end - p);
		struct mbox_range r;

		if (c == NULL) {
			if (!set_number(set + p, end - p, star, &r.lo))
				return -1;
			r.hi = r.lo;
		} else {
			size_t k = (size_t)(c - set);
			if (!set_number(set + p, k - p, star, &r.lo) ||
			    !set_number(c + 1, end - k - 1, star, &r.hi))
				return -1;
			if (r.lo > r.hi) {
				uint32_t t = r.lo;
				r.lo = r.hi;
				r.hi = t;
			}
		}
		if (s->n_ranges == s->ranges_cap) {
			s->ranges_cap = s->ranges_cap ? s->ranges_cap * 2 : 16;
			s->ranges = xrealloc(s->ranges, s->ranges_cap *
					     sizeof(*s->ranges));
		}
		s->ranges[s->n_ranges++] = r;
		if (e == NULL)
			break;
		p = end + 1;
		if (p == len)
			return -1;	/* trailing comma */
	}
	return 0;
}

bool
mbox_ranges_has(const struct mbox_store *s, uint32_t v)
{
	for (size_t i = 0; i < s->n_ranges; i++)
		if (v >= s->ranges[i].lo && v <= s->ranges[i].hi)
			return true;
	return false;
}
