/* config_measure.c: the options about what a run judges and watches:
 * --sla bounds (a command's percentile, or the LoadSim score),
 * --score-weights and --server-pid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_int.h"
#include "util/units.h"

/* --sla 'score<1000ms': the LoadSim score (src/stats/score.h) bounded. */
static int
sla_score(struct pctx *c, const char *bound)
{
	struct config *cfg = c->cfg;
	struct sla sla = { .op = SLA_OP_SCORE, .percentile = 95 };
	double secs;
	const char *why;

	if (units_parse_duration(bound, &secs, &why) < 0)
		return config_fail(c, "%s", why);
	if (secs <= 0)
		return config_fail(c, "the bound must be greater than 0");
	sla.max_us = (uint64_t)(secs * 1e6 + 0.5);
	snprintf(sla.text, sizeof(sla.text), "%s", c->val);
	cfg->slas[cfg->n_slas++] = sla;
	return 0;
}

/* --sla OP.METRIC<DURATION, e.g. APPEND.p95<500ms or ALL.max<2s, or
 * score<DURATION. */
int
config_h_sla(struct pctx *c, const struct opt *o)
{
	struct config *cfg = c->cfg;
	const char *s = c->val, *dot = strchr(s, '.'), *lt = strchr(s, '<');
	struct sla sla = { .op = SLA_OP_ALL };
	double secs;
	const char *why;

	if (cfg->n_slas == CONFIG_MAX_SLA)
		return config_fail(c, "too many --sla (at most %d)",
				   CONFIG_MAX_SLA);
	if (strncasecmp(s, "score<", 6) == 0)
		return sla_score(c, s + 6);
	if (dot == NULL || lt == NULL || lt < dot || dot == s)
		return config_fail(c, "expected OP.METRIC<DURATION or "
				   "score<DURATION, e.g. 'APPEND.p95<500ms'");
	if (strlen(s) >= sizeof(sla.text))
		return config_fail(c, "too long");
	unsigned oplen = (unsigned)(dot - s);
	if (!(oplen == 3 && strncasecmp(s, "ALL", 3) == 0)) {
		sla.op = op_lookup(s, oplen);
		if (sla.op < 0)
			return config_fail(c, "unknown state '%.*s'",
					   (int)oplen, s);
	}
	size_t mlen = (size_t)(lt - dot - 1);
	char metric[16];
	if (mlen == 0 || mlen >= sizeof(metric))
		return config_fail(c, "unknown metric '%.*s' (use p50, p90, "
				   "p95, p99, p999, mean or max)",
				   (int)mlen, dot + 1);
	memcpy(metric, dot + 1, mlen);
	metric[mlen] = '\0';
	if (strcasecmp(metric, "mean") == 0)
		sla.percentile = 0;
	else if (strcasecmp(metric, "max") == 0)
		sla.percentile = 100;
	else if (strcasecmp(metric, "p999") == 0)
		sla.percentile = 99.9;
	else if ((metric[0] == 'p' || metric[0] == 'P') && mlen == 3 &&
		 metric[1] >= '1' && metric[1] <= '9' &&
		 metric[2] >= '0' && metric[2] <= '9')
		sla.percentile = (metric[1] - '0') * 10 + (metric[2] - '0');
	else
		return config_fail(c, "unknown metric '%s' (use p50, p90, "
				   "p95, p99, p999, mean or max)", metric);
	if (units_parse_duration(lt + 1, &secs, &why) < 0)
		return config_fail(c, "%s", why);
	if (secs <= 0)
		return config_fail(c, "the bound must be greater than 0");
	sla.max_us = (uint64_t)(secs * 1e6 + 0.5);
	snprintf(sla.text, sizeof(sla.text), "%s", s);
	cfg->slas[cfg->n_slas++] = sla;
	return 0;
}


/* --score-weights OP=W[,OP=W]...: W a decimal >= 0; ops not named weigh
 * 0.  Given again, the last list wins (a list is one setting). */
int
config_h_score_weights(struct pctx *c, const struct opt *o)
{
	struct config *cfg = c->cfg;
	const char *p = c->val;
	double w[OP_COUNT] = { 0 };
	bool any = false;

	while (*p != '\0') {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (eq == NULL || eq > end || eq == p)
			return config_fail(c, "expected OP=WEIGHT[,OP=WEIGHT]..., "
					   "e.g. 'FETCH=0.5,SELECT=0.2'");
		int op = op_lookup(p, (unsigned)(eq - p));
		if (op < 0)
			return config_fail(c, "unknown state '%.*s'",
					   (int)(eq - p), p);
		char num[32], *e;
		size_t nl = (size_t)(end - eq - 1);
		if (nl == 0 || nl >= sizeof(num))
			return config_fail(c, "%.*s: expected a weight",
					   (int)(eq - p), p);
		memcpy(num, eq + 1, nl);
		num[nl] = '\0';
		double v = strtod(num, &e);
		if (*e != '\0' || !(v >= 0) || v > 1e9)
			return config_fail(c, "%s: weight '%s' is not a number "
					   ">= 0", op_table[op].name, num);
		w[op] = v;
		any = any || v > 0;
		p = *end == ',' ? end + 1 : end;
	}
	if (!any)
		return config_fail(c, "no weight above 0");
	memcpy(cfg->score_weights, w, sizeof(w));
	cfg->score_weights_set = true;
	return 0;
}

/* --server-pid PID[,PID]...; repeatable: the pids add up.  Whether they
 * exist is checked when the run starts (src/srv/). */
int
config_h_server_pid(struct pctx *c, const struct opt *o)
{
	struct config *cfg = c->cfg;
	const char *p = c->val;

	while (*p != '\0') {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 4194304 || (*end != ',' && *end != '\0'))
			return config_fail(c, "expected a process id or a "
					   "comma-separated list of them");
		if (cfg->n_server_pids == CONFIG_MAX_SERVER_PIDS)
			return config_fail(c, "at most %d pids",
					   CONFIG_MAX_SERVER_PIDS);
		cfg->server_pids[cfg->n_server_pids++] = (int)v;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}
