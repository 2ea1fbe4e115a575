/* lmtp_deliver.c: a tests-only tool around src/lmtp/: deliver K generated
 * messages to U users over LMTP, some to user+Spam, with parallel
 * sessions, and print what the server accepted per user and folder so a
 * test can compare it with the server's own counts.
 *
 *   lmtp-deliver --port P [--host 127.0.0.1] [--users U] [--messages K]
 *                [--rcpts R] [--spam-every N] [--parallel S]
 *                [--user-format FMT] [--first-user N] [--seed N] [--msg-size BYTES]
 *                [--timeout SECS] [--submit [--auth any|plain|login|none]
 *                [--pass PASS] [--starttls CAFILE]]
 *
 * Message k goes to R distinct users ((k*R + j) mod U, j < R; R <= U); a
 * recipient whose running number is a multiple of N goes to user+Spam.
 * FMT has one %u (the user number, from N, by default 1; default
 * "lmtpu%u").  Output:
 * a summary, latency lines, then one "user NAME INBOX n Spam m" line per
 * user, counting only final 2xx replies.  Exit 0 when every recipient got
 * a 2xx, 1 when any did not, 2 on bad arguments.  Loopback only.
 *
 * --submit speaks SMTP submission (RFC 6409) instead: message k is sent
 * by user k mod U, authenticated as that user with PASS (default "pass")
 * unless --auth none, one session per message.  Replies other than 2xx
 * are also printed by enhanced status code ("esc 5.7.1: n"), and
 * recipients without a reply by kind ("local timeout: n").  --starttls
 * requires STARTTLS before AUTH, the server's certificate verified with
 * CAFILE for --host's address. */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "util/clock.h"
#include "stats/hist.h"
#include "lmtp/lmtp.h"
#include "msg/msg.h"
#include "net/tls.h"
#include "util/units.h"
#include "util/xmalloc.h"

struct run {
	struct event_base *base;
	unsigned users;
	unsigned *inbox, *spam;
	uint64_t results, expected, failed;
};

/* Which user and folder recipient (k, j) is; arg of lmtp_deliver is k. */
struct rcpt_tag {
	unsigned user;
	bool spam;
};
static struct rcpt_tag *tags;	/* [k * R + j] */
static unsigned n_rcpts_per;

static void
on_result(void *arg, const struct lmtp_result *r)
{
	struct run *run = arg;
	uintptr_t k = (uintptr_t)r->arg;
	const struct rcpt_tag *t = &tags[k * n_rcpts_per + r->rcpt_idx];

	if (r->fail == LMTP_F_NONE && r->code / 100 == 2) {
		if (t->spam)
			run->spam[t->user]++;
		else
			run->inbox[t->user]++;
	} else {
		run->failed++;
		fprintf(stderr, "lmtp-deliver: %s: %s %d %s\n", r->rcpt,
			lmtp_fail_name[r->fail], r->code, r->text);
	}
	if (++run->results == run->expected)
		event_base_loopexit(run->base, NULL);
}

static void
usage(const char *why)
{
	fprintf(stderr, "lmtp-deliver: %s\n", why);
	exit(2);
}

static unsigned
num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;
	const char *why;

	if (units_parse_uint(s, min, max, &v, &why) < 0) {
		fprintf(stderr, "lmtp-deliver: %s %s: %s\n", opt, s, why);
		exit(2);
	}
	return (unsigned)v;
}

static void
print_lat(const char *what, const struct hist *h)
{
	char a[32], b[32], c[32], d[32];

	units_fmt_us(a, sizeof(a), hist_percentile(h, 50));
	units_fmt_us(b, sizeof(b), hist_percentile(h, 95));
	units_fmt_us(c, sizeof(c), hist_percentile(h, 99));
	units_fmt_us(d, sizeof(d), hist_max(h));
	printf("latency %s: p50 %s p95 %s p99 %s max %s (%llu samples)\n", what,
	       a, b, c, d, (unsigned long long)hist_count(h));
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", 1, 0, 'H' }, { "port", 1, 0, 'p' },
		{ "users", 1, 0, 'u' }, { "messages", 1, 0, 'k' },
		{ "rcpts", 1, 0, 'r' }, { "spam-every", 1, 0, 's' },
		{ "parallel", 1, 0, 'P' }, { "user-format", 1, 0, 'f' },
		{ "seed", 1, 0, 'S' }, { "msg-size", 1, 0, 'm' },
		{ "timeout", 1, 0, 't' }, { "submit", 0, 0, 'B' },
		{ "auth", 1, 0, 'A' }, { "pass", 1, 0, 'w' },
		{ "starttls", 1, 0, 'T' }, { "first-user", 1, 0, 'F' },
		{ 0, 0, 0, 0 }
	};
	const char *host = "127.0.0.1", *fmt = "lmtpu%u";
	unsigned port = 0, users = 10, msgs = 100, rcpts = 1, spam_every = 0;
	unsigned parallel = 4, seed = 1, msg_size = 4096, timeout = 60;
	unsigned first = 1;
	int o;
	bool submit = false, auth = true;
	enum lmtp_auth mech = LMTP_AUTH_ANY;
	const char *pass = "pass", *ca_file = NULL;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'H': host = optarg; break;
		case 'p': port = num("--port", optarg, 1, 65535); break;
		case 'u': users = num("--users", optarg, 1, 100000); break;
		case 'k': msgs = num("--messages", optarg, 1, 10000000); break;
		case 'r': rcpts = num("--rcpts", optarg, 1, 1000); break;
		case 's': spam_every = num("--spam-every", optarg, 0, 1000000); break;
		case 'P': parallel = num("--parallel", optarg, 0, 10000); break;
		case 'f': fmt = optarg; break;
		case 'F': first = num("--first-user", optarg, 0, 100000000); break;
		case 'S': seed = num("--seed", optarg, 0, UINT32_MAX); break;
		case 'm': msg_size = num("--msg-size", optarg, 512, 1u << 24); break;
		case 't': timeout = num("--timeout", optarg, 1, 3600); break;
		case 'B': submit = true; break;
		case 'w': pass = optarg; break;
		case 'T': ca_file = optarg; break;
		case 'A':
			if (strcmp(optarg, "any") == 0) mech = LMTP_AUTH_ANY;
			else if (strcmp(optarg, "plain") == 0) mech = LMTP_AUTH_PLAIN;
			else if (strcmp(optarg, "login") == 0) mech = LMTP_AUTH_LOGIN;
			else if (strcmp(optarg, "none") == 0) auth = false;
			else usage("--auth must be any, plain, login or none");
			break;
		default: usage("unknown option (see the source's header)");
		}
	}
	if (port == 0)
		usage("--port is required");
	if (rcpts > users)
		usage("--rcpts must not exceed --users");
	const char *pct = strchr(fmt, '%');
	if (pct == NULL || pct[1] != 'u' || strchr(pct + 1, '%') != NULL)
		usage("--user-format needs exactly one %u");

	struct lmtp_env env = { .max_sessions = parallel, .run_id = seed,
				.proto = submit ? LMTP_PROTO_SUBMIT : LMTP_PROTO_LMTP,
				.auth_mech = mech, .timeout_s = timeout };
	struct sockaddr_in *sin = (struct sockaddr_in *)&env.addr;
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1 ||
	    (ntohl(sin->sin_addr.s_addr) >> 24) != 127)
		usage("--host must be an IPv4 loopback address (127.x.y.z)");
	env.addrlen = sizeof(*sin);
	if (ca_file != NULL) {
		struct config tc = { .host = (char *)host, .ca_file = (char *)ca_file };
		char err[512];
		if (!submit)
			usage("--starttls needs --submit");
		if ((env.tls = tls_ctx_new(&tc, err, sizeof(err))) == NULL) {
			fprintf(stderr, "lmtp-deliver: --starttls: %s\n", err);
			return 2;
		}
	}

	struct run run = { .users = users };
	run.base = event_base_new();
	run.inbox = xcalloc(users, sizeof(*run.inbox));
	run.spam = xcalloc(users, sizeof(*run.spam));
	run.expected = (uint64_t)msgs * rcpts;
	n_rcpts_per = rcpts;
	tags = xcalloc(run.expected, sizeof(*tags));
	env.base = run.base;
	env.pool = msg_pool_generate(seed, msg_size, 4u << 20);
	env.stats = lmtp_stats_new();
	env.on_result = on_result;
	env.cb_arg = &run;
	struct lmtp_client *c = lmtp_client_new(&env);

	char **names = xcalloc(users, sizeof(*names));
	char **spam_names = xcalloc(users, sizeof(*spam_names));
	char buf[300];
	for (unsigned u = 0; u < users; u++) {
		snprintf(buf, sizeof(buf), fmt, u + first);
		names[u] = xstrdup(buf);
		snprintf(buf, sizeof(buf), "%s+Spam", names[u]);
		spam_names[u] = xstrdup(buf);
	}
	const char **list = xcalloc(rcpts, sizeof(*list));
	uint64_t t0 = clock_us();
	for (unsigned k = 0; k < msgs; k++) {
		for (unsigned j = 0; j < rcpts; j++) {
			uint64_t n = (uint64_t)k * rcpts + j;
			struct rcpt_tag *t = &tags[n];
			t->user = (unsigned)(n % users);
			t->spam = spam_every > 0 && n % spam_every == 0;
			list[j] = t->spam ? spam_names[t->user] : names[t->user];
		}
		/* The same size mix as APPEND: a pool message at random. */
		unsigned idx = (unsigned)((k * 2654435761u + seed) %
					  msg_pool_count(env.pool));
		struct lmtp_sender from = { .auth_user = names[k % users],
					    .auth_pass = pass };
		if (lmtp_submit(c, submit && auth ? &from : NULL, list, rcpts,
				idx, (void *)(uintptr_t)k) < 0)
			usage("a recipient address was refused (check --user-format)");
	}
	/* Past the client's own timeout, so a stalled session is its
	 * timeout, not ours. */
	struct timeval tv = { timeout + 5, 0 };
	event_base_loopexit(run.base, &tv);
	event_base_dispatch(run.base);
	double secs = (double)(clock_us() - t0) / 1e6;
	struct lmtp_stats *st = env.stats;
	unsigned sessions = (unsigned)ctr_get(&st->sessions);
	lmtp_client_free(c);	/* what is still pending fails: shutdown */

	printf("lmtp-deliver: %u messages, %llu recipients in %.2f s: %.1f "
	       "recipients/s, %u sessions (limit %u), %llu transactions\n",
	       msgs, (unsigned long long)run.expected, secs,
	       (double)ctr_get(&st->rcpt_ok) / (secs > 0 ? secs : 1), sessions,
	       parallel, (unsigned long long)ctr_get(&st->transactions));
	printf("ok %llu tempfail %llu permfail %llu local %llu\n",
	       (unsigned long long)ctr_get(&st->rcpt_ok),
	       (unsigned long long)ctr_get(&st->rcpt_tempfail),
	       (unsigned long long)ctr_get(&st->rcpt_permfail),
	       (unsigned long long)ctr_get(&st->rcpt_local));
	for (int code = 0; code < LMTP_CODES; code++)
		if (code / 100 != 2 && ctr_get(&st->codes[code]) > 0)
			printf("code %d: %llu\n", code,
			       (unsigned long long)ctr_get(&st->codes[code]));
	for (int e = 0; e < LMTP_ESC_SLOTS; e++) {
		char n[16];
		lmtp_esc_name(e, n, sizeof(n));
		if (n[0] != '2' && ctr_get(&st->esc[e]) > 0)
			printf("esc %s: %llu\n", n,
			       (unsigned long long)ctr_get(&st->esc[e]));
	}
	for (int k = 1; k < LMTP_FAIL_SLOTS; k++)
		if (ctr_get(&st->fails[k]) > 0)
			printf("local %s: %llu\n", lmtp_fail_name[k],
			       (unsigned long long)ctr_get(&st->fails[k]));
	print_lat("queued->reply", st->lat_total);
	print_lat("dot->reply", st->lat_data);
	for (unsigned u = 0; u < users; u++)
		printf("user %s INBOX %u Spam %u\n", names[u], run.inbox[u],
		       run.spam[u]);
	int rc = run.failed == 0 && run.results == run.expected &&
		 ctr_get(&st->rcpt_ok) == run.expected ? 0 : 1;

	for (unsigned u = 0; u < users; u++) {
		free(names[u]);
		free(spam_names[u]);
	}
	free(names);
	free(spam_names);
	free(list);
	free(tags);
	free(run.inbox);
	free(run.spam);
	lmtp_stats_free(st);
	msg_pool_free((struct msg_pool *)env.pool);
	tls_ctx_free(env.tls);
	event_base_free(run.base);
	return fflush(stdout) == 0 ? rc : 1;
}
