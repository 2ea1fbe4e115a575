/* init_driver.c: the init driver's side of run/driver.h (see
 * init_driver.h).  A worker owns global slots id, id+W, id+2W, ... of
 * clients=, as in a stress run; it does not ramp them up: start gives each
 * slot a user and connects it, or finishes it when there is none. */
#include <stdlib.h>

#include "config/config.h"
#include "conn/shared.h"
#include "drivers/init/init_int.h"
#include "stats/stats.h"
#include "util/xmalloc.h"

static unsigned
init_n_conns(void *arg, unsigned id)
{
	const struct init_driver *d = arg;
	unsigned n = d->sh->n_workers;

	return (d->cfg->clients - id + n - 1) / n;
}

static unsigned
init_slot(void *arg, unsigned id, unsigned i)
{
	const struct init_driver *d = arg;
	return id + i * d->sh->n_workers;
}

static void *
init_attach(void *arg, struct worker *wk)
{
	struct init_driver *d = arg;
	const struct init_spec *s = d->spec;
	struct init_worker *w = xcalloc(1, sizeof(*w));
	unsigned id = worker_id(wk), n_workers = d->sh->n_workers;

	w->wk = wk;
	w->run = d;
	w->n_conns = worker_n_conns(wk);
	w->ic = xcalloc(w->n_conns ? w->n_conns : 1, sizeof(*w->ic));
	for (unsigned i = 0; i < w->n_conns; i++) {
		struct init_conn *ic = &w->ic[i];
		ic->w = w;
		ic->c = worker_conn(wk, i);
		ic->have = xcalloc(s->n, sizeof(*ic->have));
		ic->todo = xcalloc(s->n, sizeof(*ic->todo));
		ic->refs = xcalloc(s->n, sizeof(*ic->refs));
		for (unsigned f = 0; f < s->n; f++)
			ic->refs[f].ic = ic;
		for (unsigned k = 0; k < INIT_WINDOW; k++)
			ic->arefs[k].ic = ic;
		ic->rng = 2463534242u ^ (id + i * n_workers + 1) * 2654435761u;
		if (ic->rng == 0)
			ic->rng = 1;
	}
	return w;
}

/* Every slot takes its first user, or finishes: the queue may hold fewer
 * users than there are connections. */
static void
init_start(void *state)
{
	struct init_worker *w = state;

	for (unsigned i = 0; i < w->n_conns; i++) {
		if (init_user_next(&w->ic[i])) {
			conn_start(w->ic[i].c);
		} else {
			conn_finish(w->ic[i].c);
			worker_driver_conn_finished(w->wk);
		}
	}
}

/* No connection of any worker takes a new user from now on; the worker
 * drains or halts the connections themselves, and the closed hook
 * finishes each (init_user.c). */
static void
init_stop(void *state, bool halt)
{
	struct init_worker *w = state;
	int level = halt ? 2 : 1;
	int cur = atomic_load(&w->run->stop);

	while (cur < level &&
	       !atomic_compare_exchange_weak(&w->run->stop, &cur, level))
		;
}

/* Main thread, after the join: what the server took (the connections
 * count OK'd APPENDs' octets in the worker's shard). */
static void
init_detach(void *state)
{
	struct init_worker *w = state;

	atomic_fetch_add(&w->run->res->bytes,
			 ctr_get(&worker_stats(w->wk)->append_bytes));
	for (unsigned i = 0; i < w->n_conns; i++) {
		free(w->ic[i].have);
		free(w->ic[i].todo);
		free(w->ic[i].refs);
	}
	free(w->ic);
	free(w);
}

struct init_driver *
init_driver_new(const struct init_job *job)
{
	struct init_driver *d = xcalloc(1, sizeof(*d));

	d->cfg = job->cfg;
	d->sh = job->sh;
	d->spec = job->spec;
	d->res = job->res;
	d->check_only = job->check_only;
	d->trim = job->trim;
	d->multiappend = job->multiappend;
	d->drv = (struct driver){
		.hooks = &init_hooks,
		.n_conns = init_n_conns,
		.slot = init_slot,
		.attach = init_attach,
		.start = init_start,
		.stop = init_stop,
		.detach = init_detach,
		.arg = d,
		.ramp = false,
		.finite = true,
	};
	return d;
}

const struct driver *
init_driver_driver(struct init_driver *d)
{
	return &d->drv;
}

void
init_driver_free(struct init_driver *d)
{
	free(d);
}
