/* users_submit.c: the mail profile users send, by SMTP submission
 * (RFC 6409) to the profile's submission_host:submission_port, on a
 * second client of the worker's loop (lmtp.h, LMTP_PROTO_SUBMIT): each
 * message AUTHenticates as its sender with the sender's password (the
 * userfile's, else the run's pass=) unless submission_auth = none, and the
 * envelope sender is the sender's name.  Mail from outside stays on LMTP
 * (users_lmtp.c).  A final 2xx counts as delivered and starts the
 * recipient's push clock, so the push latency of a run with submission is
 * the whole path: submission's 250 -> MTA -> store -> the EXISTS in the
 * recipient's IDLE.  A message may have several recipients (a
 * distribution list: submission_rcpt_count, or LoadSim's recipients and
 * attendees): one RCPT each, each reply counted for its recipient. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "stats/actions.h"
#include "config/config.h"
#include "lmtp/lmtp.h"
#include "msg/msg.h"
#include "conn/shared.h"
#include "users/users_int.h"
#include "users/users_count.h"
#include "users/users_lmtp.h"
#include "users/users_submit.h"
#include "run/worker.h"
#include "net/tls.h"
#include "util/xmalloc.h"

/* One message's recipients (a distribution list): each result is for
 * rcpt_idx's user and folder; the last one frees the list. */
struct usubmit_list {
	unsigned left;
	struct udest *dest[PROFILE_MAX_RCPTS];
};

static void
usubmit_result(void *arg, const struct lmtp_result *r)
{
	struct usubmit_list *l = r->arg;
	struct lmtp_result one = *r;

	one.arg = l->dest[r->rcpt_idx];
	ulmtp_outcome(arg, &one, ACT_SUBMIT);
	if (--l->left == 0)
		free(l);
}

/* name, with "@dom" when it has no domain and dom is set. */
static void
usubmit_addr(char *out, size_t n, const char *name, const char *dom)
{
	bool bare = dom != NULL && strchr(name, '@') == NULL;

	snprintf(out, n, "%s%s%s", name, bare ? "@" : "", bare ? dom : "");
}

/* to, then want - 1 other users of this worker drawn at random, none
 * twice (an MTA delivers a repeated address once): at most the worker's
 * users, and PROFILE_MAX_RCPTS. */
static unsigned
usubmit_pick(struct user *from, struct user *to, unsigned want,
	     struct user **out)
{
	struct uworker *uw = from->uw;
	unsigned n = 1;

	out[0] = to;
	if (want > PROFILE_MAX_RCPTS)
		want = PROFILE_MAX_RCPTS;
	/* From every user of the worker, made now if not yet (as a due
	 * delivery makes its user): those made so far were fewer than asked
	 * during the ramp (2 of 3, t_submit_postfix's 89 of 90 in CI). */
	if (want > uw->n_mine)
		want = uw->n_mine;
	while (n < want) {
		unsigned k = rng_below(&from->rng, uw->n_mine);
		struct user *u = uw->user_at(uw, uw->id + k * uw->run->n_workers);
		bool dup = false;
		for (unsigned i = 0; i < n; i++)
			dup |= out[i] == u;
		if (!dup)
			out[n++] = u;
	}
	return n;
}

/* One message from `from` to `to` and want - 1 others. */
static void
usubmit_list(struct user *from, struct user *to, unsigned want)
{
	struct uworker *uw = from->uw;
	const struct users *run = uw->run;
	const char *dom = run->p->submission_domain;
	char rcpt[PROFILE_MAX_RCPTS][300];	/* (copied by lmtp_submit) */
	char sender[300];
	const char *rc[PROFILE_MAX_RCPTS];
	struct user *who[PROFILE_MAX_RCPTS];
	struct lmtp_sender s = { .mail_from = sender };

	if (uw->stopping)
		return;
	unsigned n = usubmit_pick(from, to, want, who);
	struct usubmit_list *l = xcalloc(1, sizeof(*l));
	for (unsigned i = 0; i < n; i++) {
		usubmit_addr(rcpt[i], sizeof(rcpt[i]), who[i]->pu->name, dom);
		rc[i] = rcpt[i];
		l->dest[i] = &who[i]->dest[0];
	}
	l->left = n;
	usubmit_addr(sender, sizeof(sender), from->pu->name, dom);
	if (run->p->submission_auth != PROFILE_SUBMIT_NONE) {
		s.auth_user = from->pu->name;
		s.auth_pass = from->pu->pass != NULL ? from->pu->pass
		    : run->cfg->pass;
	}
	const struct msg_pool *pool = uw->w->sh->pool;
	unsigned idx = msg_pool_pick(pool, &from->rng);
	if (lmtp_submit(uw->submit, &s, rc, n, idx, l) < 0) {
		for (unsigned i = 0; i < n; i++)
			ucount(who[i], UC_DELIVER_FAILED, UF_INBOX);
		free(l);
	}
}

void
usubmit_send(struct user *from, struct user *to)
{
	unsigned want = from->uw->run->p->submission_rcpts;

	if (from->uw->submit == NULL)
		ulmtp_send(from, to);
	else
		usubmit_list(from, to, want ? want : 1);
}

void
usubmit_send_list(struct user *from, unsigned n)
{
	struct uworker *uw = from->uw;

	if (uw->n_u == 0)
		return;
	if (uw->submit != NULL) {
		usubmit_list(from, uw->u[rng_below(&from->rng, uw->n_u)], n);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		ulmtp_send(from, uw->u[rng_below(&from->rng, uw->n_u)]);
}

void
usubmit_attach(struct uworker *uw)
{
	const struct profile *p = uw->run->p;
	static const enum lmtp_auth mech[] = {
		[PROFILE_SUBMIT_ANY] = LMTP_AUTH_ANY,
		[PROFILE_SUBMIT_PLAIN] = LMTP_AUTH_PLAIN,
		[PROFILE_SUBMIT_LOGIN] = LMTP_AUTH_LOGIN,
		[PROFILE_SUBMIT_NONE] = LMTP_AUTH_ANY,
	};
	struct lmtp_env env;

	if (p->submission_port == 0)
		return;
	ulmtp_env(&env, uw, p->submission_host, p->submission_port,
		  &uw->w->stats->act.submit, usubmit_result);
	env.proto = LMTP_PROTO_SUBMIT;
	env.auth_mech = mech[p->submission_auth];
	env.tls = uw->run->submit_tls;
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

int
usubmit_tls_new(struct users *run, char *err, size_t n)
{
	const struct profile *p = run->p;
	struct config c;
	char why[512];

	if (p->submission_port == 0 || !p->submission_tls)
		return 0;
	/* The run's --ca-file and --insecure; the name verified is the
	 * submission host's (an address: its IP SAN), else the IMAP host's,
	 * whose address it then is. */
	c = *run->cfg;
	if (p->submission_host != NULL)
		c.host = p->submission_host;
	c.tls_resume = false;
	run->submit_tls = tls_ctx_new(&c, why, sizeof(why));
	if (run->submit_tls == NULL) {
		snprintf(err, n, "submission_tls = starttls: %s", why);
		return -1;
	}
	return 0;
}

void
usubmit_tls_free(struct users *run)
{
	tls_ctx_free(run->submit_tls);
	run->submit_tls = NULL;
}
