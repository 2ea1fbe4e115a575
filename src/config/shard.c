/* shard.c: see shard.h.  The launchers are asked in a fixed order, and
 * the first whose index variable is set wins; the man page (SHARDS) lists
 * the same order. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "config/shard.h"
#include "util/xmalloc.h"

struct launcher {
	const char *index_var;
	const char *count_var;	/* NULL: the count comes from --shards */
	unsigned base;		/* the index the launcher gives the first shard */
	const char *from;	/* for the report */
};

static const struct launcher launchers[] = {
	{ "JOB_COMPLETION_INDEX", NULL, 0, "JOB_COMPLETION_INDEX (Kubernetes)" },
	/* a job array (sbatch --array=0-N-1): each task is a job of one
	 * process, whose SLURM_PROCID is 0 of 1 */
	{ "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", 0,
	  "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT" },
	{ "SLURM_PROCID", "SLURM_NTASKS", 0, "SLURM_PROCID/SLURM_NTASKS" },
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", 0,
	  "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (Open MPI)" },
	{ "PARALLEL_SEQ", NULL, 1, "PARALLEL_SEQ (GNU parallel)" },
};

void
shard_slice(unsigned long long total, unsigned i, unsigned n,
	    unsigned long long *lo, unsigned long long *hi)
{
	/* total < 2^32 and n <= 10^6 here, so the products fit. */
	*lo = total * i / n;
	*hi = total * (i + 1) / n;
}

static int
env_number(const char *(*getenv_fn)(const char *), const char *var,
	   unsigned long *out, char *err, size_t errlen)
{
	const char *v = getenv_fn(var);
	char *end;

	if (v == NULL || *v == '\0') {
		snprintf(err, errlen, "%s is not set", var);
		return -1;
	}
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n > 1000000) {
		snprintf(err, errlen, "%s=%.40s: not a shard number", var, v);
		return -1;
	}
	*out = n;
	return 0;
}

/* The launcher's shard, or none (count stays 0). */
static int
shard_from_env(struct config *cfg, const char *(*getenv_fn)(const char *),
	       char *err, size_t errlen)
{
	for (size_t k = 0; k < sizeof(launchers) / sizeof(launchers[0]); k++) {
		const struct launcher *l = &launchers[k];
		unsigned long idx, n;
		const char *v = getenv_fn(l->index_var);
		if (v == NULL)
			continue;
		if (env_number(getenv_fn, l->index_var, &idx, err, errlen) < 0)
			return -1;
		if (l->count_var != NULL) {
			if (env_number(getenv_fn, l->count_var, &n, err, errlen) < 0)
				return -1;
			if (cfg->shards != 0 && cfg->shards != n) {
				snprintf(err, errlen, "--shards %u: but %s=%lu",
					 cfg->shards, l->count_var, n);
				return -1;
			}
		} else if (cfg->shards == 0) {
			snprintf(err, errlen, "%s=%lu: give the number of shards "
				 "with --shards N", l->index_var, idx);
			return -1;
		} else {
			n = cfg->shards;
		}
		if (idx < l->base || idx - l->base >= n || n == 0) {
			snprintf(err, errlen, "%s=%lu: not a shard of %lu "
				 "(the first is %u)", l->index_var, idx, n, l->base);
			return -1;
		}
		cfg->shard_index = (unsigned)(idx - l->base);
		cfg->shard_count = (unsigned)n;
		cfg->shard_from = l->from;
		return 0;
	}
	return 0;
}

const char *
shard_getenv(const char *name)
{
	return getenv(name);
}

int
shard_locate(struct config *cfg, const char *(*getenv_fn)(const char *),
	     char *err, size_t errlen)
{
	if (cfg->shard_count == 0 &&
	    shard_from_env(cfg, getenv_fn, err, errlen) < 0)
		return -1;
	if (cfg->shard_count == 0) {
		if (cfg->shards > 1) {
			snprintf(err, errlen, "--shards %u: no shard index (give "
				 "--shard I/N, or run under a launcher: see "
				 "SHARDS in the man page)", cfg->shards);
			return -1;
		}
		cfg->shard_count = 1;
	} else if (cfg->shards != 0 && cfg->shards != cfg->shard_count) {
		snprintf(err, errlen, "--shards %u: but --shard says %u/%u",
			 cfg->shards, cfg->shard_index, cfg->shard_count);
		return -1;
	}
	shard_expand_paths(cfg);
	return 0;
}

int
shard_setup(struct config *cfg, const char *(*getenv_fn)(const char *),
	    char *err, size_t errlen)
{
	if (shard_locate(cfg, getenv_fn, err, errlen) < 0)
		return -1;
	unsigned i = cfg->shard_index, n = cfg->shard_count;
	unsigned long long lo, hi;
	if (n == 1)
		return 0;
	if (cfg->clients < n) {
		snprintf(err, errlen, "clients=%u: fewer clients than the %u "
			 "shards", cfg->clients, n);
		return -1;
	}
	shard_slice(cfg->clients, i, n, &lo, &hi);
	cfg->clients = (unsigned)(hi - lo);
	/* A userfile is sliced once it is loaded (run/setup.c). */
	if (cfg->userfile == NULL) {
		unsigned long long span =
		    (unsigned long long)cfg->users_max - cfg->users_min + 1;
		if (span < n) {
			snprintf(err, errlen, "users=%u-%u: fewer users than the "
				 "%u shards", cfg->users_min, cfg->users_max, n);
			return -1;
		}
		shard_slice(span, i, n, &lo, &hi);
		unsigned first = cfg->users_min;
		cfg->users_min = first + (unsigned)lo;
		cfg->users_max = first + (unsigned)hi - 1;
	}
	cfg->rate /= n;
	cfg->connect_rate /= n;
	if (cfg->have_seed)
		cfg->seed += i;
	return 0;
}

/* "%i" is the shard index, "%%" a '%'. */
static char *
expand(const char *tmpl, unsigned index)
{
	size_t n = strlen(tmpl) + 16, o = 0;
	char *out = xmalloc(n);
	for (const char *p = tmpl; *p != '\0'; p++) {
		if (o + 12 >= n)
			out = xrealloc(out, n *= 2);
		if (p[0] == '%' && p[1] == 'i') {
			o += (size_t)snprintf(out + o, n - o, "%u", index);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[o++] = '%';
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return out;
}

void
shard_expand_paths(struct config *cfg)
{
	char **paths[] = { &cfg->result_path, &cfg->latency_log,
			   &cfg->profile_counts };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (*paths[i] == NULL)
			continue;
		char *e = expand(*paths[i], cfg->shard_index);
		free(*paths[i]);
		*paths[i] = e;
	}
}

void
shard_wait_start(const struct config *cfg)
{
	sigset_t sigs;
	struct timespec now;

	if (cfg->start_at <= 0)
		return;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &now);
		double left = cfg->start_at - ((double)now.tv_sec +
					       (double)now.tv_nsec / 1e9);
		if (left <= 0) {
			if (left < -1.0)
				log_warn("--start-at was %.1f s ago: starting now",
					 -left);
			return;
		}
		struct timespec ts = { (time_t)left,
			(long)((left - (double)(time_t)left) * 1e9) };
		if (sigtimedwait(&sigs, NULL, &ts) > 0)
			fatal(1, "interrupted while waiting for --start-at");
	}
}
