/* conn_fixture.c: see conn_fixture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <event2/buffer.h>

#include "conn_fixture.h"

#define FX_MAX_ARGS 24

void
conn_fx_setup(struct conn_fx *fx, const char *const *extra,
	      const struct conn_hooks *hooks, void *hook_arg, unsigned slot)
{
	conn_fx_setup_state(fx, "noop=100", extra, hooks, hook_arg, slot);
}

void
conn_fx_setup_state(struct conn_fx *fx, const char *state,
		    const char *const *extra, const struct conn_hooks *hooks,
		    void *hook_arg, unsigned slot)
{
	const char *const base_args[] = {
		"imapstress", "-", "select=100", state, "logout=0",
		"user=tester", "pass=secret", "clients=1", "seed=1", NULL
	};
	char *av[FX_MAX_ARGS + 1];
	char err[256];
	int ac = 0;

	for (unsigned i = 0; base_args[i] != NULL; i++)
		av[ac++] = (char *)base_args[i];
	for (unsigned i = 0; extra != NULL && extra[i] != NULL; i++) {
		ck_assert_int_lt(ac, FX_MAX_ARGS);
		av[ac++] = (char *)extra[i];
	}
	av[ac] = NULL;

	memset(fx, 0, sizeof(*fx));
	config_defaults(&fx->cfg);
	ck_assert_int_eq(config_parse(&fx->cfg, ac, av, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&fx->cfg, err, sizeof(err)), 0);
	fx->base = event_base_new();
	ck_assert_ptr_nonnull(fx->base);
	fx->sh.cfg = &fx->cfg;
	fx->sh.n_workers = 1;
	fx->sh.run_id = 1;
	fx->sh.live = &fx->live;
	fx->stats = stats_new();
	fx->rbuf = malloc(CONN_MAX_READ);
	fx->env = (struct conn_env){
		.cfg = &fx->cfg, .sh = &fx->sh, .base = fx->base,
		.stats = fx->stats, .rbuf = fx->rbuf, .msg_seq = &fx->msg_seq,
		.hooks = hooks, .hook_arg = hook_arg,
	};
	fx->c = conn_new(&fx->env, slot);
	conn_set_user(fx->c, "tester", "secret");
}

void
conn_fx_teardown(struct conn_fx *fx)
{
	conn_free(fx->c);
	if (fx->peer != NULL)
		bufferevent_free(fx->peer);
	/* As worker_free: the pair's deferred callbacks still queued (a
	 * command left in flight, its reply never read) hold references to
	 * the bufferevents; let them run, and the finalizers, before the
	 * base goes. */
	for (int i = 0; i < 4; i++)
		event_base_loop(fx->base, EVLOOP_NONBLOCK);
	stats_free(fx->stats);
	free(fx->rbuf);
	event_base_free(fx->base);
	config_free(&fx->cfg);
}

void
conn_fx_pump(struct conn_fx *fx)
{
	for (int i = 0; i < 20; i++)
		event_base_loop(fx->base, EVLOOP_NONBLOCK);
}

void
conn_fx_attach(struct conn_fx *fx)
{
	struct bufferevent *pair[2];

	ck_assert_int_eq(bufferevent_pair_new(fx->base, BEV_OPT_DEFER_CALLBACKS,
					      pair), 0);
	fx->peer = pair[1];
	bufferevent_enable(fx->peer, EV_READ | EV_WRITE);
	conn_attach(fx->c, pair[0]);
}

unsigned
conn_fx_take(struct bufferevent *peer, char (*tags)[32], char (*cmds)[32],
	     unsigned *n, unsigned max)
{
	struct evbuffer *in = bufferevent_get_input(peer);
	unsigned got = 0;
	char *line;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		ck_assert_uint_lt(*n, max);
		char *sp = strchr(line, ' ');
		ck_assert_msg(sp != NULL, "untagged client line: %s", line);
		*sp = '\0';
		snprintf(tags[*n], 32, "%s", line);
		char *cmd = sp + 1, *end = strchr(cmd, ' ');
		if (end != NULL)
			*end = '\0';
		snprintf(cmds[*n], 32, "%s", cmd);
		(*n)++;
		got++;
		free(line);
	}
	return got;
}
