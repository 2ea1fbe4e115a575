/* fuzz_pop3.c: libFuzzer harness for the POP3 response parser
 * (src/pop3/pop3_parse.c).
 *
 * Input: octet 0 picks max_line (8..263), octet 1 the response bound
 * (64 << (o & 15)), octet 2 a seed for which +OK status lines open a body
 * (bit k of a rolling byte for the k-th status line) and where the rest
 * is cut into pieces; the rest is what a server sends.  Each input is fed
 * twice, whole and in pieces.  Checks: the two feeds give the same events
 * (a running hash of kind, ok and text) and the same error; no event's
 * text is longer than max_line; the bytes of the body lines never exceed
 * the input; without an error every byte was taken; after an error
 * nothing more is (sticky). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pop3/pop3_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	uint64_t hash;
	uint8_t mask;
	unsigned n_status;
	size_t max_line, text_bytes;
};

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_pop3: invariant failed: %s\n", what);
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

static int
fz_ev(void *arg, const struct pop3_ev *ev)
{
	struct fz *f = arg;
	unsigned char k = (unsigned char)(ev->kind * 2 + ev->ok);

	mix(f, &k, 1);
	mix(f, ev->text, ev->kind == POP3_EV_END ? 0 : ev->len);
	fz_require(ev->kind == POP3_EV_END || ev->len <= f->max_line,
		   "an event's text is longer than max_line");
	f->text_bytes += ev->kind == POP3_EV_END ? 0 : ev->len;
	if (ev->kind != POP3_EV_STATUS)
		return 0;
	return (f->mask >> (f->n_status++ % 8)) & 1;
}

static enum pop3_perr
feed(const uint8_t *d, size_t n, size_t max_line, uint64_t max_resp,
     uint8_t mask, unsigned step_seed, struct fz *f)
{
	struct pop3_parser p;
	enum pop3_perr e = POP3_PE_NONE;
	size_t i = 0, used;

	memset(f, 0, sizeof(*f));
	f->mask = mask;
	f->max_line = max_line;
	pop3_parser_init(&p, max_line, max_resp);
	while (i < n) {
		/* whole (step_seed 0), else pieces of 1..16 octets */
		size_t take = step_seed == 0 ? n - i : 1 + (step_seed + i * 7) % 16;
		if (take > n - i)
			take = n - i;
		e = pop3_parser_feed(&p, (const char *)d + i, take, fz_ev, f, &used);
		fz_require(used <= take, "took more than it was given");
		if (e != POP3_PE_NONE) {
			fz_require(pop3_parser_feed(&p, "x\n", 2, fz_ev, f, &used) == e &&
				   used == 0, "an error that is not sticky");
			break;
		}
		fz_require(used == take, "fed bytes not taken without an error");
		i += take;
	}
	fz_require(f->text_bytes <= n, "more text out than bytes in");
	pop3_parser_free(&p);
	return e;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz a, b;

	if (size < 3)
		return 0;
	size_t max_line = 8 + data[0];
	uint64_t max_resp = 64ULL << (data[1] & 15);
	uint8_t mask = data[2];
	enum pop3_perr ea = feed(data + 3, size - 3, max_line, max_resp, mask, 0, &a);
	enum pop3_perr eb = feed(data + 3, size - 3, max_line, max_resp, mask,
				 1 + data[2], &b);
	fz_require(ea == eb, "whole and piecewise feeds end differently");
	fz_require(a.hash == b.hash, "whole and piecewise feeds differ in events");
	return 0;
}
