/* lmtp_txn.c: one transaction of a session (lmtp_client.c): a list of
 * steps (RSET when the session was used before, MAIL, RCPT per
 * recipient, DATA) written in order, all at once with PIPELINING or one
 * per reply without; each reply is matched to the oldest step not yet
 * answered; after the DATA command's 354 the body goes out and the
 * replies after the dot follow (one per accepted recipient with LMTP, one
 * for all of them with SMTP).  Like lmtp_submit.c, each step returns what
 * the client does next instead of calling it. */
#include <stdio.h>
#include <stdlib.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "lmtp/lmtp_int.h"
#include "util/xmalloc.h"

static void
send_body(struct lmtp_session *s)
{
	lmtp_delivery_write(&s->c->env, s->cur, bufferevent_get_output(s->bev));
	s->await_drain = true;
	s->st = SS_DOT;
	s->n_dot = 0;
}

static void
send_mail(struct lmtp_session *s)
{
	const struct lmtp_env *env = &s->c->env;
	struct evbuffer *out = bufferevent_get_output(s->bev);
	const char *from = s->cur->mail_from ? s->cur->mail_from : env->mail_from;

	evbuffer_add_printf(out, "MAIL FROM:<%s>", from);
	lmtp_sub_mail_params(s, out);
	evbuffer_add(out, "\r\n", 2);
}

/* The steps the replies so far let go out: all of them with PIPELINING,
 * else the next one. */
static enum lmtp_next
send_steps(struct lmtp_session *s)
{
	struct delivery *d = s->cur;

	while (s->st == SS_TXN && s->next_send < s->n_steps &&
	       (s->pipelining || s->next_send == s->next_reply)) {
		const struct lmtp_step *st = &s->steps[s->next_send];
		if (st->kind == ST_DATA && !s->pipelining && s->n_accepted == 0) {
			/* Every recipient refused: their results are in,
			 * and DATA would only earn a 503. */
			return LMTP_N_END;
		}
		switch (st->kind) {
		case ST_RSET:
			evbuffer_add(bufferevent_get_output(s->bev), "RSET\r\n", 6);
			break;
		case ST_MAIL:
			send_mail(s);
			break;
		case ST_RCPT:
			evbuffer_add_printf(bufferevent_get_output(s->bev), "RCPT TO:<%s>\r\n",
					    d->rcpt[st->rcpt]);
			break;
		case ST_DATA:
			evbuffer_add(bufferevent_get_output(s->bev), "DATA\r\n", 6);
			break;
		}
		s->next_send++;
	}
	return LMTP_N_WAIT;
}

void
lmtp_txn_start(struct lmtp_session *s, struct delivery *d)
{
	unsigned n = 0;

	s->cur = d;
	s->steps = xrealloc(s->steps, (d->n + 3) * sizeof(*s->steps));
	s->accepted = xrealloc(s->accepted, d->n * sizeof(*s->accepted));
	if (s->used)
		s->steps[n++] = (struct lmtp_step){ ST_RSET, 0 };
	s->steps[n++] = (struct lmtp_step){ ST_MAIL, 0 };
	for (unsigned i = 0; i < d->n; i++)
		s->steps[n++] = (struct lmtp_step){ ST_RCPT, i };
	s->steps[n++] = (struct lmtp_step){ ST_DATA, 0 };
	s->n_steps = n;
	s->next_send = s->next_reply = 0;
	s->n_accepted = 0;
	s->mail_failed = false;
	s->used = true;
	s->st = SS_TXN;
	send_steps(s);	/* (nothing answered yet: it cannot end here) */
}

/* A complete reply while in a transaction. */
static enum lmtp_next
step_reply(struct lmtp_session *s, int code, const char *text,
	   const char **why)
{
	struct lmtp_client *c = s->c;
	struct delivery *d = s->cur;
	bool ok = code / 100 == 2;

	if (s->next_reply >= s->next_send) {
		*why = "reply to no command";
		return LMTP_N_KILL;
	}
	const struct lmtp_step *st = &s->steps[s->next_reply++];
	switch (st->kind) {
	case ST_RSET:
		if (!ok) {
			*why = "RSET refused";
			return LMTP_N_KILL;
		}
		break;
	case ST_MAIL:
		if (!ok) {
			s->mail_failed = true;
			lmtp_delivery_fail_all(&c->env, d, code, LMTP_F_NONE,
					       LMTP_P_MAIL, text);
			if (!s->pipelining)
				return LMTP_N_END;
		}
		break;
	case ST_RCPT:
		if (s->mail_failed)
			break;
		if (ok)
			s->accepted[s->n_accepted++] = st->rcpt;
		else
			lmtp_delivery_result(&c->env, d, st->rcpt, code,
					     LMTP_F_NONE, LMTP_P_RCPT, text);
		break;
	case ST_DATA:
		if (s->mail_failed || s->n_accepted == 0) {
			/* RFC 2033 4.2: without a successful RCPT the
			 * server must refuse DATA (503). */
			if (code != 354)
				return LMTP_N_END;
			*why = "354 to DATA without an accepted recipient";
			return LMTP_N_KILL;
		}
		if (code == 354) {
			send_body(s);
			return LMTP_N_WAIT;
		}
		lmtp_delivery_fail_all(&c->env, d, code, LMTP_F_NONE,
				       LMTP_P_DATA, text);
		return LMTP_N_END;
	}
	return send_steps(s);
}

static enum lmtp_next
dot_reply(struct lmtp_session *s, int code, const char *text)
{
	if (s->c->env.proto == LMTP_PROTO_SUBMIT) {
		/* SMTP: one reply for every accepted recipient. */
		while (s->n_dot < s->n_accepted)
			lmtp_delivery_result(&s->c->env, s->cur,
					     s->accepted[s->n_dot++], code,
					     LMTP_F_NONE, LMTP_P_DOT, text);
		return LMTP_N_END;
	}
	unsigned i = s->accepted[s->n_dot++];

	lmtp_delivery_result(&s->c->env, s->cur, i, code, LMTP_F_NONE,
			     LMTP_P_DOT, text);
	return s->n_dot == s->n_accepted ? LMTP_N_END : LMTP_N_WAIT;
}

enum lmtp_next
lmtp_txn_reply(struct lmtp_session *s, int code, const char *text,
	       const char **why)
{
	if (s->st == SS_DOT)
		return dot_reply(s, code, text);
	return step_reply(s, code, text, why);
}
