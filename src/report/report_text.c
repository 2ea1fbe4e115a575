/* report_text.c: imaptest's terminal layout, byte for byte where imaptest
 * defines it (header rows keep imaptest's trailing space, so output can be
 * diffed against a pasted imaptest run), then imapstress's additions at
 * the end of the tick line and the extended summary after the Totals. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/escape.h"
#include "report/report_int.h"
#include "util/units.h"

/* Short names, probabilities, and repeat chances when any state has one. */
static void
print_header(const struct derived *dv, FILE *o)
{
	bool have_again = false;

	for (int op = 0; op < OP_COUNT; op++)
		if (report_visible(dv, op))
			fprintf(o, "%s ", op_table[op].shortname);
	fputc('\n', o);
	for (int op = 0; op < OP_COUNT; op++) {
		if (!report_visible(dv, op))
			continue;
		if (dv->states[op].again != 0)
			have_again = true;
		fprintf(o, "%3d%% ", dv->states[op].prob);
	}
	fputc('\n', o);
	if (!have_again)
		return;
	for (int op = 0; op < OP_COUNT; op++) {
		if (!report_visible(dv, op))
			continue;
		if (dv->states[op].again == 0)
			fputs("     ", o);
		else
			fprintf(o, "%3d%% ", dv->states[op].again);
	}
	fputc('\n', o);
}

/* imaptest's "ms/cmd avg": mean latency per state since the last such
 * line (imaptest truncates; we round, which is the closer figure). */
static void
print_latency(const struct report *r, FILE *o)
{
	if (r->dv.color)
		fputs("\x1b[1m", o);
	for (int op = 0; op < OP_COUNT; op++) {
		if (!report_visible(&r->dv, op))
			continue;
		double ms = report_div((double)r->lat_sum_us[op],
				       (double)r->lat_cnt[op] * 1000.0);
		fprintf(o, "%4lld ", (long long)llround(ms));
	}
	fputs("ms/cmd avg", o);
	if (r->dv.color)
		fputs("\x1b[0m", o);
	fputc('\n', o);
}

static void
print_conns(const struct stats_snap *s, FILE *o)
{
	fprintf(o, "%3" PRIu64 "/%3" PRIu64, s->conns_open, s->conns_total);
}

void
report_text_tick(struct report *r, const struct report_run *run,
		 const struct stats_snap *win, const struct stats_snap *cum)
{
	const struct config *cfg = r->cfg;
	FILE *o = r->out;

	if (o == NULL || cfg->format == OUT_QUIET)
		return;
	if (r->ticks % 10 == 0) {
		/* imaptest drops the latency line when output= is given. */
		if (r->ticks > 0 && cfg->output_path == NULL)
			print_latency(r, o);
		print_header(&r->dv, o);
	}
	for (int op = 0; op < OP_COUNT; op++)
		if (report_visible(&r->dv, op))
			fprintf(o, "%4" PRIu64 " ", win->ok[op]);
	print_conns(cum, o);
	if (cum->stalled3 > 0)
		fprintf(o, " (%" PRIu64 " stalled >3s)", cum->stalled3);
	if (run->ramping)
		fprintf(o, " [%u%%]", run->ramp_pct);

	uint64_t errs = stats_snap_total_errors(win);
	if (errs > 0)
		fprintf(o, " err=%" PRIu64, errs);
	if (win->rate_missed > 0)
		fprintf(o, " late=%" PRIu64, win->rate_missed);
	if (cfg->tick_percentile > 0) {
		hist_reset(r->scratch);
		for (int op = 0; op < OP_COUNT; op++)
			hist_merge(r->scratch, win->lat[op]);
		if (hist_count(r->scratch) > 0) {
			char v[32];
			fmt_us_compact(v, sizeof(v),
				       hist_percentile(r->scratch,
						       cfg->tick_percentile));
			fprintf(o, " {p%g=%s}", cfg->tick_percentile, v);
		}
	}
	if (report_profile_on(r))
		report_profile_text_tick(r, win, cum);
	if (run->warmup)
		fputs(" (warmup)", o);
	if (run->partial_s > 0)
		fprintf(o, " (last %.2f s, drain included)", run->partial_s);
	fputc('\n', o);
	/* --server-pid: a line of its own, so the tick line stays
	 * imaptest's */
	report_server_text_tick(r, run, win);
	fflush(o);
}

static double
kbps(uint64_t bytes, double secs)
{
	return report_div((double)bytes * 8.0 / 1000.0, secs);
}

/* The widths of print_lat_row's row (text_fmt.c), then this table's own
 * columns. */
#define TABLE_HEAD							\
	"command       count   ok/s     mean      p50      p90      p95"	\
	"      p99    p99.9      max   no  bad failed\n"

/* One row per command that did anything, then the TLS handshakes: they
 * cost the server like a command and are timed the same way, but have no
 * NO/BAD (a failed one is an error of kind tls). */
static void
print_table(const struct report_run *run, const struct stats_snap *tot,
	    FILE *o)
{
	fputs(TABLE_HEAD, o);
	for (int op = 0; op < OP_COUNT; op++) {
		if (report_op_activity(tot, op) == 0)
			continue;
		print_lat_row(o, op_table[op].name,
			      report_op_activity(tot, op),
			      report_div((double)tot->ok[op], run->measured_s),
			      tot->lat[op]);
		fprintf(o, " %4" PRIu64 " %4" PRIu64 " %6" PRIu64 "\n",
			tot->no[op], tot->bad[op], tot->failed[op]);
	}
	if (tot->tls_handshakes > 0) {
		print_lat_row(o, "TLS handshake", tot->tls_handshakes,
			      report_div((double)tot->tls_handshakes,
					 run->measured_s),
			      tot->tls_lat);
		fputc('\n', o);
		if (tot->tls_resumed > 0)
			fprintf(o, "TLS sessions resumed: %" PRIu64 " of %" PRIu64
				" handshakes\n", tot->tls_resumed,
				tot->tls_handshakes);
	}
}

/* TLS and COMPRESS make the wire differ from the IMAP octets; the ratio
 * is what they cost (TLS, > 1) or save (COMPRESS, < 1). */
static void
print_bytes(const struct report_run *run, const struct stats_snap *tot,
	    FILE *o)
{
	double ks = kbps(tot->bytes_sent, run->measured_s);
	double kr = kbps(tot->bytes_received, run->measured_s);

	fprintf(o, "bytes: sent %" PRIu64 " (%.1f Kbps), received %" PRIu64
		" (%.1f Kbps); per connection: %.1f Kbps",
		tot->bytes_sent, ks, tot->bytes_received, kr,
		report_div(ks + kr, (double)run->clients));
	if (tot->imap_sent != tot->bytes_sent ||
	    tot->imap_received != tot->bytes_received)
		fprintf(o, "; IMAP octets sent %" PRIu64 ", received %" PRIu64
			" (wire/IMAP ratio %.2f)", tot->imap_sent,
			tot->imap_received,
			report_div((double)(tot->bytes_sent +
					    tot->bytes_received),
				   (double)(tot->imap_sent +
					    tot->imap_received)));
	fputc('\n', o);
}

/* Without a single greeting there is no latency to show, and "p50 0 us"
 * would read as a fast server. */
static void
print_connections(const struct stats_snap *tot, FILE *o)
{
	fprintf(o, "connections: %" PRIu64 " connects, %" PRIu64 " logins",
		tot->connects, tot->logins);
	if (hist_count(tot->connect_lat) > 0) {
		static const double pct[] = { 50, 99 };
		char p50[32], p99[32];
		uint64_t v[2];
		hist_percentiles(tot->connect_lat, pct, 2, v);
		units_fmt_us(p50, sizeof(p50), v[0]);
		units_fmt_us(p99, sizeof(p99), v[1]);
		fprintf(o, "; connect->greeting p50 %s p99 %s", p50, p99);
	}
	fputc('\n', o);
}

/* "Late" is openloop.c's threshold: sent more than 1 ms after it was due. */
static void
print_open_loop(const struct config *cfg, const struct report_run *run,
		const struct stats_snap *tot, FILE *o)
{
	char achieved[32];

	if (!(cfg->rate > 0))
		return;
	fmt_rate(achieved, sizeof(achieved), report_achieved_rate(run, tot));
	fprintf(o, "open loop: target %.15g cmd/s, achieved %s cmd/s, %"
		PRIu64 " sent late (>1 ms after due)\n", cfg->rate, achieved,
		tot->rate_missed);
}

static void
print_sla(struct report *r, const struct report_run *run,
	  const struct stats_snap *tot, FILE *o)
{
	for (unsigned i = 0; i < r->cfg->n_slas && i < CONFIG_MAX_SLA; i++) {
		const struct sla *sla = &r->cfg->slas[i];
		uint64_t n;
		uint64_t v = report_sla_actual(r, run, tot, i, &n);
		bool ok = report_sla_ok(r, run, tot, i);
		char actual[32], text[256];
		units_fmt_us(actual, sizeof(actual), v);
		/* Typed by the user: it reaches the terminal escaped. */
		escape_text(text, sizeof(text), sla->text, strlen(sla->text));
		fprintf(o, "SLA %s: %s (", text, ok ? "ok" : "FAILED");
		if (n == 0)
			fputs("no samples)\n", o);
		else
			fprintf(o, "actual %s)\n", actual);
	}
}

/* The state errors by sub-kind, when there were any: those that
 * happened, so the line says at once which checks fired. */
static void
print_state_kinds(const struct stats_snap *tot, FILE *o)
{
	if (tot->errors[ERR_MBOXSTATE] == 0)
		return;
	fputs("state errors by kind:", o);
	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		if (tot->state[k] > 0)
			fprintf(o, " %s=%" PRIu64, mbox_err_name((enum mbox_err)k),
				tot->state[k]);
	fputc('\n', o);
}

/* --msg-sizes or a profile's msg_sizes: what was asked for, and the
 * mean of what was stored. */
static void
print_msg_sizes(const struct msg_sizes *s, const struct stats_snap *tot,
		FILE *o)
{
	char spec[MSG_SIZES_MAX * 24], want[32], got[32];

	if (s->n == 0)
		return;
	msg_sizes_format(s, spec, sizeof(spec));
	units_fmt_size(want, sizeof(want),
		       (uint64_t)(msg_sizes_mean(s) + 0.5));
	units_fmt_size(got, sizeof(got), tot->append_msgs ?
		       tot->append_bytes / tot->append_msgs : 0);
	fprintf(o, "message sizes: %s (mean %s); appended mean "
		"%s\n", spec, want, got);
}

static void
print_summary(struct report *r, const struct report_run *run,
	      const struct stats_snap *tot, FILE *o)
{
	fputc('\n', o);
	print_table(run, tot, o);
	fputc('\n', o);
	if (report_profile_on(r))
		report_profile_text_final(r, run, tot);

	if (tot->ok[OP_APPEND] > 0 || tot->append_msgs > 0) {
		char size[32];
		units_fmt_size(size, sizeof(size), tot->append_bytes);
		fprintf(o, "messages appended: %" PRIu64 " (%s in APPEND "
			"bodies, %.2f per APPEND command)\n",
			tot->append_msgs, size,
			report_div((double)tot->append_msgs,
				   (double)tot->ok[OP_APPEND]));
		print_msg_sizes(&r->dv.msg_sizes, tot, o);
	}
	if (tot->failed[OP_APPEND] > 0)
		fprintf(o, "unanswered: %" PRIu64 " APPEND commands got no reply "
			"before their connection closed: the server may hold "
			"them (not in messages appended)\n",
			tot->failed[OP_APPEND]);

	print_bytes(run, tot, o);
	print_connections(tot, o);
	print_open_loop(r->cfg, run, tot, o);

	/* Every kind, zeros included: a kind that is missing from one run's
	 * summary would look like it had not been checked. */
	fputs("errors:", o);
	for (int k = 0; k < ERR_COUNT; k++)
		fprintf(o, " %s=%" PRIu64, err_kind_name[k], tot->errors[k]);
	fputc('\n', o);
	print_state_kinds(tot, o);
	fputs("benign NO codes (not errors):", o);
	for (int k = 0; k < BENIGN_COUNT; k++)
		fprintf(o, " %s=%" PRIu64, benign_code_name[k], tot->benign[k]);
	fputc('\n', o);
	if (tot->ports_exhausted > 0)
		fprintf(o, "OUT OF LOCAL PORTS: %" PRIu64 " connection attempts "
			"found no free port (EADDRNOTAVAIL): the load was smaller "
			"than asked; add --source addresses or shards\n",
			tot->ports_exhausted);
	if (tot->state[MBOX_ERR_UNANNOUNCED] > 0)
		fprintf(o, "server deviation: %" PRIu64 " of the state errors "
			"are unannounced-after-status: messages numbered with "
			"no EXISTS announcing them, after a STATUS of the "
			"selected mailbox (Cyrus 3.6 does this; see TESTED "
			"SERVERS in imapstress(1))\n",
			tot->state[MBOX_ERR_UNANNOUNCED]);
	if (tot->untracked_fetches > 0)
		fprintf(o, "untracked: %" PRIu64 " FETCH answers were checked "
			"but not kept (messages past --track-max in a mailbox "
			"view)\n", tot->untracked_fetches);
	if (run->unfinished > 0)
		fprintf(o, "unfinished: %" PRIu64 " commands still had no reply "
			"when the run ended\n", (uint64_t)run->unfinished);

	fprintf(o, "measured: %.1f s (from t=%.1f s to t=%.1f s), "
		"clients=%u, workers=%u\n",
		run->measured_s, run->measured_from_s,
		run->measured_from_s + run->measured_s,
		run->clients, run->workers);

	fprintf(o, "client cpu: user %.2f s, sys %.2f s, %.1f us per command;"
		" peak RSS %.1f MiB\n",
		(double)run->cpu_user_us / 1e6, (double)run->cpu_sys_us / 1e6,
		report_div((double)(run->cpu_user_us + run->cpu_sys_us),
			   (double)report_commands(tot)),
		(double)run->peak_rss_kb / 1024.0);
	if (run->self_limited) {
		uint64_t lag = run->loop_lag_max_us > tot->loop_lag_max_us ?
			run->loop_lag_max_us : tot->loop_lag_max_us;
		double cpu = isfinite(run->cpu_pct) ? run->cpu_pct : 0.0;
		if (cpu > 80.0)
			fprintf(o, "Warning: imapstress itself was saturated (cpu "
				"%.0f%%, loop lag %.0f ms): numbers describe the "
				"tester, not the server\n", cpu, (double)lag / 1000.0);
		else
			/* Our loop ran late while we used little CPU: the
			 * machine (often the server under test) kept us off
			 * the cores, and latencies include that wait. */
			fprintf(o, "Warning: imapstress's event loop ran up to "
				"%.0f ms late (cpu %.0f%%): the machine is busy, so "
				"latencies include client-side delay; run the "
				"tester on other cores or another host\n",
				(double)lag / 1000.0, cpu);
	}
	if (report_server_shown(r->cfg))
		report_server_text_final(run, tot, o);
	report_score_text(r, tot, o);
	print_sla(r, run, tot, o);
}

void
report_text_final(struct report *r, const struct report_run *run,
		  const struct stats_snap *tot)
{
	FILE *o = r->out;

	if (o == NULL)
		return;
	/* imaptest prints this last line even with output=. */
	print_latency(r, o);
	fputs("\nTotals:\n", o);
	print_header(&r->dv, o);
	for (int op = 0; op < OP_COUNT; op++)
		if (report_visible(&r->dv, op))
			fprintf(o, "%4" PRIu64 " ", tot->ok[op]);
	/* imaptest ends the row after the last count (its trailing space
	 * kept): a connection count means nothing for a whole run. */
	fputc('\n', o);
	print_summary(r, run, tot, o);
	fflush(o);
}
