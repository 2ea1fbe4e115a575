/* fake_store.c: the mail store of fakeimapd's mail-store mode: users,
 * mailboxes, messages, each logged-in connection's view of its mailbox,
 * and the untagged EXISTS/EXPUNGE that keep a view in step (see
 * fake_store.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_store.h"
#include "util/xmalloc.h"

/* The generated header, fixed in length: the UID is written in ten
 * digits, so every message's header is FAKE_HDR_LEN bytes. */
#define FAKE_HDR_FMT							\
	"From: sender@example.invalid\r\n"				\
	"To: user@example.invalid\r\n"					\
	"Subject: fakeimapd message %010u\r\n"				\
	"Message-ID: <%010u@fakeimapd.invalid>\r\n"			\
	"Date: Mon, 01 Jan 2024 00:00:00 +0000\r\n"			\
	"MIME-Version: 1.0\r\n"						\
	"Content-Type: text/plain; charset=us-ascii\r\n"		\
	"\r\n"
#define FAKE_HDR_LEN (sizeof(FAKE_HDR_FMT) - 1 - 2 * 4 + 2 * 10)

struct fake_store *
fake_store_new(struct event_base *base, uint64_t push_delay_us)
{
	struct fake_store *st = xcalloc(1, sizeof(*st));
	st->base = base;
	st->push_delay_us = push_delay_us;
	return st;
}

static void
fake_box_free(struct fake_box *b)
{
	free(b->name);
	free(b->m);
	free(b);
}

void
fake_store_free(struct fake_store *st)
{
	if (st == NULL)
		return;
	while (st->users != NULL) {
		struct fake_user *u = st->users;
		st->users = u->next;
		while (u->boxes != NULL) {
			struct fake_box *b = u->boxes;
			u->boxes = b->next;
			fake_box_free(b);
		}
		free(u->name);
		free(u);
	}
	free(st->st.lag_us);
	free(st);
}

static bool
fake_is_inbox(const char *name)
{
	return strcasecmp(name, "INBOX") == 0;
}

struct fake_box *
fake_store_box(struct fake_user *u, const char *name, bool create)
{
	if (fake_is_inbox(name))
		name = "INBOX";
	for (struct fake_box *b = u->boxes; b != NULL; b = b->next)
		if (strcmp(b->name, name) == 0)
			return b;
	if (!create)
		return NULL;
	struct fake_box *b = xcalloc(1, sizeof(*b));
	static uint32_t uidvalidity = 1000;
	b->name = xstrdup(name);
	b->uidvalidity = uidvalidity++;
	b->uidnext = 1;
	/* At the end, so LIST shows them in creation order. */
	struct fake_box **pp = &u->boxes;
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = b;
	return b;
}

bool
fake_store_box_delete(struct fake_user *u, const char *name)
{
	if (fake_is_inbox(name))
		return false;
	for (struct fake_box **pp = &u->boxes; *pp != NULL; pp = &(*pp)->next) {
		struct fake_box *b = *pp;
		if (strcmp(b->name, name) != 0)
			continue;
		for (struct fake_sess *s = u->sessions; s != NULL; s = s->next)
			if (s->sel == b)
				return false;	/* selected somewhere: refuse */
		*pp = b->next;
		fake_box_free(b);
		return true;
	}
	return false;
}

struct fake_user *
fake_store_user(struct fake_store *st, const char *name, size_t len)
{
	/* "name+detail@domain" and "name@domain" are user "name". */
	size_t n = 0;
	while (n < len && name[n] != '@' && name[n] != '+')
		n++;
	for (struct fake_user *u = st->users; u != NULL; u = u->next)
		if (strlen(u->name) == n && memcmp(u->name, name, n) == 0)
			return u;
	struct fake_user *u = xcalloc(1, sizeof(*u));
	u->name = xmalloc(n + 1);
	memcpy(u->name, name, n);
	u->name[n] = '\0';
	fake_store_box(u, "INBOX", true);
	u->next = st->users;
	st->users = u;
	return u;
}

uint32_t
fake_store_size_for(uint32_t want)
{
	return want < FAKE_HDR_LEN + 2 ? (uint32_t)FAKE_HDR_LEN + 2 : want;
}

uint32_t
fake_store_add(struct fake_box *b, unsigned flags, uint32_t size, bool marked)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->m = xrealloc(b->m, b->cap * sizeof(*b->m));
	}
	uint32_t uid = b->uidnext++;
	b->m[b->n++] = (struct fake_msg){ uid, flags, fake_store_size_for(size),
					  marked };
	return uid;
}

long
fake_store_find(const struct fake_box *b, uint32_t uid)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->m[mid].uid == uid)
			return (long)mid;
		if (b->m[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void
fake_store_remove(struct fake_box *b, size_t idx)
{
	memmove(&b->m[idx], &b->m[idx + 1], (b->n - idx - 1) * sizeof(*b->m));
	b->n--;
}

size_t
fake_store_text(char *buf, size_t len, const struct fake_user *u,
		uint32_t uid, size_t *header_len)
{
	char hdr[FAKE_HDR_LEN + 1];
	snprintf(hdr, sizeof(hdr), FAKE_HDR_FMT, uid, uid);
	*header_len = FAKE_HDR_LEN;
	if (len < FAKE_HDR_LEN + 2)
		return 0;
	memcpy(buf, hdr, FAKE_HDR_LEN);
	/* 72-character body lines, ending in CRLF. */
	memset(buf + FAKE_HDR_LEN, 'x', len - FAKE_HDR_LEN);
	for (size_t j = FAKE_HDR_LEN + 72; j + 2 <= len - 2; j += 74) {
		buf[j] = '\r';
		buf[j + 1] = '\n';
	}
	buf[len - 2] = '\r';
	buf[len - 1] = '\n';
	return len;
}

/* ---- sessions ---------------------------------------------------------- */

struct fake_sess *
fake_sess_login(struct fake_store *st, struct fake_conn *c, const char *name,
		size_t len)
{
	if (c->sess != NULL)
		fake_store_conn_gone(c);
	struct fake_sess *s = xcalloc(1, sizeof(*s));
	s->c = c;
	s->u = fake_store_user(st, name, len);
	s->next = s->u->sessions;
	s->u->sessions = s;
	c->sess = s;
	return s;
}

void
fake_sess_select(struct fake_sess *s, struct fake_box *b, bool ro)
{
	s->sel = b;
	s->read_only = ro;
	s->nview = 0;
	if (b == NULL)
		return;
	if (s->cap < b->n) {
		s->cap = b->n + 16;
		s->view = xrealloc(s->view, s->cap * sizeof(*s->view));
	}
	for (size_t i = 0; i < b->n; i++)
		s->view[i] = b->m[i].uid;
	s->nview = b->n;
}

void
fake_sess_sync(struct fake_sess *s, bool expunges)
{
	struct fake_box *b = s->sel;
	struct fake_conn *c = s->c;
	if (b == NULL)
		return;
	if (expunges) {
		for (size_t i = 0; i < s->nview;) {
			if (fake_store_find(b, s->view[i]) >= 0) {
				i++;
				continue;
			}
			fake_outf(c, "* %zu EXPUNGE\r\n", i + 1);
			memmove(&s->view[i], &s->view[i + 1],
				(s->nview - i - 1) * sizeof(*s->view));
			s->nview--;
		}
	}
	uint32_t last = s->nview > 0 ? s->view[s->nview - 1] : 0;
	size_t before = s->nview;
	for (size_t i = 0; i < b->n; i++) {
		if (b->m[i].uid <= last)
			continue;
		if (s->nview == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->view = xrealloc(s->view, s->cap * sizeof(*s->view));
		}
		s->view[s->nview++] = b->m[i].uid;
	}
	if (s->nview != before)
		fake_outf(c, "* %zu EXISTS\r\n", s->nview);
}

unsigned
fake_store_push(struct fake_user *u, struct fake_box *b)
{
	unsigned n = 0;
	for (struct fake_sess *s = u->sessions; s != NULL; s = s->next) {
		if (s->c->rstate == FAKE_R_COMMAND && s->notify) {
			n += fake_notify_push(s, b);
			continue;
		}
		if (s->sel != b || s->c->rstate != FAKE_R_IDLE)
			continue;
		/* IDLE allows every untagged response. */
		fake_reply_begin(s->c, 0);
		fake_sess_sync(s, true);
		fake_reply_end(s->c, 0);
		fake_conn_pump(s->c);
		n++;
	}
	return n;
}

void
fake_store_lag(struct fake_store *st, uint64_t t_250_us)
{
	struct fake_store_stats *s = &st->st;
	uint64_t lag = fake_now_us() - t_250_us;
	if (s->nlag == s->caplag) {
		s->caplag = s->caplag ? 2 * s->caplag : 256;
		s->lag_us = xrealloc(s->lag_us, s->caplag * sizeof(*s->lag_us));
	}
	s->lag_us[s->nlag++] = lag > UINT32_MAX ? UINT32_MAX : (uint32_t)lag;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

uint64_t
fake_store_lag_p50(struct fake_store *st)
{
	struct fake_store_stats *s = &st->st;
	if (s->nlag == 0)
		return 0;
	qsort(s->lag_us, s->nlag, sizeof(*s->lag_us), cmp_u32);
	return s->lag_us[(s->nlag - 1) / 2];
}

void
fake_store_conn_gone(struct fake_conn *c)
{
	struct fake_sess *s = c->sess;
	if (s == NULL)
		return;
	for (struct fake_sess **pp = &s->u->sessions; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s->view);
	free(s);
	c->sess = NULL;
}
