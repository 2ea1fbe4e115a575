/* conn_driver.c: the commands a driver sends that carry state of their
 * own (conn.h, "A driver's commands"): a whole command in one call,
 * MULTIAPPEND, IDLE, LOGOUT, ENABLE, COMPRESS, the set-up CREATE, and
 * failing what was in flight when the session dies.  The one command
 * call itself (conn_cmd_begin/conn_cmd_send) is in conn_cmd.c, beside
 * conn_send_cmd, so a pipelined command crosses one file of the engine. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "util/clock.h"
#include "conn/conn_int.h"
#include "net/rawlog.h"
#include "conn/shared.h"
#include "msg/msg.h"

/* The command is in c->cmd.fl now (conn_send_cmd put it last): give it its
 * callback. */
static void
conn_driver_track(struct conn *c, conn_done_fn done, void *arg)
{
	struct inflight *f = &c->cmd.fl[c->n_fl - 1];
	f->done = done;
	f->done_arg = arg;
}

/* text, then " " and a literal per body (MULTIAPPEND's form). */
static bool
conn_driver_send_n(struct conn *c, enum op op, const char *text,
		   const struct msg *const *bodies, unsigned n,
		   conn_done_fn done, void *arg)
{
	struct imap_cmd cmd;
	uint64_t bytes = 0;
	uint32_t tag = conn_cmd_begin(c, &cmd);

	imap_cmd_adds(&cmd, text);
	for (unsigned i = 0; i < n; i++) {
		imap_cmd_adds(&cmd, " ");
		bytes += conn_cmd_body(c, &cmd, bodies[i]);
	}
	conn_cmd_send(c, &cmd, tag, op, n, bytes, done, arg);
	return true;
}

static bool
conn_driver_send(struct conn *c, enum op op, const char *text,
		 const struct msg *body, conn_done_fn done, void *arg)
{
	return conn_driver_send_n(c, op, text, &body, body != NULL ? 1 : 0,
				  done, arg);
}

/* A raw driver's LOGIN or AUTHENTICATE reaches the rawlog as its tag and
 * word only, as the engine's own login does: a password never does. */
static bool
conn_raw_secret(const char *data, size_t len, size_t *upto)
{
	const char *sp = memchr(data, ' ', len);

	if (sp == NULL)
		return false;
	size_t rest = len - (size_t)(sp + 1 - data);
	static const char *const words[] = { "LOGIN ", "AUTHENTICATE " };
	for (unsigned i = 0; i < 2; i++) {
		size_t n = strlen(words[i]);
		if (rest >= n && strncasecmp(sp + 1, words[i], n) == 0) {
			*upto = (size_t)(sp + 1 - data) + n;
			return true;
		}
	}
	return false;
}

void
conn_raw_write(struct conn *c, const char *data, size_t len)
{
	size_t upto;

	if (!conn_raw(c) || !conn_may_send(c))
		return;
	c->t_asked = clock_us();
	conn_count_sent(c, len);
	if (c->wire.rawlog != NULL && conn_raw_secret(data, len, &upto)) {
		rawlog_data(c->wire.rawlog, 'C', data, upto);
		rawlog_data(c->wire.rawlog, 'C', "<secret redacted>\r\n", 19);
	} else {
		rawlog_data(c->wire.rawlog, 'C', data, len);
	}
	conn_out_queued(c);
	bufferevent_write(c->bev, data, len);
	conn_write_now(c);
}

bool
conn_raw_compress(struct conn *c)
{
	if (!conn_raw(c) || c->z != CONN_Z_NONE)
		return false;
	c->z = CONN_Z_UPGRADE;	/* conn_on_resp stops the parser */
	conn_hold_update(c);
	return true;
}

bool
conn_command(struct conn *c, enum op op, const char *text,
	     const struct msg *body, conn_done_fn done, void *arg)
{
	if (!conn_can_command(c) || (unsigned)op >= OP_COUNT ||
	    op == OP_IDLE || op == OP_LOGOUT)
		return false;
	return conn_driver_send(c, op, text, body, done, arg);
}

bool
conn_append_n(struct conn *c, const char *text, const struct msg *const *bodies,
	      unsigned n, conn_done_fn done, void *arg)
{
	if (!conn_can_command(c) || n == 0 ||
	    (n > 1 && !(c->setup.caps & CAP_MULTIAPPEND)))
		return false;
	return conn_driver_send_n(c, OP_APPEND, text, bodies, n, done, arg);
}

static bool
conn_idle_send(struct conn *c, bool driver_ends, conn_done_fn done, void *arg)
{
	if (!conn_can_command(c) || c->n_fl > 0)
		return false;
	c->idle = CONN_IDLE_STARTING;
	conn_hold_update(c);
	c->cmd.idle_driver = driver_ends;
	return conn_driver_send(c, OP_IDLE, "IDLE", NULL, done, arg);
}

bool
conn_idle_begin(struct conn *c, conn_done_fn done, void *arg)
{
	return conn_idle_send(c, true, done, arg);
}

bool
conn_idle_timed(struct conn *c, conn_done_fn done, void *arg)
{
	return conn_idle_send(c, false, done, arg);
}

bool
conn_idle_end(struct conn *c)
{
	if (c->idle != CONN_IDLE_ACTIVE || c->bev == NULL ||
	    c->life.quit == CONN_QUIT_NOW)
		return false;
	conn_idle_done(c);
	return true;
}

bool
conn_idling(const struct conn *c)
{
	return c->idle == CONN_IDLE_ACTIVE;
}

bool
conn_logout(struct conn *c, conn_done_fn done, void *arg)
{
	if (!conn_can_command(c))
		return false;
	c->life.logout = CONN_LOGOUT_SENT;
	conn_hold_update(c);
	return conn_driver_send(c, OP_LOGOUT, "LOGOUT", NULL, done, arg);
}

/* A driver's set-up command (ENABLE, NOTIFY): the capability first; its
 * NO or BAD is counted as the engine's own set-up commands' are. */
static bool
conn_setup_command(struct conn *c, unsigned cap, enum conn_internal kind,
		   const char *verb, const char *args, conn_done_fn done,
		   void *arg)
{
	char text[256];

	if (!conn_can_command(c) || !(c->setup.caps & cap))
		return false;
	snprintf(text, sizeof(text), "%s %s", verb, args);
	conn_send_internal(c, kind, text);
	conn_driver_track(c, done != NULL ? done : conn_driver_ignore, arg);
	return true;
}

bool
conn_enable(struct conn *c, const char *what, conn_done_fn done, void *arg)
{
	return conn_setup_command(c, CAP_ENABLE, CONN_I_ENABLE, "ENABLE", what,
				  done, arg);
}

bool
conn_notify(struct conn *c, const char *args, conn_done_fn done, void *arg)
{
	return conn_setup_command(c, CAP_NOTIFY, CONN_I_NOTIFY, "NOTIFY", args,
				  done, arg);
}

bool
conn_compress_begin(struct conn *c, conn_done_fn done, void *arg)
{
	if (!conn_can_command(c) || c->n_fl > 0 || c->z != CONN_Z_NONE ||
	    !(c->setup.caps & CAP_COMPRESS))
		return false;
	c->z = CONN_Z_ASKED;
	conn_hold_update(c);
	return conn_driver_send(c, OP_COMPRESS, "COMPRESS DEFLATE", NULL,
				done, arg);
}

/* The mailbox may not exist yet: create it (imaptest's habit). */
void
conn_create(struct conn *c, const char *box)
{
	struct imap_cmd cmd;

	if (c->bev == NULL)
		return;
	imap_cmd_init(&cmd, c->cmd.stage, (c->setup.caps & CAP_LITERALPLUS) != 0);
	uint32_t tag = conn_tag_begin(c, &cmd);
	imap_cmd_adds(&cmd, "CREATE ");
	imap_cmd_astring(&cmd, box, strlen(box));
	imap_cmd_adds(&cmd, "\r\n");
	conn_send_cmd(c, &cmd, OP_NOOP, CONN_I_CREATE, tag, 0, 0);
}

void
conn_driver_abandon(struct conn *c)
{
	/* Taken out first: a callback must not find them again. */
	struct inflight fl[CONN_MAX_INFLIGHT];
	unsigned n = 0;

	for (unsigned i = 0; i < c->n_fl; i++) {
		if (c->cmd.fl[i].done == NULL)
			continue;
		fl[n++] = c->cmd.fl[i];
		c->cmd.fl[i].done = NULL;
	}
	for (unsigned i = 0; i < n; i++)
		fl[i].done(fl[i].done_arg, c, CONN_REPLY_FAILED, "", 0);
}
