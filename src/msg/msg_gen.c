/* msg_gen.c: the seeded generator of real-looking mail.  It uses our own
 * PRNG (rng.h) and only IEEE + - * / arithmetic (no libm, no rand()), so a
 * seed gives the same bytes on every platform. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/b64.h"
#include "msg/msg.h"
#include "msg/msg_private.h"
#include "util/xmalloc.h"

#define GEN_MIN_MEAN	512
#define GEN_MIN_SIZE	400	/* the no-Received header fits in ~320 */
#define GEN_MAX_FACTOR	20	/* the largest message, in means */

/* The standard normal CDF from erf's Taylor series, and its inverse by
 * bisection: only + - * /, ample precision for |z| <= 6. */
static double
gen_phi(double z)
{
	double x = z / 1.4142135623730951, term = x, sum = x;

	for (int k = 1; k < 120; k++) {
		term *= -x * x / k;
		sum += term / (2 * k + 1);
	}
	return 0.5 + sum / 1.7724538509055160;
}

static double
gen_phi_inv(double u)
{
	double lo = -6.0, hi = 6.0;

	for (int it = 0; it < 48; it++) {
		double mid = (lo + hi) / 2.0;
		if (gen_phi(mid) < u)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

/* 2^x by Taylor series of e^(x ln 2) on [0,1): only IEEE arithmetic, so
 * identical on every platform, unlike libm's exp(). */
static double
gen_pow2(double x)
{
	double scale = 1.0, y, term = 1.0, sum = 1.0;

	while (x >= 1.0) {
		x -= 1.0;
		scale *= 2.0;
	}
	while (x < 0.0) {
		x += 1.0;
		scale *= 0.5;
	}
	y = x * 0.69314718055994531;
	for (int i = 1; i < 16; i++) {
		term *= y / i;
		sum += term;
	}
	return scale * sum;
}

static double
gen_clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Log-normal sizes (sigma 1.25 in natural log: most mail small, a long
 * tail of attachments), scaled so that after clamping to
 * [GEN_MIN_SIZE, GEN_MAX_FACTOR * mean] the sum is n * mean.  The sum is
 * monotonic in the scale, so bisection finds it.  One draw per quantile
 * stratum, shuffled, so even an 8-message pool has the skewed shape. */
static void
gen_plan_sizes(struct rng *r, unsigned n, uint64_t mean, uint64_t *sizes)
{
	double *w = xmalloc(n * sizeof(*w));
	double lo = GEN_MIN_SIZE, hi = (double)mean * GEN_MAX_FACTOR;
	double total = (double)n * (double)mean, wmin = 1e300;

	for (unsigned i = 0; i < n; i++) {
		double u = (i + rng_unit(r)) / n;
		w[i] = gen_pow2(1.8 * gen_phi_inv(u));
		if (w[i] < wmin)
			wmin = w[i];
	}
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)rng_below(r, i + 1);
		double t = w[i];
		w[i] = w[j];
		w[j] = t;
	}
	double klo = 0.0, khi = hi / wmin;
	for (int it = 0; it < 100; it++) {
		double k = (klo + khi) / 2.0, sum = 0.0;
		for (unsigned i = 0; i < n; i++)
			sum += gen_clamp(k * w[i], lo, hi);
		if (sum < total)
			klo = k;
		else
			khi = k;
	}
	for (unsigned i = 0; i < n; i++)
		sizes[i] = (uint64_t)(gen_clamp(khi * w[i], lo, hi) + 0.5);
	free(w);
}

static const char *const gen_first[] = {
	"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi",
	"Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert",
	"Sybil", "Trent", "Victor", "Walter", "Yuki",
};
static const char *const gen_last[] = {
	"Adams", "Baker", "Chen", "Dubois", "Evans", "Fischer", "Garcia",
	"Hansen", "Ito", "Jensen", "Kowalski", "Lopez", "Meyer", "Nakamura",
	"Okafor", "Patel", "Quinn", "Rossi", "Silva", "Tanaka",
};
static const char *const gen_domain[] = {
	"example.org", "example.com", "example.net",
};
static const char *const gen_words[] = {
	"the", "a", "to", "of", "and", "in", "is", "it", "for", "on", "we",
	"you", "that", "this", "with", "be", "are", "as", "at", "not", "will",
	"can", "have", "from", "our", "next", "week", "meeting", "report",
	"budget", "project", "server", "mailbox", "quota", "backup", "update",
	"release", "notes", "draft", "review", "please", "thanks", "agenda",
	"schedule", "question", "answer", "invoice", "travel", "office",
	"coffee", "lunch", "team", "plan", "quarter", "results", "numbers",
	"latency", "storage", "index", "folder", "message", "summary",
	"attached", "document", "proposal", "deadline", "Friday", "Monday",
	"morning", "afternoon", "tomorrow", "yesterday", "before", "after",
	"soon", "later", "again", "maybe", "probably", "certainly", "quick",
	"small", "large", "new", "old", "final", "second", "first", "change",
	"issue", "fix", "test", "benchmark", "customer", "support", "ticket",
	"contract", "launch", "design", "feedback", "minutes", "weekend",
};
/* Some body words are not ASCII: bodies are declared utf-8, and servers
 * that index or convert text should see some real multibyte input. */
static const char *const gen_utf8_words[] = {
	"caf\xc3\xa9", "na\xc3\xafve", "Z\xc3\xbcrich", "Gr\xc3\xbc\xc3\x9f"
	"e", "r\xc3\xa9sum\xc3\xa9", "jalape\xc3\xb1o", "\xc3\x85ngstr\xc3\xb6"
	"m", "fa\xc3\xa7" "ade", "\xe6\x97\xa5\xe6\x9c\xac", "\xe2\x82\xac"
	"100", "\xcf\x80\xce\xb1\xce\xb9",
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define GEN_PICK(r, a) ((a)[rng_below((r), NELEM(a))])

/* An ASCII word of exactly len bytes, if the list has one. */
static const char *
text_word_of_len(struct rng *r, size_t len)
{
	size_t k = (size_t)rng_below(r, NELEM(gen_words));
	for (size_t i = 0; i < NELEM(gen_words); i++) {
		const char *w = gen_words[(k + i) % NELEM(gen_words)];
		if (strlen(w) == len)
			return w;
	}
	return NULL;
}

static size_t
text_line(char *p, size_t width, bool exact, struct rng *r)
{
	size_t n = 0;

	while (n < width) {
		bool stop = n > 0 && msg_chance(r, 8);
		const char *sep = n == 0 ? "" : stop ? ". " : " ";
		const char *w = msg_chance(r, 3) ? GEN_PICK(r, gen_utf8_words) :
		    GEN_PICK(r, gen_words);
		size_t sl = strlen(sep), wl = strlen(w), room = width - n;

		if (sl + wl > room) {
			if (!exact)
				break;
			/* The last line must end exactly: a word of the right
			 * length, else dots (never a cut multibyte char). */
			sep = n == 0 ? "" : " ";
			sl = strlen(sep);
			w = room > sl ? text_word_of_len(r, room - sl) : NULL;
			if (w == NULL) {
				memset(p + n, '.', room);
				return width;
			}
			wl = room - sl;
		}
		memcpy(p + n, sep, sl);
		memcpy(p + n + sl, w, wl);
		if ((n == 0 || stop) && w[0] >= 'a' && w[0] <= 'z')
			p[n + sl] = (char)(w[0] - 'a' + 'A');
		n += sl + wl;
	}
	return n;
}

static void
gen_text(struct gbuf *b, struct rng *r, size_t n)
{
	gen_lines(b, r, n, 40, 72, 10, text_line);
}

/* Valid base64 of pseudo-random bytes in full 76-character lines: n is a
 * multiple of 78, each line 57 raw bytes, so no '=' padding is needed. */
static void
gen_base64(struct gbuf *b, struct rng *r, size_t n)
{
	gbuf_reserve(b, n);
	char *p = b->p + b->len;
	for (size_t line = 0; line < n / 78; line++) {
		for (int g = 0; g < 19; g++) {
			uint64_t v = rng_next(r);
			for (int k = 0; k < 4; k++, v >>= 6)
				*p++ = b64_alphabet[v & 63];
		}
		*p++ = '\r';
		*p++ = '\n';
	}
	b->len += n;
}

static void
gen_date(char *out, size_t len, int64_t t, int tz_min)
{
	static const char *const wday[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
	};
	static const char *const mon[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
		"Oct", "Nov", "Dec",
	};
	time_t lt = (time_t)(t + tz_min * 60);
	struct tm tm;
	int az = tz_min < 0 ? -tz_min : tz_min;

	gmtime_r(&lt, &tm);
	snprintf(out, len, "%s, %02d %s %d %02d:%02d:%02d %c%02d%02d",
	    wday[tm.tm_wday], tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, tz_min < 0 ? '-' : '+',
	    az / 60, az % 60);
}

enum gen_kind {
	GEN_K_PLAIN,
	GEN_K_ALTERNATIVE,
	GEN_K_ATTACHMENT,
};

struct gen_person {
	const char *first, *last, *domain;
};

static struct gen_person
gen_person(struct rng *r)
{
	struct gen_person p = { GEN_PICK(r, gen_first), GEN_PICK(r, gen_last),
	    GEN_PICK(r, gen_domain) };
	return p;
}

static void
gen_address(struct gbuf *b, const char *field, const struct gen_person *p)
{
	gbuf_printf(b, "%s: %s %s <%c%s.%c%s@%s>\r\n", field, p->first, p->last,
	    p->first[0] | 0x20, p->first + 1, p->last[0] | 0x20, p->last + 1,
	    p->domain);
}

static void
gen_subject(struct gbuf *b, struct rng *r)
{
	char s[64] = "";
	size_t n = 0, words = 2 + rng_below(r, 6);
	unsigned k = (unsigned)rng_below(r, 100);
	const char *prefix = k < 15 ? "Re: " : k < 20 ? "Fwd: " : "";

	for (size_t i = 0; i < words; i++) {
		const char *w = GEN_PICK(r, gen_words);
		if (n + strlen(w) + 1 >= 50)
			break;
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s",
		    i > 0 ? " " : "", w);
	}
	s[0] = (char)(s[0] & ~0x20);	/* all words start lower case */
	gbuf_printf(b, "Subject: %s%s\r\n", prefix, s);
}

/* One message of exactly target bytes (a little over only if target is
 * below what its headers need, which the planner never asks for). */
static void
gen_message(struct gbuf *b, struct rng *r, size_t target, int64_t t)
{
	static const int zones[] = { 0, 0, 60, 120, -300, -480, 330, 540 };
	static const char *const att[][2] = {
		{ "application/pdf", "report.pdf" },
		{ "image/jpeg", "photo.jpg" },
		{ "application/zip", "logs.zip" },
	};
	size_t start = b->len;
	unsigned nrecv = target < 800 ? 0 : target < 3000 ? 1 :
	    2 + (unsigned)rng_below(r, 2);
	struct gen_person from = gen_person(r), to = gen_person(r);
	enum gen_kind kind = GEN_K_PLAIN;
	char date[48], bnd[40];
	int tz = zones[rng_below(r, NELEM(zones))];

	if (target >= 20000 && msg_chance(r, 40))
		kind = GEN_K_ATTACHMENT;
	else if (target >= 6000 && msg_chance(r, 15))
		kind = GEN_K_ALTERNATIVE;
	snprintf(bnd, sizeof(bnd), "=_is_%016llx",
	    (unsigned long long)rng_next(r));

	/* Received lines, newest first, each hop a few seconds earlier. */
	for (unsigned i = 0; i < nrecv; i++) {
		gen_date(date, sizeof(date), t - (int64_t)i * 7, 0);
		gbuf_printf(b, "Received: from mx%u.example.net (mx%u.example."
		    "net [198.51.100.%u])\r\n\tby mail%u.example.org with "
		    "ESMTPS id %08llX\r\n\tfor <%c%s.%c%s@%s>; %s\r\n", i + 1,
		    i + 1, (unsigned)rng_below(r, 254) + 1, i + 1,
		    (unsigned long long)(rng_next(r) & 0xffffffffULL),
		    to.first[0] | 0x20, to.first + 1, to.last[0] | 0x20,
		    to.last + 1, to.domain, date);
	}
	gen_date(date, sizeof(date), t - (int64_t)nrecv * 7, tz);
	gbuf_printf(b, "Date: %s\r\n", date);
	gen_address(b, "From", &from);
	gen_address(b, "To", &to);
	gen_subject(b, r);
	gbuf_printf(b, "MIME-Version: 1.0\r\n");

	const char *text_hdr = "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Transfer-Encoding: 8bit\r\n";
	char tail[256], mid[256];
	size_t fixed, body;
	if (kind == GEN_K_PLAIN) {
		gbuf_printf(b, "%s\r\n", text_hdr);
		body = b->len - start < target ? target - (b->len - start) : 0;
		if (body >= 300) {
			char greet[32], sig[40];
			int g = snprintf(greet, sizeof(greet), "Hi %s,\r\n\r\n",
			    to.first);
			int s = snprintf(sig, sizeof(sig), "\r\n-- \r\n%s\r\n",
			    from.first);
			gbuf_add(b, greet, (size_t)g);
			gen_text(b, r, body - (size_t)g - (size_t)s);
			gbuf_add(b, sig, (size_t)s);
		} else {
			gen_text(b, r, body < 2 ? 2 : body);
		}
		return;
	}
	if (kind == GEN_K_ALTERNATIVE) {
		gbuf_printf(b, "Content-Type: multipart/alternative; boundary=\""
		    "%s\"\r\n\r\n--%s\r\n%s\r\n", bnd, bnd, text_hdr);
		snprintf(mid, sizeof(mid), "--%s\r\nContent-Type: text/html; "
		    "charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
		    "<html><body>\r\n", bnd);
		snprintf(tail, sizeof(tail), "</body></html>\r\n--%s--\r\n",
		    bnd);
	} else {
		int a = (int)rng_below(r, NELEM(att));
		gbuf_printf(b, "Content-Type: multipart/mixed; boundary=\"%s\""
		    "\r\n\r\nThis is a multi-part message in MIME format.\r\n"
		    "\r\n--%s\r\n%s\r\n", bnd, bnd, text_hdr);
		snprintf(mid, sizeof(mid), "--%s\r\nContent-Type: %s; name=\"%s"
		    "\"\r\nContent-Transfer-Encoding: base64\r\nContent-"
		    "Disposition: attachment; filename=\"%s\"\r\n\r\n", bnd,
		    att[a][0], att[a][1], att[a][1]);
		snprintf(tail, sizeof(tail), "--%s--\r\n", bnd);
	}
	fixed = b->len - start + strlen(mid) + strlen(tail);
	body = fixed + 4 < target ? target - fixed : 4;
	size_t second;
	if (kind == GEN_K_ALTERNATIVE) {
		/* HTML runs a bit longer than its plain twin. */
		second = body / 2 + body / 10;
		if (body - second == 1 || second == 1)
			second++;	/* each half needs 0 or >= 2 bytes */
	} else {
		/* Attachments carry most of the bytes in big mail. */
		second = body / 100 * (70 + rng_below(r, 26)) / 78 * 78;
		while (second >= 78 && body - second < 2)
			second -= 78;
	}
	gen_text(b, r, body - second);
	gbuf_add(b, mid, strlen(mid));
	if (kind == GEN_K_ALTERNATIVE)
		gen_text(b, r, second);
	else
		gen_base64(b, r, second);
	gbuf_add(b, tail, strlen(tail));
}

/* Message i of a generated pool, target octets, dated a while after the
 * one before (*t); its offset in the arena goes to off[i] (it moves). */
static void
gen_pool_msg(struct msg_pool *pool, struct gbuf *b, struct rng *r,
	     int64_t *t, size_t *off, unsigned i, size_t target)
{
	*t += 60 + (int64_t)rng_below(r, 6 * 3600);
	off[i] = b->len;
	gen_message(b, r, target, *t);
	pool->msgs[i].len = b->len - off[i];
	pool->msgs[i].needs_id = true;
	pool->bytes += pool->msgs[i].len;
}

/* The n messages are written: the arena is final, point into it. */
static void
gen_pool_done(struct msg_pool *pool, struct gbuf *b, size_t *off,
	      unsigned n)
{
	pool->count = n;
	pool->arena = b->p;
	for (unsigned i = 0; i < n; i++)
		pool->msgs[i].data = b->p + off[i];
	free(off);
}

/* Sizes are planned first and the largest message is built last from
 * what the others left, so the pool mean is exact even if a header runs
 * over its share. */
struct msg_pool *
msg_pool_generate(uint32_t seed, uint64_t mean_size, uint64_t max_total)
{
	struct rng r = msg_rng_new(seed, 0x67656e6572617465ULL);
	uint64_t mean = mean_size < GEN_MIN_MEAN ? GEN_MIN_MEAN : mean_size;
	uint64_t fit = max_total / mean;
	unsigned n = fit < MSG_POOL_MIN_COUNT ? MSG_POOL_MIN_COUNT :
	    fit > MSG_POOL_MAX_COUNT ? MSG_POOL_MAX_COUNT : (unsigned)fit;
	uint64_t *plan = xmalloc(n * sizeof(*plan));
	size_t *off = xmalloc(n * sizeof(*off));
	struct msg_pool *pool = xcalloc(1, sizeof(*pool));
	struct gbuf b = { 0 };
	unsigned big = 0;
	/* 2019-01-01 plus up to four years: fixed by the seed. */
	int64_t t = 1546300800 + (int64_t)rng_below(&r, 4 * 365 * 86400);

	gen_plan_sizes(&r, n, mean, plan);
	for (unsigned i = 1; i < n; i++)
		if (plan[i] > plan[big])
			big = i;
	gbuf_reserve(&b, (size_t)(n * mean) + 1024);
	pool->msgs = xcalloc(n, sizeof(*pool->msgs));
	for (unsigned k = 0; k <= n; k++) {
		unsigned i = k < n ? k : big;
		if (k < n && i == big)
			continue;
		size_t target = (size_t)plan[i];
		if (k == n)
			target = n * mean > pool->bytes + GEN_MIN_SIZE ?
			    (size_t)(n * mean - pool->bytes) : GEN_MIN_SIZE;
		gen_pool_msg(pool, &b, &r, &t, off, i, target);
	}
	gen_pool_done(pool, &b, off, n);
	free(plan);
	return pool;
}

struct msg_pool *
msg_pool_generate_sizes(uint32_t seed, const struct msg_sizes *sizes,
			uint64_t max_total)
{
	struct rng r = msg_rng_new(seed, 0x73697a6573ULL);	/* "sizes" */
	struct msg_pool *pool = xcalloc(1, sizeof(*pool));
	unsigned nb = sizes->n, n = 0;
	uint64_t room = max_total / nb;
	struct gbuf b = { 0 };
	int64_t t = 1546300800 + (int64_t)rng_below(&r, 4 * 365 * 86400);

	pool->sizes = *sizes;
	for (unsigned k = 0; k < nb; k++) {
		uint64_t fit = room / sizes->size[k];
		unsigned most = MSG_POOL_MAX_COUNT / nb;
		pool->first[k] = n;
		pool->per[k] = fit < MSG_POOL_MIN_COUNT ? MSG_POOL_MIN_COUNT :
		    fit > most ? most : (unsigned)fit;
		n += pool->per[k];
	}
	size_t *off = xmalloc(n * sizeof(*off));
	pool->msgs = xcalloc(n, sizeof(*pool->msgs));
	for (unsigned k = 0; k < nb; k++) {
		/* What the sender puts before a generated message (msg.h)
		 * is part of the bucket's size. */
		size_t target = (size_t)sizes->size[k] - MSG_MARK_LINE_LEN -
		    MSG_ID_LINE_LEN;
		for (unsigned j = 0; j < pool->per[k]; j++) {
			gen_pool_msg(pool, &b, &r, &t, off,
				     pool->first[k] + j, target);
		}
	}
	gen_pool_done(pool, &b, off, n);
	return pool;
}
