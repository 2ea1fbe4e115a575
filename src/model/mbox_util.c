/* mbox_util.c: small pure helpers of the mailbox model: flag names, the
 * structure hash, INTERNALDATE, Message-ID and sequence sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

static const char *const sys_names[MBOX_SYS_FLAGS] = {
	"\\Answered", "\\Flagged", "\\Deleted", "\\Seen", "\\Draft",
	"\\Recent"
};

/* strlen of each of sys_names */
static const unsigned char sys_lens[MBOX_SYS_FLAGS] = { 9, 8, 8, 5, 6, 7 };

unsigned
mbox_sys_flag(const char *name, size_t len)
{
	for (unsigned i = 0; i < MBOX_SYS_FLAGS; i++)
		if (sys_lens[i] == len && imap_ci_eq(sys_names[i], name, len))
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

/* ---- structure hash ----
 *
 * A subtree is hashed as its tokens in pre-order, each as (kind, length
 * or child count, content): 'L' with the child count for a list, 'A' and
 * the case-folded octets for an atom, 'S' for a quoted or literal string.
 * Pre-order with child counts spells a tree unambiguously, so "(a b)",
 * "(ab)" and "((a) b)" differ.  The hashes are only compared with each
 * other within one run (nothing writes them out), so the function may
 * change.  Eight octets at a time: ASCII letters are folded in a word,
 * and words are mixed in pairs with one 64x64->128 multiply. */

#define HASH_SEED	0x243f6a8885a308d3ull
#define HASH_K0		0x13198a2e03707344ull
#define HASH_K2		0xa4093822299f31d0ull
/* Every octet is an upper-case ASCII letter, which a folded word never
 * holds: a content operand XORed with these is never 0, so it can never
 * wipe out what was mixed before. */
#define HASH_K1		0x514e4f53415a4b47ull	/* "GKZASONQ" */
#define HASH_K3		0x4a5649584c45544dull	/* "MTELXIVJ" */
#define ONES		0x0101010101010101ull

static inline uint64_t
hash_mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t
hash_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint64_t
hash_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

/* The n <= 8 octets at p, octet i in bits 8i..8i+7, the rest zero.  Two
 * overlapping loads put the same octets at the same places. */
static inline uint64_t
hash_load(const unsigned char *p, size_t n)
{
	if (n >= 8)
		return hash_le64(p);
	if (n >= 4)
		return hash_le32(p) | hash_le32(p + n - 4) << (8 * (n - 4));
	if (n == 0)
		return 0;
	return (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) |
	       (uint64_t)p[n - 1] << (8 * (n - 1));
}

/* 'A'..'Z' -> 'a'..'z' in every octet; other octets, non-ASCII ones
 * included, stay. */
static inline uint64_t
hash_fold(uint64_t w)
{
	uint64_t low7 = w & (0x7f * ONES);
	uint64_t ge_a = low7 + (0x80 - 'A') * ONES;
	uint64_t gt_z = low7 + (0x7f - 'Z') * ONES;
	uint64_t upper = ge_a & ~gt_z & ~w & (0x80 * ONES);

	return w | upper >> 2;
}

/* A token of more than 16 octets: out of line, the short ones are the
 * common case. */
static __attribute__((noinline)) uint64_t
hash_long(uint64_t h, uint64_t head, const unsigned char *p, size_t n)
{
	uint64_t a, b;

	h = hash_mum(h ^ head ^ HASH_K0, hash_fold(hash_le64(p)) ^ HASH_K1);
	p += 8;
	n -= 8;
	for (; n > 16; p += 16, n -= 16)
		h = hash_mum(h ^ hash_fold(hash_le64(p)) ^ HASH_K2,
			     hash_fold(hash_le64(p + 8)) ^ HASH_K3);
	/* 1..16 octets left; the length in head tells the overlap */
	if (n > 8) {
		a = hash_le64(p);
		b = hash_le64(p + n - 8);
	} else {
		a = hash_load(p, n);
		b = 0;
	}
	return hash_mum(h ^ hash_fold(a) ^ HASH_K2, hash_fold(b) ^ HASH_K3);
}

static inline __attribute__((always_inline)) uint64_t
hash_text(uint64_t h, uint64_t kind, const char *str, size_t n)
{
	const unsigned char *p = (const unsigned char *)str;
	uint64_t head = kind | (uint64_t)n << 8;

	if (n <= 8)
		return hash_mum(h ^ head ^ HASH_K0,
				hash_fold(hash_load(p, n)) ^ HASH_K1);
	if (n > 16)
		return hash_long(h, head, p, n);
	/* 9..16: the first and the last 8, overlapping */
	h = hash_mum(h ^ head ^ HASH_K0, hash_fold(hash_le64(p)) ^ HASH_K1);
	return hash_mum(h ^ HASH_K2, hash_fold(hash_le64(p + n - 8)) ^ HASH_K3);
}

uint64_t
mbox_hash_arg(const struct imap_arg *a)
{
	uint64_t h = HASH_SEED;

	/* The subtree is the tokens from a on, in pre-order: one token plus
	 * the children of every list among them. */
	for (uint64_t left = 1; left > 0; a++, left--) {
		switch (a->type) {
		case IMAP_ARG_LITERAL_SKIPPED:
			return 0;
		case IMAP_ARG_LIST:
			left += a->count;
			h = hash_mum(h ^ ('L' | (uint64_t)a->count << 8) ^
				     HASH_K0, HASH_K1);
			break;
		case IMAP_ARG_ATOM:
			h = hash_text(h, 'A', a->str, a->len);
			break;
		default:
			h = hash_text(h, 'S', a->str, a->len);
			break;
		}
	}
	return h ? h : 1;
}

/* One step of a lane of mbox_hash_raw: each part is a bijection of h
 * (xor, odd multiply, xorshift), so no input can wipe what came before. */
static inline uint64_t
hash_raw_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 32;
}

uint64_t
mbox_hash_raw(const char *str, size_t n)
{
	const unsigned char *p = (const unsigned char *)str;
	/* four lanes, so that the multiplies overlap */
	uint64_t a = HASH_SEED ^ n, b = HASH_K0, c = HASH_K1, d = HASH_K2;

	for (; n >= 32; p += 32, n -= 32) {
		a = hash_raw_step(a, hash_le64(p));
		b = hash_raw_step(b, hash_le64(p + 8));
		c = hash_raw_step(c, hash_le64(p + 16));
		d = hash_raw_step(d, hash_le64(p + 24));
	}
	if (n >= 16) {
		a = hash_raw_step(a, hash_le64(p));
		b = hash_raw_step(b, hash_le64(p + 8));
		p += 16;
		n -= 16;
	}
	if (n >= 8) {
		c = hash_raw_step(c, hash_le64(p));
		p += 8;
		n -= 8;
	}
	d = hash_raw_step(d, hash_load(p, n));	/* the length was in a */
	a = hash_raw_step(a, b);
	a = hash_raw_step(a, c);
	return hash_raw_step(a, d);
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

static inline bool
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
	/* | 0x20 folds exactly here: only 'X' and 'x' give 'x' */
	uint32_t key = (uint32_t)(s[0] | 0x20) << 16 |
		       (uint32_t)(s[1] | 0x20) << 8 | (uint32_t)(s[2] | 0x20);
	for (mon = 0; mon < 12; mon++)
		if (key == ((uint32_t)(months[mon][0] | 0x20) << 16 |
			    (uint32_t)months[mon][1] << 8 |
			    (uint32_t)months[mon][2]))
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
	if (*out_len > MBOX_MSGID_MAX)
		*out_len = MBOX_MSGID_MAX;
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

static int
range_cmp(const void *a, const void *b)
{
	const struct mbox_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and fold overlapping or adjacent ranges: "5:7,1,6,2" -> 1:2,5:7. */
static void
ranges_merge(struct mbox_store *s)
{
	size_t out = 0;

	if (s->n_ranges < 2)
		return;
	qsort(s->ranges, s->n_ranges, sizeof(*s->ranges), range_cmp);
	for (size_t i = 1; i < s->n_ranges; i++) {
		struct mbox_range *t = &s->ranges[out];
		if ((uint64_t)s->ranges[i].lo <= (uint64_t)t->hi + 1) {
			if (s->ranges[i].hi > t->hi)
				t->hi = s->ranges[i].hi;
		} else {
			s->ranges[++out] = s->ranges[i];
		}
	}
	s->n_ranges = out + 1;
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
	ranges_merge(s);
	return 0;
}

bool
mbox_ranges_has(const struct mbox_store *s, uint32_t v)
{
	size_t lo = 0, hi = s->n_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v < s->ranges[mid].lo)
			hi = mid;
		else if (v > s->ranges[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}
