/* stats.c: per-worker counters and latency histograms, and the plain
 * snapshots the main thread sums and subtracts once a second.  No I/O
 * beyond a warning for a caller bug. */
#include <stdlib.h>
#include <string.h>

#include "stats/latency_log.h"
#include "util/log.h"
#include "stats/stats.h"
#include "util/xmalloc.h"

const char *const err_kind_name[ERR_COUNT] = {
	[ERR_NO] = "no",
	[ERR_BAD] = "bad",
	[ERR_BYE] = "bye",
	[ERR_DISCONNECT] = "disconnect",
	[ERR_TIMEOUT] = "timeout",
	[ERR_PROTOCOL] = "protocol",
	[ERR_TLS] = "tls",
	[ERR_CONNECT] = "connect",
	[ERR_LOGIN] = "login",
	[ERR_MBOXSTATE] = "state",
};

const char *const benign_code_name[BENIGN_COUNT] = {
	[BENIGN_TRYCREATE] = "TRYCREATE",
	[BENIGN_EXPUNGEISSUED] = "EXPUNGEISSUED",
	[BENIGN_ALREADYEXISTS] = "ALREADYEXISTS",
	[BENIGN_NONEXISTENT] = "NONEXISTENT",
};

static uint64_t
sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

struct stats *
stats_new(void)
{
	struct stats *s = xcalloc(1, sizeof(*s));
	for (int i = 0; i < OP_COUNT; i++)
		s->lat[i] = hist_new();
	s->tls_lat = hist_new();
	s->connect_lat = hist_new();
	s->latency_log_fd = -1;
	act_stats_init(&s->act);
	return s;
}

void
stats_free(struct stats *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < OP_COUNT; i++)
		hist_free(s->lat[i]);
	hist_free(s->tls_lat);
	hist_free(s->connect_lat);
	act_stats_fini(&s->act);
	free(s);
}

void
stats_cmd(struct stats *s, enum op op, enum stats_reply r, uint64_t us)
{
	if ((unsigned)op >= OP_COUNT) {
		log_warn("stats: command with out-of-range op %d ignored", (int)op);
		return;
	}
	switch (r) {
	case STATS_OK:
		ctr_add(&s->ok[op], 1);
		break;
	case STATS_NO:
		ctr_add(&s->no[op], 1);
		ctr_add(&s->errors[ERR_NO], 1);
		break;
	case STATS_BAD:
		ctr_add(&s->bad[op], 1);
		ctr_add(&s->errors[ERR_BAD], 1);
		break;
	case STATS_FAILED:
		/* No reply, so no latency; the caller counts the cause. */
		ctr_add(&s->failed[op], 1);
		return;
	default:
		log_warn("stats: command with unknown reply kind %d ignored", (int)r);
		return;
	}
	hist_record(s->lat[op], us);
	if (s->latency_log_fd >= 0)
		latency_log_write(s->latency_log_fd, op, us);
}

void
stats_cmd_benign(struct stats *s, enum op op, enum benign_code code,
		 uint64_t us)
{
	if ((unsigned)op >= OP_COUNT || (unsigned)code >= BENIGN_COUNT) {
		log_warn("stats: benign NO with out-of-range op %d or code %d "
			 "ignored", (int)op, (int)code);
		return;
	}
	ctr_add(&s->no[op], 1);
	ctr_add(&s->benign[code], 1);
	hist_record(s->lat[op], us);
}

void
stats_err(struct stats *s, enum err_kind k)
{
	if ((unsigned)k >= ERR_COUNT) {
		log_warn("stats: out-of-range error kind %d ignored", (int)k);
		return;
	}
	ctr_add(&s->errors[k], 1);
}

void
stats_state_err(struct stats *s, enum mbox_err kind)
{
	if ((unsigned)kind >= MBOX_ERR_COUNT) {
		log_warn("stats: out-of-range state error kind %d ignored",
			 (int)kind);
		return;
	}
	stats_err(s, ERR_MBOXSTATE);
	ctr_add(&s->state[kind], 1);
}

void
stats_snap_init(struct stats_snap *d)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < OP_COUNT; i++)
		d->lat[i] = hist_new();
	d->tls_lat = hist_new();
	d->connect_lat = hist_new();
	act_snap_init(&d->act);
}

void
stats_snap_free(struct stats_snap *d)
{
	if (d == NULL)
		return;
	for (int i = 0; i < OP_COUNT; i++)
		hist_free(d->lat[i]);
	hist_free(d->tls_lat);
	hist_free(d->connect_lat);
	act_snap_free(&d->act);
	memset(d, 0, sizeof(*d));
}

void
stats_snap_clear(struct stats_snap *d)
{
	struct hist *lat[OP_COUNT];
	struct hist *tls = d->tls_lat, *conn = d->connect_lat;
	struct act_snap act = d->act;
	memcpy(lat, d->lat, sizeof(lat));
	memset(d, 0, sizeof(*d));
	d->act = act;
	act_snap_clear(&d->act);
	memcpy(d->lat, lat, sizeof(lat));
	d->tls_lat = tls;
	d->connect_lat = conn;
	for (int i = 0; i < OP_COUNT; i++)
		hist_reset(d->lat[i]);
	hist_reset(d->tls_lat);
	hist_reset(d->connect_lat);
}

void
stats_snap_clear_counts(struct stats_snap *d)
{
	struct stats_snap z;
	memset(&z, 0, sizeof(z));
	memcpy(z.lat, d->lat, sizeof(z.lat));
	z.tls_lat = d->tls_lat;
	z.connect_lat = d->connect_lat;
	/* profile mode's figures, like the histograms, keep the last full
	 * sum: the stop checks between ticks do not read them */
	z.act = d->act;
	*d = z;
}

void
stats_snap_add_live_counts(struct stats_snap *d, const struct stats *s)
{
	for (int i = 0; i < OP_COUNT; i++) {
		d->ok[i] += ctr_get(&s->ok[i]);
		d->no[i] += ctr_get(&s->no[i]);
		d->bad[i] += ctr_get(&s->bad[i]);
		d->failed[i] += ctr_get(&s->failed[i]);
		d->lat_sum_us[i] += ctr_get(&s->lat_sum_us[i]);
	}
#define X(a, n) for (int k = 0; k < (n); k++) d->a[k] += ctr_get(&s->a[k]);
	STATS_ARRAYS(X)
#undef X
#define X(f) d->f += ctr_get(&s->f);
	STATS_COUNTERS(X)
	STATS_SUM_GAUGES(X)
#undef X
	uint64_t lag = ctr_get(&s->loop_lag_max_us);
	if (lag > d->loop_lag_max_us)
		d->loop_lag_max_us = lag;
}

void
stats_snap_clear_figures(struct stats_snap *d)
{
	stats_snap_clear_counts(d);
	act_snap_clear_counts(&d->act);
}

void
stats_snap_add_live_figures(struct stats_snap *d, const struct stats *s)
{
	stats_snap_add_live_counts(d, s);
	act_snap_add_live_counts(&d->act, &s->act);
}

void
stats_snap_add_live_hists(struct stats_snap *d, const struct stats *s)
{
	for (int i = 0; i < OP_COUNT; i++)
		hist_merge(d->lat[i], s->lat[i]);
	hist_merge(d->tls_lat, s->tls_lat);
	hist_merge(d->connect_lat, s->connect_lat);
	act_snap_add_live_hists(&d->act, &s->act);
}

void
stats_snap_add_live(struct stats_snap *d, const struct stats *s)
{
	stats_snap_add_live_figures(d, s);
	stats_snap_add_live_hists(d, s);
}

void
stats_snap_add(struct stats_snap *d, const struct stats_snap *s)
{
	for (int i = 0; i < OP_COUNT; i++) {
		d->ok[i] += s->ok[i];
		d->no[i] += s->no[i];
		d->bad[i] += s->bad[i];
		d->failed[i] += s->failed[i];
		d->lat_sum_us[i] += s->lat_sum_us[i];
		hist_merge(d->lat[i], s->lat[i]);
	}
#define X(a, n) for (int k = 0; k < (n); k++) d->a[k] += s->a[k];
	STATS_ARRAYS(X)
#undef X
#define X(f) d->f += s->f;
	STATS_COUNTERS(X)
	STATS_SUM_GAUGES(X)
#undef X
	if (s->loop_lag_max_us > d->loop_lag_max_us)
		d->loop_lag_max_us = s->loop_lag_max_us;
	hist_merge(d->tls_lat, s->tls_lat);
	hist_merge(d->connect_lat, s->connect_lat);
	act_snap_add(&d->act, &s->act);
}

/* Field by field, so d may be a or b.  Counters saturate at zero: a
 * negative per-second figure can only come from snapshots given in the
 * wrong order, and a huge wrapped number would hide that worse. */
static void
diff_counters(struct stats_snap *d, const struct stats_snap *a,
	      const struct stats_snap *b)
{
	for (int i = 0; i < OP_COUNT; i++) {
		d->ok[i] = sat_sub(a->ok[i], b->ok[i]);
		d->no[i] = sat_sub(a->no[i], b->no[i]);
		d->bad[i] = sat_sub(a->bad[i], b->bad[i]);
		d->failed[i] = sat_sub(a->failed[i], b->failed[i]);
		d->lat_sum_us[i] = sat_sub(a->lat_sum_us[i], b->lat_sum_us[i]);
	}
#define X(f, n)							\
	for (int k = 0; k < (n); k++) d->f[k] = sat_sub(a->f[k], b->f[k]);
	STATS_ARRAYS(X)
#undef X
#define X(f) d->f = sat_sub(a->f, b->f);
	STATS_COUNTERS(X)
#undef X
#define X(f) d->f = a->f;
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
}

void
stats_snap_diff(struct stats_snap *d, const struct stats_snap *a,
		const struct stats_snap *b)
{
	diff_counters(d, a, b);
	for (int i = 0; i < OP_COUNT; i++)
		hist_diff(d->lat[i], a->lat[i], b->lat[i]);
	hist_diff(d->tls_lat, a->tls_lat, b->tls_lat);
	hist_diff(d->connect_lat, a->connect_lat, b->connect_lat);
	act_snap_diff(&d->act, &a->act, &b->act);
}

void
stats_snap_diff_figures(struct stats_snap *d, const struct stats_snap *a,
			const struct stats_snap *b)
{
	diff_counters(d, a, b);
	act_snap_diff_counts(&d->act, &a->act, &b->act);
}

static void
copy_counters(struct stats_snap *d, const struct stats_snap *s)
{
	memcpy(d->ok, s->ok, sizeof(d->ok));
	memcpy(d->no, s->no, sizeof(d->no));
	memcpy(d->bad, s->bad, sizeof(d->bad));
	memcpy(d->failed, s->failed, sizeof(d->failed));
	memcpy(d->lat_sum_us, s->lat_sum_us, sizeof(d->lat_sum_us));
#define X(a, n) memcpy(d->a, s->a, sizeof(d->a));
	STATS_ARRAYS(X)
#undef X
#define X(f) d->f = s->f;
	STATS_COUNTERS(X)
	STATS_SUM_GAUGES(X)
	X(loop_lag_max_us)
#undef X
}

void
stats_snap_copy(struct stats_snap *d, const struct stats_snap *s)
{
	if (d == s)
		return;
	copy_counters(d, s);
	for (int i = 0; i < OP_COUNT; i++)
		hist_copy(d->lat[i], s->lat[i]);
	hist_copy(d->tls_lat, s->tls_lat);
	hist_copy(d->connect_lat, s->connect_lat);
	act_snap_copy(&d->act, &s->act);
}

void
stats_snap_copy_figures(struct stats_snap *d, const struct stats_snap *s)
{
	if (d == s)
		return;
	copy_counters(d, s);
	act_snap_copy_counts(&d->act, &s->act);
}

uint64_t
stats_snap_total_ok(const struct stats_snap *d)
{
	uint64_t n = 0;
	for (int i = 0; i < OP_COUNT; i++)
		n += d->ok[i];
	return n;
}

/* Every counted error kind once.  ERR_LOGIN is left out: a refused login
 * is a NO reply and already sits in ERR_NO. */
uint64_t
stats_snap_total_errors(const struct stats_snap *d)
{
	uint64_t n = 0;
	for (int k = 0; k < ERR_COUNT; k++)
		if (k != ERR_LOGIN)
			n += d->errors[k];
	return n;
}

uint64_t
stats_snap_lat_count(const struct stats_snap *d, int op)
{
	return d->ok[op] + d->no[op] + d->bad[op];
}
