/* worker.c: one thread and its event loop.  Owns its connections and its
 * stats shard; talks to the main thread only through `stop`/`done` and a
 * wake-up pipe, so its event base runs without locks. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "conn.h"
#include "conn_log.h"
#include "log.h"
#include "checkpoint.h"
#include "openloop.h"
#include "store_map.h"
#include "worker.h"
#include "xmalloc.h"

#define STALL_SAY_US 15000000	/* stalls this long get their own line */
#define TICK_US 100000		/* timeouts, stalls, gauges: 10 times a second */
#define RAMP_US 10000		/* --connect-rate granularity */
#define IMAPTEST_INITIAL 100	/* imaptest opens 100 connections at once, */
#define IMAPTEST_PER_LOGIN 3	/* then up to 3 more after each login */

static void
worker_start_some(struct worker *w, unsigned n)
{
	while (n-- > 0 && w->n_started < w->n_conns && !w->draining)
		conn_start(w->conns[w->n_started++]);
}

void
worker_conn_logged_in(struct worker *w)
{
	if (w->cfg->connect_rate <= 0)
		worker_start_some(w, IMAPTEST_PER_LOGIN);
}

static void
worker_check_done(struct worker *w)
{
	if (w->draining && w->n_active == 0 &&
	    !atomic_load_explicit(&w->done, memory_order_relaxed)) {
		atomic_store_explicit(&w->done, true, memory_order_release);
		event_base_loopbreak(w->base);
	}
}

void
worker_conn_finished(struct worker *w)
{
	w->n_active--;
	worker_check_done(w);
}

static void
worker_apply_stop(struct worker *w)
{
	int how = atomic_load_explicit(&w->stop, memory_order_acquire);

	if (how == WORKER_RUN)
		return;
	w->draining = true;
	/* Slots never started are finished already. */
	for (unsigned i = w->n_started; i < w->n_conns; i++) {
		w->conns[i]->st = CONN_S_DONE;
		w->n_active--;
	}
	w->n_started = w->n_conns;
	for (unsigned i = 0; i < w->n_conns; i++) {
		if (how == WORKER_HALT)
			conn_halt(w->conns[i]);
		else
			conn_drain(w->conns[i]);
	}
	worker_check_done(w);
}

static void
worker_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	char buf[16];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	worker_apply_stop(w);
	checkpoint_poll(w->cp);		/* another worker moved it on */
}

static void
worker_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	uint64_t now = clock_us();
	uint64_t open = 0, total = 0, stalled = 0;

	/* How late this tick fired says how busy the loop is. */
	if (w->t_last_tick != 0) {
		uint64_t late = now - w->t_last_tick;
		late = late > TICK_US ? late - TICK_US : 0;
		if (late > ctr_get(&w->stats->loop_lag_max_us))
			ctr_set(&w->stats->loop_lag_max_us, late);
	}
	w->t_last_tick = now;

	for (unsigned i = 0; i < w->n_started; i++) {
		struct conn *c = w->conns[i];
		conn_tick(c, now);
		/* imaptest's client objects: a slot between two sessions
		 * (it reconnects at once) still is one; [P%] is the ramp. */
		if (c->st != CONN_S_DONE)
			total++;
		if (c->st == CONN_S_SESSION)
			open++;
		if (conn_stalled(c, now, 3000000))
			stalled++;
		if (conn_stalled(c, now, STALL_SAY_US) &&
		    now - c->stall_said >= STALL_SAY_US) {
			/* imaptest's " - <id> stalled for <s> secs in
			 * command: <tag> <cmd>", once per 15 s per client. */
			c->stall_said = now;
			/* capped like error lines: 300 stalled clients
			 * printed 666 lines (main says how many in all) */
			unsigned k = atomic_fetch_add_explicit(
			    &((struct shared *)w->sh)->stalls_said, 1,
			    memory_order_relaxed);
			if (k < CONN_LOG_MAX_PER_KIND)
				log_warn("%s[%u]: stalled for %llu secs in "
					 "command: %u.%u %s%s", c->user, c->slot,
					 (unsigned long long)((now - c->t_last_io) /
							      1000000),
					 c->slot, c->fl[0].tag,
					 conn_inflight_name(&c->fl[0]),
					 k + 1 == CONN_LOG_MAX_PER_KIND ?
					 " (further stall warnings are only "
					 "counted)" : "");
		}
	}
	ctr_set(&w->stats->conns_open, open);
	ctr_set(&w->stats->conns_total, total);
	ctr_set(&w->stats->stalled3, stalled);
}

static void
worker_ramp_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	double per_worker = w->cfg->connect_rate / w->sh->n_workers;
	uint64_t now = clock_us();

	/* By elapsed time, not per tick: a late timer must not slow the
	 * ramp (but a long stall does not release a burst either). */
	uint64_t dt = w->t_last_ramp ? now - w->t_last_ramp : RAMP_US;
	if (dt > 1000000)
		dt = 1000000;
	w->t_last_ramp = now;
	w->ramp_tokens += per_worker * (double)dt / 1e6;
	if (w->ramp_tokens >= 1) {
		unsigned n = (unsigned)w->ramp_tokens;
		w->ramp_tokens -= n;
		worker_start_some(w, n);
	}
	if (w->n_started == w->n_conns)
		event_del(w->ramp_ev);
}

struct worker *
worker_new(unsigned id, const struct shared *sh)
{
	const struct config *cfg = sh->cfg;
	struct worker *w = xcalloc(1, sizeof(*w));
	struct event_config *ec = event_config_new();

	w->id = id;
	w->sh = sh;
	w->cfg = cfg;
	/* One thread per base: no locking inside libevent. */
	event_config_set_flag(ec, EVENT_BASE_FLAG_NOLOCK);
	/* Batch epoll_ctl() changes until the next epoll_wait(), so the
	 * write event a bufferevent arms when a command is queued, and we
	 * disarm once conn_write_now() has written it, costs no call.  (The
	 * changelist's known pitfall is dup()ed fds; we never dup.) */
	event_config_set_flag(ec, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	/* libevent's default coarse clock makes timers fire 1-4 ms late,
	 * which would shift --rate sends.  The precise clock costs a
	 * timerfd_settime() every loop turn (1.7 per command in a FETCH
	 * run), so only an open-loop run, whose sends are timers, pays it;
	 * latency is always measured with clock_us(), never libevent's. */
	if (cfg->rate > 0)
		event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
	w->base = event_base_new_with_config(ec);
	event_config_free(ec);
	if (w->base == NULL)
		fatal(1, "cannot create an event base");
	w->stats = stats_new();
	if (sh->cfg->latency_log != NULL)
		w->stats->latency_log_fd = sh->latency_log_fd;
	w->rbuf = xmalloc(CONN_MAX_READ);

	for (unsigned s = id; s < cfg->clients; s += sh->n_workers)
		w->n_conns++;
	w->conns = xcalloc(w->n_conns ? w->n_conns : 1, sizeof(*w->conns));
	for (unsigned i = 0; i < w->n_conns; i++)
		w->conns[i] = conn_new(w, id + i * sh->n_workers);
	w->n_active = w->n_conns;

	if (pipe2(w->wake_fd, O_NONBLOCK | O_CLOEXEC) < 0)
		fatal(1, "pipe: %s", strerror(errno));
	w->wake_ev = event_new(w->base, w->wake_fd[0], EV_READ | EV_PERSIST,
			       worker_wake_cb, w);
	event_add(w->wake_ev, NULL);
	w->tick_ev = event_new(w->base, -1, EV_PERSIST, worker_tick_cb, w);
	struct timeval tick = { 0, TICK_US };
	event_add(w->tick_ev, &tick);
	if (!cfg->no_tracking)
		w->stores = store_map_new();
	if (cfg->checkpoint_secs > 0 && w->stores != NULL && sh->cp_coord != NULL)
		w->cp = checkpoint_new(w, sh->cp_coord, cfg->checkpoint_secs);
	if (cfg->rate > 0)
		w->openloop = openloop_new(w, cfg->rate / sh->n_workers);
	if (cfg->connect_rate > 0) {
		w->ramp_ev = event_new(w->base, -1, EV_PERSIST, worker_ramp_cb, w);
		struct timeval ramp = { 0, RAMP_US };
		event_add(w->ramp_ev, &ramp);
	}
	return w;
}

void
worker_free(struct worker *w)
{
	if (w == NULL)
		return;
	for (unsigned i = 0; i < w->n_conns; i++)
		conn_free(w->conns[i]);
	free(w->conns);
	openloop_free(w->openloop);
	checkpoint_free(w->cp);
	store_map_free(w->stores);	/* after the views (conn_free) */
	if (w->wake_ev)
		event_free(w->wake_ev);
	if (w->tick_ev)
		event_free(w->tick_ev);
	if (w->ramp_ev)
		event_free(w->ramp_ev);
	/* Deferred callbacks still queued (a COMPRESS filter's resume of
	 * the bufferevent below, see compress.c) hold references: with every
	 * event of ours gone, let them run, and the finalizers of what was
	 * freed, before the base goes (else LeakSanitizer reports them). */
	for (int i = 0; i < 4; i++)
		event_base_loop(w->base, EVLOOP_NONBLOCK);
	event_base_free(w->base);
	close(w->wake_fd[0]);
	close(w->wake_fd[1]);
	stats_free(w->stats);
	free(w->rbuf);
	free(w);
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned initial;

	if (w->cfg->connect_rate > 0) {
		initial = 0;
	} else {
		/* imaptest's ramp: 100 at once (shared between workers). */
		initial = (IMAPTEST_INITIAL + w->sh->n_workers - 1) /
		    w->sh->n_workers;
	}
	worker_start_some(w, initial);
	worker_apply_stop(w);	/* a stop that came before we ran */
	while (!atomic_load_explicit(&w->done, memory_order_acquire))
		if (event_base_loop(w->base, 0) < 0)
			break;
	return NULL;
}

int
worker_start(struct worker *w)
{
	return pthread_create(&w->thread, NULL, worker_main, w);
}

void
worker_request_stop(struct worker *w, enum worker_stop how)
{
	int cur = atomic_load(&w->stop);
	if ((int)how <= cur)
		return;
	atomic_store_explicit(&w->stop, (int)how, memory_order_release);
	ssize_t r = write(w->wake_fd[1], "x", 1);
	(void)r;
}

void
worker_join(struct worker *w)
{
	pthread_join(w->thread, NULL);
}
