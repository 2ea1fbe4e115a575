/* setup.c: see setup.h. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "config/derived.h"
#include "stats/latency_log.h"
#include "util/log.h"
#include "util/run_id.h"
#include "msg/msg.h"
#include "net/ossl.h"
#include "run/setup.h"
#include "config/shard.h"
#include "conn/shared.h"
#include "net/tls.h"
#include "config/userfile.h"
#include "run/worker.h"
#include "util/xmalloc.h"

/* The message pool never holds more than this: enough variety, little
 * memory (the 75 KB run must stay under 64 MB in all). */
#define POOL_MAX_BYTES (16u << 20)

static void
resolve(struct shared *sh, const struct config *cfg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char port[16];
	const char *name = cfg->hostip ? cfg->hostip : cfg->host;

	snprintf(port, sizeof(port), "%d", config_port(cfg));
	int e = getaddrinfo(name, port, &hints, &res);
	if (e != 0)
		fatal(2, "host=%s: %s", name, gai_strerror(e));
	/* Every address is used, round-robin, as imaptest does. */
	for (ai = res; ai != NULL && sh->n_addrs < 16; ai = ai->ai_next) {
		memcpy(&sh->addrs[sh->n_addrs], ai->ai_addr, ai->ai_addrlen);
		sh->addr_lens[sh->n_addrs++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	for (unsigned i = 0; i < cfg->n_sources; i++) {
		hints.ai_flags = AI_NUMERICHOST;
		if (getaddrinfo(cfg->sources[i], NULL, &hints, &res) != 0)
			fatal(2, "--source %s: not an address", cfg->sources[i]);
		memcpy(&sh->sources[i], res->ai_addr, res->ai_addrlen);
		sh->source_lens[i] = res->ai_addrlen;
		freeaddrinfo(res);
	}
	sh->n_sources = cfg->n_sources;
}

static struct msg_pool *
make_pool(const struct config *cfg, const struct derived *dv, uint32_t seed)
{
	char err[512];

	/* Without APPEND nothing is sent from the pool: keep it tiny (it
	 * still exists, so no code has to check). */
	if (dv->states[OP_APPEND].prob == 0)
		return msg_pool_generate(seed, 512, 8 * 512);
	if (cfg->mbox_path != NULL) {
		struct msg_pool *p = msg_pool_from_mbox(cfg->mbox_path, err,
							sizeof(err));
		if (p == NULL)
			fatal(2, "%s", err);
		return p;
	}
	if (cfg->random_msg_size > 0)
		return msg_pool_random(seed, cfg->random_msg_size, POOL_MAX_BYTES);
	if (dv->msg_sizes.n > 0)
		return msg_pool_generate_sizes(seed, &dv->msg_sizes,
					       POOL_MAX_BYTES);
	return msg_pool_generate(seed, dv->msg_size_mean, POOL_MAX_BYTES);
}

/* A userfile is split like users=: shard I takes its I-th slice. */
static void
shard_users(const struct config *cfg, struct userfile *uf)
{
	unsigned long long lo, hi;
	if (cfg->shard_count <= 1)
		return;
	if (uf->n < cfg->shard_count)
		fatal(2, "userfile=%s: %u users for %u shards", cfg->userfile,
		      uf->n, cfg->shard_count);
	shard_slice(uf->n, cfg->shard_index, cfg->shard_count, &lo, &hi);
	/* userfile_free frees only the block and the text, whatever n is. */
	memmove(uf->e, uf->e + lo, (size_t)(hi - lo) * sizeof(*uf->e));
	uf->n = (unsigned)(hi - lo);
}

static unsigned
pick_workers(const struct config *cfg, const struct derived *dv)
{
	long n = cfg->workers ? (long)cfg->workers : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if ((unsigned long)n > dv->clients)
		n = (long)dv->clients;
	/* No connection at all (a profile's LMTP-only users): one worker
	 * still runs the deliveries. */
	return n > 0 ? (unsigned)n : 1;
}

struct shared *
shared_new(const struct config *cfg, const struct derived *dv)
{
	char err[1024];

	struct shared *sh = xcalloc(1, sizeof(*sh));
	sh->cfg = cfg;
	sh->live = xcalloc(1, sizeof(*sh->live));
	sh->run_id = run_id_new();
	resolve(sh, cfg);
	if (cfg->userfile != NULL) {
		sh->users = userfile_load(cfg->userfile, err, sizeof(err));
		if (sh->users == NULL)
			fatal(2, "%s", err);
		shard_users(cfg, (struct userfile *)sh->users);
	}
	sh->pool = make_pool(cfg, dv, cfg->have_seed ? cfg->seed : (uint32_t)sh->run_id);
	if (cfg->tls != TLS_NONE) {
		sh->tls = tls_ctx_new(cfg, err, sizeof(err));
		if (sh->tls == NULL)
			fatal(2, "%s", err);
	}
	/* SCRAM's PBKDF2 and HMAC are libcrypto's: loaded here, before any
	 * worker starts, so a missing library stops the run at once with its
	 * name rather than failing every login (tls_ctx_new loads it for
	 * TLS). */
	if ((cfg->mech_id == MECH_SCRAM_SHA1 || cfg->mech_id == MECH_SCRAM_SHA256) &&
	    !ossl_load(err, sizeof(err)))
		fatal(2, "mech=%s: %s", config_mech_name(cfg->mech_id), err);
	sh->n_workers = pick_workers(cfg, dv);
	return sh;
}

struct worker_group *
worker_group_new(const struct config *cfg)
{
	/* Opened before anything is allocated: fatal() exits, and the
	 * sanitizers' leak check would count a group held only here. */
	int fd = -1;
	if (cfg->latency_log != NULL &&
	    (fd = latency_log_open(cfg->latency_log)) < 0)
		fatal(2, "--latency-log %s: cannot create: %s", cfg->latency_log,
		      strerror(errno));
	struct worker_group *g = xcalloc(1, sizeof(*g));
	g->latency_log_fd = fd;
	return g;
}

void
worker_group_free(struct worker_group *g)
{
	if (g == NULL)
		return;
	if (g->latency_log_fd >= 0)
		close(g->latency_log_fd);
	free(g);
}

void
shared_free(struct shared *sh)
{
	if (sh == NULL)
		return;
	tls_ctx_free(sh->tls);
	userfile_free((struct userfile *)sh->users);
	msg_pool_free((struct msg_pool *)sh->pool);
	free(sh->live);
	free(sh);
}

/* The one place that says who reads the per-second histograms: each
 * second's window (run.c's win) or the run so far summed every second.
 *   - the terminal's lines (format text), only for --tick-percentile
 *     and profile mode's push/actions figures (percentiles of the
 *     second); the ms/cmd line every ten seconds and output= (imaptest's
 *     TSV) need only each command's latency sum and count, which travel
 *     with the counters (stats.h, lat_sum_us);
 *   - --json and --csv: each tick's percentiles (profile mode's too);
 *   - --result: each tick's histograms, for merge;
 *   - --hdr-log: each interval's histogram;
 *   - --metrics-listen: the run so far, summed from each second's copies.
 * Not readers: SLAs (judged on the totals), the warm-up (one copy at its
 * end), the stop checks (counters).  With none of them (a plain text or
 * -q run, as scripts/bench-tick's), the workers copy the histograms whole only at
 * the warm-up's end and the main thread after the join, so the totals
 * stay exact and the seconds in between cost the counters alone.  A new
 * reader of per-second histograms must be added here. */
bool
run_tick_hists_wanted(const struct config *cfg)
{
	bool text_reads = cfg->format == OUT_TEXT &&
	    (cfg->tick_percentile > 0 || cfg->profile_path != NULL);

	return text_reads || cfg->json_path != NULL || cfg->csv_path != NULL ||
	    cfg->result_path != NULL || cfg->hdr_log_path != NULL ||
	    cfg->metrics_listen != NULL;
}
