/* users_pop3.c: profile users of a `protocol = pop3` client block, as
 * imaptest's POP3 client plays them (its pop3-client.c and profile.c):
 * the user's first visit may begin at its ramp-up time; a visit logs in
 * (USER, PASS; AUTH PLAIN with pop3_auth = plain), asks STAT and UIDL,
 * RETRieves every message it has not retrieved before and, unless
 * pop3_keep_mails, DELEtes each, and QUITs; the next visit may begin
 * login_interval after the end of this one (imaptest: the last logout +
 * login_interval, not jittered), or a second after a visit that failed.
 * The sessions run on the worker's POP3 client (pop3.h) against
 * pop3_host (default the IMAP server's) and pop3_port (default 110, 995
 * with ssl).  Each visit holds one slot of clients= (users_slots.c) from
 * its start until its socket is closed, as imaptest counts its POP3
 * clients among its clients: a visit begins when a slot serves the user,
 * which is when its time has come and no user has waited longer.
 * --starttls makes them send STLS, ssl POP3S.  A user counts as
 * logged in from PASS's (or AUTH's) +OK to its visit's end.  What QUIT's +OK
 * committed counts as expunged from INBOX, so the server's INBOX holds
 * delivered - deleted. */
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "config/config.h"
#include "conn/shared.h"
#include "lmtp/lmtp.h"
#include "pop3/pop3.h"
#include "run/worker.h"
#include "users/users_int.h"
#include "users/users_base.h"
#include "users/users_count.h"
#include "users/users_lmtp.h"
#include "users/users_pop3.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define RETRY_US 1000000u	/* after a failed visit, as usess_closed */
#define LOG_FAILS 10		/* failed visits named per worker */

/* Logged in: the user counts as in (users=, users_in) until its visit
 * ends.  A session's arg is the slot it holds. */
static void
upop3_login(void *arg, void *slot)
{
	struct uconn *uc = slot;
	ucount_users_in(uc->p3, 1);
}

static void
upop3_result(void *arg, const struct pop3_result *res)
{
	struct uconn *uc = res->arg;
	struct user *u = uc->p3;
	struct uworker *uw = arg;

	u->p3_on = false;
	if (res->logged_in)
		ucount_users_in(u, -1);
	/* Name why a visit broke (the text is escaped by the client), the
	 * first few times: the counts say how often. */
	if (res->failed && res->fail != P3F_SHUTDOWN && uw->pop3_logged < LOG_FAILS)
		log_error("pop3(%s): %s: %s%s", u->pu->name,
			  pop3_fail_name[res->fail], res->text,
			  ++uw->pop3_logged == LOG_FAILS ?
			  " (no more POP3 failures are named)" : "");
	/* A refused login is a reply, not a failure, but the run is no
	 * test without logins: its command and the server's words. */
	else if (res->login_err != P3_CMD_COUNT && uw->pop3_logged < LOG_FAILS)
		log_error("pop3(%s): %s: -ERR %s%s", u->pu->name,
			  res->login_err == P3_AUTH ? "AUTH" :
			  res->login_err == P3_PASS ? "PASS" : "USER",
			  res->login_err_text,
			  ++uw->pop3_logged == LOG_FAILS ?
			  " (no more POP3 failures are named)" : "");
	u->cnt.pop3_retrieved += res->retrieved;
	u->cnt.pop3_deleted += res->deleted;
	u->cnt.pop3_delete_lost += res->delete_lost;
	u->cnt.expunged[UF_INBOX] += res->deleted;
	if (res->quit_ok)
		u->cnt.pop3_sessions++;
	if (u->cb->pop3_keep_mails) {
		/* What this visit saw retrieved: the next one skips it. */
		free(u->p3_seen);
		u->p3_seen = NULL;
		u->p3_n_seen = res->n_seen;
		if (res->n_seen > 0) {
			u->p3_seen = xmalloc(res->n_seen * sizeof(*u->p3_seen));
			memcpy(u->p3_seen, res->seen,
			       res->n_seen * sizeof(*u->p3_seen));
		}
	}
	if (uw->pop3 == NULL)
		return;		/* upop3_detach: the worker is gone */
	if (uw->stopping) {
		/* Draining: the worker may be done now that this session
		 * has left the client; asked from an event of its own, as
		 * for LMTP, not from inside the client's callback. */
		if (uw->ev_idle != NULL)
			event_active(uw->ev_idle, EV_TIMEOUT, 0);
		return;
	}
	uint64_t wait = res->quit_ok && res->n_err == 0 ?
	    u->cb->login_interval_us : RETRY_US;
	/* The user waits for a slot from then on; the slot is free once the
	 * socket is closed (upop3_closed). */
	uc->p3_again = res->t_end_us + wait;
}

/* The visit's socket is closed: its slot serves the next user. */
static void
upop3_closed(void *arg, void *slot)
{
	struct uworker *uw = arg;

	if (uw->pop3 != NULL)
		uw->run->pop3_done(uw, slot);
}

bool
upop3_visit(struct uworker *uw, struct uconn *uc)
{
	struct user *u = uc->p3;
	const struct config *cfg = uw->run->cfg;
	struct pop3_login who = {
		.user = u->pu->name,
		.pass = u->pu->pass != NULL ? u->pu->pass : cfg->pass,
		.keep = u->cb->pop3_keep_mails,
		.known = u->p3_seen,
		.n_known = u->p3_n_seen,
	};

	if (uw->pop3 == NULL || uw->stopping || u->p3_on)
		return false;
	/* On before the start: a connect that fails at once gives its
	 * result before pop3_session_start returns. */
	u->p3_on = true;
	if (pop3_session_start(uw->pop3, &who, uc) < 0) {
		u->p3_on = false;
		/* (no session, so no next visit: said once per user) */
		log_warn("POP3: user %s cannot log in by %s", u->pu->name,
			 uw->run->p->pop3_auth_plain ? "AUTH PLAIN (a name or "
			 "password with CR or LF, or the AUTH line over 255 "
			 "octets)" : "USER/PASS (a name or password with CR or LF)");
		return false;
	}
	return true;
}

void
upop3_attach(struct uworker *uw)
{
	const struct users *r = uw->run;
	bool any = false;

	for (unsigned j = 0; j < uw->n_mine && !any; j++)
		any = ubase_is_pop3(r, uw->id + j * r->n_workers);
	if (!any)
		return;
	struct pop3_env env;
	struct lmtp_env addr;
	memset(&env, 0, sizeof(env));
	/* pop3_host, else the IMAP server's host, as imaptest connects its
	 * POP3 clients. */
	ulmtp_addr(&addr, uw->w->sh, r->p->pop3_host,
		   r->p->pop3_port ? r->p->pop3_port : PROFILE_POP3_PORT_DEFAULT);
	memcpy(&env.addr, &addr.addr, sizeof(env.addr));
	env.addrlen = addr.addrlen;
	env.base = uw->w->base;
	/* No limit of its own: each session holds a slot of clients=. */
	env.max_sessions = 0;
	/* No progress for --cmd-timeout ends a session (P3F_TIMEOUT). */
	env.timeout_s = r->cfg->cmd_timeout;
	env.stats = &uw->w->stats->act.pop3;
	/* --starttls is STLS, ssl (--tls) POP3S, on the run's TLS context. */
	env.tls = uw->w->sh->tls;
	env.tls_mode = r->cfg->tls == TLS_STARTTLS ? POP3_TLS_STLS :
	    r->cfg->tls == TLS_IMPLICIT ? POP3_TLS_IMPLICIT : POP3_TLS_NONE;
	env.auth = r->p->pop3_auth_plain ? POP3_AUTH_PLAIN : POP3_AUTH_USER;
	env.on_result = upop3_result;
	env.on_login = upop3_login;
	env.on_closed = upop3_closed;
	env.cb_arg = uw;
	uw->pop3 = pop3_client_new(&env);
}

void
upop3_stop(struct uworker *uw)
{
	if (uw->pop3 != NULL)
		pop3_client_stop(uw->pop3);
}

bool
upop3_busy(const struct uworker *uw)
{
	return uw->pop3 != NULL && pop3_client_busy(uw->pop3) > 0;
}

void
upop3_detach(struct uworker *uw)
{
	struct pop3_client *c = uw->pop3;

	uw->pop3 = NULL;
	pop3_client_free(c);
	for (unsigned k = 0; k < uw->n_u; k++) {
		free(uw->u[k]->p3_seen);
		uw->u[k]->p3_seen = NULL;
	}
}
