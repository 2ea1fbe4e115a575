/* report_push.c: IDLE against NOTIFY (profile key push), side by side:
 * how many deliveries each mechanism's clients saw announced and missed,
 * and the latency from LMTP's 250 to the announcement (EXISTS, or under
 * NOTIFY the STATUS of INBOX) and to the FETCH.  Shown only when a
 * NOTIFY client took part, so an IDLE-only run prints what it did. */
#include <inttypes.h>

#include "report/report_int.h"
#include "util/units.h"

bool
report_push_notify_on(const struct act_snap *a)
{
	return hist_count(a->push[PUSH_NOTIFY_EXISTS]) +
	    hist_count(a->push[PUSH_NOTIFY_FETCH]) + a->push_missed_notify +
	    a->notify_refused + a->notify_overflow > 0;
}

static void
row_pct(FILE *o, const char *name, const struct hist *h[PUSH_MECHS],
	double pct)
{
	fprintf(o, "%-16s", name);
	for (int m = 0; m < PUSH_MECHS; m++) {
		char v[32];
		if (hist_count(h[m]) == 0)
			snprintf(v, sizeof(v), "-");
		else if (pct >= 100)
			units_fmt_us(v, sizeof(v), hist_max(h[m]));
		else
			units_fmt_us(v, sizeof(v), hist_percentile(h[m], pct));
		fprintf(o, " %10s", v);
	}
	fputc('\n', o);
}

static void
row_count(FILE *o, const char *name, const uint64_t v[PUSH_MECHS])
{
	fprintf(o, "%-16s", name);
	for (int m = 0; m < PUSH_MECHS; m++)
		fprintf(o, " %10" PRIu64, v[m]);
	fputc('\n', o);
}

void
report_push_text(const struct act_snap *a, FILE *o)
{
	static const double pcts[] = { 50, 95, 99, 100 };
	static const char *const names[2][4] = {
		{ "250->seen p50", "250->seen p95", "250->seen p99",
		  "250->seen max" },
		{ "250->FETCH p50", "250->FETCH p95", "250->FETCH p99",
		  "250->FETCH max" },
	};
	if (!report_push_notify_on(a))
		return;
	fprintf(o, "%-16s %10s %10s\n", "push by", "IDLE", "NOTIFY");
	const uint64_t seen[PUSH_MECHS] = {
		hist_count(a->push[PUSH_EXISTS]),
		hist_count(a->push[PUSH_NOTIFY_EXISTS]),
	};
	const uint64_t missed[PUSH_MECHS] = {
		a->push_missed, a->push_missed_notify,
	};
	row_count(o, "seen", seen);
	row_count(o, "missed", missed);
	for (int step = 0; step < 2; step++) {
		const struct hist *h[PUSH_MECHS] = {
			a->push[push_kind_of(PUSH_M_IDLE, (enum push_kind)step)],
			a->push[push_kind_of(PUSH_M_NOTIFY, (enum push_kind)step)],
		};
		for (int i = 0; i < 4; i++)
			row_pct(o, names[step][i], h, pcts[i]);
	}
	fprintf(o, "NOTIFY: %" PRIu64 " sessions could not set it up (waited "
		"in IDLE, counted as IDLE), %" PRIu64
		" NOTIFICATIONOVERFLOW\n", a->notify_refused,
		a->notify_overflow);
}

void
report_push_json(FILE *f, const struct act_snap *a)
{
	const char *sep = "";
	fputs(",\"notify\":{", f);
#define X(n) fputs(sep, f); sep = ","; json_u64(f, #n, a->n);
	ACT_NOTIFY_COUNTERS(X)
#undef X
	fputc('}', f);
}

static const char *const csv_cols[] = {
	"push_missed_notify", "notify_refused", "notify_overflow",
	"push_unseen_end", "push_notify_exists_count", "push_notify_exists_p50_us",
	"push_notify_exists_p95_us", "push_notify_exists_p99_us",
	"push_notify_exists_max_us", "push_notify_fetch_count",
	"push_notify_fetch_p50_us", "push_notify_fetch_p95_us",
	"push_notify_fetch_p99_us", "push_notify_fetch_max_us",
};

void
report_push_csv_header(FILE *f)
{
	for (size_t i = 0; i < sizeof(csv_cols) / sizeof(csv_cols[0]); i++)
		fprintf(f, ",%s", csv_cols[i]);
}

void
report_push_csv_row(FILE *f, const struct act_snap *a,
		    void (*hist_cols)(FILE *, const struct hist *))
{
	/* csv_cols order */
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		a->push_missed_notify, a->notify_refused, a->notify_overflow,
		a->push_unseen_end);
	hist_cols(f, a->push[PUSH_NOTIFY_EXISTS]);
	hist_cols(f, a->push[PUSH_NOTIFY_FETCH]);
}
