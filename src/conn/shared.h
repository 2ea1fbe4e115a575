/* shared.h: what the main thread builds once before the workers start and
 * every connection reads: the config, the message pool, the TLS context,
 * the resolved addresses.  Nothing in `struct shared` is written after
 * start-up; the few things connections of every worker do write (how many
 * error lines were printed, "the certificate was refused") are atomics in
 * `struct shared_live`, reached through a pointer so that no const is cast
 * away to write them. */
#ifndef IMAPSTRESS_SHARED_H
#define IMAPSTRESS_SHARED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "stats/stats.h"

struct config;
struct msg_pool;
struct tls_ctx;
struct userfile;

/* Written by any worker's connections, read by the main thread at the
 * end (run.c, main.c).  Relaxed atomics: each is a flag or a counter. */
struct shared_live {
	_Atomic unsigned err_logged[ERR_COUNT];	/* full error lines printed */
	/* the same for each state error sub-kind (err_logged[ERR_MBOXSTATE]
	 * is not used) */
	_Atomic unsigned state_logged[MBOX_ERR_COUNT];
	_Atomic bool tls_verify_failed;	/* a certificate was refused */
	_Atomic unsigned warned_ops;	/* bit per op: "not advertised" said */
	_Atomic bool warned_qresync;	/* "runs without QRESYNC" said */
	_Atomic bool warned_multiappend;	/* "one message per APPEND" said */
	_Atomic bool warned_uidnext;	/* "no UIDNEXT: checks off" said */
	_Atomic bool warned_untracked;	/* "--track-max reached" said */
	_Atomic bool login_disabled;	/* LOGINDISABLED in clear: not sent */
	_Atomic unsigned rawlog_failures;	/* rawlog files that failed */
	_Atomic unsigned stalls_said;	/* "stalled for" lines, shown or not */
	_Atomic unsigned stall_cuts;	/* cut at the end by --stall-timeout */
	/* The foreign-mail guard refused a mailbox (its line is said): the
	 * run stops, exit 2. */
	_Atomic bool foreign_refused;
	/* The latest byte any connection had from the server, as of each
	 * worker's last tick (conn_stall_heard): monotonic microseconds. */
	_Atomic uint64_t heard_us;
};

struct shared {
	const struct config *cfg;
	const struct msg_pool *pool;
	struct tls_ctx *tls;		/* NULL without TLS */
	struct sockaddr_storage addrs[16];	/* resolved server addresses */
	socklen_t addr_lens[16];
	unsigned n_addrs;
	struct sockaddr_storage sources[64];	/* --source addresses */
	socklen_t source_lens[64];
	unsigned n_sources;
	const struct userfile *users;	/* userfile=, or NULL */
	uint64_t run_id;		/* the marker (X-Imapstress), Message-IDs, ID */
	unsigned n_workers;
	struct shared_live *live;	/* the mutable part */
};

#endif
