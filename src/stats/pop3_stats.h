/* pop3_stats.h: what the POP3 client (src/pop3/) measured, per command
 * and per kind of failure, in a worker's stats shard (act_stats.pop3,
 * actions.h) and in its plain snapshot.  Same contract as the rest of
 * actions.h: one writer (the loop the client runs on), relaxed counters,
 * snapshots summed and subtracted by the main thread. */
#ifndef IMAPSTRESS_POP3_STATS_H
#define IMAPSTRESS_POP3_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats/hist.h"

typedef _Atomic uint64_t ctr_t;	/* as in stats.h */

/* The commands, in the order a session sends them; the greeting counts
 * as one (+OK or -ERR like the others).  AUTH (RFC 5034, pop3_auth)
 * takes USER and PASS's place. */
enum pop3_cmd {
	P3_GREETING, P3_CAPA, P3_STLS, P3_USER, P3_PASS, P3_AUTH, P3_STAT,
	P3_UIDL, P3_LIST, P3_RETR, P3_DELE, P3_QUIT, P3_CMD_COUNT
};
/* "greeting", "capa", "stls", "user", ... (report keys, result files). */
extern const char *const pop3_cmd_name[P3_CMD_COUNT];

/* Why a session ended without QUIT's +OK (besides a -ERR, counted per
 * command). */
enum pop3_fail {
	P3F_CONNECT,	/* connect failed */
	P3F_TIMEOUT,	/* no progress within the timeout */
	P3F_DISCONNECT,	/* the server closed or reset the session */
	P3F_PROTOCOL,	/* unparsable, over a limit, out of turn */
	P3F_TLS,	/* STLS refused when asked for, or the handshake */
	P3F_SHUTDOWN,	/* the client was freed with the session open */
	P3F_COUNT
};
extern const char *const pop3_fail_name[P3F_COUNT];

/* Counters that only grow (besides the per-command and per-fail ones). */
#define POP3_COUNTERS(X)						\
	X(sessions) X(logins) X(retrieved) X(retr_bytes) X(deleted)	\
	X(delete_lost)

struct pop3_stats {
	ctr_t ok[P3_CMD_COUNT];		/* +OK (a body: its whole body) */
	ctr_t err[P3_CMD_COUNT];	/* -ERR */
	ctr_t failed[P3_CMD_COUNT];	/* sent, the session died first */
	ctr_t fails[P3F_COUNT];		/* sessions, by why they died */
	ctr_t sessions;			/* opened */
	ctr_t sessions_open;		/* gauge */
	ctr_t logins;			/* PASS or AUTH +OK */
	ctr_t retrieved;		/* RETR +OK with its whole body */
	ctr_t retr_bytes;		/* those bodies' bytes, unstuffed */
	ctr_t deleted;			/* DELE +OK that QUIT's +OK committed */
	ctr_t delete_lost;		/* DELE +OK in a session with no
					 * QUIT +OK: the server keeps them */
	struct hist *lat[P3_CMD_COUNT];	/* sent -> status (or body end), us */
};

struct pop3_snap {
	uint64_t ok[P3_CMD_COUNT], err[P3_CMD_COUNT], failed[P3_CMD_COUNT];
	uint64_t fails[P3F_COUNT];
#define X(f) uint64_t f;
	POP3_COUNTERS(X)
#undef X
	uint64_t sessions_open;
	struct hist *lat[P3_CMD_COUNT];
};

/* The counters (not the histograms): d = s, d += live s, d += s,
 * d = a - b (gauges from a). */
void pop3_stats_copy_counts(struct pop3_stats *d, const struct pop3_stats *s);
void pop3_snap_add_live_counts(struct pop3_snap *d, const struct pop3_stats *s);
void pop3_snap_add_counts(struct pop3_snap *d, const struct pop3_snap *s);
void pop3_snap_diff_counts(struct pop3_snap *d, const struct pop3_snap *a,
			   const struct pop3_snap *b);
/* Anything at all: the reports print POP3 only then. */
bool pop3_snap_any(const struct pop3_snap *d);
/* -ERR replies and failed sessions summed (the report's errors). */
uint64_t pop3_snap_errors(const struct pop3_snap *d);

#endif
