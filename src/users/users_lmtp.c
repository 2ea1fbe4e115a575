/* users_lmtp.c: mail arriving for the users of one worker, over that
 * worker's LMTP client (lmtp.h) on its own event loop: INBOX and Spam
 * (RCPT TO:<user+Spam>, Dovecot's lmtp_save_to_detail_mailbox) when
 * users_due.c says, and LoadSim's mail (users_loadsim.c) when the profile
 * has no submission_port (else users_submit.c carries it).  A mail an imaptest user sends is only APPENDed to
 * Sent, as imaptest does (users_job.c), unless it goes by submission.
 * lmtp_max_parallel_count is divided between the workers of every shard.  A 250 counts as delivered; for INBOX its time waits for
 * the user's IDLE connection to see the EXISTS (push latency). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "stats/actions.h"
#include "util/clock.h"
#include "config/config.h"
#include "lmtp/lmtp.h"
#include "util/log.h"
#include "msg/msg.h"
#include "conn/shared.h"
#include "users/users_int.h"
#include "users/users_count.h"
#include "users/users_lmtp.h"
#include "run/worker.h"

void
ulmtp_outcome(struct uworker *uw, const struct lmtp_result *r,
	      int act)
{
	struct udest *d = r->arg;
	struct user *u = d->u;

	bool ok = r->code >= 200 && r->code < 300;
	if (ok) {
		ucount(u, UC_DELIVERED, d->f);
		if (d->f == UF_INBOX)
			ucount_push_delivered(u, r->t_reply_us,
					      act == ACT_SUBMIT);
	} else {
		ucount(u, UC_DELIVER_FAILED, d->f);
		/* No greeting or LHLO reply in time: the server did not
		 * start sessions as fast as they were opened (users.c warns
		 * at the end). */
		if (r->fail == LMTP_F_TIMEOUT && r->phase == LMTP_P_SESSION)
			ucount(u, UC_DELIVER_UNREADY, d->f);
	}
	if (ok)
		act_ok(uw->act, act, r->t_reply_us - r->t_queued_us);
	else
		act_failed(uw->act, act);
	/* Draining: the worker may be done once this delivery has left
	 * the client, which is after this callback returns. */
	if (uw->stopping && uw->ev_idle != NULL)
		event_active(uw->ev_idle, EV_TIMEOUT, 0);
}

static void
ulmtp_result(void *arg, const struct lmtp_result *r)
{
	ulmtp_outcome(arg, r, ACT_DELIVER);
}

static void
ulmtp_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct uworker *uw = arg;
	worker_driver_idle(uw->w);
}

static void
ulmtp_deliver(struct user *u, struct user *to, enum ufolder f)
{
	struct uworker *uw = u->uw;
	char rcpt[300];
	const char *rc[1] = { rcpt };

	if (uw->lmtp == NULL || uw->stopping)
		return;
	const char *name = to->pu->name, *at = strchr(name, '@');
	if (f != UF_SPAM)
		snprintf(rcpt, sizeof(rcpt), "%s", name);
	else if (at == NULL)
		snprintf(rcpt, sizeof(rcpt), "%s+Spam", name);
	else	/* the detail goes before the domain: user+Spam@domain */
		snprintf(rcpt, sizeof(rcpt), "%.*s+Spam%s", (int)(at - name),
			 name, at);
	const struct msg_pool *pool = uw->w->sh->pool;
	unsigned idx = msg_pool_pick(pool, &u->rng);
	if (lmtp_deliver(uw->lmtp, rc, 1, idx, &to->dest[f == UF_SPAM]) < 0)
		ucount(to, UC_DELIVER_FAILED, f);
}

void
ulmtp_send(struct user *from, struct user *to)
{
	ulmtp_deliver(from, to, UF_INBOX);
}

void
ulmtp_deliver_own(struct user *u, enum ufolder f)
{
	ulmtp_deliver(u, u, f);
}

void
ulmtp_addr(struct lmtp_env *env, const struct shared *sh, const char *host,
	   unsigned port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&env->addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&env->addr;

	memset(&env->addr, 0, sizeof(env->addr));
	if (host == NULL) {
		memcpy(&env->addr, &sh->addrs[0], sizeof(env->addr));
		env->addrlen = sh->addr_lens[0];
	} else if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		/* (profile_submit.c took only numeric addresses) */
		in->sin_family = AF_INET;
		env->addrlen = sizeof(*in);
	} else {
		inet_pton(AF_INET6, host, &in6->sin6_addr);
		in6->sin6_family = AF_INET6;
		env->addrlen = sizeof(*in6);
	}
	if (env->addr.ss_family == AF_INET)
		in->sin_port = htons((uint16_t)port);
	else
		in6->sin6_port = htons((uint16_t)port);
}

/* This worker's share of lmtp_max_parallel_count (0: no limit). */
static unsigned
ulmtp_share(const struct uworker *uw)
{
	const struct profile *p = uw->run->p;

	if (p->lmtp_max_parallel == 0)
		return 0;
	unsigned n = p->lmtp_max_parallel /
	    (uw->run->n_workers * uw->run->shards);
	return n > 0 ? n : 1;
}

void
ulmtp_env(struct lmtp_env *env, struct uworker *uw, const char *host,
	  unsigned port, struct lmtp_stats *stats,
	  void (*on_result)(void *, const struct lmtp_result *))
{
	const struct shared *sh = uw->w->sh;

	memset(env, 0, sizeof(*env));
	env->base = uw->w->base;
	ulmtp_addr(env, sh, host, port);
	/* Submission gets the same share of lmtp_max_parallel_count. */
	env->max_sessions = ulmtp_share(uw);
	env->pool = sh->pool;
	env->run_id = sh->run_id;
	env->stats = stats;	/* the shard's (actions.h) */
	env->on_result = on_result;
	env->cb_arg = uw;
}

void
ulmtp_attach(struct uworker *uw)
{
	const struct profile *p = uw->run->p;
	struct lmtp_env env;

	/* lmtp_host, else the IMAP server's (imaptest's rule). */
	ulmtp_env(&env, uw, p->lmtp_host, p->lmtp_port,
		  &uw->w->stats->act.lmtp, ulmtp_result);
	uw->lmtp = lmtp_client_new(&env);
	uw->ev_idle = evtimer_new(uw->w->base, ulmtp_idle_cb, uw);
}

bool
ulmtp_busy(const struct uworker *uw)
{
	return uw->lmtp != NULL && lmtp_client_busy(uw->lmtp) > 0;
}

void
ulmtp_detach(struct uworker *uw)
{
	struct lmtp_client *l = uw->lmtp;

	/* Pending deliveries get LMTP_F_SHUTDOWN: counted as failed, never
	 * as delivered. */
	uw->lmtp = NULL;
	lmtp_client_free(l);
	if (uw->ev_idle != NULL)
		event_free(uw->ev_idle);
	uw->ev_idle = NULL;
}
