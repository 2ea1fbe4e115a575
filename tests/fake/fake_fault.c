/* fake_fault.c: the --mode fault behaviours, as hooks the connection and
 * the command dispatcher call at fixed points.  Each hook returns true
 * when the fault took over and the normal path must not run.  Only the
 * faults a --script rule file cannot express live here (byte-level ones,
 * random ones, TLS); a close or BYE at the greeting, refused logins, NO/BAD
 * to everything and a foreign tag are scenario files
 * (tests/fake/scenarios/fault-*). */
#include "fake.h"

#define FAKE_GARBAGE_LEN 256
#define FAKE_TLS_GARBAGE_LEN 100

bool
fake_fault_greet(struct fake_conn *c)
{
	switch (c->sh->cfg->mode) {
	case FAKE_M_NO_GREETING:
	case FAKE_M_TLS_FAIL:
		return true;
	default:
		return false;
	}
}

static void
fake_fault_random_bytes(struct fake_conn *c, unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)fake_rand(&c->rng);
}

/* Modes that never parse IMAP: swallow input, or answer a TLS
 * ClientHello with bytes no TLS stack can take for a ServerHello. */
bool
fake_fault_input(struct fake_conn *c, struct evbuffer *in)
{
	enum fake_mode mode = c->sh->cfg->mode;
	if (mode != FAKE_M_NO_GREETING && mode != FAKE_M_TLS_FAIL)
		return false;
	size_t n = evbuffer_get_length(in);
	evbuffer_drain(in, n);
	c->loop->stats.bytes_in += n;
	if (mode == FAKE_M_TLS_FAIL && !c->tls_fail_sent && !c->closing) {
		unsigned char junk[FAKE_TLS_GARBAGE_LEN];
		fake_fault_random_bytes(c, junk, sizeof(junk));
		junk[0] = 'G';  /* not a TLS record type */
		c->tls_fail_sent = true;
		fake_reply_begin(c, 0);
		fake_out(c, junk, sizeof(junk));
		fake_reply_end(c, FAKE_P_CLOSE);
	}
	return true;
}

bool
fake_fault_line_start(struct fake_conn *c)
{
	if (c->sh->cfg->mode != FAKE_M_CLOSE_MID_COMMAND || !c->logged_in)
		return false;
	fake_close(c, 0);
	return true;
}

/* Sync literals get "+ OK" unless the mode has stopped answering. */
bool
fake_fault_continuation_allowed(const struct fake_conn *c)
{
	switch (c->sh->cfg->mode) {
	case FAKE_M_STALL:
	case FAKE_M_HUGE_LITERAL:
		return !c->logged_in;
	default:
		return true;
	}
}

static void
fake_fault_garbage(struct fake_conn *c)
{
	unsigned char junk[FAKE_GARBAGE_LEN + 2];
	fake_fault_random_bytes(c, junk, FAKE_GARBAGE_LEN);
	for (size_t i = 0; i < FAKE_GARBAGE_LEN; i++)
		if (junk[i] == '\r' || junk[i] == '\n')
			junk[i] = 0x80;
	/* Guarantee the NUL bytes the mode promises. */
	junk[7] = 0;
	junk[128] = 0;
	junk[FAKE_GARBAGE_LEN] = '\r';
	junk[FAKE_GARBAGE_LEN + 1] = '\n';
	fake_reply_begin(c, fake_reply_delay(c));
	fake_out(c, junk, sizeof(junk));
	fake_reply_end(c, 0);
}

bool
fake_fault_command(struct fake_conn *c, struct fake_cmd *cmd)
{
	const struct fake_cfg *cfg = c->sh->cfg;
	if (cfg->mode == FAKE_M_CLOSE_MID_LITERAL) {
		if (!fake_eq(cmd->name, "FETCH"))
			return false;
		fake_reply_begin(c, fake_reply_delay(c));
		fake_outs(c, "* 1 FETCH (BODY[] {1000}\r\n");
		fake_out(c, c->sh->endless, 100);
		fake_reply_end(c, FAKE_P_CLOSE);
		return true;
	}
	if (!c->logged_in)
		return false;
	switch (cfg->mode) {
	case FAKE_M_BYE_RANDOM:
		if (fake_rand(&c->rng) % 100 >= cfg->pct)
			return false;
		fake_reply_begin(c, fake_reply_delay(c));
		fake_outs(c, "* BYE random bye\r\n");
		fake_reply_end(c, FAKE_P_CLOSE);
		return true;
	case FAKE_M_GARBAGE:
		if (c->garbage_sent)
			return false;
		c->garbage_sent = true;
		fake_fault_garbage(c);
		return true;
	case FAKE_M_HUGE_LITERAL:
		fake_reply_begin(c, fake_reply_delay(c));
		fake_outs(c, "* 1 FETCH (BODY[] {4294967296}\r\n");
		fake_reply_end(c, 0);
		c->rstate = FAKE_R_SWALLOW;
		return true;
	case FAKE_M_STALL:
		c->rstate = FAKE_R_SWALLOW;
		return true;
	default:
		return false;
	}
}

/* Flags for the LOGIN/AUTHENTICATE OK reply. */
unsigned
fake_fault_login_ok(struct fake_conn *c)
{
	return c->sh->cfg->mode == FAKE_M_RESET ? FAKE_P_RESET : 0;
}

void
fake_fault_after_login(struct fake_conn *c)
{
	if (c->sh->cfg->mode != FAKE_M_ENDLESS_LINE || c->endless)
		return;
	fake_reply_begin(c, 0);
	fake_outs(c, "* OK ");
	fake_reply_end(c, 0);
	c->endless = true;
	/* A reply now would put a CRLF into the endless line. */
	c->rstate = FAKE_R_SWALLOW;
	/* Refill whenever less than a chunk is left queued. */
	bufferevent_setwatermark(c->bev, EV_WRITE, FAKE_ENDLESS_CHUNK, 0);
	fake_conn_pump(c);
}
