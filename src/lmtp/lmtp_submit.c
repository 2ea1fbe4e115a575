/* lmtp_submit.c: what SMTP submission (RFC 6409) adds to a session of
 * the client (lmtp_client.c): STARTTLS after EHLO and EHLO again over TLS
 * (RFC 3207) when env.tls is set, AUTH PLAIN or LOGIN as the delivery's
 * sender, and MAIL FROM's SIZE= and BODY=8BITMIME.  Each step returns
 * what the client does next (enum lmtp_next) rather than calling it, so
 * the two files do not call each other in a circle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "util/b64.h"
#include "lmtp/lmtp_int.h"
#include "net/tls.h"
#include "util/xmalloc.h"

void
lmtp_sub_mail_params(const struct lmtp_session *s, struct evbuffer *out)
{
	const struct lmtp_env *env = &s->c->env;

	/* Submission only: LMTP's MAIL FROM stays as it always was. */
	if (env->proto != LMTP_PROTO_SUBMIT)
		return;
	if (s->ext.size)
		evbuffer_add_printf(out, " SIZE=%zu",
				    lmtp_delivery_size(env, s->cur));
	if (s->ext.eightbit)
		evbuffer_add(out, " BODY=8BITMIME", 14);
}

/* Queue one AUTH line: "AUTH PLAIN <b64>", or LOGIN's user or password. */
static void
send_auth(struct lmtp_session *s)
{
	const struct delivery *d = s->cur;
	struct evbuffer *out = bufferevent_get_output(s->bev);
	size_t ul = strlen(d->auth_user), pl = strlen(d->auth_pass);
	char *raw = xmalloc(ul + pl + 2);
	char *b = xmalloc(B64_ENCODED_SIZE(ul + pl + 2));

	if (s->auth_step == 0) {
		/* RFC 4616: authzid (empty) NUL authcid NUL passwd */
		raw[0] = '\0';
		memcpy(raw + 1, d->auth_user, ul);
		raw[1 + ul] = '\0';
		memcpy(raw + 2 + ul, d->auth_pass, pl);
		b64_encode(raw, ul + pl + 2, b);
		evbuffer_add_printf(out, "AUTH PLAIN %s\r\n", b);
	} else {
		const char *v = s->auth_step == 1 ? d->auth_user : d->auth_pass;
		b64_encode(v, strlen(v), b);
		evbuffer_add_printf(out, "%s\r\n", b);
	}
	free(raw);
	free(b);
}

/* A step the session cannot take: the recipients fail in `phase` (the
 * reply code 0: a local refusal) and the session ends. */
static enum lmtp_next
refuse(struct lmtp_session *s, enum lmtp_phase phase, const char *text,
       const char **why)
{
	lmtp_delivery_fail_all(&s->c->env, s->cur, 0, LMTP_F_PROTOCOL, phase,
			       text);
	*why = text;
	return LMTP_N_KILL;
}

/* AUTH as the delivery's user when it has one, with env.auth_mech (any:
 * PLAIN when offered, else LOGIN); else the transaction. */
static enum lmtp_next
auth_start(struct lmtp_session *s, const char **why)
{
	enum lmtp_auth m = s->c->env.auth_mech;

	if (s->cur->auth_user == NULL)
		return LMTP_N_TXN;
	if (s->ext.auth_plain && m != LMTP_AUTH_LOGIN) {
		s->auth_step = 0;
		send_auth(s);
	} else if (s->ext.auth_login && m != LMTP_AUTH_PLAIN) {
		s->auth_step = 1;
		evbuffer_add(bufferevent_get_output(s->bev), "AUTH LOGIN\r\n", 12);
	} else {
		return refuse(s, LMTP_P_AUTH, "the AUTH mechanism is not offered",
			      why);
	}
	s->st = SS_AUTH;
	return LMTP_N_WAIT;
}

enum lmtp_next
lmtp_sub_ehlo_done(struct lmtp_session *s, const char **why)
{
	if (s->c->env.proto != LMTP_PROTO_SUBMIT)
		return LMTP_N_TXN;
	if (s->c->env.tls != NULL && !s->tls) {
		/* Required: without it the password would go in clear. */
		if (!s->ext.starttls)
			return refuse(s, LMTP_P_SESSION, "STARTTLS is not offered",
				      why);
		evbuffer_add(bufferevent_get_output(s->bev), "STARTTLS\r\n", 10);
		s->st = SS_TLS;
		return LMTP_N_WAIT;
	}
	return auth_start(s, why);
}

static enum lmtp_next
auth_reply(struct lmtp_session *s, int code, const char *text,
	   const char **why)
{
	if (code == 235)
		return LMTP_N_TXN;
	if (code == 334 && (s->auth_step == 1 || s->auth_step == 2)) {
		send_auth(s);
		s->auth_step++;
		return LMTP_N_WAIT;
	}
	/* Refused (535, 454...): the recipients fail with its code; a 334
	 * out of turn is the server's fault. */
	if (code == 334) {
		*why = "334 out of turn";
		return LMTP_N_KILL;
	}
	lmtp_delivery_fail_all(&s->c->env, s->cur, code, LMTP_F_NONE,
			       LMTP_P_AUTH, text);
	return LMTP_N_END;
}

enum lmtp_next
lmtp_sub_reply(struct lmtp_session *s, int code, const char *text,
	       const char **why)
{
	if (s->st == SS_AUTH)
		return auth_reply(s, code, text, why);
	if (code == 220)
		return LMTP_N_UPGRADE;
	/* 454 (TLS not available now) or 501: the recipients fail with the
	 * server's code, and the session ends without sending anything in
	 * clear. */
	lmtp_delivery_fail_all(&s->c->env, s->cur, code, LMTP_F_NONE,
			       LMTP_P_SESSION, text);
	return LMTP_N_END;
}

struct bufferevent *
lmtp_sub_upgrade(struct lmtp_session *s)
{
	struct lmtp_client *c = s->c;
	struct bufferevent *tls;

	tls = tls_bev_upgrade(c->env.tls, c->env.base, s->bev, NULL);
	if (tls == NULL)
		return NULL;
	s->tls = true;
	/* RFC 3207 4.2: what EHLO said before TLS is forgotten. */
	memset(&s->ext, 0, sizeof(s->ext));
	evbuffer_add_printf(bufferevent_get_output(tls), "EHLO %s\r\n",
			    c->env.lhlo_name);
	s->st = SS_LHLO;
	return tls;
}
