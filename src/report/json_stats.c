/* json_stats.c: the shapes the JSON writers give the statistics, the
 * same in --json's ticks and summary, profile mode's actions and POP3's
 * commands: a counter set under its names, a histogram's latency set, a
 * command's object (report_int.h).  Below the writers: it calls only
 * json_write.c and report_calc.c of report/. */
#include "report/report_int.h"

void
json_named(FILE *f, const char *key, const char *const *names,
	   const uint64_t *v, int n)
{
	json_key(f, key);
	fputc('{', f);
	for (int k = 0; k < n; k++) {
		if (k > 0)
			fputc(',', f);
		json_u64(f, names[k], v[k]);
	}
	fputc('}', f);
}

/* "key":{"mean":..,"p50":..,"p90":..,"p95":..,"p99":..,"p999":..,"max":..},
 * the same set for every histogram in the summary. */
void
json_latency(FILE *f, const char *key, const struct hist *h)
{
	static const char *const keys[HIST_ROW_PCTS] = {
		"p50", "p90", "p95", "p99", "p999",
	};
	uint64_t v[HIST_ROW_PCTS];

	hist_row_percentiles(h, v);
	json_key(f, key);
	fputs("{\"mean\":", f);
	json_num(f, hist_mean(h));
	for (size_t i = 0; i < HIST_ROW_PCTS; i++) {
		fputc(',', f);
		json_u64(f, keys[i], v[i]);
	}
	fputc(',', f);
	json_u64(f, "max", hist_max(h));
	fputc('}', f);
}

void
json_pcts(FILE *f, const struct hist *h)
{
	uint64_t v[3];

	hist_p50_p95_p99(h, v);
	json_u64(f, "p50_us", v[0]);
	fputc(',', f);
	json_u64(f, "p95_us", v[1]);
	fputc(',', f);
	json_u64(f, "p99_us", v[2]);
	fputc(',', f);
	json_u64(f, "max_us", hist_max(h));
}

void
json_cmd(FILE *f, const char **sep, const char *name,
	 const char *const *keys, const uint64_t *v, int n,
	 const struct hist *h, const struct report_run *run)
{
	fputs(*sep, f);
	*sep = ",";
	json_key(f, name);
	fputc('{', f);
	for (int i = 0; i < n; i++) {
		json_u64(f, keys[i], v[i]);
		fputc(',', f);
	}
	if (run != NULL) {
		fputs("\"rate\":", f);
		json_num(f, report_div((double)v[0], run->measured_s));
		fputc(',', f);
		json_latency(f, "latency_us", h);
	} else {
		json_pcts(f, h);
	}
	fputc('}', f);
}
