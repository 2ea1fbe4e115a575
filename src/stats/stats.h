/* stats.h: what a run measured.  One live `struct stats` shard per worker,
 * written only by that worker's thread; the main thread reads them once a
 * second into plain snapshots (`struct stats_snap`), sums the shards, and
 * takes differences between snapshots for per-second figures.  No locks,
 * no read-modify-write atomics on the per-command path (see hist.h for
 * the single-writer contract). */
#ifndef IMAPSTRESS_STATS_H
#define IMAPSTRESS_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "stats/actions.h"
#include "stats/hist.h"
#include "model/mbox_err.h"
#include "plan/ops.h"

/* Why a command or connection failed.  NO and BAD are server replies; the
 * rest end the connection. */
enum err_kind {
	ERR_NO,		/* tagged NO */
	ERR_BAD,	/* tagged BAD */
	ERR_BYE,	/* unexpected untagged BYE */
	ERR_DISCONNECT,	/* server closed / reset the connection */
	ERR_TIMEOUT,	/* connect, greeting or command timeout */
	ERR_PROTOCOL,	/* unparsable or out-of-limit response */
	ERR_TLS,	/* handshake or TLS record error */
	ERR_CONNECT,	/* connect() failed (refused, unreachable) */
	ERR_LOGIN,	/* login/authenticate refused (also counted as NO) */
	ERR_MBOXSTATE,	/* mailbox-state check failed (server broke IMAP rules) */
	ERR_COUNT
};

extern const char *const err_kind_name[ERR_COUNT]; /* "no", "bad", ... */

/* Response codes on a NO that describe an ordinary outcome under
 * concurrency, not a fault (imaptest does not report them either): such a
 * NO is counted for its command and by its code, but is not an error for
 * error_quit, err= or the exit status. */
enum benign_code {
	BENIGN_TRYCREATE,	/* COPY/MOVE target missing: we CREATE it */
	BENIGN_EXPUNGEISSUED,	/* another session expunged the messages */
	BENIGN_ALREADYEXISTS,	/* random mailbox name taken (MCREATE...) */
	BENIGN_NONEXISTENT,	/* random mailbox name missing (MDELETE...) */
	BENIGN_COUNT
};

extern const char *const benign_code_name[BENIGN_COUNT]; /* "TRYCREATE" */

typedef _Atomic uint64_t ctr_t;

/* Single-writer increment: a plain load and store, no lock prefix. */
static inline void
ctr_add(ctr_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline void
ctr_set(ctr_t *c, uint64_t v)
{
	atomic_store_explicit(c, v, memory_order_relaxed);
}

static inline uint64_t
ctr_get(const ctr_t *c)
{
	return atomic_load_explicit((ctr_t *)c, memory_order_relaxed);
}

/* The live shard.  Counters only grow, except the gauges. */
struct stats {
	ctr_t ok[OP_COUNT];	/* tagged OK (LOGOUT: on the BYE + OK) */
	ctr_t no[OP_COUNT];
	ctr_t bad[OP_COUNT];
	ctr_t failed[OP_COUNT];	/* in flight when the connection died */
	/* The sum of lat[op]'s samples (their count is ok + no + bad), so
	 * that the ms/cmd line and output= need no histogram copy each
	 * second.  Set only in a published copy, from the live histogram's
	 * own sum when the counters are copied (stats_pub.c); a live
	 * shard's stays 0 (nothing per command), read it through a copy. */
	ctr_t lat_sum_us[OP_COUNT];
	ctr_t errors[ERR_COUNT];
	ctr_t benign[BENIGN_COUNT];	/* NOs with a benign code */
	/* errors[ERR_MBOXSTATE] by the model's sub-kind (mbox_err.h); a
	 * named server deviation (unannounced-after-status) among them */
	ctr_t state[MBOX_ERR_COUNT];
	ctr_t bytes_sent, bytes_received;	/* on the wire */
	ctr_t imap_sent, imap_received;		/* IMAP octets (pre-compress) */
	ctr_t append_msgs, append_bytes;	/* messages in OK'd APPENDs */
	ctr_t connects, logins, tls_handshakes, tls_resumed;
	ctr_t rate_missed;	/* open loop: sends later than scheduled */
	ctr_t ports_exhausted;	/* bind/connect: EADDRNOTAVAIL (no local port) */
	/* FETCH answers for messages no view keeps (--track-max): checked,
	 * not kept; not an error */
	ctr_t untracked_fetches;
	/* checkpoint=: checkpoints that compared at least one session,
	 * clean or not (counted once, by the worker that compared) */
	ctr_t checkpoints;
	ctr_t loop_lag_max_us;	/* gauge: worst event-loop lag this second */
	ctr_t conns_open;	/* gauge: connections past the greeting */
	ctr_t conns_total;	/* gauge: connection objects that exist */
	ctr_t stalled3;		/* gauge: connections stalled > 3 s */
	/* gauge: clients (slots) that have logged in at least once: a
	 * capacity step holds only if every one of its users got in */
	ctr_t clients_in;
	struct hist *lat[OP_COUNT];	/* send -> tagged reply, us */
	struct hist *tls_lat;		/* TLS handshake, us */
	struct hist *connect_lat;	/* connect -> greeting, us */
	int latency_log_fd;	/* --latency-log, or -1 */
	struct act_stats act;	/* profile mode (actions.h) */
};

/* A plain copy, owned by one thread. */
struct stats_snap {
	uint64_t ok[OP_COUNT], no[OP_COUNT], bad[OP_COUNT], failed[OP_COUNT];
	uint64_t lat_sum_us[OP_COUNT];	/* see struct stats */
	uint64_t errors[ERR_COUNT];
	uint64_t benign[BENIGN_COUNT];
	uint64_t state[MBOX_ERR_COUNT];
	uint64_t bytes_sent, bytes_received, imap_sent, imap_received;
	uint64_t append_msgs, append_bytes;
	uint64_t connects, logins, tls_handshakes, tls_resumed, rate_missed;
	uint64_t ports_exhausted, untracked_fetches, checkpoints;
	uint64_t loop_lag_max_us;
	uint64_t conns_open, conns_total, stalled3, clients_in;
	struct hist *lat[OP_COUNT];
	struct hist *tls_lat, *connect_lat;
	struct act_snap act;	/* profile mode (actions.h) */
};

/* The scalar fields of both structs by name, for code that must visit
 * every one (add/diff/copy here, result files): counters that only grow,
 * then gauges that add up across shards (loop_lag_max_us is a max). */
#define STATS_COUNTERS(X)						\
	X(bytes_sent) X(bytes_received) X(imap_sent) X(imap_received)	\
	X(append_msgs) X(append_bytes) X(connects) X(logins)		\
	X(tls_handshakes) X(tls_resumed) X(rate_missed) X(ports_exhausted) \
	X(untracked_fetches) X(checkpoints)
#define STATS_SUM_GAUGES(X) X(conns_open) X(conns_total) X(stalled3) \
	X(clients_in)
/* The counter arrays beside them, with their lengths. */
#define STATS_ARRAYS(X)							\
	X(errors, ERR_COUNT) X(benign, BENIGN_COUNT) X(state, MBOX_ERR_COUNT)

struct stats *stats_new(void);
void stats_free(struct stats *s);		/* NULL is a no-op */

/* Record one finished command: its reply (IMAP_COND_OK/NO/BAD as 0/1/2 via
 * the enum below) and latency. */
enum stats_reply { STATS_OK, STATS_NO, STATS_BAD, STATS_FAILED };
void stats_cmd(struct stats *s, enum op op, enum stats_reply r, uint64_t us);
void stats_err(struct stats *s, enum err_kind k);
/* One mailbox-state error: errors[ERR_MBOXSTATE] and its sub-kind. */
void stats_state_err(struct stats *s, enum mbox_err kind);
/* A NO carrying a benign code: counted in no[op] and benign[code], not as
 * an error. */
void stats_cmd_benign(struct stats *s, enum op op, enum benign_code code,
		      uint64_t us);

void stats_snap_init(struct stats_snap *d);	/* zeroed, hists allocated */
void stats_snap_free(struct stats_snap *d);
void stats_snap_clear(struct stats_snap *d);
/* d += live shard (counters and gauges summed, histograms merged). */
void stats_snap_add_live(struct stats_snap *d, const struct stats *s);
/* The histograms alone: beside the figures of a published copy (whose
 * latency sums come from the histograms, stats_pub.c), once the shard's
 * worker is joined (run_collect.c). */
void stats_snap_add_live_hists(struct stats_snap *d, const struct stats *s);
/* The same for the counters and gauges only, and their clear: the
 * stop checks between ticks need no histogram. */
void stats_snap_add_live_counts(struct stats_snap *d, const struct stats *s);
void stats_snap_clear_counts(struct stats_snap *d);
/* "Figures": every counter and gauge, profile mode's too, and no
 * histogram (they are left as they are): for a sum whose histograms are
 * kept up to date by what changed (stats_pub_take). */
void stats_snap_clear_figures(struct stats_snap *d);
void stats_snap_add_live_figures(struct stats_snap *d, const struct stats *s);
void stats_snap_diff_figures(struct stats_snap *d, const struct stats_snap *a,
			     const struct stats_snap *b);
void stats_snap_copy_figures(struct stats_snap *d, const struct stats_snap *s);
/* d += s */
void stats_snap_add(struct stats_snap *d, const struct stats_snap *s);
/* d = a - b for counters and histograms; gauges are taken from a. */
void stats_snap_diff(struct stats_snap *d, const struct stats_snap *a,
		     const struct stats_snap *b);
void stats_snap_copy(struct stats_snap *d, const struct stats_snap *s);

/* Latency samples of op in d: those lat_sum_us[op] adds up. */
uint64_t stats_snap_lat_count(const struct stats_snap *d, int op);

/* Sums over all ops. */
uint64_t stats_snap_total_ok(const struct stats_snap *d);
uint64_t stats_snap_total_errors(const struct stats_snap *d);

#endif
