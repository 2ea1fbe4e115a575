/* conn_query.c: what a driver may read of its connection (conn.h): its
 * slot and random stream, the capabilities it acts on, the session's
 * state, what is in flight, the mailbox's size and separator.  Kept
 * apart from conn.c so that a driver's hot path (the stress plan asks
 * several of these per command) crosses one file of the engine. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "conn/conn_int.h"

unsigned
conn_slot(const struct conn *c)
{
	return c->life.slot;
}

struct rng *
conn_rng(struct conn *c)
{
	return &c->life.rng;
}

unsigned
conn_in_flight(const struct conn *c)
{
	return c->n_fl;
}

bool
conn_has_move(const struct conn *c)
{
	return (c->setup.caps & CAP_MOVE) != 0;
}

bool
conn_has_multiappend(const struct conn *c)
{
	return (c->setup.caps & CAP_MULTIAPPEND) != 0;
}

bool
conn_has_uidplus(const struct conn *c)
{
	return (c->setup.caps & CAP_UIDPLUS) != 0;
}

bool
conn_has_condstore(const struct conn *c)
{
	return (c->setup.caps & CAP_CONDSTORE) != 0;
}

bool
conn_has_qresync(const struct conn *c)
{
	return (c->setup.caps & CAP_QRESYNC) && (c->setup.caps & CAP_ENABLE);
}

bool
conn_has_compress(const struct conn *c)
{
	return (c->setup.caps & CAP_COMPRESS) != 0;
}

bool
conn_has_notify(const struct conn *c)
{
	return (c->setup.caps & CAP_NOTIFY) != 0;
}

bool
conn_compressed(const struct conn *c)
{
	return c->z == CONN_Z_ON;
}

uint32_t
conn_exists(const struct conn *c)
{
	return c->mbox.exists;
}

const char *
conn_user(const struct conn *c)
{
	return c->login.user;
}

bool
conn_has_idle(const struct conn *c)
{
	return (c->setup.caps & CAP_IDLE) != 0;
}

bool
conn_has_sort(const struct conn *c)
{
	return (c->setup.caps & CAP_SORT) != 0;
}

bool
conn_has_thread(const struct conn *c)
{
	return (c->setup.caps & CAP_THREAD) != 0;
}

enum lstate
conn_lstate(const struct conn *c)
{
	return c->login.lstate;
}

enum op
conn_login_op(const struct conn *c)
{
	return (enum op)c->login.login_op;
}

unsigned
conn_inflight_ops(const struct conn *c, unsigned from, uint8_t *ops)
{
	unsigned n = 0;

	for (unsigned i = from; i < c->n_fl; i++)
		if (c->cmd.fl[i].internal == CONN_I_NONE)
			ops[n++] = c->cmd.fl[i].op;
	return n;
}

char
conn_sep(const struct conn *c)
{
	return c->setup.sep;
}

bool
conn_sep_pending(const struct conn *c)
{
	return c->setup.sep_step == CONN_STEP_SENT;
}
