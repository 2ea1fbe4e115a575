/* script_driver.c: the scripted tests' side of run/driver.h (see
 * script_driver.h).  The state machine (script_run.h) speaks through a
 * struct script_io; here that io is the engine: open starts connection k,
 * send is conn_raw_write, close is conn_disconnect (deferred: it is
 * called from inside the connection's own callbacks).  The engine's hooks
 * feed the state machine back: the session is up (ready), each response
 * (raw), a lost connection with the engine's reason (error, closed).  A
 * test is over when the state machine says so; the next one starts once
 * every connection of the last has closed, from an event of its own, so
 * never inside a connection's callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "config/config.h"
#include "conn/conn.h"
#include "drivers/script/script_driver.h"
#include "run/driver.h"
#include "script/script_report.h"
#include "script/script_run.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* One connection slot as the driver sees it. */
struct sd_conn {
	struct conn *c;
	bool live;		/* started, and the closed hook not yet heard */
	bool closing;		/* the state machine closed it */
	char why[300];		/* the engine's last error line for it */
};

struct script_driver {
	struct driver drv;
	const struct config *cfg;
	const struct script_list *list;
	struct script_report *rep;
	struct script_env env;
	unsigned n_conns;

	/* The worker's (its thread's, between attach and detach). */
	struct worker *wk;
	struct script_run *run;
	struct sd_conn sc[SCRIPT_MAX_CONNS];
	struct event *next_ev;	/* starts the next test */
	struct event *wake_ev;	/* ends a test's !sleep */
	bool sleeping;		/* wake_ev is pending */
	unsigned next;		/* the list's next test */
	bool in_test;		/* a test runs, its verdict not yet taken */
	bool stopping;		/* the runner stops: no further test */
	bool foreign;		/* the guard refused: no further test */
	bool ended;		/* every slot finished for the worker */
	uint64_t heard;		/* the last response, or the test's start */
};

static void io_close(void *ctx, unsigned no);

/* A !sleep that will not end: its test is over. */
static void
sd_wake_cancel(struct script_driver *d)
{
	if (d->sleeping)
		event_del(d->wake_ev);
	d->sleeping = false;
}

static void
sd_next_soon(struct script_driver *d)
{
	event_active(d->next_ev, EV_TIMEOUT, 1);
}

/* After every call into the state machine: a finished test's verdict is
 * reported at once (the outcome lives until the next test starts), and
 * once its connections have all closed the next one is due. */
static void
sd_check(struct script_driver *d)
{
	if (d->in_test && script_run_finished(d->run)) {
		const struct script_outcome *o = script_run_outcome(d->run);
		d->in_test = false;
		sd_wake_cancel(d);
		script_report_test(d->rep, d->list->v[d->next - 1], o);
		if (o->foreign) {
			/* Nothing was deleted; no further test runs. */
			log_error("%s", o->detail);
			d->foreign = true;
		}
		/* What the state machine no longer counts as open (a
		 * connection it gave up on: --cmd-timeout) still is. */
		for (unsigned i = 0; i < d->n_conns; i++)
			io_close(d, i);
	}
	if (d->in_test)
		return;
	for (unsigned i = 0; i < d->n_conns; i++)
		if (d->sc[i].live)
			return;
	sd_next_soon(d);
}

/* --- the state machine's io ---------------------------------------------- */

static void
io_open(void *ctx, unsigned no)
{
	struct script_driver *d = ctx;
	struct sd_conn *s = &d->sc[no];

	s->live = true;
	s->closing = false;
	s->why[0] = '\0';
	conn_start(s->c);
}

static void
io_send(void *ctx, unsigned no, const char *data, size_t len)
{
	struct script_driver *d = ctx;
	struct sd_conn *s = &d->sc[no];

	if (s->live && !s->closing)
		conn_raw_write(s->c, data, len);
}

static void
io_close(void *ctx, unsigned no)
{
	struct script_driver *d = ctx;
	struct sd_conn *s = &d->sc[no];

	if (s->live && !s->closing) {
		s->closing = true;
		conn_disconnect(s->c);	/* from its timer: the closed hook */
	}
}

/* !sleep: the test's connections stay as they are (what arrives is
 * read and kept for the next step) and --cmd-timeout waits too. */
static void
io_sleep(void *ctx, unsigned ms)
{
	struct script_driver *d = ctx;
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (suseconds_t)(ms % 1000) * 1000 };

	d->sleeping = true;
	event_add(d->wake_ev, &tv);
}

static void
io_output(void *ctx, const char *line, size_t len)
{
	struct script_driver *d = ctx;

	script_report_output(d->rep, line, len);
}

static void
sd_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct script_driver *d = arg;

	(void)fd;
	(void)what;
	if (!d->sleeping)
		return;
	d->sleeping = false;
	d->heard = clock_us();	/* the pause is no silence of the server's */
	if (d->in_test)
		script_on_wake(d->run);
	sd_check(d);
}

/* The engine's COMPRESS layer, from the OK the raw hook is handling; the
 * engine's ready hook comes once it is on (sd_ready). */
static bool
io_compress(void *ctx, unsigned no)
{
	struct script_driver *d = ctx;
	struct sd_conn *s = &d->sc[no];

	return s->live && !s->closing && conn_raw_compress(s->c);
}

/* --- the engine's hooks --------------------------------------------------- */

static struct sd_conn *
sd_of(struct script_driver *d, struct conn *c)
{
	unsigned no = conn_slot(c);
	return no < d->n_conns ? &d->sc[no] : NULL;
}

static void
sd_ready(void *arg, struct conn *c)
{
	struct script_driver *d = arg;
	struct sd_conn *s = sd_of(d, c);

	if (s == NULL || !s->live || s->closing || !d->in_test)
		return;
	script_on_ready(d->run, conn_slot(c));	/* once: it ignores the rest */
	sd_check(d);
}

static void
sd_raw(void *arg, struct conn *c, const struct imap_resp *r)
{
	struct script_driver *d = arg;
	struct sd_conn *s = sd_of(d, c);

	if (s == NULL || !s->live || s->closing || !d->in_test)
		return;		/* what followed our own close */
	d->heard = clock_us();
	script_on_resp(d->run, conn_slot(c), r);
	sd_check(d);
}

static void
sd_error(void *arg, struct conn *c, enum err_kind kind, const char *line)
{
	struct script_driver *d = arg;
	struct sd_conn *s = sd_of(d, c);

	(void)kind;
	if (s != NULL)
		snprintf(s->why, sizeof(s->why), "%s", line);
}

static void
sd_closed(void *arg, struct conn *c, enum conn_end end, enum err_kind err)
{
	struct script_driver *d = arg;
	struct sd_conn *s = sd_of(d, c);

	(void)err;
	conn_finish(c);		/* started again by the next test, if any */
	if (s == NULL || !s->live)
		return;
	s->live = false;
	if (!s->closing && d->in_test) {
		const char *why = s->why[0] != '\0' ? s->why :
		    end == CONN_END_STOPPED ? "the run was stopped" :
		    "the server closed the connection";
		script_on_closed(d->run, conn_slot(c), why);
	}
	s->closing = false;
	sd_check(d);
}

static const struct conn_hooks sd_hooks = {
	.ready = sd_ready,
	.closed = sd_closed,
	.raw = sd_raw,
	.error = sd_error,
};

/* --- the driver's life ---------------------------------------------------- */

/* The next test, or the end: every slot finished, the worker done. */
static void
sd_next_cb(evutil_socket_t fd, short what, void *arg)
{
	struct script_driver *d = arg;

	(void)fd;
	(void)what;
	if (d->in_test || d->ended)
		return;
	if (d->stopping || d->foreign || d->next >= d->list->n) {
		d->ended = true;
		for (unsigned i = 0; i < d->n_conns; i++)
			worker_driver_conn_finished(d->wk);
		return;
	}
	unsigned t = d->next++;
	d->in_test = true;
	d->heard = clock_us();
	script_run_start(d->run, d->list->v[t], d->list->pools[t]);
	sd_check(d);
}

static unsigned
sd_n_conns(void *arg, unsigned id)
{
	const struct script_driver *d = arg;
	return id == 0 ? d->n_conns : 0;
}

static unsigned
sd_slot(void *arg, unsigned id, unsigned i)
{
	(void)arg;
	(void)id;
	return i;
}

static void *
sd_attach(void *arg, struct worker *wk)
{
	struct script_driver *d = arg;
	struct script_io io = { io_open, io_send, io_close, io_compress,
				io_sleep, io_output };

	d->wk = wk;
	for (unsigned i = 0; i < d->n_conns; i++) {
		d->sc[i].c = worker_conn(wk, i);
		conn_set_user(d->sc[i].c, d->env.user, d->env.password);
	}
	d->next_ev = event_new(worker_base(wk), -1, 0, sd_next_cb, d);
	d->wake_ev = event_new(worker_base(wk), -1, 0, sd_wake_cb, d);
	d->run = script_run_new(&d->env, &io, d);
	return d;
}

static void
sd_start(void *state)
{
	sd_next_soon(state);
}

/* The state machine's own bound, --cmd-timeout: no response on any
 * connection of the test for that long fails it (the engine's bounds
 * are per command of its own, and a raw session has none). */
static void
sd_tick(void *state, uint64_t now)
{
	struct script_driver *d = state;
	char why[80];

	if (!d->in_test || d->sleeping ||
	    now - d->heard <= (uint64_t)(d->cfg->cmd_timeout * 1e6))
		return;
	snprintf(why, sizeof(why), "no reply within %.0f s (--cmd-timeout)",
		 d->cfg->cmd_timeout);
	for (unsigned i = 0; i < d->n_conns && !script_run_finished(d->run); i++)
		if (d->sc[i].live && !d->sc[i].closing)
			script_on_closed(d->run, i, why);
	sd_check(d);
}

/* No test starts from here; the worker drains or halts the connections,
 * which fails the test under way (sd_closed). */
static void
sd_stop(void *state, bool halt)
{
	struct script_driver *d = state;

	(void)halt;
	d->stopping = true;
}

static void
sd_detach(void *state)
{
	struct script_driver *d = state;

	script_run_free(d->run);
	d->run = NULL;
	if (d->next_ev != NULL)
		event_free(d->next_ev);
	d->next_ev = NULL;
	if (d->wake_ev != NULL)
		event_free(d->wake_ev);
	d->wake_ev = NULL;
	d->sleeping = false;
}

struct script_driver *
script_driver_new(const struct script_job *job)
{
	struct script_driver *d = xcalloc(1, sizeof(*d));

	d->cfg = job->cfg;
	d->list = job->list;
	d->rep = job->rep;
	d->env = *job->env;
	d->n_conns = 1;
	for (unsigned i = 0; i < d->list->n; i++)
		if (d->list->v[i]->connections > d->n_conns)
			d->n_conns = d->list->v[i]->connections;
	d->drv = (struct driver){
		.hooks = &sd_hooks,
		.n_conns = sd_n_conns,
		.slot = sd_slot,
		.attach = sd_attach,
		.start = sd_start,
		.tick = sd_tick,
		.stop = sd_stop,
		.detach = sd_detach,
		.arg = d,
		.ramp = false,
		.finite = true,
	};
	return d;
}

const struct driver *
script_driver_driver(struct script_driver *d)
{
	return &d->drv;
}

bool
script_driver_foreign(const struct script_driver *d)
{
	return d->foreign;
}

void
script_driver_free(struct script_driver *d)
{
	free(d);
}
