/* bench-floor.c: the "floor" for scripts/bench-client.  A minimal epoll
 * IMAP client that spends as little CPU per command as an IMAP client
 * can: one writev per batch of commands, one read per readiness event,
 * and no parsing beyond finding the tagged reply that ends the batch.
 * scripts/bench-client compiles it into /tmp (it is not part of the
 * build) and compares imapstress's CPU per command with it.
 *
 *   bench-floor --port N [--host 127.0.0.1] [--clients 10] [--secs 5]
 *               [--warmup 1] [--cmd noop|append|fetch] [--size 4096]
 *               [--pipeline 1] [--messages 1000] [--user floor]
 *
 * Every connection logs in (LOGIN floor pass, or as --user: a %d in it is
 * the connection's number from 1, so that against a real server, as
 * imapstress's user=u%d does, each connection has a mailbox of its own
 * instead of all of them queueing for one), SELECTs INBOX, then loops:
 * write --pipeline commands in one writev, read until the last one's
 * tagged reply.  CPU (getrusage) and commands are counted over --secs
 * after --warmup, and printed as one line of key=value pairs:
 *   commands=N secs=S cpu_user_us=U cpu_sys_us=Y us_per_command=C errors=E
 * APPEND sends a fixed --size message as a LITERAL+ literal; FETCH asks
 * for BODY.PEEK[] of message 1..--messages in turn (against fakeimapd
 * every FETCH returns one whole message).  Loopback addresses only. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_MAX_PIPELINE 64
#define FLOOR_READ_BUF (256 * 1024)
/* Bytes of the stream kept from one read to the next, so that a tagged
 * line split across reads (and the CRLF before it) is still found. */
#define FLOOR_CARRY 256
#define FLOOR_HDR_LEN 64

enum floor_cmd { FLOOR_NOOP, FLOOR_APPEND, FLOOR_FETCH };

enum floor_phase { FLOOR_P_GREETING, FLOOR_P_LOGIN, FLOOR_P_SELECT, FLOOR_P_RUN };

struct floor_opts {
	const char *host;
	unsigned port, clients, pipeline;
	double secs, warmup;
	enum floor_cmd cmd;
	size_t size;
	unsigned messages;
	const char *user;	/* LOGIN name; %d: the connection's number */
};

struct floor_conn {
	int fd;
	enum floor_phase phase;
	uint32_t next_tag;	/* tag number of the next command */
	uint32_t wait_tag;	/* the tagged reply that ends the batch */
	unsigned batch;		/* commands in the batch in flight */
	char pattern[24];	/* "\r\na<wait_tag> " */
	size_t pattern_len;
	char carry[FLOOR_CARRY];
	size_t carry_len;
	char hdr[FLOOR_MAX_PIPELINE][FLOOR_HDR_LEN];
	/* Unwritten rest of a batch that did not fit the socket at once. */
	char *pending;
	size_t pending_len, pending_off;
};

struct floor_run {
	struct floor_opts o;
	struct floor_conn *conns;
	int ep;
	char *body;		/* the APPEND message */
	char *rbuf;		/* FLOOR_CARRY + FLOOR_READ_BUF */
	uint64_t done;		/* commands answered */
	uint64_t errors;
	unsigned logged_in;
	unsigned fetch_seq;
};

_Noreturn static void floor_die(const char *what);

static void
floor_die(const char *what)
{
	fprintf(stderr, "bench-floor: %s%s%s\n", what, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(2);
}

static double
floor_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
floor_cpu_us(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*user = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
	return *user + *sys;
}

static unsigned long
floor_num(const char *opt, const char *s, unsigned long min, unsigned long max)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "bench-floor: %s: '%s' is not a number in %lu..%lu\n",
			opt, s, min, max);
		exit(2);
	}
	return v;
}

static double
floor_secs(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= 0 && v <= 86400)) {
		fprintf(stderr, "bench-floor: %s: '%s' is not a number of seconds\n",
			opt, s);
		exit(2);
	}
	return v;
}

/* A LOGIN name: an atom of letters, digits and . _ - with at most one
 * %d, so that it needs no quoting and the %d is all snprintf sees. */
static const char *
floor_user(const char *v)
{
	const char *d = strstr(v, "%d");
	bool ok = *v != '\0' && strlen(v) < 32 && (d == NULL || strstr(d + 2, "%") == NULL);
	for (const char *p = v; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._-", *p) != NULL ||
		    (p == d) || (d != NULL && p == d + 1);
	if (!ok) {
		fprintf(stderr, "bench-floor: --user: '%s' is not a name of letters, digits, "
			"'.', '_', '-' and at most one %%d (under 32 characters)\n", v);
		exit(2);
	}
	return v;
}

static void
floor_parse(int argc, char **argv, struct floor_opts *o)
{
	*o = (struct floor_opts){ .host = "127.0.0.1", .clients = 10,
		.pipeline = 1, .secs = 5, .warmup = 1, .cmd = FLOOR_NOOP,
		.size = 4096, .messages = 1000, .user = "floor" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc) {
			fprintf(stderr, "bench-floor: '%s' needs a value (or is unknown)\n", a);
			exit(2);
		}
		const char *v = argv[++i];
		if (strcmp(a, "--host") == 0)
			o->host = v;
		else if (strcmp(a, "--port") == 0)
			o->port = (unsigned)floor_num(a, v, 1, 65535);
		else if (strcmp(a, "--clients") == 0)
			o->clients = (unsigned)floor_num(a, v, 1, 100000);
		else if (strcmp(a, "--pipeline") == 0)
			o->pipeline = (unsigned)floor_num(a, v, 1, FLOOR_MAX_PIPELINE);
		else if (strcmp(a, "--secs") == 0)
			o->secs = floor_secs(a, v);
		else if (strcmp(a, "--warmup") == 0)
			o->warmup = floor_secs(a, v);
		else if (strcmp(a, "--size") == 0)
			o->size = floor_num(a, v, 2, 64ul << 20);
		else if (strcmp(a, "--messages") == 0)
			o->messages = (unsigned)floor_num(a, v, 1, 1u << 30);
		else if (strcmp(a, "--user") == 0)
			o->user = floor_user(v);
		else if (strcmp(a, "--cmd") == 0) {
			if (strcmp(v, "noop") == 0)
				o->cmd = FLOOR_NOOP;
			else if (strcmp(v, "append") == 0)
				o->cmd = FLOOR_APPEND;
			else if (strcmp(v, "fetch") == 0)
				o->cmd = FLOOR_FETCH;
			else {
				fprintf(stderr, "bench-floor: --cmd: '%s' is not noop, append or fetch\n", v);
				exit(2);
			}
		} else {
			fprintf(stderr, "bench-floor: unknown option '%s'\n", a);
			exit(2);
		}
	}
	if (o->port == 0) {
		fprintf(stderr, "bench-floor: --port is required\n");
		exit(2);
	}
	if (o->secs <= 0) {
		fprintf(stderr, "bench-floor: --secs must be more than 0\n");
		exit(2);
	}
}

/* A message of exactly SIZE octets: CRLF lines, ending in CRLF. */
static char *
floor_make_body(size_t size)
{
	static const char hdr[] = "From: floor@example.invalid\r\n"
		"Subject: bench-floor\r\n\r\n";
	char *b = malloc(size);
	if (b == NULL)
		floor_die("out of memory");
	memset(b, 'y', size);
	size_t start = size > sizeof(hdr) + 2 ? sizeof(hdr) - 1 : 0;
	memcpy(b, hdr, start);
	for (size_t j = start + 72; j + 4 <= size; j += 74) {
		b[j] = '\r';
		b[j + 1] = '\n';
	}
	b[size - 2] = '\r';
	b[size - 1] = '\n';
	return b;
}

static void
floor_expect(struct floor_conn *c, uint32_t tag, unsigned batch)
{
	c->wait_tag = tag;
	c->batch = batch;
	c->pattern_len = (size_t)snprintf(c->pattern, sizeof(c->pattern),
					  "\r\na%u ", tag);
}

static void
floor_watch(struct floor_run *r, struct floor_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	if (epoll_ctl(r->ep, EPOLL_CTL_MOD, c->fd, &ev) != 0)
		floor_die("epoll_ctl");
}

/* Writes IOV in one writev; whatever the socket does not take now is
 * copied aside and finished on EPOLLOUT (large APPENDs only). */
static void
floor_writev(struct floor_run *r, struct floor_conn *c, struct iovec *iov, int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	ssize_t w = writev(c->fd, iov, n);
	if (w < 0) {
		if (errno != EAGAIN)
			floor_die("writev");
		w = 0;
	}
	if ((size_t)w == total)
		return;
	size_t rest = total - (size_t)w, off = 0, skip = (size_t)w;
	char *p = realloc(c->pending, rest);
	if (p == NULL)
		floor_die("out of memory");
	for (int i = 0; i < n; i++) {
		size_t len = iov[i].iov_len;
		if (skip >= len) {
			skip -= len;
			continue;
		}
		memcpy(p + off, (char *)iov[i].iov_base + skip, len - skip);
		off += len - skip;
		skip = 0;
	}
	c->pending = p;
	c->pending_len = rest;
	c->pending_off = 0;
	floor_watch(r, c, EPOLLIN | EPOLLOUT);
}

static void
floor_flush(struct floor_run *r, struct floor_conn *c)
{
	ssize_t w = write(c->fd, c->pending + c->pending_off,
			  c->pending_len - c->pending_off);
	if (w < 0) {
		if (errno == EAGAIN)
			return;
		floor_die("write");
	}
	c->pending_off += (size_t)w;
	if (c->pending_off == c->pending_len) {
		c->pending_len = c->pending_off = 0;
		floor_watch(r, c, EPOLLIN);
	}
}

static void
floor_send_text(struct floor_run *r, struct floor_conn *c, const char *fmt_cmd)
{
	uint32_t tag = c->next_tag++;
	int n = snprintf(c->hdr[0], FLOOR_HDR_LEN, "a%u %s\r\n", tag, fmt_cmd);
	struct iovec iov = { c->hdr[0], (size_t)n };
	floor_expect(c, tag, 0);
	floor_writev(r, c, &iov, 1);
}

static void
floor_send_batch(struct floor_run *r, struct floor_conn *c)
{
	struct iovec iov[3 * FLOOR_MAX_PIPELINE];
	int n = 0;
	unsigned k = r->o.pipeline;
	uint32_t tag = 0;
	for (unsigned i = 0; i < k; i++) {
		tag = c->next_tag++;
		char *h = c->hdr[i];
		int len;
		switch (r->o.cmd) {
		case FLOOR_NOOP:
			len = snprintf(h, FLOOR_HDR_LEN, "a%u NOOP\r\n", tag);
			iov[n++] = (struct iovec){ h, (size_t)len };
			break;
		case FLOOR_APPEND:
			len = snprintf(h, FLOOR_HDR_LEN, "a%u APPEND INBOX {%zu+}\r\n",
				       tag, r->o.size);
			iov[n++] = (struct iovec){ h, (size_t)len };
			iov[n++] = (struct iovec){ r->body, r->o.size };
			iov[n++] = (struct iovec){ (char *)"\r\n", 2 };
			break;
		case FLOOR_FETCH:
			r->fetch_seq = r->fetch_seq % r->o.messages + 1;
			len = snprintf(h, FLOOR_HDR_LEN, "a%u FETCH %u (BODY.PEEK[])\r\n",
				       tag, r->fetch_seq);
			iov[n++] = (struct iovec){ h, (size_t)len };
			break;
		}
	}
	floor_expect(c, tag, k);
	floor_writev(r, c, iov, n);
}

/* The tagged reply was found at P (just after "\r\n"): NO/BAD are errors,
 * and a failed LOGIN or SELECT stops everything. */
static void
floor_tagged(struct floor_run *r, struct floor_conn *c, const char *p)
{
	bool ok = strncmp(p + c->pattern_len - 2, "OK", 2) == 0;
	switch (c->phase) {
	case FLOOR_P_GREETING:
		break;
	case FLOOR_P_LOGIN:
		if (!ok) {
			errno = 0;
			floor_die("LOGIN was refused");
		}
		c->phase = FLOOR_P_SELECT;
		floor_send_text(r, c, "SELECT INBOX");
		return;
	case FLOOR_P_SELECT:
		if (!ok) {
			errno = 0;
			floor_die("SELECT INBOX was refused");
		}
		c->phase = FLOOR_P_RUN;
		r->logged_in++;
		floor_send_batch(r, c);
		return;
	case FLOOR_P_RUN:
		r->done += c->batch;
		if (!ok)
			r->errors++;
		floor_send_batch(r, c);
		return;
	}
}

/* Keeps the stream's last bytes: the CRLF that precedes the next tagged
 * line, or the start of a tagged line not yet complete. */
static void
floor_keep(struct floor_conn *c, const char *start, size_t len)
{
	c->carry_len = len < FLOOR_CARRY ? len : FLOOR_CARRY;
	memmove(c->carry, start + len - c->carry_len, c->carry_len);
}

static void
floor_read(struct floor_run *r, struct floor_conn *c)
{
	char *buf = r->rbuf + FLOOR_CARRY;
	ssize_t n = read(c->fd, buf, FLOOR_READ_BUF);
	if (n <= 0) {
		if (n < 0 && errno == EAGAIN)
			return;
		if (n == 0)
			errno = 0;
		floor_die("the server closed a connection");
	}
	char *start = buf - c->carry_len;
	memcpy(start, c->carry, c->carry_len);
	size_t len = c->carry_len + (size_t)n;
	floor_keep(c, start, len);
	if (c->phase == FLOOR_P_GREETING) {
		if (memmem(start, len, "\r\n", 2) != NULL) {
			char user[64], login[96];
			c->phase = FLOOR_P_LOGIN;
			if (strstr(r->o.user, "%d") != NULL)
				snprintf(user, sizeof(user), r->o.user,
					 (int)(c - r->conns) + 1);
			else
				snprintf(user, sizeof(user), "%s", r->o.user);
			snprintf(login, sizeof(login), "LOGIN %s pass", user);
			floor_send_text(r, c, login);
		}
		return;
	}
	/* The tagged line must be complete (its LF read) to be judged. */
	char *t = memmem(start, len, c->pattern, c->pattern_len);
	if (t != NULL && memchr(t + 2, '\n', len - (size_t)(t + 2 - start)) != NULL)
		floor_tagged(r, c, t + 2);
}

static void
floor_connect(struct floor_run *r, struct floor_conn *c)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
		.sin_port = htons((uint16_t)r->o.port) };
	if (inet_pton(AF_INET, r->o.host, &sa.sin_addr) != 1 ||
	    (ntohl(sa.sin_addr.s_addr) >> 24) != 127) {
		errno = 0;
		floor_die("--host must be a numeric 127.x.x.x address");
	}
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		floor_die("socket");
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		floor_die("connect");
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Non-blocking only after connect: loopback connects at once. */
	int fl = fcntl(c->fd, F_GETFL);
	if (fl < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) != 0)
		floor_die("fcntl O_NONBLOCK");
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
		floor_die("epoll_ctl");
	c->next_tag = 1;
}

int
main(int argc, char **argv)
{
	struct floor_run r;
	memset(&r, 0, sizeof(r));
	floor_parse(argc, argv, &r.o);
	r.ep = epoll_create1(0);
	if (r.ep < 0)
		floor_die("epoll_create1");
	r.body = floor_make_body(r.o.size);
	r.rbuf = malloc(FLOOR_CARRY + FLOOR_READ_BUF);
	r.conns = calloc(r.o.clients, sizeof(r.conns[0]));
	if (r.rbuf == NULL || r.conns == NULL)
		floor_die("out of memory");
	for (unsigned i = 0; i < r.o.clients; i++)
		floor_connect(&r, &r.conns[i]);

	struct epoll_event evs[64];
	double t_start = floor_now(), t_measure = 0, t_end = 0;
	uint64_t u0 = 0, s0 = 0, done0 = 0, err0 = 0;
	bool measuring = false;
	for (;;) {
		int n = epoll_wait(r.ep, evs, 64, 100);
		if (n < 0 && errno != EINTR)
			floor_die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct floor_conn *c = evs[i].data.ptr;
			if ((evs[i].events & EPOLLOUT) && c->pending_len > 0)
				floor_flush(&r, c);
			if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				floor_read(&r, c);
		}
		double now = floor_now();
		if (!measuring && r.logged_in < r.o.clients && now - t_start > 10) {
			errno = 0;
			floor_die("not every connection logged in within 10 s");
		}
		if (!measuring && r.logged_in == r.o.clients) {
			if (t_measure == 0)
				t_measure = now + r.o.warmup;
			if (now >= t_measure) {
				measuring = true;
				floor_cpu_us(&u0, &s0);
				done0 = r.done;
				err0 = r.errors;
				t_measure = now;
				t_end = now + r.o.secs;
			}
		}
		if (measuring && now >= t_end)
			break;
	}
	uint64_t u1, s1;
	floor_cpu_us(&u1, &s1);
	double secs = floor_now() - t_measure;
	uint64_t cmds = r.done - done0;
	printf("commands=%llu secs=%.3f cpu_user_us=%llu cpu_sys_us=%llu "
	       "us_per_command=%.3f errors=%llu\n", (unsigned long long)cmds, secs,
	       (unsigned long long)(u1 - u0), (unsigned long long)(s1 - s0),
	       cmds ? (double)(u1 - u0 + s1 - s0) / (double)cmds : 0.0,
	       (unsigned long long)(r.errors - err0));
	for (unsigned i = 0; i < r.o.clients; i++) {
		close(r.conns[i].fd);
		free(r.conns[i].pending);
	}
	free(r.conns);
	free(r.rbuf);
	free(r.body);
	close(r.ep);
	return r.errors > err0 ? 1 : 0;
}
