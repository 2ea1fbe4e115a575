/* config_shard.c: the options of a run split over several processes
 * (--shard I/N, --start-at) and the args key that lets `imapstress merge`
 * tell whether result files come from one run.
 *
 * The key is built while argv is parsed, from the option rows themselves,
 * so `--clients 10`, `--clients=10`, `-c 10` and `clients=10` give the same
 * "clients=10".  Options that may differ between the shards of one run
 * (which shard, where its files go, its source addresses) are left out;
 * password values are replaced so the key can be written to a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config_int.h"
#include "util/xmalloc.h"

int
config_h_shard(struct pctx *c, const struct opt *o)
{
	const char *slash = strchr(c->val, '/');
	uint64_t i, n;

	if (slash == NULL || slash == c->val || slash[1] == '\0')
		return config_fail(c, "expected I/N, e.g. 0/4");
	char *first = xstrndup(c->val, (size_t)(slash - c->val));
	int r = config_parse_uint(c, first, 0, 999999, &i);
	free(first);
	if (r < 0 || config_parse_uint(c, slash + 1, 1, 1000000, &n) < 0)
		return -1;
	if (i >= n)
		return config_fail(c, "shard index %llu is not below the count "
				   "%llu (shards are numbered from 0)",
				   (unsigned long long)i, (unsigned long long)n);
	c->cfg->shard_index = (unsigned)i;
	c->cfg->shard_count = (unsigned)n;
	c->cfg->shard_from = "--shard";
	return 0;
}

/* EPOCH (seconds, may have a fraction) or +DURATION from now. */
int
config_h_start_at(struct pctx *c, const struct opt *o)
{
	struct timespec now;
	double v;

	clock_gettime(CLOCK_REALTIME, &now);
	double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	if (c->val[0] == '+') {
		if (config_parse_dur(c, c->val + 1, false, &v) < 0)
			return -1;
		v += t;
	} else {
		if (config_parse_decimal(c, &v) < 0)
			return -1;
		/* A small number is a delay typed without its '+'. */
		if (v < 1e9 || v > 1e11)
			return config_fail(c, "not a Unix time in seconds (for a "
					   "delay write +%s)", c->val);
	}
	/* Further than this is a typo, not a plan: the shards would wait. */
	if (v > t + 86400)
		return config_fail(c, "more than a day from now");
	c->cfg->start_at = v;
	return 0;
}

/* Rows whose value may differ from shard to shard of one run. */
static const char *const per_shard[] = {
	"shard", "start-at", "result", "latency-log", "profile-counts",
	"json", "csv", "report",
	"output", "source", "rawlog-dir", "quiet", "help", "version",
	"server-pid",	/* the server may be watched from one shard only */
};
static const char *const secret[] = { "password", "pass", "master" };

static bool
listed(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

void
config_key_note(struct config *cfg, const char *name, const char *val)
{
	if (name == NULL ||
	    listed(name, per_shard, sizeof(per_shard) / sizeof(per_shard[0])))
		return;
	if (val != NULL &&
	    listed(name, secret, sizeof(secret) / sizeof(secret[0])))
		val = "(hidden)";
	size_t old = cfg->args_key ? strlen(cfg->args_key) : 0;
	size_t need = old + 1 + strlen(name) + 1 + (val ? 3 * strlen(val) : 0) + 1;
	char *k = xrealloc(cfg->args_key, need);
	char *p = k + old;
	if (old > 0)
		*p++ = ' ';
	p += sprintf(p, "%s", name);
	if (val != NULL) {
		*p++ = '=';
		/* One token per option whatever its bytes: spaces, '%' and
		 * anything not printable ASCII are %XX. */
		for (const unsigned char *v = (const unsigned char *)val; *v; v++) {
			if (*v <= ' ' || *v >= 0x7f || *v == '%')
				p += sprintf(p, "%%%02X", *v);
			else
				*p++ = (char)*v;
		}
	}
	*p = '\0';
	cfg->args_key = k;
}
