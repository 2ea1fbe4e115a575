/* worker.c: one thread and its event loop.  Owns its connections and its
 * stats shard; talks to the main thread only through `stop`/`done` and a
 * wake-up pipe, so its event base runs without locks. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "util/clock.h"
#include "conn/conn.h"
#include "util/log.h"
#include "model/store_map.h"
#include "run/driver.h"
#include "run/worker.h"
#include "util/xmalloc.h"

#define TICK_US 100000		/* timeouts, stalls, gauges: 10 times a second */
#define RAMP_US 10000		/* --connect-rate granularity */
/* The most connections one tick looks at.  Walking them all ten times a
 * second cost 100 ns each: 0.1 of a core for 100,000 LoadSim users who
 * sit in IDLE with nothing to time out (perf: conn_tick and
 * conn_sync_wire 15% of a 3,000-user run's steady CPU).  Past this many,
 * each tick takes the next share, and a round of ticks (n / TICK_CONNS)
 * sees every connection: timeouts and gauges of a 50,000-connection
 * worker are then 0.7 s apart instead of 0.1 s. */
#define TICK_CONNS 8192
#define IMAPTEST_INITIAL 100	/* imaptest opens 100 connections at once, */
#define IMAPTEST_PER_LOGIN 3	/* then up to 3 more after each login */

static void
worker_start_some(struct worker *w, unsigned n)
{
	while (n-- > 0 && w->n_started < w->n_conns && !w->draining)
		conn_start(w->conns[w->n_started++]);
}

/* The driver's calls back (driver.h). */
void
worker_driver_logged_in(struct worker *w)
{
	if (w->drv->ramp && w->cfg->connect_rate <= 0)
		worker_start_some(w, IMAPTEST_PER_LOGIN);
}

/* Done: every connection finished and nothing else left, once stopping,
 * or at any time for a driver whose work ends (driver.h, finite). */
static void
worker_check_done(struct worker *w)
{
	if ((w->draining || w->drv->finite) && !w->settling && w->n_active == 0 &&
	    (w->drv->busy == NULL || !w->drv->busy(w->drv_state)) &&
	    !atomic_load_explicit(&w->done, memory_order_relaxed)) {
		atomic_store_explicit(&w->done, true, memory_order_release);
		event_base_loopbreak(w->base);
	}
}

void
worker_driver_conn_finished(struct worker *w)
{
	w->n_active--;
	worker_check_done(w);
}

void
worker_driver_idle(struct worker *w)
{
	worker_check_done(w);
}

static void
worker_drain_conns(struct worker *w)
{
	for (unsigned i = 0; i < w->n_conns; i++)
		conn_drain(w->conns[i]);
}

/* Once per stop level: the wake-up pipe also carries the main thread's
 * asks for histograms, once a second, and a drain already under way must
 * not be begun again (every connection drained anew, the driver's stop
 * called again) on each of them; a halt after a drain is a level of its
 * own. */
static void
worker_apply_stop(struct worker *w)
{
	int how = atomic_load_explicit(&w->stop, memory_order_acquire);

	if (how <= w->stop_applied)
		return;
	w->stop_applied = how;
	w->draining = true;
	w->settling = false;	/* a halt ends a settle */
	w->drv->stop(w->drv_state, how == WORKER_HALT);
	/* Slots never started are finished already. */
	for (unsigned i = w->n_started; i < w->n_conns; i++) {
		conn_finish(w->conns[i]);
		w->n_active--;
	}
	w->n_started = w->n_conns;
	if (how == WORKER_HALT) {
		for (unsigned i = 0; i < w->n_conns; i++)
			w->unfinished += conn_halt(w->conns[i]);
	} else if (w->drv->settle != NULL && w->drv->settle(w->drv_state)) {
		w->settling = true;
		return;
	} else {
		worker_drain_conns(w);
	}
	worker_check_done(w);
}

void
worker_driver_settled(struct worker *w)
{
	if (!w->settling)
		return;
	w->settling = false;
	worker_drain_conns(w);
	worker_check_done(w);
}

/* The main thread asked for the histograms (worker_want_hists): the copy,
 * and a word to it if it waits.  The lag gauge starts over here too: the
 * main thread takes every copy, and the next covers the next window. */
static void
worker_answer(struct worker *w)
{
	if (!stats_pub_publish_hists(w->pub, w->stats))
		return;
	ctr_set(&w->stats->loop_lag_max_us, 0);
	pthread_mutex_lock(&w->pub_mu);
	pthread_cond_broadcast(&w->pub_cv);
	pthread_mutex_unlock(&w->pub_mu);
}

static void
worker_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	char buf[16];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	worker_apply_stop(w);
	if (w->drv->wake != NULL)
		w->drv->wake(w->drv_state);	/* worker_wake from another */
	worker_answer(w);
}

/* This tick's share of the connections (all of them, up to TICK_CONNS);
 * the gauges are set when a round has seen every one. */
static void
worker_tick_conns(struct worker *w, uint64_t now)
{
	struct conn_gauges *g = &w->tick_round;
	unsigned n = w->n_started;
	unsigned i = w->tick_next < n ? w->tick_next : 0;
	unsigned end = n - i > TICK_CONNS ? i + TICK_CONNS : n;

	for (; i < end; i++)
		conn_tick(w->conns[i], now, g);
	/* The last byte heard only ever moves on: a part is news too. */
	conn_stall_heard(w->sh, g->heard);
	w->tick_next = end;
	if (end < n)
		return;
	ctr_set(&w->stats->conns_open, g->session);
	ctr_set(&w->stats->conns_total, g->clients);
	ctr_set(&w->stats->stalled3, g->stalled3);
	ctr_set(&w->stats->clients_in, g->in);
	memset(g, 0, sizeof(*g));
}

static void
worker_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	uint64_t now = clock_us();

	/* The lag gauge is a maximum over the main thread's per-second
	 * window, so it starts over only when that window's copy is made
	 * (worker_answer), not when the 10x/s counters copy is read: that
	 * read would leave a second's line with its last 100 ms of lag.
	 * How late this tick fired says how busy the loop is. */
	if (w->t_last_tick != 0) {
		uint64_t late = now - w->t_last_tick;
		late = late > TICK_US ? late - TICK_US : 0;
		if (late > ctr_get(&w->stats->loop_lag_max_us))
			ctr_set(&w->stats->loop_lag_max_us, late);
	}
	w->t_last_tick = now;

	worker_tick_conns(w, now);
	if (w->drv->tick != NULL)
		w->drv->tick(w->drv_state, now);
	/* The counters' copies are for the main thread's stop checks
	 * between ticks, which it makes only while something could stop the
	 * run (run.c): while it leaves a copy unread it is not checking, and
	 * another would go unread too.  One a second at least keeps the first
	 * read of its next checks that fresh. */
	if (stats_pub_read_all(w->pub) || now - w->t_last_pub >= 1000000) {
		stats_pub_publish(w->pub, w->stats);
		w->t_last_pub = now;
	}
	worker_answer(w);	/* a wake-up missed (never lost: level-triggered) */
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
worker_new(unsigned id, const struct shared *sh, const struct worker_group *g,
	   const struct driver *drv)
{
	const struct config *cfg = sh->cfg;
	struct worker *w = xcalloc(1, sizeof(*w));
	struct event_config *ec = event_config_new();

	w->id = id;
	w->sh = sh;
	w->cfg = cfg;
	pthread_mutex_init(&w->pub_mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* clock_us()'s */
	pthread_cond_init(&w->pub_cv, &ca);
	pthread_condattr_destroy(&ca);
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
	w->pub = stats_pub_new();
	w->stats->latency_log_fd = g->latency_log_fd;
	w->rbuf = xmalloc(CONN_MAX_READ);
	if (!cfg->no_tracking)
		w->stores = store_map_new(cfg->track_max);
	w->guard = conn_guard_new(cfg);
	w->env = (struct conn_env){
		.cfg = cfg,
		.sh = sh,
		.base = w->base,
		.stats = w->stats,
		.rbuf = w->rbuf,
		.stores = w->stores,
		.msg_seq = &w->msg_seq,
		.worker_id = id,
		.guard = w->guard,
		.hooks = drv->hooks,
	};

	w->drv = drv;
	w->n_conns = drv->n_conns(drv->arg, id);
	w->conns = xcalloc(w->n_conns ? w->n_conns : 1, sizeof(*w->conns));
	for (unsigned i = 0; i < w->n_conns; i++)
		w->conns[i] = conn_new(&w->env, drv->slot(drv->arg, id, i));
	w->n_active = w->n_conns;
	/* A driver that does not ramp starts its connections when it wants. */
	if (!drv->ramp)
		w->n_started = w->n_conns;

	if (pipe2(w->wake_fd, O_NONBLOCK | O_CLOEXEC) < 0)
		fatal(1, "pipe: %s", strerror(errno));
	w->wake_ev = event_new(w->base, w->wake_fd[0], EV_READ | EV_PERSIST,
			       worker_wake_cb, w);
	event_add(w->wake_ev, NULL);
	w->tick_ev = event_new(w->base, -1, EV_PERSIST, worker_tick_cb, w);
	struct timeval tick = { 0, TICK_US };
	event_add(w->tick_ev, &tick);
	/* Last: the driver's timers go on the base made above. */
	w->drv_state = drv->attach(drv->arg, w);
	w->env.hook_arg = w->drv_state;
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
	w->drv->detach(w->drv_state);
	for (unsigned i = 0; i < w->n_conns; i++)
		conn_free(w->conns[i]);
	free(w->conns);
	store_map_free(w->stores);	/* after the views (conn_free) */
	conn_guard_free(w->guard);
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
	pthread_cond_destroy(&w->pub_cv);
	pthread_mutex_destroy(&w->pub_mu);
	stats_free(w->stats);
	stats_pub_free(w->pub);
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
	w->drv->start(w->drv_state);
	if (w->drv->ramp)
		worker_start_some(w, initial);
	worker_apply_stop(w);	/* a stop that came before we ran */
	while (!atomic_load_explicit(&w->done, memory_order_acquire))
		if (event_base_loop(w->base, 0) < 0)
			break;
	/* The last word: what main sums after the join is exact (the
	 * histograms' last copy is main's to make, worker_last_hists). */
	stats_pub_publish(w->pub, w->stats);
	pthread_mutex_lock(&w->pub_mu);	/* a main thread waiting for an answer */
	pthread_cond_broadcast(&w->pub_cv);
	pthread_mutex_unlock(&w->pub_mu);
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

void
worker_want_hists(struct worker *w, enum stats_pub_hists what)
{
	stats_pub_ask(w->pub, what);
	if (!atomic_load_explicit(&w->done, memory_order_acquire)) {
		ssize_t r = write(w->wake_fd[1], "x", 1);
		(void)r;	/* full pipe: a wake-up is already pending */
	}
}

bool
worker_wait_hists(struct worker *w, uint64_t deadline_us)
{
	pthread_mutex_lock(&w->pub_mu);
	while (!stats_pub_ready(w->pub) &&
	       !atomic_load_explicit(&w->done, memory_order_acquire)) {
		uint64_t now = clock_us();
		if (now >= deadline_us)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t ns = (uint64_t)ts.tv_nsec + (deadline_us - now) * 1000u;
		ts.tv_sec += (time_t)(ns / 1000000000u);
		ts.tv_nsec = (long)(ns % 1000000000u);
		pthread_cond_timedwait(&w->pub_cv, &w->pub_mu, &ts);
	}
	pthread_mutex_unlock(&w->pub_mu);
	return stats_pub_ready(w->pub);
}

void
worker_last_hists(struct worker *w, enum stats_pub_hists what)
{
	stats_pub_ask(w->pub, what);
	stats_pub_publish_hists(w->pub, w->stats);
}

/* What a driver may ask of its worker (driver.h). */
unsigned
worker_id(const struct worker *w)
{
	return w->id;
}

const struct shared *
worker_shared(const struct worker *w)
{
	return w->sh;
}

struct event_base *
worker_base(const struct worker *w)
{
	return w->base;
}

struct stats *
worker_stats(const struct worker *w)
{
	return w->stats;
}

unsigned
worker_n_conns(const struct worker *w)
{
	return w->n_conns;
}

struct conn *
worker_conn(const struct worker *w, unsigned i)
{
	return w->conns[i];
}

bool
worker_draining(const struct worker *w)
{
	return w->draining;
}

void
worker_wake(struct worker *w)
{
	ssize_t r = write(w->wake_fd[1], "c", 1);
	(void)r;	/* a full pipe already wakes it */
}
