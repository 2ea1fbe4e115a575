/* main.c: parse the configuration, build what the workers share, start
 * them, hand over to run_loop() and exit with its status.  Nothing else. */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "clock.h"
#include "checkpoint.h"
#include "config.h"
#include "latency_log.h"
#include "log.h"
#include "merge.h"
#include "msg.h"
#include "profile/profile_cli.h"
#include "report.h"
#include "run.h"
#include "script/script_net.h"
#include "shard.h"
#include "tls.h"
#include "userfile.h"
#include "workload.h"
#include "worker.h"
#include "xmalloc.h"

/* The message pool never holds more than this: enough variety, little
 * memory (the 75 KB run must stay under 64 MB in all). */
#define POOL_MAX_BYTES (16u << 20)

static void
raise_nofile(unsigned clients)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	if ((rlim_t)clients + 64 > rl.rlim_cur)
		fatal(2, "clients=%u needs %u file descriptors, but the limit is "
		      "%llu (raise the hard limit: ulimit -Hn)", clients,
		      clients + 64, (unsigned long long)rl.rlim_cur);
}

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
make_pool(const struct config *cfg, uint32_t seed)
{
	char err[512];

	/* Without APPEND nothing is sent from the pool: keep it tiny (it
	 * still exists, so no code has to check). */
	if (cfg->states[OP_APPEND].prob == 0)
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
	return msg_pool_generate(seed, cfg->msg_size_mean, POOL_MAX_BYTES);
}

static const char *
shard_getenv(const char *name)
{
	return getenv(name);
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
pick_workers(const struct config *cfg)
{
	long n = cfg->workers ? (long)cfg->workers : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if ((unsigned long)n > cfg->clients)
		n = (long)cfg->clients;
	return (unsigned)n;
}

int
main(int argc, char **argv)
{
	struct config cfg;
	char err[1024];
	sigset_t sigs;

	/* Subcommands that read files instead of running. */
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "latency") == 0)
		return latency_main(argc - 1, argv + 1);

	config_defaults(&cfg);
	int r = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (r == 1) {
		/* --help, --version: output that cannot be written is an
		 * error here too. */
		config_free(&cfg);
		if (fflush(stdout) != 0 || ferror(stdout))
			fatal(1, "standard output: cannot write: %s",
			      strerror(errno != 0 ? errno : EIO));
		return 0;
	}
	if (r < 0 || config_validate(&cfg, err, sizeof(err)) < 0 ||
	    shard_setup(&cfg, shard_getenv, err, sizeof(err)) < 0) {
		config_free(&cfg);
		fatal(2, "%s", err);
	}
	if (cfg.profile_path != NULL) {
		int rc = profile_cli(&cfg);
		config_free(&cfg);
		return rc;
	}
	/* Scripted tests: their own (stopgap) driver, src/script/. */
	if (cfg.test_path != NULL) {
		signal(SIGPIPE, SIG_IGN);
		r = script_net_main(&cfg);
		config_free(&cfg);
		return r;
	}
	if (cfg.shard_count > 1)
		log_info("shard %u/%u (from %s): %u clients, users %u-%u%s",
			 cfg.shard_index, cfg.shard_count, cfg.shard_from,
			 cfg.clients, cfg.users_min, cfg.users_max,
			 cfg.userfile ? " (userfile: its slice)" : "");
	if (!plan_has_work(&cfg))
		fatal(2, "nothing to do: every state after LOGIN has probability 0");

	/* Signals are taken by run_loop() with sigtimedwait: block them
	 * before any thread exists so every thread inherits the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile(cfg.clients);

	struct shared *sh = xcalloc(1, sizeof(*sh));
	sh->cfg = &cfg;
	if (RAND_bytes((unsigned char *)&sh->run_id, sizeof(sh->run_id)) != 1)
		sh->run_id = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	resolve(sh, &cfg);
	if (cfg.userfile != NULL) {
		sh->users = userfile_load(cfg.userfile, err, sizeof(err));
		if (sh->users == NULL)
			fatal(2, "%s", err);
		shard_users(&cfg, (struct userfile *)sh->users);
	}
	if (cfg.latency_log != NULL &&
	    (sh->latency_log_fd = latency_log_open(cfg.latency_log)) < 0)
		fatal(2, "--latency-log %s: cannot create: %s", cfg.latency_log,
		      strerror(errno));
	/* A bare `compress` is imaptest's COMPRESS state at 100%: every
	 * session compresses right after login. */
	if (cfg.compress && cfg.states[OP_COMPRESS].prob == 0)
		cfg.states[OP_COMPRESS].prob = 100;
	/* Show the ChkP column when checkpoints run (the state comes after
	 * LOGOUT, so the plan never walks it). */
	if (cfg.checkpoint_secs > 0)
		cfg.states[OP_CHECKPOINT].prob = 100;
	sh->pool = make_pool(&cfg, cfg.have_seed ? cfg.seed : (uint32_t)sh->run_id);
	if (cfg.tls != TLS_NONE) {
		sh->tls = tls_ctx_new(&cfg, err, sizeof(err));
		if (sh->tls == NULL)
			fatal(2, "%s", err);
	}
	sh->n_workers = pick_workers(&cfg);
	/* One checkpoint for all workers: a mailbox's sessions may live in
	 * several (a user= without %d is one mailbox for everyone). */
	if (cfg.checkpoint_secs > 0 && !cfg.no_tracking)
		sh->cp_coord = cp_coord_new(sh->n_workers);
	cfg.color = isatty(STDOUT_FILENO);

	struct report *rep = report_new(&cfg, stdout, err, sizeof(err));
	if (rep == NULL)
		fatal(2, "%s", err);

	/* Bound and created before any worker starts, so a bad address or
	 * file is a usage error with nothing to stop. */
	struct run_sinks sinks = { NULL, NULL };
	if (cfg.metrics_listen != NULL &&
	    (sinks.metrics = metrics_new(&cfg, err, sizeof(err))) == NULL)
		fatal(2, "%s", err);
	if (cfg.hdr_log_path != NULL &&
	    (sinks.hdr = hdrlog_open(cfg.hdr_log_path, clock_us(), err,
				     sizeof(err))) == NULL)
		fatal(2, "%s", err);

	struct worker **w = xcalloc(sh->n_workers, sizeof(*w));
	for (unsigned i = 0; i < sh->n_workers; i++)
		w[i] = worker_new(i, sh);
	shard_wait_start(&cfg);
	for (unsigned i = 0; i < sh->n_workers; i++)
		if (worker_start(w[i]) != 0)
			fatal(1, "cannot start worker thread %u", i);

	int status = run_loop(w, sh->n_workers, &cfg, rep, &sinks);
	if (hdrlog_close(sinks.hdr) != 0 && status == 0)
		status = 1;
	metrics_free(sinks.metrics);

	for (unsigned i = 0; i < sh->n_workers; i++)
		worker_free(w[i]);
	free(w);
	/* Closing the rawlogs is their last write: a failure there counts
	 * like any other lost output. */
	if (status == 0 && atomic_load(&sh->rawlog_failures) > 0)
		status = 1;
	report_free(rep);
	tls_ctx_free(sh->tls);
	userfile_free((struct userfile *)sh->users);
	cp_coord_free(sh->cp_coord);
	msg_pool_free((struct msg_pool *)sh->pool);
	free(sh);
	config_free(&cfg);
	return status;
}
