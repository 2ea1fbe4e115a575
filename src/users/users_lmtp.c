/* users_lmtp.c: mail arriving for the users of one worker, over that
 * worker's LMTP client (lmtp.h) on its own event loop: INBOX every
 * mail_inbox_delivery_interval, Spam (RCPT TO:<user+Spam>, Dovecot's
 * lmtp_save_to_detail_mailbox) every mail_spam_delivery_interval, each
 * randomized around its mean (profile_jitter_us), and the new mails users
 * send.  lmtp_max_parallel_count is divided between the workers of
 * every shard.  A 250 counts as delivered; for INBOX its time waits for
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
			ucount_push_delivered(u, r->t_reply_us);
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
	unsigned idx = rng_below(&u->rng, msg_pool_count(pool));
	if (lmtp_deliver(uw->lmtp, rc, 1, idx, &to->dest[f == UF_SPAM]) < 0)
		ucount(to, UC_DELIVER_FAILED, f);
}

void
ulmtp_send(struct user *from, struct user *to)
{
	ulmtp_deliver(from, to, UF_INBOX);
}

static void
ulmtp_timer(struct user *u, struct event *ev, uint64_t mean)
{
	ubase_timer(ev, profile_jitter_us(&u->rng, mean));
}

static void
ulmtp_inbox_cb(evutil_socket_t fd, short what, void *arg)
{
	struct user *u = arg;
	ulmtp_deliver(u, u, UF_INBOX);
	ulmtp_timer(u, u->ev_inbox, u->ub->inbox_delivery_us);
}

static void
ulmtp_spam_cb(evutil_socket_t fd, short what, void *arg)
{
	struct user *u = arg;
	ulmtp_deliver(u, u, UF_SPAM);
	ulmtp_timer(u, u->ev_spam, u->ub->spam_delivery_us);
}

/* mail_send_interval: the working connection APPENDs to Sent and then
 * hands the mail to LMTP (users_job.c). */
static void
ulmtp_send_cb(evutil_socket_t fd, short what, void *arg)
{
	struct user *u = arg;
	u->sends_due++;
	ubase_wake(u);
	ulmtp_timer(u, u->ev_send, u->ub->send_interval_us);
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

unsigned
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
ulmtp_attach(struct uworker *uw)
{
	const struct shared *sh = uw->w->sh;
	const struct profile *p = uw->run->p;
	struct lmtp_env env;

	memset(&env, 0, sizeof(env));
	env.base = uw->w->base;
	/* The host is the IMAP server's (imaptest's rule). */
	ulmtp_addr(&env, sh, NULL, p->lmtp_port);
	env.max_sessions = ulmtp_share(uw);
	env.pool = sh->pool;
	env.run_id = sh->run_id;
	env.stats = &uw->w->stats->act.lmtp;	/* the shard's (actions.h) */
	env.on_result = ulmtp_result;
	env.cb_arg = uw;
	uw->lmtp = lmtp_client_new(&env);
	uw->ev_idle = evtimer_new(uw->w->base, ulmtp_idle_cb, uw);
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		u->dest[0] = (struct udest){ u, UF_INBOX };
		u->dest[1] = (struct udest){ u, UF_SPAM };
		u->ev_inbox = evtimer_new(uw->w->base, ulmtp_inbox_cb, u);
		u->ev_spam = evtimer_new(uw->w->base, ulmtp_spam_cb, u);
		u->ev_send = evtimer_new(uw->w->base, ulmtp_send_cb, u);
	}
}

void
ulmtp_user_start(struct user *u)
{
	uint64_t at = profile_start_offset_us(u->uw->run->p, u->idx,
					      u->uw->run->p->n_u);
	const struct profile_user_block *ub = u->ub;

	if (ub->inbox_delivery_us > 0)
		ubase_timer(u->ev_inbox, at + profile_jitter_us(&u->rng,
		    ub->inbox_delivery_us));
	if (ub->spam_delivery_us > 0)
		ubase_timer(u->ev_spam, at + profile_jitter_us(&u->rng,
		    ub->spam_delivery_us));
	if (ub->send_interval_us > 0)
		ubase_timer(u->ev_send, at + profile_jitter_us(&u->rng,
		    ub->send_interval_us));
}

void
ulmtp_user_stop(struct user *u)
{
	if (u->ev_inbox == NULL)
		return;
	evtimer_del(u->ev_inbox);
	evtimer_del(u->ev_spam);
	evtimer_del(u->ev_send);
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
	for (unsigned k = 0; k < uw->n_u; k++) {
		struct user *u = uw->u[k];
		if (u->ev_inbox == NULL)
			continue;
		event_free(u->ev_inbox);
		event_free(u->ev_spam);
		event_free(u->ev_send);
		u->ev_inbox = u->ev_spam = u->ev_send = NULL;
	}
}
