/* fuzz_imap.c: libFuzzer harness for the response parser.
 *
 *   make -f tests/fuzz/Makefile build-fuzz/fuzz_imap
 *   build-fuzz/fuzz_imap tests/fuzz/seeds-imap
 *
 * The input is raw server output.  It is parsed whole, one byte at a time,
 * in pseudo-random splits, and with the callback stopping after every
 * response (the rest fed again), under the default limits and under tiny
 * ones.  Every way must give the same responses, the same error and the
 * same pending count; any difference, a broken field invariant or an
 * oversized internal buffer aborts.  A STATUS response's text also goes
 * through imap_status_parse (NOTIFY's unsolicited STATUS). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imap/imap.h"
#include "imap/imap_status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Test-only accessor defined in imap.c. */
size_t imap_parser_bufcap(const struct imap_parser *p);

struct fz_run {
	uint64_t hash;
	unsigned events;
	unsigned stop_every;
	bool failed;
	uint64_t pending;
	char err[256];
};

static void
fz_mix(struct fz_run *r, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		r->hash = (r->hash ^ s[i]) * 0x100000001b3ull;
	r->hash = (r->hash ^ n) * 0x100000001b3ull;
}

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_imap: invariant failed: %s\n", what);
		abort();
	}
}

static bool
fz_inside(const char *p, size_t n, const struct imap_resp *r)
{
	return p >= r->line && p + n <= r->line + r->line_len;
}

static int
fz_cb(void *arg, const struct imap_resp *r)
{
	struct fz_run *run = arg;
	const char *code, *carg;
	size_t code_len, carg_len;

	fz_require(r->line[r->line_len] == '\0', "line NUL-terminated");
	fz_require(r->line_len > 0, "line not empty");
	fz_require(fz_inside(r->text, r->text_len, r) &&
		   r->text + r->text_len == r->line + r->line_len,
		   "text is the tail of line");
	fz_require(fz_inside(r->keyword, r->keyword_len, r),
		   "keyword inside line");
	fz_require(r->kind != IMAP_TAGGED ||
		   (r->tag == r->line && r->tag_len > 0 &&
		    r->cond >= IMAP_COND_OK && r->cond <= IMAP_COND_BAD),
		   "tagged response has a tag and OK/NO/BAD");
	fz_require(r->kind == IMAP_UNTAGGED || !r->has_num,
		   "only untagged responses have numbers");
	fz_require(r->literals > 0 || r->literal_bytes == 0,
		   "literal bytes without literals");
	if (imap_resp_code(r, &code, &code_len, &carg, &carg_len)) {
		fz_require(code_len > 0 && fz_inside(code, code_len, r) &&
			   fz_inside(carg, carg_len, r), "resp code inside text");
		(void)imap_caps_has(carg, carg_len, "IMAP4rev1");
	}
	(void)imap_resp_is(r, "OK");
	/* NOTIFY's unsolicited STATUS (users_notify.c): any text, parsed or
	 * refused with a reason, the name within its bound. */
	if (imap_resp_kw(r) == IMAP_KW_STATUS) {
		struct imap_status st;
		const char *why = NULL;
		int rc = imap_status_parse(r->text, r->text_len, &st, &why);
		fz_require(rc == 0 ? st.name_len <= IMAP_STATUS_NAME_MAX &&
			   st.name[st.name_len] == '\0' : why != NULL,
			   "STATUS parsed, or refused with a reason");
	}

	uint32_t head[5] = { r->kind, r->cond, r->has_num, r->num, r->literals };
	fz_mix(run, head, sizeof(head));
	fz_mix(run, &r->literal_bytes, sizeof(r->literal_bytes));
	fz_mix(run, r->tag, r->kind == IMAP_TAGGED ? r->tag_len : 0);
	fz_mix(run, r->keyword, r->keyword_len);
	fz_mix(run, r->text, r->text_len);
	fz_mix(run, r->line, r->line_len);
	run->events++;
	return run->stop_every && run->events % run->stop_every == 0;
}

/* chunk 0: whole; 1: byte by byte; otherwise sizes from a generator seeded
 * with chunk. */
static void
fz_run(const uint8_t *data, size_t size, const struct imap_limits *lim,
       uint64_t chunk, unsigned stop_every, struct fz_run *out)
{
	memset(out, 0, sizeof(*out));
	out->hash = 0xcbf29ce484222325ull;
	out->stop_every = stop_every;
	struct imap_parser *p = imap_parser_new(lim, fz_cb, out);
	size_t max_line = lim && lim->max_line ? lim->max_line : 65536;
	size_t capture = lim && lim->capture_literal ? lim->capture_literal
						      : 4096;
	size_t cap_bound = 2 * (2 * max_line + 8 * capture + 16) + 512;
	uint64_t rng = chunk;
	size_t at = 0;

	while (at < size) {
		size_t n = size - at;
		if (chunk == 1) {
			n = 1;
		} else if (chunk > 1) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			size_t want = (size_t)(rng >> 33) % 97 + 1;
			if (want < n)
				n = want;
		}
		long got = imap_parser_feed(p, (const char *)data + at, n);
		fz_require(imap_parser_bufcap(p) <= cap_bound,
			   "buffer within the limits");
		if (got < 0) {
			out->failed = true;
			snprintf(out->err, sizeof(out->err), "%s",
				 imap_parser_error(p));
			fz_require(out->err[0] != '\0', "error has a message");
			break;
		}
		fz_require((size_t)got <= n, "consumed no more than fed");
		fz_require((size_t)got == n || stop_every,
			   "short feed only when stopped");
		at += (size_t)got;
	}
	if (!out->failed)
		out->pending = imap_parser_pending(p);
	imap_parser_reset(p);
	fz_require(imap_parser_pending(p) == 0, "reset clears pending");
	imap_parser_free(p);
}

static void
fz_same(const struct fz_run *a, const struct fz_run *b, const char *how)
{
	if (a->hash == b->hash && a->events == b->events &&
	    a->failed == b->failed && a->pending == b->pending &&
	    strcmp(a->err, b->err) == 0)
		return;
	fprintf(stderr, "fuzz_imap: %s differs from whole feed: events %u/%u "
		"failed %d/%d pending %llu/%llu err \"%s\"/\"%s\"\n", how,
		a->events, b->events, a->failed, b->failed,
		(unsigned long long)a->pending, (unsigned long long)b->pending,
		a->err, b->err);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct imap_limits tiny = { 64, 4096, 8 };
	const struct imap_limits *limits[2] = { NULL, &tiny };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	seed |= 2;	/* never 0 or 1, which mean whole and bytewise */

	for (int l = 0; l < 2; l++) {
		struct fz_run whole, other;
		fz_run(data, size, limits[l], 0, 0, &whole);
		if (size <= 65536) {
			fz_run(data, size, limits[l], 1, 0, &other);
			fz_same(&whole, &other, "byte-at-a-time");
		}
		fz_run(data, size, limits[l], seed, 0, &other);
		fz_same(&whole, &other, "random split");
		fz_run(data, size, limits[l], seed + 1, 1, &other);
		fz_same(&whole, &other, "stop after each response");
		fz_run(data, size, limits[l], 0, 2, &other);
		fz_same(&whole, &other, "whole, stop every other response");
	}
	return 0;
}
