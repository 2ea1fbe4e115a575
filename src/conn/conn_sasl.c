/* conn_sasl.c: logging in, a step of the engine (no driver is asked):
 * LOGIN, or AUTHENTICATE.  PLAIN is one message (an
 * initial response with SASL-IR, else after the "+"); SCRAM-SHA-1/256
 * answer the server's challenges (scram.c), and the server's signature
 * in its last challenge must be right, else the session is an error: a
 * server that does not know the password passed our proof along. */
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <sys/random.h>

#include "util/b64.h"
#include "util/rng.h"
#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "net/rawlog.h"
#include "imap/scram.h"
#include "conn/shared.h"

/* Send one SASL response line (base64 of len bytes, or "" for len 0);
 * never rawlogged, it holds or proves the password. */
static void
sasl_send(struct conn *c, const void *data, size_t len)
{
	char b64[4200];
	size_t n = len > 0 && len <= 3000 ?
	    b64_encode(data, len, b64) : 0;

	b64[n++] = '\r';
	b64[n++] = '\n';
	rawlog_data(c->wire.rawlog, 'C', "<secret redacted>\r\n", 19);
	conn_count_sent(c, n);
	bufferevent_write(c->bev, b64, n);
	conn_out_queued(c);
	conn_write_now(c);
	explicit_bzero(b64, sizeof(b64));
}

static void
sasl_fail(struct conn *c, const char *why)
{
	/* Counted as a protocol error: unlike a refused login, a wrong
	 * signature or a malformed challenge is the server's fault. */
	conn_fail(c, ERR_PROTOCOL, "AUTHENTICATE %s: %s",
			config_mech_name(c->login.sasl_mech), why);
}

bool
conn_sasl_start(struct conn *c, enum op op, struct imap_cmd *cmd)
{
	enum auth_mech m = conn_sasl_mech(c, op);
	const char *pass = c->login.pass;
	unsigned char raw[600];
	char b64[820];
	size_t n;

	scram_free(c->login.scram);
	c->login.scram = NULL;
	c->login.sasl_mech = m;
	c->login.sasl_verified = false;
	imap_cmd_adds(cmd, "AUTHENTICATE ");
	imap_cmd_adds(cmd, config_mech_name(m));
	if (m == MECH_SCRAM_SHA1 || m == MECH_SCRAM_SHA256) {
		unsigned char rnd[18];
		char nonce[32];
		/* getrandom, not RAND_bytes: OpenSSL's DRBG would load its
		 * providers for 18 octets of nonce. */
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return false;
		b64_encode(rnd, sizeof(rnd), nonce);
		c->login.scram = scram_new(m == MECH_SCRAM_SHA1 ? SCRAM_SHA1 :
				     SCRAM_SHA256, c->login.user, pass, nonce);
		if (c->login.scram == NULL)	/* libcrypto not loaded (ossl.h) */
			return false;
		const char *first = scram_client_first(c->login.scram);
		if (c->setup.caps & CAP_SASL_IR) {
			n = b64_encode((const unsigned char *)first,
					     strlen(first), b64);
			imap_cmd_adds(cmd, " ");
			imap_cmd_add(cmd, b64, n);
			c->login.sasl_step = SASL_SERVER_FIRST;
		} else {
			c->login.sasl_step = SASL_SEND_FIRST;
		}
		c->cmd.cont_wait = true;	/* nothing else until it is over */
		conn_hold_update(c);
		return true;
	}
	/* PLAIN: "\0user\0pass", as an initial response when the server has
	 * SASL-IR, else after the "+". */
	size_t ul = strlen(c->login.user), pl = strlen(pass);
	if (ul + pl + 2 > sizeof(raw))
		pl = sizeof(raw) - ul - 2;
	raw[0] = '\0';
	memcpy(raw + 1, c->login.user, ul);
	raw[1 + ul] = '\0';
	memcpy(raw + 2 + ul, pass, pl);
	n = b64_encode(raw, ul + pl + 2, b64);
	if (c->setup.caps & CAP_SASL_IR) {
		imap_cmd_adds(cmd, " ");
	} else {
		imap_cmd_adds(cmd, "\r\n");
		cmd->splits[cmd->n_splits++] = imap_cmd_len(cmd);
	}
	imap_cmd_add(cmd, b64, n);
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(b64, sizeof(b64));
	return true;
}

bool
conn_sasl_active(const struct conn *c)
{
	return c->login.scram != NULL && c->login.sasl_step != SASL_DONE;
}

/* A "+ challenge" during a SCRAM exchange. */
void
conn_sasl_continue(struct conn *c, const struct imap_resp *r)
{
	unsigned char msg[2048];
	char err[256];
	int mn = b64_decode(r->text, r->text_len, msg, sizeof(msg) - 1);
	if (c->login.sasl_step == SASL_SEND_FIRST) {
		const char *first = scram_client_first(c->login.scram);
		sasl_send(c, first, strlen(first));
		c->login.sasl_step = SASL_SERVER_FIRST;
		return;
	}
	if (mn < 0) {
		sasl_fail(c, "challenge is not base64");
		return;
	}
	msg[mn] = '\0';
	if (c->login.sasl_step == SASL_SERVER_FIRST) {
		const char *fin = scram_client_final(c->login.scram, (char *)msg,
						     (size_t)mn, err,
						     sizeof(err));
		if (fin == NULL) {
			sasl_fail(c, err);
			return;
		}
		sasl_send(c, fin, strlen(fin));
		c->login.sasl_step = SASL_SERVER_FINAL;
		return;
	}
	if (c->login.sasl_step == SASL_SERVER_FINAL) {
		if (!scram_server_final_ok(c->login.scram, (char *)msg, (size_t)mn,
					   err, sizeof(err))) {
			sasl_fail(c, err);
			return;
		}
		c->login.sasl_verified = true;
		c->login.sasl_step = SASL_DONE;
		c->cmd.cont_wait = false;
		conn_hold_update(c);
		sasl_send(c, NULL, 0);	/* the empty response that ends it */
		return;
	}
	sasl_fail(c, "unexpected challenge after the exchange ended");
}

/* The tagged reply to AUTHENTICATE: false when an OK must not be
 * believed (SCRAM without the server's signature). */
bool
conn_sasl_end(struct conn *c, bool ok)
{
	bool was_scram = c->login.scram != NULL;

	scram_free(c->login.scram);
	c->login.scram = NULL;
	c->cmd.cont_wait = false;
	conn_hold_update(c);
	if (ok && was_scram && !c->login.sasl_verified) {
		sasl_fail(c, "OK without the server's signature");
		return false;
	}
	return true;
}

/* A LOGIN or AUTHENTICATE of this session is unanswered. */
static bool
conn_login_in_flight(const struct conn *c)
{
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->cmd.fl[i].internal == CONN_I_NONE &&
		    (c->cmd.fl[i].op == OP_LOGIN || c->cmd.fl[i].op == OP_AUTHENTICATE))
			return true;
	return false;
}

void
conn_login(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	struct imap_cmd cmd;

	if (conn_login_in_flight(c))
		return;
	/* imaptest's choice between its two login states, with the same
	 * draw imaptest's plan makes for it, so a seed= walks as it did. */
	enum op op = rng_pct(&c->life.rng, cfg->states[OP_AUTHENTICATE].prob) ?
	    OP_AUTHENTICATE : OP_LOGIN;
	imap_cmd_init(&cmd, c->cmd.stage, (c->setup.caps & CAP_LITERALPLUS) != 0);
	imap_cmd_inline(&cmd);
	imap_cmd_set_side(&cmd, c->cmd.scratch);
	uint32_t tag = conn_tag_begin(c, &cmd);
	if (conn_sasl_mech(c, op) == MECH_LOGIN) {
		imap_cmd_adds(&cmd, "LOGIN ");
		imap_cmd_astring(&cmd, c->login.user, strlen(c->login.user));
		imap_cmd_adds(&cmd, " ");
		imap_cmd_astring(&cmd, c->login.pass, strlen(c->login.pass));
	} else if (!conn_sasl_start(c, op, &cmd)) {
		/* No nonce, or no libcrypto: try again a little later. */
		evbuffer_drain(c->cmd.stage, evbuffer_get_length(c->cmd.stage));
		conn_pause(c, CONN_RETRY_US);
		return;
	}
	imap_cmd_adds(&cmd, "\r\n");
	conn_send_cmd(c, &cmd, op, CONN_I_NONE, tag, 0, 0);
	/* The driver may care which (the stress plan's walk goes on from
	 * the login state, as imaptest's). */
	c->login.login_op = (uint8_t)op;
}
