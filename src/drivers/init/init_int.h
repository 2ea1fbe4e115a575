/* init_int.h: between the files of src/drivers/init/: the driver's side
 * of the runner (init_driver.c: the user queue, the connections of a
 * worker) and the per-user walk over a connection (init_user.c: STATUS,
 * CREATE, APPEND, STATUS again, LOGOUT). */
#ifndef IMAPSTRESS_INIT_INT_H
#define IMAPSTRESS_INIT_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conn/conn.h"
#include "drivers/init/init_driver.h"
#include "drivers/init/init_results.h"
#include "drivers/init/init_spec.h"
#include "run/driver.h"

struct shared;
struct worker;

/* Attempts per user before it is reported failed (a connection dropped,
 * LOGIN refused, ...); each one starts over from STATUS. */
#define INIT_ATTEMPTS 5
/* Commands a connection keeps in flight: enough to hide the round trip,
 * few enough that a dropped connection wastes little. */
#define INIT_WINDOW 16
/* With MULTIAPPEND (RFC 3502) one APPEND carries several messages of a
 * folder, up to this many octets (at least one message) and this many
 * messages: ~13 of the seed's 75 KB mean, so the server's per-command
 * work (a mailbox transaction, its sync) is spent once for all of them,
 * while a command stays small next to what a server buffers or refuses
 * (and a kill loses at most one command's worth: MULTIAPPEND is all or
 * none, the rerun's STATUS sees which). */
#define INIT_BATCH_BYTES (1u << 20)
#define INIT_BATCH_MSGS 64

/* What the workers share (read-only once they run, but for the atomics
 * and each user's result slot). */
struct init_driver {
	const struct config *cfg;
	const struct shared *sh;
	const struct init_spec *spec;
	struct init_results *res;
	bool check_only;		/* --check: STATUS, nothing else */
	bool multiappend;		/* when offered (not --no-multiappend) */
	bool trim;			/* --trim: our own surplus removed */
	_Atomic unsigned next_user;	/* the queue: the next user to take */
	_Atomic int stop;		/* 1: the run drains: no new user;
					 * 2: it halts */
	struct driver drv;
};

/* Where --trim is with folder next_f (init_trim.c), one command each. */
enum init_trim_step { TRIM_SELECT, TRIM_STORE, TRIM_EXPUNGE };

enum init_phase {
	INIT_P_NONE,		/* no user, or logging in */
	INIT_P_STATUS,		/* what the mailbox holds */
	INIT_P_TRIM,		/* --trim: folders back down to the table */
	INIT_P_CREATE,
	INIT_P_APPEND,
	INIT_P_CHECK,		/* STATUS again, into the results */
	INIT_P_LOGOUT
};

struct init_conn;

/* A command's done callback needs the folder it was about (and an
 * APPEND how many messages it carried). */
struct init_ref {
	struct init_conn *ic;
	unsigned f;
	unsigned n;		/* APPEND: messages; 0: the slot is free */
};

struct init_conn {
	struct init_worker *w;
	struct conn *c;
	unsigned user;		/* index into res, while phase != NONE */
	bool has_user;
	unsigned attempts;
	enum init_phase phase;
	unsigned outstanding;	/* commands sent, done not yet called */
	unsigned next_f;	/* the next folder to send for */
	uint32_t left;		/* APPEND: still to send into next_f */
	bool failed;		/* this attempt hit a NO/BAD: log out */
	bool trimmed;		/* --trim done for this user: STATUS again
				 * plans the rest */
	unsigned trim_step;	/* of folder next_f: enum init_trim_step */
	struct init_ref trim_ref;	/* the one trim command in flight */
	char err[256];
	struct init_have *have;		/* per folder */
	struct init_todo *todo;
	struct init_ref *refs;	/* per folder: STATUS, CREATE */
	struct init_ref arefs[INIT_WINDOW];	/* per APPEND in flight */
	uint32_t rng;		/* picks pool messages */
	const struct msg *held;	/* picked, left for the next APPEND */
};

/* The driver's state in one worker (the hooks' argument). */
struct init_worker {
	struct worker *wk;		/* the runner's worker */
	struct init_driver *run;
	struct init_conn *ic;	/* per connection slot of this worker */
	unsigned n_conns;
};

extern const struct conn_hooks init_hooks;

/* init_trim.c (--trim): does any folder hold more than the table asks
 * (by the last STATUS round)?  init_trim_send: the trim's next command
 * (one at a time, `done` its reply), false when none went out: the phase
 * is over (ic->trimmed), or the foreign-mail guard's search is asked or
 * awaited (the ready hook pumps again), or the connection cannot send
 * now.  init_trim_ok: that command was answered OK. */
bool init_trim_wanted(const struct init_conn *ic);
bool init_trim_send(struct init_conn *ic, conn_done_fn done);
void init_trim_ok(struct init_conn *ic);

/* Take the next user for ic (false: none left, or stopping) and start
 * its session. */
bool init_user_next(struct init_conn *ic);
/* Connection slot -> its init_conn. */
struct init_conn *init_conn_of(struct init_worker *w, struct conn *c);
/* A user is done (checked or failed): count it. */
void init_user_done(struct init_conn *ic);

#endif
