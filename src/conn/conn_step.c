/* conn_step.c: what a session sends next, asked after every event that
 * may have freed it (a read, a write, a timer, the end of a layer's
 * upgrade): its set-up (CAPABILITY, STARTTLS, ID) and login before the
 * driver (the ready hook) sends the rest, a foreign-mail search that
 * waited for the pipeline to drain, and the LOGOUT of a drain.  What
 * ends the session here only sets the quit reason: the event settles. */
#include <string.h>

#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "net/rawlog.h"
#include "version.h"
#include "conn/shared.h"

/* ID ("name" "imapstress" "version" V "x-session-id" "RUN-SLOT-N"), RUN
 * in 16 hex digits, into out (200 octets).  By hand: once per session,
 * snprintf was 2% of the default mix's client instructions (callgrind). */
#define ID_PREFIX "ID (\"name\" \"imapstress\" \"version\" \"" \
	IMAPSTRESS_VERSION "\" \"x-session-id\" \""
_Static_assert(sizeof(ID_PREFIX) + 16 + 1 + 10 + 1 + 20 + 3 <= 200,
	       "the ID command fits its buffer");
static void
id_command(char *out, uint64_t run_id, unsigned slot, uint64_t serial)
{
	size_t n = sizeof(ID_PREFIX) - 1;
	memcpy(out, ID_PREFIX, n);
	for (int shift = 60; shift >= 0; shift -= 4)
		out[n++] = "0123456789abcdef"[(run_id >> shift) & 0xf];
	out[n++] = '-';
	n += imap_fmt_u64(out + n, slot);
	out[n++] = '-';
	n += imap_fmt_u64(out + n, serial);
	memcpy(out + n, "\")", 3);
}

/* RFC 3501 6.2.3: under LOGINDISABLED a client must not send LOGIN, and
 * AUTHENTICATE PLAIN would put the same password on the wire.  In clear,
 * neither is sent: the connection is closed (kind tls, like a server
 * without STARTTLS) and the run stops as unusable, with a line saying to
 * use --starttls (run.c). */
static bool
conn_login_disabled(struct conn *c)
{
	enum auth_mech m = c->env->cfg->mech_id;

	/* SCRAM never puts the password on the wire, so RFC 3501's rule
	 * (no LOGIN under LOGINDISABLED) does not stop it. */
	if (c->login.lstate != LSTATE_NONAUTH || c->setup.tls == CONN_TLS_DONE ||
	    !(c->setup.caps & CAP_LOGINDISABLED) ||
	    m == MECH_SCRAM_SHA1 || m == MECH_SCRAM_SHA256)
		return false;
	atomic_store(&c->env->sh->live->login_disabled, true);
	conn_fail(c, ERR_TLS, "server says LOGINDISABLED: not sending the "
		  "password in clear (use --starttls)");
	return true;
}

void
conn_step(struct conn *c)
{
	const struct config *cfg = c->env->cfg;
	unsigned max = cfg->no_pipelining ? 1 : cfg->pipeline_max;

	if (!conn_may_send(c))
		return;
	if (max > CONN_MAX_INFLIGHT - 2)
		max = CONN_MAX_INFLIGHT - 2;

	if (c->stopping) {
		/* Let what is in flight finish, then leave politely. */
		if (c->n_fl > 0)
			return;
		/* A raw driver's session (its own LOGOUT would need its
		 * own tag): closed too. */
		if (c->login.lstate == LSTATE_NONAUTH || c->env->hooks->raw != NULL) {
			conn_quit(c, CONN_END_STOPPED, ERR_DISCONNECT);
		} else {
			/* So that `imapstress learn` can tell this LOGOUT
			 * from one the mix drew. */
			rawlog_note(c->wire.rawlog, "stopping: the run is over");
			conn_send_logout(c);
		}
		return;
	}
	if (conn_raw(c)) {
		/* The driver speaks for the session from here. */
		if (c->env->hooks->ready != NULL)
			c->env->hooks->ready(c->env->hook_arg, c);
		return;
	}
	if (!(c->setup.caps & CAP_KNOWN)) {
		/* The greeting had no capability list: ask before LOGIN
		 * (LITERAL+ decides how literals are sent). */
		if (c->setup.capa == CONN_STEP_NONE) {
			c->setup.capa = CONN_STEP_SENT;
			conn_send_internal(c, CONN_I_CAPABILITY, "CAPABILITY");
		}
		return;
	}
	if (cfg->tls == TLS_STARTTLS && c->setup.tls != CONN_TLS_DONE) {
		/* Never a password in clear when STARTTLS was asked for. */
		if (c->setup.tls != CONN_TLS_NONE || c->n_fl > 0)
			return;
		if (!(c->setup.caps & CAP_STARTTLS)) {
			conn_fail(c, ERR_TLS, "server does not advertise STARTTLS; "
				  "not logging in without TLS");
			return;
		}
		c->setup.tls = CONN_TLS_ASKED;
		conn_send_internal(c, CONN_I_STARTTLS, "STARTTLS");
		return;
	}
	if (conn_login_disabled(c))
		return;
	if (c->setup.id == CONN_STEP_NONE && (c->setup.caps & CAP_ID) && cfg->send_id) {
		/* A session id the server can log (imap_id_log), so one of
		 * our error lines can be matched to the server's. */
		char id[200];
		c->setup.id = CONN_STEP_SENT;
		id_command(id, c->env->sh->run_id, c->life.slot, c->life.serial);
		conn_send_internal(c, CONN_I_ID, id);
	}

	if (c->login.lstate == LSTATE_NONAUTH) {
		/* Logging in is the engine's: no driver is asked (but the
		 * pipeline's depth, behind an ID). */
		if (c->n_fl < max)
			conn_login(c);
		return;
	}
	/* A foreign-mail search waits for an empty pipeline (conn_guard.c). */
	conn_guard_send_due(c);
	/* Logged in and free: the rest is the driver's. */
	if (c->env->hooks->ready != NULL)
		c->env->hooks->ready(c->env->hook_arg, c);
}
