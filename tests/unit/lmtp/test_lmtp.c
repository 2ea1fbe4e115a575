/* test_lmtp.c: the LMTP client (src/lmtp/) against an in-process LMTP
 * server over bufferevent_pair_new: replies line by line or one byte per
 * loop turn, per-recipient codes, refusals at every step, PIPELINING or
 * not, session reuse under a session limit, dot-stuffing checked on the
 * bytes the server got, and hostile servers (endless line, reset in the
 * middle of a reply, too many lines, silence). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "hist.h"
#include "lmtp/lmtp.h"
#include "lmtp/lmtp_int.h"
#include "msg.h"

enum hostile { H_NONE, H_ENDLESS, H_RESET_MID, H_MANY_LINES, H_SILENT };

struct peer {
	const char *greeting;		/* NULL: "220 peer LMTP\r\n" */
	bool pipelining;
	bool drip;			/* one byte per loop turn */
	enum hostile hostile;
	const char *mail_reply;		/* NULL: 250 */
	const char *data_reply;		/* NULL: 354 (or 503 without rcpts) */
	/* Per recipient: reply to RCPT, and after the dot; NULL = 250. */
	const char *(*rcpt_reply)(const char *addr);
	const char *(*dot_reply)(const char *addr);
	/* seen */
	unsigned conns, open, max_open, rsets, mails, max_batch;
	char bodies[4][8192];		/* raw DATA bytes, dot-stuffed */
	unsigned n_bodies;
	struct event_base *base;
};

struct pconn {
	struct peer *p;
	struct bufferevent *bev;
	struct evbuffer *drip;
	struct event *drip_ev;
	bool in_data;
	char rcpts[16][300];
	bool ok[16];
	unsigned n_rcpts;
	size_t body_len;
};

static void
drip_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pconn *pc = arg;
	char b;

	if (evbuffer_remove(pc->drip, &b, 1) == 1)
		bufferevent_write(pc->bev, &b, 1);
	if (evbuffer_get_length(pc->drip) > 0)
		event_active(pc->drip_ev, EV_TIMEOUT, 0);
}

static void
say(struct pconn *pc, const char *s)
{
	if (!pc->p->drip) {
		bufferevent_write(pc->bev, s, strlen(s));
		return;
	}
	evbuffer_add(pc->drip, s, strlen(s));
	event_active(pc->drip_ev, EV_TIMEOUT, 0);
}

static void
reset_txn(struct pconn *pc)
{
	pc->n_rcpts = 0;
	pc->in_data = false;
}

static void
data_line(struct pconn *pc, const char *line, size_t len)
{
	struct peer *p = pc->p;

	if (len == 1 && line[0] == '.') {
		p->n_bodies++;
		for (unsigned i = 0; i < pc->n_rcpts; i++) {
			if (!pc->ok[i])
				continue;
			const char *r = p->dot_reply ? p->dot_reply(pc->rcpts[i]) : NULL;
			say(pc, r ? r : "250 2.0.0 saved\r\n");
		}
		reset_txn(pc);
		return;
	}
	if (p->n_bodies < 4 && pc->body_len + len + 2 < sizeof(p->bodies[0])) {
		char *b = p->bodies[p->n_bodies];
		memcpy(b + pc->body_len, line, len);
		memcpy(b + pc->body_len + len, "\r\n", 3);
		pc->body_len += len + 2;
	}
}

static void
command(struct pconn *pc, const char *line)
{
	struct peer *p = pc->p;

	if (strncmp(line, "LHLO ", 5) == 0) {
		if (p->hostile == H_RESET_MID) {
			bufferevent_write(pc->bev, "250-peer\r\n250-PIPE", 18);
			bufferevent_flush(pc->bev, EV_WRITE, BEV_FINISHED);
			return;
		}
		if (p->hostile == H_MANY_LINES) {
			for (int i = 0; i < 500; i++)
				say(pc, "250-X\r\n");
			say(pc, "250 OK\r\n");
			return;
		}
		say(pc, "250-peer\r\n250-8BITMIME\r\n");
		say(pc, p->pipelining ? "250-ENHANCEDSTATUSCODES\r\n250 PIPELINING\r\n"
				      : "250 ENHANCEDSTATUSCODES\r\n");
	} else if (strncmp(line, "MAIL FROM:<", 11) == 0) {
		p->mails++;
		reset_txn(pc);
		if (p->hostile == H_ENDLESS) {
			static char junk[16384];
			memset(junk, 'A', sizeof(junk));
			for (int i = 0; i < 8; i++)
				bufferevent_write(pc->bev, junk, sizeof(junk));
			return;
		}
		say(pc, p->mail_reply ? p->mail_reply : "250 2.1.0 ok\r\n");
	} else if (strncmp(line, "RCPT TO:<", 9) == 0 && pc->n_rcpts < 16) {
		unsigned i = pc->n_rcpts++;
		snprintf(pc->rcpts[i], sizeof(pc->rcpts[i]), "%.*s",
			 (int)strcspn(line + 9, ">"), line + 9);
		const char *r = p->rcpt_reply ? p->rcpt_reply(pc->rcpts[i]) : NULL;
		pc->ok[i] = r == NULL || r[0] == '2';
		say(pc, r ? r : "250 2.1.5 ok\r\n");
	} else if (strcmp(line, "DATA") == 0) {
		unsigned ok = 0;
		for (unsigned i = 0; i < pc->n_rcpts; i++)
			ok += pc->ok[i];
		if (p->data_reply != NULL) {
			say(pc, p->data_reply);
			return;
		}
		if (ok == 0) {
			say(pc, "503 5.5.1 no valid recipients\r\n");
			return;
		}
		pc->in_data = true;
		pc->body_len = 0;
		say(pc, "354 go\r\n");
	} else if (strcmp(line, "RSET") == 0) {
		p->rsets++;
		reset_txn(pc);
		say(pc, "250 2.0.0 ok\r\n");
	} else {
		say(pc, "500 5.5.2 what\r\n");
	}
}

static void
peer_read(struct bufferevent *bev, void *arg)
{
	struct pconn *pc = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	unsigned batch = 0;
	size_t len;
	char *line;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF_STRICT)) != NULL) {
		if (pc->in_data) {
			data_line(pc, line, len);
		} else {
			batch++;
			command(pc, line);
		}
		free(line);
	}
	if (batch > pc->p->max_batch)
		pc->p->max_batch = batch;
}

static void
peer_event(struct bufferevent *bev, short what, void *arg)
{
	struct pconn *pc = arg;

	pc->p->open--;
	bufferevent_disable(bev, EV_READ | EV_WRITE);
}

static struct pconn *conns[64];
static unsigned n_conns;

static struct bufferevent *
peer_open(void *arg, struct event_base *base)
{
	struct peer *p = arg;
	struct bufferevent *pair[2];

	if (n_conns == 64 ||
	    bufferevent_pair_new(base, BEV_OPT_DEFER_CALLBACKS, pair) != 0)
		return NULL;
	struct pconn *pc = calloc(1, sizeof(*pc));
	pc->p = p;
	pc->bev = pair[1];
	pc->drip = evbuffer_new();
	pc->drip_ev = event_new(base, -1, 0, drip_cb, pc);
	conns[n_conns++] = pc;
	p->conns++;
	if (++p->open > p->max_open)
		p->max_open = p->open;
	bufferevent_setcb(pair[1], peer_read, NULL, peer_event, pc);
	bufferevent_enable(pair[1], EV_READ | EV_WRITE);
	if (p->hostile != H_SILENT)
		say(pc, p->greeting ? p->greeting : "220 peer LMTP\r\n");
	return pair[0];
}

static void
peers_free(void)
{
	for (unsigned i = 0; i < n_conns; i++) {
		bufferevent_free(conns[i]->bev);
		evbuffer_free(conns[i]->drip);
		event_free(conns[i]->drip_ev);
		free(conns[i]);
	}
	n_conns = 0;
}

/* What the client reported. */
struct got {
	char rcpt[300];
	int code;
	enum lmtp_fail fail;
	enum lmtp_phase phase;
	uintptr_t arg;
};

struct harness {
	struct event_base *base;
	struct peer peer;
	struct lmtp_env env;
	struct lmtp_client *c;
	struct got got[256];
	unsigned n_got, want;
};

static void
on_result(void *arg, const struct lmtp_result *r)
{
	struct harness *h = arg;

	ck_assert_uint_lt(h->n_got, 256);
	struct got *g = &h->got[h->n_got++];
	snprintf(g->rcpt, sizeof(g->rcpt), "%s", r->rcpt);
	g->code = r->code;
	g->fail = r->fail;
	g->phase = r->phase;
	g->arg = (uintptr_t)r->arg;
	if (h->n_got == h->want)
		event_base_loopexit(h->base, NULL);
}

static struct harness *
h_new(void)
{
	struct harness *h = calloc(1, sizeof(*h));

	h->base = event_base_new();
	h->peer.base = h->base;
	h->peer.pipelining = true;
	h->env.base = h->base;
	h->env.open = peer_open;
	h->env.open_arg = &h->peer;
	h->env.pool = msg_pool_generate(5, 2048, 64 * 1024);
	h->env.run_id = 42;
	h->env.stats = lmtp_stats_new();
	h->env.on_result = on_result;
	h->env.cb_arg = h;
	return h;
}

static void
h_start(struct harness *h)
{
	h->c = lmtp_client_new(&h->env);
}

/* Deliver msg 0 to the rcpts (NULL-terminated) with arg. */
static void
h_deliver(struct harness *h, uintptr_t arg, const char *const *rcpts)
{
	unsigned n = 0;

	while (rcpts[n] != NULL)
		n++;
	h->want += n;
	ck_assert_int_eq(lmtp_deliver(h->c, rcpts, n, 0, (void *)arg), 0);
}

/* Runs until every wanted result is in; 20 s is a hang, not slowness. */
static void
h_run(struct harness *h)
{
	struct timeval tv = { 20, 0 };

	if (h->n_got < h->want) {
		event_base_loopexit(h->base, &tv);
		event_base_dispatch(h->base);
	}
	ck_assert_uint_eq(h->n_got, h->want);
}

static const struct got *
h_find(struct harness *h, const char *rcpt)
{
	for (unsigned i = 0; i < h->n_got; i++)
		if (strcmp(h->got[i].rcpt, rcpt) == 0)
			return &h->got[i];
	ck_abort_msg("no result for %s", rcpt);
	return NULL;
}

static void
h_free(struct harness *h)
{
	lmtp_client_free(h->c);
	peers_free();
	lmtp_stats_free(h->env.stats);
	msg_pool_free((struct msg_pool *)h->env.pool);
	event_base_free(h->base);
	free(h);
}

#define STAT(h, f) ctr_get(&(h)->env.stats->f)

START_TEST(test_two_rcpts_pipelined)
{
	struct harness *h = h_new();
	h->peer.greeting = "220-peer\r\n220 LMTP ready\r\n";
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 250);
	ck_assert_int_eq(h_find(h, "b@x")->phase, LMTP_P_DOT);
	ck_assert_uint_ge(h->peer.max_batch, 4);	/* MAIL RCPT RCPT DATA */
	ck_assert_uint_eq(STAT(h, rcpt_ok), 2);
	ck_assert_uint_eq(STAT(h, codes[250]), 2);
	ck_assert_uint_eq(STAT(h, transactions), 1);
	ck_assert_uint_eq(hist_count(h->env.stats->lat_total), 2);
	ck_assert_uint_eq(hist_count(h->env.stats->lat_data), 2);
	h_free(h);
}
END_TEST

START_TEST(test_no_pipelining_one_at_a_time)
{
	struct harness *h = h_new();
	h->peer.pipelining = false;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", "c@x", NULL });
	h_run(h);
	ck_assert_uint_eq(h->peer.max_batch, 1);
	ck_assert_uint_eq(STAT(h, rcpt_ok), 3);
	h_free(h);
}
END_TEST

static const char *
refuse_b(const char *addr)
{
	return strcmp(addr, "b@x") == 0 ? "452 4.2.2 over quota\r\n" : NULL;
}

START_TEST(test_452_for_one_rcpt)
{
	struct harness *h = h_new();
	h->peer.pipelining = _i == 1;
	h->peer.rcpt_reply = refuse_b;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", "c@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "b@x")->code, 452);
	ck_assert_int_eq(h_find(h, "b@x")->phase, LMTP_P_RCPT);
	ck_assert_int_eq(h_find(h, "a@x")->code, 250);
	ck_assert_int_eq(h_find(h, "c@x")->code, 250);
	ck_assert_int_eq(h_find(h, "c@x")->phase, LMTP_P_DOT);
	ck_assert_uint_eq(STAT(h, rcpt_tempfail), 1);
	ck_assert_uint_eq(STAT(h, codes[452]), 1);
	h_free(h);
}
END_TEST

static const char *
full_b(const char *addr)
{
	return strcmp(addr, "b@x") == 0 ? "552 5.2.2 mailbox full\r\n" : NULL;
}

START_TEST(test_5xx_after_data)
{
	struct harness *h = h_new();
	h->peer.dot_reply = full_b;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", "c@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "b@x")->code, 552);
	ck_assert_int_eq(h_find(h, "b@x")->phase, LMTP_P_DOT);
	ck_assert_int_eq(h_find(h, "a@x")->code, 250);
	ck_assert_int_eq(h_find(h, "c@x")->code, 250);
	ck_assert_uint_eq(STAT(h, rcpt_permfail), 1);
	ck_assert_uint_eq(STAT(h, rcpt_ok), 2);
	h_free(h);
}
END_TEST

static const char *
refuse_all(const char *addr)
{
	return "550 5.1.1 no such user\r\n";
}

START_TEST(test_all_refused_then_reuse)
{
	struct harness *h = h_new();
	h->peer.pipelining = _i == 1;
	h->peer.rcpt_reply = refuse_all;
	h->env.max_sessions = 1;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	h_deliver(h, 2, (const char *[]){ "c@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 550);
	ck_assert_int_eq(h_find(h, "c@x")->phase, LMTP_P_RCPT);
	ck_assert_uint_eq(h->peer.n_bodies, 0);
	ck_assert_uint_eq(h->peer.conns, 1);
	ck_assert_uint_eq(h->peer.rsets, 1);
	h_free(h);
}
END_TEST

START_TEST(test_mail_refused)
{
	struct harness *h = h_new();
	h->peer.pipelining = _i == 1;
	h->peer.mail_reply = "451 4.3.0 try later\r\n";
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 451);
	ck_assert_int_eq(h_find(h, "b@x")->phase, LMTP_P_MAIL);
	ck_assert_uint_eq(STAT(h, codes[451]), 2);
	h_free(h);
}
END_TEST

START_TEST(test_data_refused)
{
	struct harness *h = h_new();
	h->peer.data_reply = "554 5.6.0 no\r\n";
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 554);
	ck_assert_int_eq(h_find(h, "a@x")->phase, LMTP_P_DATA);
	h_free(h);
}
END_TEST

/* Undo dot-stuffing and the terminator check of what the server got. */
static void
unstuff(const char *raw, char *out)
{
	bool bol = true;

	for (; *raw != '\0'; raw++) {
		if (bol && raw[0] == '.') {
			ck_assert_msg(raw[1] == '.', "unstuffed dot at a line start");
			raw++;
		}
		*out++ = *raw;
		bol = *raw == '\n';
	}
	*out = '\0';
}

START_TEST(test_dot_stuffing_on_the_wire)
{
	char path[] = "/tmp/test_lmtp_mbox.XXXXXX", err[256];
	int fd = mkstemp(path);
	const char *mbox = "From a@b Mon Jan  1 00:00:00 2024\n"
			   "Subject: dots\n\n.\n.hidden\n..two\nend.\n.";
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, mbox, strlen(mbox)), (ssize_t)strlen(mbox));
	close(fd);
	struct harness *h = h_new();
	msg_pool_free((struct msg_pool *)h->env.pool);
	h->env.pool = msg_pool_from_mbox(path, err, sizeof(err));
	unlink(path);
	ck_assert_msg(h->env.pool != NULL, "%s", err);
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_uint_eq(h->peer.n_bodies, 1);
	const char *raw = h->peer.bodies[0];
	ck_assert_msg(strstr(raw, "\r\n..\r\n..hidden\r\n...two\r\nend.\r\n") != NULL, "%s", raw);
	char plain[8192], want[8192];
	unstuff(raw, plain);
	const struct msg *m = msg_pool_get(h->env.pool, 0);
	size_t n = 0;
	if (m->needs_id) {
		msg_id_line(want, 42, 0);
		n = MSG_ID_LINE_LEN;
	}
	memcpy(want + n, m->data, m->len);
	want[n + m->len] = '\0';
	if (m->len < 2 || memcmp(m->data + m->len - 2, "\r\n", 2) != 0)
		strcat(want, "\r\n");
	ck_assert_str_eq(plain, want);
	h_free(h);
}
END_TEST

START_TEST(test_dot_stuff_split_anywhere)
{
	const char *in = ".a\r\n..b\r\nc.\r\n.\r\n.";
	size_t n = strlen(in);
	struct evbuffer *whole = evbuffer_new(), *parts = evbuffer_new();
	bool bol = true;

	lmtp_dot_stuff(whole, in, n, &bol);
	bol = true;
	for (size_t i = 0; i < n; i++)
		lmtp_dot_stuff(parts, in + i, 1, &bol);
	const char *want = "..a\r\n...b\r\nc.\r\n..\r\n..";
	ck_assert_uint_eq(evbuffer_get_length(whole), strlen(want));
	ck_assert_int_eq(memcmp(evbuffer_pullup(whole, -1), want, strlen(want)), 0);
	ck_assert_int_eq(memcmp(evbuffer_pullup(parts, -1), want, strlen(want)), 0);
	evbuffer_free(whole);
	evbuffer_free(parts);
}
END_TEST

START_TEST(test_split_at_every_byte)
{
	struct harness *h = h_new();
	h->peer.drip = true;
	h->peer.rcpt_reply = refuse_b;
	h->peer.greeting = "220-peer\r\n220 ready\r\n";
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	h_deliver(h, 2, (const char *[]){ "c@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 250);
	ck_assert_int_eq(h_find(h, "b@x")->code, 452);
	ck_assert_int_eq(h_find(h, "c@x")->code, 250);
	h_free(h);
}
END_TEST

START_TEST(test_reset_mid_reply)
{
	struct harness *h = h_new();
	h->peer.hostile = H_RESET_MID;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_DISCONNECT);
	ck_assert_int_eq(h_find(h, "b@x")->code, 0);
	ck_assert_uint_eq(STAT(h, fails[LMTP_F_DISCONNECT]), 2);
	ck_assert_uint_eq(lmtp_client_sessions(h->c), 0);
	h_free(h);
}
END_TEST

START_TEST(test_endless_line)
{
	struct harness *h = h_new();
	h->peer.hostile = H_ENDLESS;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_PROTOCOL);
	ck_assert_uint_eq(STAT(h, rcpt_local), 1);
	h_free(h);
}
END_TEST

START_TEST(test_too_many_reply_lines)
{
	struct harness *h = h_new();
	h->peer.hostile = H_MANY_LINES;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_PROTOCOL);
	h_free(h);
}
END_TEST

START_TEST(test_silent_server_times_out)
{
	struct harness *h = h_new();
	h->peer.hostile = H_SILENT;
	h->env.timeout_s = 0.2;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_TIMEOUT);
	h_free(h);
}
END_TEST

START_TEST(test_greeting_refused)
{
	struct harness *h = h_new();
	h->peer.greeting = "554 5.3.2 not now\r\n";
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	h_run(h);
	ck_assert_int_eq(h_find(h, "a@x")->code, 554);
	ck_assert_int_eq(h_find(h, "a@x")->phase, LMTP_P_SESSION);
	h_free(h);
}
END_TEST

START_TEST(test_session_limit_queue_and_reuse)
{
	struct harness *h = h_new();
	char names[10][8];
	h->env.max_sessions = 2;
	h_start(h);
	for (int i = 0; i < 10; i++) {
		snprintf(names[i], sizeof(names[i]), "u%d", i);
		h_deliver(h, (uintptr_t)i, (const char *[]){ names[i], NULL });
	}
	ck_assert_uint_eq(lmtp_client_busy(h->c), 10);
	h_run(h);
	ck_assert_uint_eq(h->peer.conns, 2);
	ck_assert_uint_eq(h->peer.max_open, 2);
	ck_assert_uint_eq(h->peer.mails, 10);
	ck_assert_uint_eq(h->peer.rsets, 8);	/* every reused transaction */
	ck_assert_uint_eq(STAT(h, rcpt_ok), 10);
	ck_assert_uint_eq(STAT(h, queued_max), 8);	/* two went straight to a session */
	ck_assert_uint_eq(lmtp_client_busy(h->c), 0);
	h_free(h);
}
END_TEST

static struct bufferevent *
open_fails(void *arg, struct event_base *base)
{
	return NULL;
}

START_TEST(test_connect_fails)
{
	struct harness *h = h_new();
	h->env.open = open_fails;
	h_start(h);
	h_deliver(h, 1, (const char *[]){ "a@x", "b@x", NULL });
	ck_assert_uint_eq(h->n_got, 2);	/* synchronously */
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_CONNECT);
	ck_assert_uint_eq(lmtp_client_busy(h->c), 0);
	h_free(h);
}
END_TEST

START_TEST(test_bad_arguments_and_shutdown)
{
	struct harness *h = h_new();
	h->peer.hostile = H_SILENT;
	h_start(h);
	const char *bad[] = { "a b", "<a>", "", "a\r\nQUIT" };
	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(lmtp_deliver(h->c, &bad[i], 1, 0, NULL), -1);
	const char *ok = "a@x";
	ck_assert_int_eq(lmtp_deliver(h->c, &ok, 0, 0, NULL), -1);
	h_deliver(h, 1, (const char *[]){ "a@x", NULL });
	lmtp_client_free(h->c);
	h->c = NULL;
	ck_assert_uint_eq(h->n_got, 1);
	ck_assert_int_eq(h_find(h, "a@x")->fail, LMTP_F_SHUTDOWN);
	h_free(h);
}
END_TEST

static const struct {
	const char *line;
	int rc, code;
	bool last;
	const char *text;
} reply_cases[] = {
	{ "250 2.0.0 ok", 0, 250, true, "2.0.0 ok" },
	{ "250-PIPELINING", 0, 250, false, "PIPELINING" },
	{ "354", 0, 354, true, "" },
	{ "452 ", 0, 452, true, "" },
	{ "199 no", -1, 0, false, NULL },
	{ "600 no", -1, 0, false, NULL },
	{ "25 short", -1, 0, false, NULL },
	{ "250x", -1, 0, false, NULL },
	{ "abc def", -1, 0, false, NULL },
	{ "", -1, 0, false, NULL },
};

START_TEST(test_reply_line)
{
	const char *text = NULL;
	size_t tlen = 0;
	int code = 0;
	bool last = false;
	const char *l = reply_cases[_i].line;
	int rc = lmtp_reply_line(l, strlen(l), &code, &last, &text, &tlen);

	ck_assert_int_eq(rc, reply_cases[_i].rc);
	if (rc < 0)
		return;
	ck_assert_int_eq(code, reply_cases[_i].code);
	ck_assert_int_eq(last, reply_cases[_i].last);
	ck_assert_uint_eq(tlen, strlen(reply_cases[_i].text));
	ck_assert_int_eq(memcmp(text, reply_cases[_i].text, tlen), 0);
}
END_TEST

START_TEST(test_printable)
{
	char out[12];
	lmtp_printable(out, sizeof(out), "a\033[2Jbcdefgh", 12);
	ck_assert_str_eq(out, "a\\x1b[2Jbcd");
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
lmtp_suite(void)
{
	Suite *s = suite_create("lmtp");
	TCase *tc = tcase_create("session");
	tcase_add_test(tc, test_two_rcpts_pipelined);
	tcase_add_test(tc, test_no_pipelining_one_at_a_time);
	tcase_add_loop_test(tc, test_452_for_one_rcpt, 0, 2);
	tcase_add_test(tc, test_5xx_after_data);
	tcase_add_loop_test(tc, test_all_refused_then_reuse, 0, 2);
	tcase_add_loop_test(tc, test_mail_refused, 0, 2);
	tcase_add_test(tc, test_data_refused);
	tcase_add_test(tc, test_dot_stuffing_on_the_wire);
	tcase_add_test(tc, test_split_at_every_byte);
	tcase_add_test(tc, test_session_limit_queue_and_reuse);
	tcase_add_test(tc, test_connect_fails);
	tcase_add_test(tc, test_bad_arguments_and_shutdown);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_add_test(tc, test_reset_mid_reply);
	tcase_add_test(tc, test_endless_line);
	tcase_add_test(tc, test_too_many_reply_lines);
	tcase_add_test(tc, test_silent_server_times_out);
	tcase_add_test(tc, test_greeting_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("wire");
	tcase_add_test(tc, test_dot_stuff_split_anywhere);
	tcase_add_loop_test(tc, test_reply_line, 0, N(reply_cases));
	tcase_add_test(tc, test_printable);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(lmtp_suite)
