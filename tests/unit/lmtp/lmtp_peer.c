/* lmtp_peer.c: see lmtp_peer.h.  One byte per loop turn when asked
 * (drip), and the hostile servers: an endless line, a reset in the middle
 * of a reply, too many reply lines, silence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include <check.h>

#include "stats/hist.h"
#include "lmtp_peer.h"
#include "msg/msg.h"

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
	int fd[2];

	if (n_conns == 64)
		return NULL;
	if (p->socket) {
		/* Plain socket bufferevents: the client writes to its fd. */
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0);
		evutil_make_socket_nonblocking(fd[0]);
		evutil_make_socket_nonblocking(fd[1]);
		pair[0] = bufferevent_socket_new(base, fd[0], BEV_OPT_CLOSE_ON_FREE);
		pair[1] = bufferevent_socket_new(base, fd[1], BEV_OPT_CLOSE_ON_FREE);
	} else if (bufferevent_pair_new(base, BEV_OPT_DEFER_CALLBACKS, pair) != 0) {
		return NULL;
	}
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

int
peer_unread(unsigned conn)
{
	int n = -1;

	ck_assert_uint_lt(conn, n_conns);
	ck_assert_int_eq(ioctl(bufferevent_getfd(conns[conn]->bev), FIONREAD, &n), 0);
	return n;
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

struct harness *
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

void
h_start(struct harness *h)
{
	h->c = lmtp_client_new(&h->env);
}

void
h_deliver(struct harness *h, uintptr_t arg, const char *const *rcpts)
{
	unsigned n = 0;

	while (rcpts[n] != NULL)
		n++;
	h->want += n;
	ck_assert_int_eq(lmtp_deliver(h->c, rcpts, n, 0, (void *)arg), 0);
}

void
h_run(struct harness *h)
{
	struct timeval tv = { 20, 0 };

	if (h->n_got < h->want) {
		event_base_loopexit(h->base, &tv);
		event_base_dispatch(h->base);
	}
	ck_assert_uint_eq(h->n_got, h->want);
}

const struct got *
h_find(struct harness *h, const char *rcpt)
{
	for (unsigned i = 0; i < h->n_got; i++)
		if (strcmp(h->got[i].rcpt, rcpt) == 0)
			return &h->got[i];
	ck_abort_msg("no result for %s", rcpt);
	return NULL;
}

void
h_free(struct harness *h)
{
	lmtp_client_free(h->c);
	peers_free();
	lmtp_stats_free(h->env.stats);
	msg_pool_free((struct msg_pool *)h->env.pool);
	event_base_free(h->base);
	free(h);
}
