/* fuzz_smtp.c: libFuzzer harness for LMTP and SMTP replies as the client
 * reads them (src/lmtp/lmtp_reply.c: lines and their length bound, lines
 * into replies; lmtp_wire.c: reply lines, EHLO keywords, enhanced codes,
 * printable text).
 *
 * Input: octet 0 picks max_line (8..263), octet 1 the reply's line bound
 * (1..16, low 4 bits) and whether the replies are EHLO's (bit 4), octet 2
 * where the rest is cut into pieces; the rest is what a server sends.
 * Each input is fed twice, whole and in pieces.  Checks: the two feeds
 * give the same replies (a running hash of code and text), end the same
 * way, leave the same octets unread and record the same EHLO keywords; a
 * reply's code is 200..599, its text printable and within LMTP_TEXT, its
 * enhanced code (when there is one) in range; no line is longer than
 * max_line and no reply has more lines than the bound. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "lmtp/lmtp_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum end { END_OPEN, END_LONG, END_BAD };

struct fz {
	uint64_t hash;
	unsigned replies;
	enum end end;
	enum lmtp_rl bad;
	size_t unread;
	struct lmtp_ext ext;
};

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_smtp: invariant failed: %s\n", what);
		abort();
	}
}

static void
mix(struct fz *f, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		f->hash = (f->hash ^ b[i]) * 0x100000001b3ULL;
}

static void
check_reply(struct fz *f, const struct lmtp_reply *r)
{
	size_t n = strnlen(r->text, sizeof(r->text));
	int k, sj, dt;

	fz_require(r->code >= 200 && r->code <= 599, "a reply code outside 200..599");
	fz_require(n < sizeof(r->text), "reply text not ended within LMTP_TEXT");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r->text[i];
		fz_require(c >= 0x20 && c != 0x7f, "a control octet in reply text");
	}
	if (lmtp_enhanced(r->text, &k, &sj, &dt) == 0)
		fz_require((k == 2 || k == 4 || k == 5) && sj >= 0 && sj <= 999 &&
			   dt >= 0 && dt <= 999, "an enhanced code out of range");
	mix(f, &r->code, sizeof(r->code));
	mix(f, r->text, n);
	f->replies++;
}

/* Every whole line now in `in`: false once the feed has ended. */
static bool
drain(struct fz *f, struct evbuffer *in, char *line, size_t max_line,
      unsigned max_lines, bool ehlo, struct lmtp_reply *r)
{
	size_t len;
	int got;

	while ((got = lmtp_read_line(in, line, max_line, &len)) != 0) {
		if (got < 0) {
			f->end = END_LONG;
			return false;
		}
		fz_require(len <= max_line, "a line longer than max_line");
		enum lmtp_rl rl = lmtp_reply_add(r, line, len, max_lines,
						 ehlo ? &f->ext : NULL);
		fz_require(rl == LMTP_RL_TOO_MANY || r->lines <= max_lines,
			   "more lines than the bound, not refused");
		if (rl == LMTP_RL_DONE) {
			fz_require(r->lines == 0, "a reply done but not reset");
			check_reply(f, r);
		} else if (rl != LMTP_RL_MORE) {
			fz_require(lmtp_rl_why(rl)[0] != '\0', "an error without a why");
			f->end = END_BAD;
			f->bad = rl;
			return false;
		}
	}
	return true;
}

static void
feed(const uint8_t *d, size_t n, size_t max_line, unsigned max_lines,
     bool ehlo, unsigned step_seed, struct fz *f)
{
	struct evbuffer *in = evbuffer_new();
	char *line = malloc(max_line + 1);
	struct lmtp_reply r;
	size_t i = 0;

	memset(f, 0, sizeof(*f));
	memset(&r, 0, sizeof(r));
	while (i < n) {
		/* whole (step_seed 0), else pieces of 1..16 octets */
		size_t take = step_seed == 0 ? n - i : 1 + (step_seed + i * 7) % 16;
		if (take > n - i)
			take = n - i;
		evbuffer_add(in, d + i, take);
		i += take;
		if (!drain(f, in, line, max_line, max_lines, ehlo, &r))
			break;
	}
	f->unread = f->end == END_OPEN ? evbuffer_get_length(in) : 0;
	if (f->end == END_OPEN)
		fz_require(f->unread <= max_line + 1,
			   "more than a line's octets left unread");
	free(line);
	evbuffer_free(in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz a, b;

	if (size < 3)
		return 0;
	size_t max_line = 8 + data[0];
	unsigned max_lines = 1 + (data[1] & 15);
	bool ehlo = (data[1] & 16) != 0;
	feed(data + 3, size - 3, max_line, max_lines, ehlo, 0, &a);
	feed(data + 3, size - 3, max_line, max_lines, ehlo, 1 + data[2], &b);
	fz_require(a.end == b.end && a.bad == b.bad,
		   "whole and piecewise feeds end differently");
	fz_require(a.hash == b.hash && a.replies == b.replies,
		   "whole and piecewise feeds differ in replies");
	fz_require(a.unread == b.unread, "whole and piecewise feeds leave "
		   "different octets unread");
	fz_require(memcmp(&a.ext, &b.ext, sizeof(a.ext)) == 0,
		   "whole and piecewise feeds differ in EHLO keywords");
	return 0;
}
