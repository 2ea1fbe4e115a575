/* bench-parse.c: CPU cost of the response path of a FETCH-heavy run,
 * without sockets.  scripts/bench-parse compiles it with the response
 * parser and the mailbox model (src/imap/imap*.c, src/model/mbox_*.c) into /tmp; it
 * is not part of the build.
 *
 *   bench-parse [--runs 5] [--secs 1] [--chunk 131072] FILE
 *
 * FILE is raw server output, exactly as received (CRLF line ends, literals
 * inline).  Its setup part, fed once, holds no literal: the greeting and
 * login, a SELECT's responses up to its tagged reply with [READ-WRITE] or
 * [READ-ONLY], and one more command's up to its tagged reply.  What
 * follows is the timed part.  The default, scripts/bench-parse.imap, is
 * Dovecot 2.3 on a maildir INBOX of 1730 generated messages (appended by
 * imapstress "- append=100,0 select=0 logout=0"), recorded by a TCP proxy:
 * the SELECT of a one-client "- select=100 fetch=100 fet2=100 logout=0"
 * run, then FETCH 1:* (UID) from another session, so that the model knows
 * every UID, as the client's does a few seconds into such a run; then
 * every 130th response of that 2-second run: 1228 FETCH responses with
 * ENVELOPE, BODYSTRUCTURE (multipart too), FLAGS with keywords,
 * INTERNALDATE, RFC822.SIZE, UID, BODY[HEADER.FIELDS (...)] literals, and
 * FETCH2's message bodies, some over the 4 KiB capture limit, with tagged
 * replies in between.
 *
 * The bytes take the path of a connection's input (conn_io.c conn_feed,
 * conn_resp.c conn_on_resp): imap_parser_feed in --chunk pieces (the
 * client reads up to 128 KiB at once), every untagged response to
 * mbox_view_untagged, then the EXISTS/EXPUNGE test of conn_untagged; the
 * SELECT's tagged OK to mbox_view_on_resp_text and mbox_view_select_done.
 * The timed part is fed once untimed (the store learns every size, date
 * and hash, as the client's does on its first pass over the mailbox),
 * then again and again for --secs, --runs times.
 * Reported: FETCH responses and octets per pass, and per run ns of CPU
 * time per FETCH response and MB/s (10^6 octets per CPU second); then
 * the best and the median run.  Violations the model reports are counted
 * and the first few printed: on this input there must be none. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "imap/imap.h"
#include "model/mbox_model.h"

#define BENCH_MAX_RUNS 50

struct bench {
	struct mbox_view *view;
	uint32_t exists;	/* what conn_untagged keeps */
	unsigned long fetches, errors;
	bool counting;
};

static void
bench_err(void *arg, enum mbox_err kind, const char *msg)
{
	struct bench *b = arg;

	if (b->errors++ < 5)
		fprintf(stderr, "bench-parse: model reported %s: %s\n",
			mbox_err_name(kind), msg);
}

static int
bench_resp(void *arg, const struct imap_resp *r)
{
	struct bench *b = arg;
	const char *code, *carg;
	size_t code_len, carg_len;

	if (r->kind == IMAP_TAGGED) {
		if (r->cond == IMAP_COND_OK &&
		    imap_resp_code(r, &code, &code_len, &carg, &carg_len) &&
		    code_len > 5 && strncasecmp(code, "READ-", 5) == 0) {
			mbox_view_on_resp_text(b->view, r->text, r->text_len);
			mbox_view_select_done(b->view);
		}
		return 0;
	}
	if (r->kind != IMAP_UNTAGGED)
		return 0;
	if (b->counting && r->has_num && imap_resp_is(r, "FETCH"))
		b->fetches++;
	mbox_view_set_state(b->view, "FETCH");
	mbox_view_untagged(b->view, r);
	/* conn_untagged's own bookkeeping after the model's */
	if (r->has_num) {
#ifdef BENCH_KW_ID
		if (r->kw_id == IMAP_KW_EXISTS)
			b->exists = r->num;
		else if (r->kw_id == IMAP_KW_EXPUNGE && b->exists > 0)
			b->exists--;
#else
		if (imap_resp_is(r, "EXISTS"))
			b->exists = r->num;
		else if (imap_resp_is(r, "EXPUNGE") && b->exists > 0)
			b->exists--;
#endif
	}
	return 0;
}

static void
bench_feed(struct imap_parser *p, const char *s, size_t n, size_t chunk)
{
	while (n > 0) {
		size_t k = n < chunk ? n : chunk;
		if (imap_parser_feed(p, s, k) != (long)k) {
			fprintf(stderr, "bench-parse: parse error: %s\n",
				imap_parser_error(p));
			exit(1);
		}
		s += k;
		n -= k;
	}
}

/* CPU time of this process: what the client pays, and steadier than
 * wall time on a machine shared with other work. */
static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *
bench_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL) {
		perror(path);
		exit(2);
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (buf == NULL) {
				fprintf(stderr, "bench-parse: out of memory\n");
				exit(2);
			}
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Where the setup part ends: after the tagged reply that follows the
 * first tagged " OK [READ-WRITE]" or " OK [READ-ONLY]" (the setup part
 * has no literals, so a line is a response). */
static size_t
bench_setup_end(const char *s, size_t n)
{
	size_t p = 0;
	bool selected = false;

	while (p < n) {
		const char *nl = memchr(s + p, '\n', n - p);
		size_t e = nl ? (size_t)(nl - s) + 1 : n;
		bool tagged = s[p] != '*' && s[p] != '+';
		if (tagged && selected)
			return e;
		if (tagged && memmem(s + p, e - p, " OK [READ-", 10) != NULL)
			selected = true;
		p = e;
	}
	fprintf(stderr, "bench-parse: the input does not start with a "
		"SELECT's responses (up to a tagged OK [READ-WRITE] or "
		"[READ-ONLY]) and another command's\n");
	exit(2);
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
bench_usage(void)
{
	fprintf(stderr, "usage: bench-parse [--runs N] [--secs S] "
		"[--chunk BYTES] FILE\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	unsigned runs = 5;
	double secs = 1.0;
	size_t chunk = 128 * 1024;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--secs") == 0 && i + 1 < argc)
			secs = strtod(argv[++i], NULL);
		else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc)
			chunk = strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] == '-' || path != NULL)
			bench_usage();
		else
			path = argv[i];
	}
	if (path == NULL || runs < 1 || runs > BENCH_MAX_RUNS ||
	    !(secs > 0) || chunk < 1)
		bench_usage();

	size_t len;
	char *data = bench_read(path, &len);
	size_t sel = bench_setup_end(data, len);
	const char *body = data + sel;
	size_t body_len = len - sel;

	struct bench b = { 0 };
	struct mbox_store *store = mbox_store_new("bench\tINBOX", 0);
	struct mbox_view_opts opts = {
		.check_modseq = true,	/* Dovecot offers CONDSTORE */
		.err_cb = bench_err,
		.err_arg = &b,
	};
	struct imap_limits lim = {
		.max_line = 64 * 1024,
		.max_literal = 256ull << 20,
		.capture_literal = 4096,
	};
	b.view = mbox_view_new(store, 1, &opts);
	struct imap_parser *p = imap_parser_new(&lim, bench_resp, &b);

	mbox_view_reset(b.view);
	bench_feed(p, data, sel, chunk);
	b.counting = true;
	bench_feed(p, body, body_len, chunk);
	b.counting = false;
	unsigned long fetches = b.fetches;
	if (fetches == 0) {
		fprintf(stderr, "bench-parse: no FETCH responses in the timed "
			"part\n");
		return 2;
	}
	printf("input: %s: %zu octets, %lu FETCH responses per pass "
	       "(%.0f octets each on average); %u messages, %u UIDs known\n",
	       path, body_len, fetches, (double)body_len / (double)fetches,
	       mbox_view_exists(b.view), mbox_store_msg_count(store));

	double per = (double)body_len / (double)fetches;	/* octets */
	double ns[BENCH_MAX_RUNS];
	for (unsigned r = 0; r < runs; r++) {
		unsigned long passes = 0;
		double t0 = bench_now(), t;
		do {
			bench_feed(p, body, body_len, chunk);
			passes++;
			t = bench_now() - t0;
		} while (t < secs);
		ns[r] = t * 1e9 / ((double)passes * (double)fetches);
		printf("run %u: %lu passes in %.3f CPU s: %.1f ns per FETCH "
		       "response, %.1f MB/s\n", r + 1, passes, t, ns[r],
		       per * 1e3 / ns[r]);
	}
	qsort(ns, runs, sizeof(ns[0]), bench_cmp);
	/* the upper median for an even count */
	printf("best: %.1f ns per FETCH response, %.1f MB/s; median: %.1f ns, "
	       "%.1f MB/s\n", ns[0], per * 1e3 / ns[0], ns[runs / 2],
	       per * 1e3 / ns[runs / 2]);
	printf("model violations: %lu\n", b.errors);

	imap_parser_free(p);
	mbox_view_free(b.view);
	mbox_store_free(store);
	free(data);
	return b.errors != 0;
}
