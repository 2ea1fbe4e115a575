/* users_submit.c: the mail profile users send, by SMTP submission
 * (RFC 6409) to the profile's submission_host:submission_port, on a
 * second client of the worker's loop (lmtp.h, LMTP_PROTO_SUBMIT): each
 * message AUTHenticates as its sender with the sender's password (the
 * userfile's, else the run's pass=) unless submission_auth = none, and the
 * envelope sender is the sender's name.  Mail from outside stays on LMTP
 * (users_lmtp.c).  A final 2xx counts as delivered and starts the
 * recipient's push clock, so the push latency of a run with submission is
 * the whole path: submission's 250 -> MTA -> store -> the EXISTS in the
 * recipient's IDLE. */
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "stats/actions.h"
#include "config/config.h"
#include "lmtp/lmtp.h"
#include "msg/msg.h"
#include "conn/shared.h"
#include "users/users_int.h"
#include "run/worker.h"

static void
usubmit_result(void *arg, const struct lmtp_result *r)
{
	ulmtp_outcome(arg, r, ACT_SUBMIT);
}

/* name, with "@dom" when it has no domain and dom is set. */
static void
usubmit_addr(char *out, size_t n, const char *name, const char *dom)
{
	bool bare = dom != NULL && strchr(name, '@') == NULL;

	snprintf(out, n, "%s%s%s", name, bare ? "@" : "", bare ? dom : "");
}

void
usubmit_send(struct user *from, struct user *to)
{
	struct uworker *uw = from->uw;
	const struct users *run = uw->run;
	const char *dom = run->p->submission_domain;
	char rcpt[300], sender[300];
	const char *rc[1] = { rcpt };
	struct lmtp_sender s = { .mail_from = sender };

	if (uw->submit == NULL) {
		ulmtp_send(from, to);
		return;
	}
	if (uw->stopping)
		return;
	usubmit_addr(rcpt, sizeof(rcpt), to->pu->name, dom);
	usubmit_addr(sender, sizeof(sender), from->pu->name, dom);
	if (run->p->submission_auth != PROFILE_SUBMIT_NONE) {
		s.auth_user = from->pu->name;
		s.auth_pass = from->pu->pass != NULL ? from->pu->pass
		    : run->cfg->pass;
	}
	const struct msg_pool *pool = uw->w->sh->pool;
	unsigned idx = msg_pool_pick(pool, &from->rng);
	if (lmtp_submit(uw->submit, &s, rc, 1, idx, &to->dest[0]) < 0)
		ucount(to, UC_DELIVER_FAILED, UF_INBOX);
}

void
usubmit_attach(struct uworker *uw)
{
	const struct profile *p = uw->run->p;
	const struct shared *sh = uw->w->sh;
	static const enum lmtp_auth mech[] = {
		[PROFILE_SUBMIT_ANY] = LMTP_AUTH_ANY,
		[PROFILE_SUBMIT_PLAIN] = LMTP_AUTH_PLAIN,
		[PROFILE_SUBMIT_LOGIN] = LMTP_AUTH_LOGIN,
		[PROFILE_SUBMIT_NONE] = LMTP_AUTH_ANY,
	};
	struct lmtp_env env;

	if (p->submission_port == 0)
		return;
	memset(&env, 0, sizeof(env));
	env.base = uw->w->base;
	env.proto = LMTP_PROTO_SUBMIT;
	env.auth_mech = mech[p->submission_auth];
	ulmtp_addr(&env, sh, p->submission_host, p->submission_port);
	/* The same share of lmtp_max_parallel_count as LMTP's. */
	env.max_sessions = ulmtp_share(uw);
	env.pool = sh->pool;
	env.run_id = sh->run_id;
	env.stats = &uw->w->stats->act.submit;
	env.on_result = usubmit_result;
	env.cb_arg = uw;
	uw->submit = lmtp_client_new(&env);
}

bool
usubmit_busy(const struct uworker *uw)
{
	return uw->submit != NULL && lmtp_client_busy(uw->submit) > 0;
}

void
usubmit_detach(struct uworker *uw)
{
	struct lmtp_client *c = uw->submit;

	/* As LMTP's: what is pending fails (shutdown), never delivered. */
	uw->submit = NULL;
	lmtp_client_free(c);
}
