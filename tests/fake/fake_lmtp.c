/* fake_lmtp.c: the LMTP side of fakeimapd's mail-store mode (RFC 2033,
 * with PIPELINING): every recipient of a delivery is answered 250 after
 * the final dot, and the message lands in its mailbox --push-delay-ms
 * later, when the user's IDLE connections on it hear of it (fake_store.c).
 * "name+Detail" delivers to mailbox Detail (made if missing), as
 * Dovecot's lmtp_save_to_detail_mailbox does; else to INBOX. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fake_store.h"
#include "util/xmalloc.h"

#define FAKE_LMTP_LINE_MAX 4096
#define FAKE_LMTP_RCPT_MAX 1000

struct fake_rcpt {
	struct fake_user *u;
	char *box;
};

struct fake_lmtp_conn {
	struct fake_store *st;
	struct bufferevent *bev;
	bool have_mail, in_data, quit;
	struct fake_mark mark;		/* of the message in DATA */
	struct fake_rcpt *rcpt;
	size_t nrcpt;
	uint64_t data_bytes;
	struct fake_lmtp_conn *next;
};

/* A message answered 250 and not yet in its mailbox. */
struct fake_delivery {
	struct fake_store *st;
	struct fake_user *u;
	char *box;
	uint32_t size;
	bool marked;
	struct event *ev;
	uint64_t t_250;		/* its 250 queued */
	struct fake_delivery *prev, *next;
};

static void
fake_delivery_free(struct fake_delivery *d)
{
	struct fake_store *st = d->st;
	if (d->prev != NULL)
		d->prev->next = d->next;
	else
		st->pending = d->next;
	if (d->next != NULL)
		d->next->prev = d->prev;
	event_free(d->ev);
	free(d->box);
	free(d);
}

static void
fake_delivery_due(evutil_socket_t fd, short what, void *arg)
{
	struct fake_delivery *d = arg;
	struct fake_store *st = d->st;
	struct fake_box *b = fake_store_box(d->u, d->box, true);
	fake_store_add(b, 0, d->size, d->marked);
	st->st.lmtp_delivered++;
	unsigned told = fake_store_push(d->u, b);
	st->st.pushes += told;
	if (told > 0)
		fake_store_lag(st, d->t_250);
	fake_delivery_free(d);
}

static void
fake_delivery_start(struct fake_store *st, struct fake_rcpt *r, uint64_t size,
		    bool marked)
{
	struct fake_delivery *d = xcalloc(1, sizeof(*d));
	d->st = st;
	d->u = r->u;
	d->box = r->box;
	r->box = NULL;
	d->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	d->marked = marked;
	d->t_250 = fake_now_us();
	d->ev = evtimer_new(st->base, fake_delivery_due, d);
	if (d->ev == NULL)
		abort();
	d->next = st->pending;
	if (st->pending != NULL)
		st->pending->prev = d;
	st->pending = d;
	struct timeval tv = { (time_t)(st->push_delay_us / 1000000),
			      (suseconds_t)(st->push_delay_us % 1000000) };
	evtimer_add(d->ev, &tv);
}

static void
fake_lmtp_reset(struct fake_lmtp_conn *l)
{
	for (size_t i = 0; i < l->nrcpt; i++)
		free(l->rcpt[i].box);
	l->nrcpt = 0;
	l->have_mail = false;
	l->in_data = false;
	l->data_bytes = 0;
}

static void
fake_lmtp_conn_free(struct fake_lmtp_conn *l)
{
	struct fake_store *st = l->st;
	for (struct fake_lmtp_conn **pp = &st->lmtp_conns; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	fake_lmtp_reset(l);
	free(l->rcpt);
	bufferevent_free(l->bev);
	free(l);
}

static void
fake_lmtp_say(struct fake_lmtp_conn *l, const char *line)
{
	evbuffer_add_printf(bufferevent_get_output(l->bev), "%s\r\n", line);
}

/* "RCPT TO:<name+Detail@domain>" */
static void
fake_lmtp_rcpt(struct fake_lmtp_conn *l, const char *arg)
{
	const char *lt = strchr(arg, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	if (!l->have_mail) {
		fake_lmtp_say(l, "503 5.5.1 MAIL first");
		return;
	}
	if (gt == NULL || gt == lt + 1) {
		fake_lmtp_say(l, "501 5.5.4 bad address");
		return;
	}
	if (l->nrcpt == FAKE_LMTP_RCPT_MAX) {
		fake_lmtp_say(l, "452 4.5.3 too many recipients");
		return;
	}
	const char *addr = lt + 1;
	size_t len = (size_t)(gt - addr);
	size_t local = strcspn(addr, "@>");
	const char *plus = memchr(addr, '+', local);
	struct fake_rcpt r = { .u = fake_store_user(l->st, addr, len) };
	if (plus != NULL && plus + 1 < addr + local) {
		size_t dl = (size_t)(addr + local - plus - 1);
		r.box = xmalloc(dl + 1);
		memcpy(r.box, plus + 1, dl);
		r.box[dl] = '\0';
	} else {
		r.box = xstrdup("INBOX");
	}
	l->rcpt = xrealloc(l->rcpt, (l->nrcpt + 1) * sizeof(*l->rcpt));
	l->rcpt[l->nrcpt++] = r;
	fake_lmtp_say(l, "250 2.1.5 OK");
}

static void
fake_lmtp_command(struct fake_lmtp_conn *l, const char *line)
{
	if (strncasecmp(line, "LHLO ", 5) == 0) {
		fake_lmtp_say(l, "250-fakeimapd\r\n250-PIPELINING\r\n"
			      "250 ENHANCEDSTATUSCODES");
	} else if (strncasecmp(line, "MAIL FROM:", 10) == 0) {
		fake_lmtp_reset(l);
		l->have_mail = true;
		fake_lmtp_say(l, "250 2.1.0 OK");
	} else if (strncasecmp(line, "RCPT TO:", 8) == 0) {
		fake_lmtp_rcpt(l, line + 8);
	} else if (strcasecmp(line, "DATA") == 0) {
		if (l->nrcpt == 0) {
			fake_lmtp_say(l, "503 5.5.1 no valid recipients");
			return;
		}
		l->in_data = true;
		l->data_bytes = 0;
		fake_mark_start(&l->mark);
		fake_lmtp_say(l, "354 OK");
	} else if (strcasecmp(line, "RSET") == 0) {
		fake_lmtp_reset(l);
		fake_lmtp_say(l, "250 2.0.0 OK");
	} else if (strcasecmp(line, "NOOP") == 0) {
		fake_lmtp_say(l, "250 2.0.0 OK");
	} else if (strcasecmp(line, "QUIT") == 0) {
		fake_lmtp_say(l, "221 2.0.0 bye");
		l->quit = true;
	} else {
		fake_lmtp_say(l, "500 5.5.2 unknown command");
	}
}

/* The final dot: one reply per recipient, in RCPT order (RFC 2033 4.2). */
static void
fake_lmtp_data_end(struct fake_lmtp_conn *l)
{
	for (size_t i = 0; i < l->nrcpt; i++) {
		fake_lmtp_say(l, "250 2.0.0 delivered");
		l->st->st.lmtp_rcpts++;
		fake_delivery_start(l->st, &l->rcpt[i], l->data_bytes,
				    l->mark.found);
	}
	fake_lmtp_reset(l);
}

static void
fake_lmtp_read_cb(struct bufferevent *bev, void *arg)
{
	struct fake_lmtp_conn *l = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;
	char *line;
	while (!l->quit &&
	       (line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF)) != NULL) {
		if (l->in_data) {
			if (strcmp(line, ".") == 0)
				fake_lmtp_data_end(l);
			else {	/* dot-stuffing undone; CRLF counted */
				l->data_bytes += n + 2 - (line[0] == '.');
				fake_mark_feed(&l->mark, line, n);
				fake_mark_feed(&l->mark, "\n", 1);
			}
		} else if (n > FAKE_LMTP_LINE_MAX) {
			fake_lmtp_say(l, "500 5.5.2 line too long");
		} else {
			fake_lmtp_command(l, line);
		}
		free(line);
	}
	if (!l->in_data && evbuffer_get_length(in) > FAKE_LMTP_LINE_MAX) {
		fake_lmtp_say(l, "500 5.5.2 line too long");
		l->quit = true;
	}
	if (l->quit)
		bufferevent_disable(bev, EV_READ);
}

static void
fake_lmtp_write_cb(struct bufferevent *bev, void *arg)
{
	struct fake_lmtp_conn *l = arg;
	if (l->quit)
		fake_lmtp_conn_free(l);
}

static void
fake_lmtp_event_cb(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		fake_lmtp_conn_free(arg);
}

static void
fake_lmtp_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
		    struct sockaddr *sa, int sa_len, void *arg)
{
	struct fake_store *st = arg;
	struct fake_lmtp_conn *l = xcalloc(1, sizeof(*l));
	l->st = st;
	l->bev = bufferevent_socket_new(st->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (l->bev == NULL) {
		close(fd);
		free(l);
		return;
	}
	l->next = st->lmtp_conns;
	st->lmtp_conns = l;
	st->st.lmtp_sessions++;
	bufferevent_setcb(l->bev, fake_lmtp_read_cb, fake_lmtp_write_cb,
			  fake_lmtp_event_cb, l);
	bufferevent_enable(l->bev, EV_READ | EV_WRITE);
	fake_lmtp_say(l, "220 fakeimapd LMTP ready");
}

unsigned
fake_lmtp_listen(struct fake_store *st, const struct fake_cfg *cfg,
		 unsigned port)
{
	char err[256];
	unsigned bound = 0;
	int fd = fake_listen_socket(cfg, port, &bound, err, sizeof(err));
	if (fd < 0 || listen(fd, 1024) < 0) {
		fprintf(stderr, "fakeimapd: LMTP: %s\n",
			fd < 0 ? err : strerror(errno));
		exit(2);
	}
	st->lmtp_listener = evconnlistener_new(st->base, fake_lmtp_accept_cb, st,
					       LEV_OPT_CLOSE_ON_FREE |
					       LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (st->lmtp_listener == NULL) {
		fprintf(stderr, "fakeimapd: LMTP: cannot listen on port %u\n",
			bound);
		exit(2);
	}
	return bound;
}

void
fake_lmtp_free_all(struct fake_store *st)
{
	while (st->lmtp_conns != NULL)
		fake_lmtp_conn_free(st->lmtp_conns);
	while (st->pending != NULL)
		fake_delivery_free(st->pending);
	if (st->lmtp_listener != NULL)
		evconnlistener_free(st->lmtp_listener);
	st->lmtp_listener = NULL;
}
