/* conn_fixture.h: one connection on its own for the conn tests
 * (test_conn_driver.c, test_conn_stall.c, drivers/stress/test_stress_plan.c,
 * drivers/stress/test_stress.c): a config parsed from imaptest words,
 * an event base, the shared pieces, a stats shard and the read buffer a
 * worker would lend it, and a bufferevent pair whose far end the test
 * plays as the server.  No socket, no worker. */
#ifndef IMAPSTRESS_TEST_CONN_FIXTURE_H
#define IMAPSTRESS_TEST_CONN_FIXTURE_H

#include <stdint.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "config/config.h"
#include "conn/conn.h"
#include "conn/shared.h"
#include "stats/stats.h"

struct conn_fx {
	struct event_base *base;
	struct config cfg;
	struct shared_live live;
	struct shared sh;
	struct stats *stats;
	char *rbuf;
	uint32_t msg_seq;
	struct conn_env env;
	struct conn *c;			/* slot `slot`, user tester/secret */
	struct bufferevent *peer;	/* the server's end, once attached */
};

/* "imapstress - select=100 noop=100 logout=0 user=tester pass=secret
 * clients=1 seed=1" then `extra` (NULL-terminated, may be NULL), validated;
 * the connection made with `hooks` and `hook_arg`. */
void conn_fx_setup(struct conn_fx *fx, const char *const *extra,
		   const struct conn_hooks *hooks, void *hook_arg,
		   unsigned slot);
/* The same with the state word `state` ("fet2=100,100", ...) for noop=100. */
void conn_fx_setup_state(struct conn_fx *fx, const char *state,
			 const char *const *extra,
			 const struct conn_hooks *hooks, void *hook_arg,
			 unsigned slot);
void conn_fx_teardown(struct conn_fx *fx);
/* Run what is ready until nothing is (deferred callbacks, the pair's
 * transfers); no timer is waited for. */
void conn_fx_pump(struct conn_fx *fx);
/* The client's complete lines waiting at `peer`, appended to the tags
 * and commands (first word) at *n (at most max in all); how many. */
unsigned conn_fx_take(struct bufferevent *peer, char (*tags)[32],
		      char (*cmds)[32], unsigned *n, unsigned max);
/* Connect the connection to a new pair; fx->peer is the other end. */
void conn_fx_attach(struct conn_fx *fx);

#endif
