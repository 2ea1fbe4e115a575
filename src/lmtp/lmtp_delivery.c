/* lmtp_delivery.c: one delivery of a message to its recipients: the
 * message as DATA puts it on the wire, and the single result each
 * recipient gets (see lmtp.h), counted in the client's lmtp_stats and
 * handed to its on_result callback. */
#include <stdlib.h>

#include <event2/buffer.h>

#include "util/clock.h"
#include "stats/hist.h"
#include "lmtp/lmtp_int.h"
#include "msg/msg.h"
#include "util/xmalloc.h"

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

struct delivery *
lmtp_delivery_new(const struct lmtp_sender *from, const char *const *rcpts,
		  unsigned n, unsigned msg_idx, void *arg)
{
	struct delivery *d = xcalloc(1, sizeof(*d));
	if (from != NULL) {
		d->mail_from = dup_or_null(from->mail_from);
		d->auth_user = dup_or_null(from->auth_user);
		d->auth_pass = dup_or_null(from->auth_pass);
	}
	d->arg = arg;
	d->n = n;
	d->rcpt = xcalloc(n, sizeof(*d->rcpt));
	d->done = xcalloc(n, sizeof(*d->done));
	for (unsigned i = 0; i < n; i++)
		d->rcpt[i] = xstrdup(rcpts[i]);
	d->msg_idx = msg_idx;
	d->t_queued = clock_us();
	return d;
}

void
lmtp_delivery_free(struct delivery *d)
{
	for (unsigned i = 0; i < d->n; i++)
		free(d->rcpt[i]);
	free(d->rcpt);
	free(d->done);
	free(d->mail_from);
	free(d->auth_user);
	free(d->auth_pass);
	free(d);
}

void
lmtp_delivery_write(const struct lmtp_env *env, struct delivery *d,
		    struct evbuffer *out)
{
	size_t before = evbuffer_get_length(out);
	const struct msg *m = msg_pool_get(env->pool,
					   d->msg_idx % msg_pool_count(env->pool));
	bool bol = true;
	char head[MSG_HEAD_MAX + 1];

	lmtp_dot_stuff(out, head, msg_head(head, m, env->run_id, d->seq), &bol);
	lmtp_dot_stuff(out, m->data, m->len, &bol);
	if (!bol)
		evbuffer_add(out, "\r\n", 2);
	evbuffer_add(out, ".\r\n", 3);
	if (env->stats != NULL)
		ctr_add(&env->stats->bytes_sent, evbuffer_get_length(out) - before);
	d->t_data_end = clock_us();
}

size_t
lmtp_delivery_size(const struct lmtp_env *env, struct delivery *d)
{
	const struct msg *m = msg_pool_get(env->pool,
					   d->msg_idx % msg_pool_count(env->pool));
	char head[MSG_HEAD_MAX + 1];

	return msg_head(head, m, env->run_id, d->seq) + m->len;
}

static void
count_result(struct lmtp_stats *st, const struct delivery *d, int code,
	     enum lmtp_fail fail, const char *text, uint64_t now)
{
	int k, sj, dt;

	if (fail != LMTP_F_NONE) {
		ctr_add(&st->rcpt_local, 1);
		ctr_add(&st->fails[fail], 1);
		return;
	}
	if (code > 0 && code < LMTP_CODES)
		ctr_add(&st->codes[code], 1);
	if (text != NULL && lmtp_enhanced(text, &k, &sj, &dt) == 0)
		ctr_add(&st->esc[lmtp_esc_slot(k, sj, dt)], 1);
	if (code / 100 == 2) {
		ctr_add(&st->rcpt_ok, 1);
		hist_record(st->lat_total, now - d->t_queued);
		if (d->t_data_end != 0)
			hist_record(st->lat_data, now - d->t_data_end);
	} else if (code / 100 == 4) {
		ctr_add(&st->rcpt_tempfail, 1);
	} else {
		ctr_add(&st->rcpt_permfail, 1);
	}
}

void
lmtp_delivery_result(const struct lmtp_env *env, struct delivery *d,
		     unsigned i, int code, enum lmtp_fail fail,
		     enum lmtp_phase phase, const char *text)
{
	uint64_t now = clock_us();

	if (d->done[i])
		return;
	d->done[i] = true;
	if (env->stats != NULL)
		count_result(env->stats, d, code, fail, text, now);
	if (env->on_result == NULL)
		return;
	struct lmtp_result r = {
		.arg = d->arg, .rcpt_idx = i, .rcpt = d->rcpt[i], .code = code,
		.fail = fail, .phase = phase, .text = text ? text : "",
		.t_queued_us = d->t_queued, .t_data_end_us = d->t_data_end,
		.t_reply_us = now,
	};
	env->on_result(env->cb_arg, &r);
}

void
lmtp_delivery_fail_all(const struct lmtp_env *env, struct delivery *d,
		       int code, enum lmtp_fail fail, enum lmtp_phase phase,
		       const char *text)
{
	for (unsigned i = 0; i < d->n; i++)
		lmtp_delivery_result(env, d, i, code, fail, phase, text);
}
