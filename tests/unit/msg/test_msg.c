/* Message pools: generated and random pools are deterministic, sized as
 * promised, and valid RFC 5322 text in every byte; the Message-ID line
 * and the marker sent before every message.
 * Pools read from mbox files are test_msg_mbox.c's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "msg/msg.h"
#include "msg_assert.h"

/* FNV-1a over every message's length and bytes. */
static uint64_t
pool_hash(const struct msg_pool *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (unsigned i = 0; i < msg_pool_count(p); i++) {
		const struct msg *m = msg_pool_get(p, i);
		for (size_t k = 0; k < sizeof(m->len); k++)
			h = (h ^ ((m->len >> (8 * k)) & 0xff)) * 0x100000001b3ULL;
		for (size_t k = 0; k < m->len; k++)
			h = (h ^ (unsigned char)m->data[k]) * 0x100000001b3ULL;
	}
	return h;
}

/* Valid UTF-8 (which includes 7-bit): no overlongs, surrogates, or
 * truncated sequences. */
static bool
valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], len;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			len = 2, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4, cp = c & 0x07;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 &&
		    cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 ||
		    cp > 0x10ffff)))
			return false;
		i += len;
	}
	return true;
}

static bool
all_in(const char *p, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\0' || strchr(set, p[i]) == NULL)
			return false;
	return true;
}

/* Returns the value of header name (first occurrence), NUL-terminated in
 * buf, or NULL. */
static const char *
header_value(const struct msg *m, size_t hdr_len, const char *name,
    char *buf, size_t buflen)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < hdr_len; ) {
		const char *eol = memchr(m->data + i, '\n', hdr_len - i);
		size_t len = (size_t)(eol - (m->data + i)) - 1;
		if (len > nl && strncasecmp(m->data + i, name, nl) == 0 &&
		    m->data[i + nl] == ':') {
			snprintf(buf, buflen, "%.*s", (int)(len - nl - 2),
			    m->data + i + nl + 2);
			return buf;
		}
		i += len + 2;
	}
	return NULL;
}

static void
assert_address(const char *v, const char *what)
{
	ck_assert_msg(v != NULL, "%s: missing", what);
	ck_assert_msg(strstr(v, "@example.org>") != NULL ||
	    strstr(v, "@example.com>") != NULL ||
	    strstr(v, "@example.net>") != NULL, "%s: %s", what, v);
}

/* One base64 attachment body: full 76-character lines of the alphabet,
 * from after its part header up to the closing boundary. */
static void
assert_base64_part(const char *body, const char *end, const char *what)
{
	const char *p = strstr(body, "Content-Transfer-Encoding: base64\r\n");
	ck_assert_msg(p != NULL && p < end, "%s: no base64 part", what);
	p = strstr(p, "\r\n\r\n") + 4;
	for (; p < end; p += 78) {
		if (end - p < 78 || p[76] != '\r' || !all_in(p, 76,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789+/"))
			break;
	}
	ck_assert_msg(p == end, "%s: bad base64 line", what);
}

/* Everything a generated message promises; counts its MIME kinds. */
static void
assert_generated(const struct msg *m, unsigned idx, unsigned kinds[3])
{
	char what[32], v[1024], *text;
	snprintf(what, sizeof(what), "message %u", idx);
	ck_assert(m->needs_id);
	assert_crlf_text(m, 76, what);
	ck_assert_msg(valid_utf8((const unsigned char *)m->data, m->len),
	    "%s: invalid UTF-8", what);

	text = strndup(m->data, m->len);
	char *sep = strstr(text, "\r\n\r\n");
	ck_assert_msg(sep != NULL, "%s: no empty line after headers", what);
	size_t hdr_len = (size_t)(sep - text) + 2, bad8 = 0;
	for (size_t i = 0; i < hdr_len; i++)
		bad8 += (unsigned char)text[i] >= 0x80;
	ck_assert_msg(bad8 == 0, "%s: 8-bit header", what);
	/* Each header line is "Name: ..." or a folded continuation. */
	for (char *l = text; l < sep; l = strstr(l, "\r\n") + 2) {
		if (l != text && (*l == ' ' || *l == '\t'))
			continue;
		char *colon = strchr(l, ':');
		ck_assert_msg(colon != NULL && colon < strstr(l, "\r\n") &&
		    colon > l, "%s: bad header line", what);
		bool name_ok = true;
		for (char *c = l; c < colon; c++)
			name_ok = name_ok && *c > ' ' && *c < 0x7f;
		ck_assert_msg(name_ok, "%s: header name", what);
	}
	ck_assert_msg(header_value(m, hdr_len, "Message-ID", v, sizeof(v)) ==
	    NULL, "%s: has its own Message-ID", what);
	assert_address(header_value(m, hdr_len, "From", v, sizeof(v)), what);
	assert_address(header_value(m, hdr_len, "To", v, sizeof(v)), what);
	ck_assert_ptr_nonnull(header_value(m, hdr_len, "Subject", v,
	    sizeof(v)));
	ck_assert_str_eq(header_value(m, hdr_len, "MIME-Version", v,
	    sizeof(v)), "1.0");

	char wd[4], mon[4], sign;
	int day, year, hh, mm, ss, zone, used = 0;
	ck_assert_ptr_nonnull(header_value(m, hdr_len, "Date", v, sizeof(v)));
	ck_assert_msg(sscanf(v, "%3s, %2d %3s %4d %2d:%2d:%2d %c%4d%n", wd, &day,
	    mon, &year, &hh, &mm, &ss, &sign, &zone, &used) == 9 &&
	    (size_t)used == strlen(v) && strstr("Sun,Mon,Tue,Wed,Thu,Fri,Sat,",
	    wd) != NULL && v[3] == ',' && strstr("JanFebMarAprMayJunJulAug"
	    "SepOctNovDec", mon) != NULL && day >= 1 && day <= 31 &&
	    year >= 2019 && year <= 2023 && (sign == '+' || sign == '-'),
	    "%s: Date: %s", what, v);

	ck_assert_ptr_nonnull(header_value(m, hdr_len, "Content-Type", v,
	    sizeof(v)));
	if (strcmp(v, "text/plain; charset=utf-8") == 0) {
		kinds[0]++;
	} else {
		char bnd[128], close[160], open[160];
		const char *b = strstr(v, "boundary=\"");
		ck_assert_msg(b != NULL, "%s: Content-Type: %s", what, v);
		snprintf(bnd, sizeof(bnd), "%s", b + 10);
		*strchr(bnd, '"') = '\0';
		snprintf(open, sizeof(open), "\r\n--%s\r\n", bnd);
		snprintf(close, sizeof(close), "\r\n--%s--\r\n", bnd);
		size_t cl = strlen(close);
		ck_assert_msg(m->len > cl && strcmp(text + m->len - cl, close)
		    == 0, "%s: no closing boundary", what);
		char *p1 = strstr(sep, open);
		ck_assert_msg(p1 != NULL && strstr(p1 + 1, open) != NULL,
		    "%s: not two parts", what);
		if (strncmp(v, "multipart/alternative;", 22) == 0) {
			kinds[1]++;
			ck_assert(strstr(text, "Content-Type: text/html") != NULL);
		} else {
			ck_assert_msg(strncmp(v, "multipart/mixed;", 16) == 0,
			    "%s: Content-Type: %s", what, v);
			kinds[2]++;
			assert_base64_part(strstr(p1 + 1, open), text + m->len -
			    cl + 2, what);
		}
	}
	free(text);
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static void
check_generated_pool(uint64_t mean, uint64_t max_total, unsigned want_n,
    unsigned kinds[3])
{
	struct msg_pool *p = msg_pool_generate(7, mean, max_total);
	unsigned n = msg_pool_count(p);
	uint64_t sum = 0;
	size_t *sizes = malloc(n * sizeof(*sizes));

	ck_assert_uint_eq(n, want_n);
	for (unsigned i = 0; i < n; i++) {
		const struct msg *m = msg_pool_get(p, i);
		assert_generated(m, i, kinds);
		assert_marked(m, 0x00c0ffee12345678ULL, i, "generated");
		sizes[i] = m->len;
		sum += m->len;
	}
	ck_assert_uint_eq(sum, msg_pool_bytes(p));
	double avg = (double)sum / n;
	ck_assert_msg(avg >= 0.95 * (double)mean && avg <= 1.05 * (double)mean,
	    "mean %.0f, want %llu +- 5%%", avg, (unsigned long long)mean);
	/* Real mail is skewed: most below the mean, a long tail above. */
	qsort(sizes, n, sizeof(*sizes), cmp_size);
	ck_assert_msg(sizes[n / 2] < 0.8 * avg && sizes[n - 1] > 2 * avg,
	    "median %zu max %zu mean %.0f", sizes[n / 2], sizes[n - 1], avg);
	free(sizes);
	msg_pool_free(p);
}

START_TEST(test_generate_deterministic)
{
	struct msg_pool *a = msg_pool_generate(42, 75 * KIB, 8 * MIB);
	struct msg_pool *b = msg_pool_generate(42, 75 * KIB, 8 * MIB);
	struct msg_pool *c = msg_pool_generate(43, 75 * KIB, 8 * MIB);
	ck_assert_uint_eq(msg_pool_count(a), msg_pool_count(b));
	ck_assert_uint_eq(msg_pool_bytes(a), msg_pool_bytes(b));
	ck_assert_uint_eq(pool_hash(a), pool_hash(b));
	ck_assert_uint_ne(pool_hash(a), pool_hash(c));
	/* Not just a shuffle: the first messages differ too. */
	const struct msg *ma = msg_pool_get(a, 0), *mc = msg_pool_get(c, 0);
	ck_assert(ma->len != mc->len || memcmp(ma->data, mc->data, ma->len));
	msg_pool_free(a);
	msg_pool_free(b);
	msg_pool_free(c);
}
END_TEST

START_TEST(test_generate_small)
{
	unsigned kinds[3] = { 0 };
	check_generated_pool(4 * KIB, 2 * MIB, 512, kinds);
	ck_assert_uint_gt(kinds[0], 400);	/* mostly plain text */
}
END_TEST

START_TEST(test_generate_medium)
{
	unsigned kinds[3] = { 0 };
	check_generated_pool(75 * KIB, 8 * MIB, 109, kinds);
	ck_assert_uint_gt(kinds[0], 0);
	ck_assert_uint_gt(kinds[1], 0);
	ck_assert_uint_gt(kinds[2], 0);
}
END_TEST

START_TEST(test_generate_large)
{
	unsigned kinds[3] = { 0 };
	check_generated_pool(1 * MIB, 24 * MIB, 24, kinds);
	ck_assert_uint_gt(kinds[2], 0);
}
END_TEST

START_TEST(test_generate_counts)
{
	/* At least 8 even when 8 means exceed max_total. */
	struct msg_pool *p = msg_pool_generate(1, 1 * MIB, 1 * MIB);
	ck_assert_uint_eq(msg_pool_count(p), 8);
	ck_assert_uint_eq(msg_pool_bytes(p), 8 * MIB);
	msg_pool_free(p);
	/* At most 1000; the mean is exact even at the 512-byte floor. */
	p = msg_pool_generate(1, 512, 1ULL << 40);
	ck_assert_uint_eq(msg_pool_count(p), 1000);
	ck_assert_uint_eq(msg_pool_bytes(p), 512 * 1000);
	msg_pool_free(p);
	/* Below the floor the mean is 512. */
	p = msg_pool_generate(1, 100, 100 * 512);
	ck_assert_uint_eq(msg_pool_count(p), 100);
	ck_assert_uint_eq(msg_pool_bytes(p), 100 * 512);
	unsigned kinds[3] = { 0 };
	for (unsigned i = 0; i < msg_pool_count(p); i++)
		assert_generated(msg_pool_get(p, i), i, kinds);
	msg_pool_free(p);
}
END_TEST

START_TEST(test_random)
{
	const uint64_t S = 1000, total = 256 * KIB;
	struct msg_pool *p = msg_pool_random(5, S, total);
	struct msg_pool *q = msg_pool_random(5, S, total);
	struct msg_pool *o = msg_pool_random(6, S, total);
	unsigned n = msg_pool_count(p);
	size_t lo = SIZE_MAX, hi = 0;

	ck_assert_uint_ge(n, 8);
	ck_assert_uint_le(msg_pool_bytes(p), total);
	ck_assert_uint_eq(pool_hash(p), pool_hash(q));
	ck_assert_uint_ne(pool_hash(p), pool_hash(o));
	for (unsigned i = 0; i < n; i++) {
		const struct msg *m = msg_pool_get(p, i);
		ck_assert(!m->needs_id);
		ck_assert_uint_ge(m->len, 2);
		ck_assert_uint_le(m->len, S);
		assert_crlf_text(m, 76, "random");
		assert_marked(m, 0x00c0ffee12345678ULL, 0, "random");
		size_t odd = 0;
		for (size_t k = 0; k < m->len; k++)
			odd += m->data[k] != '\r' && m->data[k] != '\n' &&
			    (m->data[k] < 0x20 || m->data[k] >= 0x7f);
		ck_assert_uint_eq(odd, 0);
		lo = m->len < lo ? m->len : lo;
		hi = m->len > hi ? m->len : hi;
	}
	/* Uniform over 1..S: this seed's draws span most of the range. */
	ck_assert_uint_lt(lo, S / 10);
	ck_assert_uint_gt(hi, S - S / 10);
	double avg = (double)msg_pool_bytes(p) / n;
	ck_assert_msg(avg > 0.4 * S && avg < 0.6 * S, "mean %.0f", avg);
	/* Stops before max_total would be exceeded, not much earlier. */
	ck_assert_uint_gt(msg_pool_bytes(p) + S, total);
	msg_pool_free(p);
	msg_pool_free(q);
	msg_pool_free(o);

	/* Many short messages, so every way a line can end near the end of
	 * a message occurs (20000 messages of 1..200 bytes). */
	for (uint32_t seed = 100; seed < 120; seed++) {
		p = msg_pool_random(seed, 200, 1ULL << 40);
		ck_assert_uint_eq(msg_pool_count(p), 1000);
		for (unsigned i = 0; i < 1000; i++)
			assert_crlf_text(msg_pool_get(p, i), 76, "short");
		msg_pool_free(p);
	}

	/* Sizes 1 and 2 both become the 2-byte empty message. */
	p = msg_pool_random(1, 1, 0);
	ck_assert_uint_eq(msg_pool_count(p), 8);
	for (unsigned i = 0; i < 8; i++) {
		ck_assert_uint_eq(msg_pool_get(p, i)->len, 2);
		ck_assert(memcmp(msg_pool_get(p, i)->data, "\r\n", 2) == 0);
	}
	msg_pool_free(p);
	p = msg_pool_random(1, 3, 1ULL << 40);
	ck_assert_uint_eq(msg_pool_count(p), 1000);
	for (unsigned i = 0; i < 1000; i++) {
		const struct msg *m = msg_pool_get(p, i);
		ck_assert(m->len == 2 || m->len == 3);
		assert_crlf_text(m, 76, "tiny");
	}
	msg_pool_free(p);
}
END_TEST

START_TEST(test_id_line)
{
	char buf[MSG_ID_LINE_LEN + 8];
	memset(buf, 'x', sizeof(buf));
	msg_id_line(buf, 0x0123456789abcdefULL, 0x2a);
	ck_assert_str_eq(buf,
	    "Message-ID: <0123456789abcdef.0000002a@imapstress.invalid>\r\n");
	ck_assert_uint_eq(strlen(buf), MSG_ID_LINE_LEN);
	msg_id_line(buf, UINT64_MAX, UINT32_MAX);
	ck_assert_str_eq(buf,
	    "Message-ID: <ffffffffffffffff.ffffffff@imapstress.invalid>\r\n");
	msg_id_line(buf, 0, 0);
	ck_assert_uint_eq(strlen(buf), MSG_ID_LINE_LEN);
	ck_assert_int_eq(buf[MSG_ID_LINE_LEN + 1], 'x');

	msg_pool_free(NULL);
}
END_TEST

/* The marker (issue 31): its exact bytes, fixed width for every run id,
 * first before the Message-ID line; the size as sent counts both lines
 * and the message's own bytes are what --msg-size and the rest promise. */
START_TEST(test_mark_line)
{
	char buf[MSG_HEAD_MAX + 8], want[128];

	memset(buf, 'x', sizeof(buf));
	msg_mark_line(buf, 0x00c0ffee12345678ULL);
	snprintf(want, sizeof(want), "X-Imapstress: run=00c0ffee12345678 "
		 "(imapstress %s)\r\n", IMAPSTRESS_VERSION);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(strlen(buf), MSG_MARK_LINE_LEN);
	ck_assert_int_eq(buf[MSG_MARK_LINE_LEN + 1], 'x');
	ck_assert_uint_eq(MSG_MARK_LINE_LEN, 50 + strlen(IMAPSTRESS_VERSION));
	msg_mark_line(buf, 0);
	ck_assert_uint_eq(strlen(buf), MSG_MARK_LINE_LEN);
	ck_assert(strncmp(buf, "X-Imapstress: run=0000000000000000 (", 36) == 0);
	msg_mark_line(buf, UINT64_MAX);
	ck_assert(strncmp(buf, "X-Imapstress: run=ffffffffffffffff (", 36) == 0);

	/* A generated message: the marker, then its Message-ID. */
	struct msg m = { "x\r\n", 3, true };
	char id[MSG_ID_LINE_LEN + 1];
	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(msg_head(buf, &m, 0x00c0ffee12345678ULL, 7),
			  MSG_MARK_LINE_LEN + MSG_ID_LINE_LEN);
	msg_id_line(id, 0x00c0ffee12345678ULL, 7);
	ck_assert(strncmp(buf, want, MSG_MARK_LINE_LEN) == 0);
	ck_assert_str_eq(buf + MSG_MARK_LINE_LEN, id);
	ck_assert_int_eq(buf[MSG_HEAD_MAX + 1], 'x');
	ck_assert_uint_eq(msg_head_len(&m), MSG_HEAD_MAX);
	ck_assert_uint_eq(msg_wire_len(&m), 3 + MSG_MARK_LINE_LEN +
			  MSG_ID_LINE_LEN);
	/* An mbox or random message: the marker only. */
	m.needs_id = false;
	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(msg_head(buf, &m, 0x00c0ffee12345678ULL, 7),
			  MSG_MARK_LINE_LEN);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(msg_head_len(&m), MSG_MARK_LINE_LEN);
	ck_assert_uint_eq(msg_wire_len(&m), 3 + MSG_MARK_LINE_LEN);
}
END_TEST

static Suite *
msg_suite(void)
{
	Suite *s = suite_create("msg");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_generate_deterministic);
	tcase_add_test(tc, test_generate_small);
	tcase_add_test(tc, test_generate_medium);
	tcase_add_test(tc, test_generate_large);
	tcase_add_test(tc, test_generate_counts);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_id_line);
	tcase_add_test(tc, test_mark_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(msg_suite)
