/* fake_delay.c: how long a reply waits before it is sent: --delay-ms (or
 * --slow-pct/--slow-ms), a command's own --cmd-delay, plus
 * --delay-per-conn-us for every connection open over all loop threads, a
 * server that slows down with its load (the knee t_capacity.sh finds). */
#include <stdatomic.h>

#include "fake.h"

static atomic_uint fake_open_conns;

void
fake_delay_conn_opened(void)
{
	atomic_fetch_add(&fake_open_conns, 1);
}

void
fake_delay_conn_closed(void)
{
	atomic_fetch_sub(&fake_open_conns, 1);
}

static uint64_t
load_delay(const struct fake_cfg *cfg)
{
	return cfg->delay_per_conn_us *
	    atomic_load_explicit(&fake_open_conns, memory_order_relaxed);
}

uint64_t
fake_reply_delay(struct fake_conn *c)
{
	const struct fake_cfg *cfg = c->sh->cfg;
	if (cfg->slow_pct > 0 && fake_rand(&c->rng) % 100 < cfg->slow_pct)
		return cfg->slow_us + load_delay(cfg);
	return cfg->delay_us + load_delay(cfg);
}

uint64_t
fake_cmd_delay(struct fake_conn *c, const char *name)
{
	const struct fake_cfg *cfg = c->sh->cfg;
	for (unsigned i = 0; i < cfg->n_cmd_delays; i++)
		if (fake_eq(name, cfg->cmd_delay[i].name))
			return cfg->cmd_delay[i].us + load_delay(cfg);
	return fake_reply_delay(c);
}
