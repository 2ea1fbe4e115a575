/* report_json.c: --json, one JSON object per line: a "tick" per second and
 * a "summary" at the end.  Every line is flushed as it is written, so a
 * run that gets killed keeps everything up to its last second.  Numbers
 * are always finite (JSON has no NaN): whatever cannot be computed is 0. */
#include <inttypes.h>

#include "report/report_int.h"

static void
json_errors(FILE *f, const struct stats_snap *s)
{
	const char *state_names[MBOX_ERR_COUNT];

	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		state_names[k] = mbox_err_name((enum mbox_err)k);
	json_named(f, "errors", err_kind_name, s->errors, ERR_COUNT);
	/* Benign NOs by code, beside the errors they are not; the state
	 * errors by sub-kind, which add up to errors.state. */
	fputc(',', f);
	json_named(f, "benign_codes", benign_code_name, s->benign,
		   BENIGN_COUNT);
	fputc(',', f);
	json_named(f, "state_kinds", state_names, s->state, MBOX_ERR_COUNT);
}

/* "commands":{...}: each IMAP command that ended at all (json_cmd). */
static void
json_commands(FILE *f, const struct stats_snap *s,
	      const struct report_run *run)
{
	static const char *const keys[] = { "ok", "no", "bad", "failed" };
	const char *sep = "";

	fputs("\"commands\":{", f);
	for (int op = 0; op < OP_COUNT; op++) {
		if (report_op_activity(s, op) == 0)
			continue;
		const uint64_t v[] = { s->ok[op], s->no[op], s->bad[op],
				       s->failed[op] };
		json_cmd(f, &sep, op_table[op].name, keys, v, 4, s->lat[op],
			 run);
	}
	fputc('}', f);
}

/* ,"bytes":{...}, between the errors and the messages. */
static void
json_bytes(FILE *f, const struct stats_snap *s)
{
	fprintf(f, ",\"bytes\":{\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		",\"imap_sent\":%" PRIu64 ",\"imap_received\":%" PRIu64 "},",
		s->bytes_sent, s->bytes_received, s->imap_sent,
		s->imap_received);
}

/* Only with checkpoint=, like open_loop: absent means none were run. */
static void
json_checkpoints(FILE *f, const struct config *cfg,
		 const struct stats_snap *s)
{
	if (cfg->checkpoint_secs == 0)
		return;
	fputc(',', f);
	json_u64(f, "checkpoints", s->checkpoints);
}

void
report_json_tick(struct report *r, const struct report_run *run,
		 const struct stats_snap *win, const struct stats_snap *cum)
{
	FILE *f = r->json;

	fputs("{\"type\":\"tick\",\"t\":", f);
	json_num(f, run->elapsed_s);
	fprintf(f, ",\"warmup\":%s,", run->warmup ? "true" : "false");
	if (run->partial_s > 0) {
		/* The last tick: since the previous one, drain included. */
		fputs("\"partial_s\":", f);
		json_num(f, run->partial_s);
		fputc(',', f);
	}
	json_u64(f, "conns_open", cum->conns_open);
	fputc(',', f);
	json_u64(f, "conns_total", cum->conns_total);
	fputc(',', f);
	json_u64(f, "stalled", cum->stalled3);
	fputc(',', f);
	json_u64(f, "clients_in", cum->clients_in);
	fputc(',', f);
	json_commands(f, win, NULL);
	fputc(',', f);
	json_errors(f, win);
	json_bytes(f, win);
	json_u64(f, "messages_appended", win->append_msgs);
	fputc(',', f);
	json_u64(f, "rate_missed", win->rate_missed);
	json_checkpoints(f, r->cfg, win);
	fputs(",\"cpu_pct\":", f);
	json_num(f, run->cpu_pct);
	fputc(',', f);
	json_u64(f, "loop_lag_max_us",
		 run->loop_lag_max_us > win->loop_lag_max_us ?
		 run->loop_lag_max_us : win->loop_lag_max_us);
	if (report_server_shown(r->cfg))
		report_server_json(f, run, win, run->partial_s > 0 ?
				   run->partial_s : 1.0, false);
	if (report_profile_on(r))
		report_profile_json_tick(r, win, cum);
	fputs("}\n", f);
	fflush(f);
}

static void
json_summary_sla(FILE *f, struct report *r, const struct report_run *run,
		 const struct stats_snap *tot)
{
	fputs("\"sla\":[", f);
	for (unsigned i = 0; i < r->cfg->n_slas && i < CONFIG_MAX_SLA; i++) {
		uint64_t n;
		uint64_t v = report_sla_actual(r, run, tot, i, &n);
		if (i > 0)
			fputc(',', f);
		fputs("{\"expr\":", f);
		json_str(f, r->cfg->slas[i].text);
		fprintf(f, ",\"ok\":%s,",
			report_sla_ok(r, run, tot, i) ? "true" : "false");
		json_u64(f, "actual_us", v);
		fputc(',', f);
		json_u64(f, "samples", n);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Present only when TLS was used, so "tls" in a summary means it was. */
static void
json_summary_tls(FILE *f, const struct stats_snap *tot)
{
	if (tot->tls_handshakes == 0)
		return;
	fputs(",\"tls\":{", f);
	json_u64(f, "handshakes", tot->tls_handshakes);
	fputc(',', f);
	json_u64(f, "resumed", tot->tls_resumed);
	fputc(',', f);
	json_latency(f, "latency_us", tot->tls_lat);
	fputc('}', f);
}

/* Absent (rather than null) in a closed-loop run: a reader tests for the
 * key, and no closed-loop figure would be meaningful under it. */
static void
json_summary_open_loop(FILE *f, const struct config *cfg,
		       const struct report_run *run,
		       const struct stats_snap *tot)
{
	if (!(cfg->rate > 0))
		return;
	fputs(",\"open_loop\":{\"target_rate\":", f);
	json_num(f, cfg->rate);
	fputs(",\"achieved_rate\":", f);
	json_num(f, report_achieved_rate(run, tot));
	fputc(',', f);
	json_u64(f, "late", tot->rate_missed);
	fputc('}', f);
}

/* --msg-sizes or a profile's msg_sizes: the distribution asked for and the mean size of what the
 * run's APPENDs stored ("msg_sizes":{...},), nothing without it. */
static void
json_msg_sizes(FILE *f, const struct msg_sizes *s, const struct stats_snap *tot)
{
	char spec[MSG_SIZES_MAX * 24];

	if (s->n == 0)
		return;
	msg_sizes_format(s, spec, sizeof(spec));
	fputs("\"msg_sizes\":{\"spec\":", f);
	json_str(f, spec);
	fputs(",\"mean\":", f);
	json_num(f, msg_sizes_mean(s));
	fputs(",\"appended_mean\":", f);
	json_num(f, report_div((double)tot->append_bytes,
			       (double)tot->append_msgs));
	fputs("},", f);
}

void
report_json_final(struct report *r, const struct report_run *run,
		  const struct stats_snap *tot)
{
	FILE *f = r->json;

	fputs("{\"type\":\"summary\",\"duration_s\":", f);
	json_num(f, run->elapsed_s);
	fputs(",\"measured_from_s\":", f);
	json_num(f, run->measured_from_s);
	fputs(",\"measured_s\":", f);
	json_num(f, run->measured_s);
	fprintf(f, ",\"clients\":%u,\"workers\":%u,", run->clients,
		run->workers);
	json_commands(f, tot, run);
	fputc(',', f);
	json_errors(f, tot);
	json_bytes(f, tot);
	json_u64(f, "messages_appended", tot->append_msgs);
	fputc(',', f);
	json_u64(f, "append_bytes", tot->append_bytes);
	fputc(',', f);
	json_msg_sizes(f, &r->dv.msg_sizes, tot);
	json_u64(f, "connects", tot->connects);
	fputc(',', f);
	json_u64(f, "logins", tot->logins);
	fputc(',', f);
	json_u64(f, "clients_in", tot->clients_in);
	fputc(',', f);

	json_latency(f, "connect_latency_us", tot->connect_lat);
	json_summary_tls(f, tot);
	json_summary_open_loop(f, r->cfg, run, tot);
	if (report_profile_on(r))
		report_profile_json_final(r, run, tot);
	fputc(',', f);
	json_u64(f, "unfinished", run->unfinished);
	fputc(',', f);
	json_u64(f, "ports_exhausted", tot->ports_exhausted);
	fputc(',', f);
	json_u64(f, "untracked_fetches", tot->untracked_fetches);
	fputc(',', f);
	json_u64(f, "state_unannounced", tot->state[MBOX_ERR_UNANNOUNCED]);
	json_checkpoints(f, r->cfg, tot);
	fputs(",\"cpu\":{\"user_s\":", f);
	json_num(f, (double)run->cpu_user_us / 1e6);
	fputs(",\"sys_s\":", f);
	json_num(f, (double)run->cpu_sys_us / 1e6);
	fputs(",\"us_per_command\":", f);
	json_num(f, report_div((double)(run->cpu_user_us + run->cpu_sys_us),
			       (double)report_commands(tot)));
	fputs("},", f);
	json_u64(f, "peak_rss_kb", run->peak_rss_kb);
	fprintf(f, ",\"self_limited\":%s,",
		run->self_limited ? "true" : "false");
	json_summary_sla(f, r, run, tot);
	if (report_server_shown(r->cfg))
		report_server_json(f, run, tot, run->measured_s, true);
	report_score_json(r, f, tot);
	fprintf(f, ",\"exit_status\":%d,\"stop_reason\":", run->exit_status);
	json_str(f, run->stop_reason);
	fputs("}\n", f);
	fflush(f);
}
