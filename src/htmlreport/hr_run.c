/* hr_run.c: the page of one run (its --json lines, or result files
 * merged): settings, throughput and latency per command over time, the
 * latency distribution, errors by kind and sub-kind, connections; the
 * server's and the profile's sections come from hr_run_profile.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"

static void
settings(struct hbuf *b, const struct hr_run *r)
{
	const struct jv *s = r->has_summary ? &r->summary : NULL;
	char buf[128];

	hr_section(b, "run", "The run");
	hb_put(b, "<table class=\"settings\" data-table=\"run\">\n");
	hr_kv(b, "input", r->sources);
	if (r->args != NULL)
		hr_kv(b, "settings (command line)", r->args);
	if (r->mode != NULL)
		hr_kv(b, "mode", r->mode);
	if (s == NULL) {
		hb_put(b, "</table><p class=\"note\">No summary line: the run "
		       "was cut short.  The charts show its ");
		hb_printf(b, "%zu seconds.</p>\n", r->nt);
		return;
	}
	hr_kv_num(b, "duration", jv_num(jv_get(s, "duration_s"), NAN), "s");
	hr_kv_num(b, "measured", jv_num(jv_get(s, "measured_s"), NAN), "s");
	hr_kv_num(b, "measured from", jv_num(jv_get(s, "measured_from_s"),
					     NAN), "s");
	hr_kv_num(b, "clients", jv_num(jv_get(s, "clients"), NAN), "");
	hr_kv_num(b, "workers", jv_num(jv_get(s, "workers"), NAN), "");
	const struct jv *ol = jv_get(s, "open_loop");
	if (ol != NULL) {
		hr_kv_num(b, "target rate", jv_num(jv_get(ol, "target_rate"),
						   NAN), "commands/s");
		hr_kv_num(b, "achieved rate", jv_num(jv_get(ol,
			  "achieved_rate"), NAN), "commands/s");
	}
	hr_kv_num(b, "exit status", jv_num(jv_get(s, "exit_status"), NAN),
		  "");
	hr_kv(b, "stopped by", jv_str(jv_get(s, "stop_reason")));
	hr_kv_num(b, "client CPU user", jv_num(jv_at(s, "cpu", "user_s",
			  NULL), NAN), "s");
	hr_kv_num(b, "client CPU sys", jv_num(jv_at(s, "cpu", "sys_s", NULL),
					      NAN), "s");
	hr_kv_num(b, "client peak RSS", jv_num(jv_get(s, "peak_rss_kb"), NAN),
		  "KiB");
	const struct jv *sl = jv_get(s, "self_limited");
	hr_kv(b, "client-limited", sl != NULL && sl->b ? "yes: its event loop "
	      "ran late, latencies include client-side delay" : "no");
	hr_kv_num(b, "bytes sent", jv_num(jv_at(s, "bytes", "sent", NULL),
					  NAN), "B");
	hr_kv_num(b, "bytes received", jv_num(jv_at(s, "bytes", "received",
			  NULL), NAN), "B");
	const struct jv *sla = jv_get(s, "sla");
	for (size_t i = 0; sla != NULL && sla->t == J_ARR && i < sla->nk;
	     i++) {
		const struct jv *e = &sla->kids[i];
		const struct jv *ok = jv_get(e, "ok");
		snprintf(buf, sizeof(buf), "%s (actual %.0f us)",
			 ok != NULL && ok->b ? "met" : "MISSED",
			 jv_num(jv_get(e, "actual_us"), 0));
		char key[160];
		snprintf(key, sizeof(key), "SLA %.140s",
			 jv_str(jv_get(e, "expr")) ? jv_str(jv_get(e, "expr"))
						   : "?");
		hr_kv(b, key, buf);
	}
	const struct jv *sc = jv_at(s, "score", "score_us", NULL);
	if (sc != NULL && sc->t == J_NUM)
		hr_kv_num(b, "score (LoadSim, weighted p95)", sc->n / 1000,
			  "ms");
	hb_put(b, "</table>\n");
}

/* From the result files' histograms: the whole curve. */
static void
dist_chart(struct hbuf *b, const struct hr_run *r)
{
	struct hr_chart c = { "distribution", "Latency distribution per "
			      "command (whole run, every percentile the "
			      "histograms tell)", "percentile (log scale: each "
			      "step one more nine)", "latency (ms, log scale)",
			      1e-3, true, true, 0, NULL, false, 0 };

	for (size_t i = 0; i < r->n_dist; i++) {
		const struct hr_dist *d = &r->dist[i];
		struct hr_series *s = hr_chart_add(&c, d->name, d->n);
		memcpy(s->x, d->p, d->n * sizeof(double));
		memcpy(s->y, d->us, d->n * sizeof(double));
	}
	hr_line_chart(b, &c);
	hr_chart_free(&c);
}

static void
commands(struct hbuf *b, const struct hr_run *r)
{
	size_t n;
	const char *cp[] = { "commands", NULL };
	const char **cmds = hr_keys(r, cp, &n);
	struct hr_chart c = { "throughput", "Throughput per command",
			      "time (s since start)", "OK replies per second",
			      1, false, false, 0, NULL, false, 0 };

	hr_section(b, "commands", "Commands");
	if (n == 0) {
		/* A profile run of POP3 users only: no empty IMAP charts. */
		hb_put(b, "<p class=\"note\" data-commands=\"0\">No IMAP "
		       "command in the whole run.</p>\n");
		hr_section(b, "latency", "Latency");
		hb_put(b, "<p class=\"note\">No IMAP command, so no IMAP "
		       "latency (a POP3 run's are in its section).</p>\n");
		free(cmds);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path[] = { "commands", cmds[i], "ok", NULL };
		hr_tick_series(&c, r, cmds[i], path, true, true);
	}
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	if (r->has_summary)
		hr_latency_table(b, "commands", jv_get(&r->summary,
						       "commands"));
	hr_section(b, "latency", "Latency");
	if (r->n_dist > 0)
		dist_chart(b, r);
	else if (r->has_summary)
		hr_pct_chart(b, "distribution", "Latency distribution per "
			     "command (whole run)", jv_get(&r->summary,
							   "commands"),
			     "latency_us");
	hr_p3_charts(b, r, "latency", "", cp);
	free(cmds);
}

/* Every counter under key with a non-zero total, as series over time. */
static size_t
error_series(struct hr_chart *c, const struct hr_run *r, const char *key,
	     const char *prefix)
{
	size_t n, added = 0;
	const char *kp[] = { key, NULL };
	const char **k = hr_keys(r, kp, &n);
	char name[128];

	for (size_t i = 0; i < n; i++) {
		const char *path[] = { key, k[i], NULL };
		double tot = 0;
		for (size_t t = 0; t < r->nt; t++) {
			double v = hr_tick_val(r, t, path);
			tot += isfinite(v) ? v : 0;
		}
		if (r->has_summary)
			tot += jv_num(jv_at(&r->summary, key, k[i], NULL), 0);
		if (tot == 0)
			continue;
		snprintf(name, sizeof(name), "%s%.100s", prefix, k[i]);
		hr_tick_series(c, r, name, path, true, true);
		added++;
	}
	free(k);
	return added;
}

static void
totals_table(struct hbuf *b, const char *id, const char *head,
	     const struct jv *o)
{
	if (o == NULL || o->t != J_OBJ)
		return;
	hr_table_open(b, id, head);
	for (size_t i = 0; i < o->nk; i++) {
		double v = jv_num(&o->kids[i], NAN);
		hr_row_open(b, o->keys[i]);
		hr_num_cell(b, NULL, v, v);
		hb_put(b, "</tr>\n");
	}
	hb_put(b, "</table>\n");
}

static void
errors(struct hbuf *b, const struct hr_run *r)
{
	struct hr_chart c = { "errors", "Errors by kind and sub-kind",
			      "time (s since start)", "errors per second", 1,
			      false, false, 0, NULL, false, 0 };

	hr_section(b, "errors", "Errors");
	error_series(&c, r, "errors", "");
	error_series(&c, r, "state_kinds", "state/");
	error_series(&c, r, "benign_codes", "benign NO/");
	if (c.ns == 0)
		hb_put(b, "<p class=\"note\" data-errors=\"0\">No errors and no "
		       "benign NO replies in the whole run.</p>\n");
	else
		hr_line_chart(b, &c);
	hr_chart_free(&c);
	if (!r->has_summary)
		return;
	hb_put(b, "<div class=\"cols\">");
	totals_table(b, "errors", "error kind|whole run",
		     jv_get(&r->summary, "errors"));
	totals_table(b, "state_kinds", "state error sub-kind|whole run",
		     jv_get(&r->summary, "state_kinds"));
	totals_table(b, "benign_codes", "benign NO code (not an error)|"
		     "whole run", jv_get(&r->summary, "benign_codes"));
	hb_put(b, "</div>\n");
}

static void
connections(struct hbuf *b, const struct hr_run *r)
{
	static const char *const op[] = { "conns_open", NULL };
	static const char *const tot[] = { "conns_total", NULL };
	static const char *const st[] = { "stalled", NULL };
	static const char *const ui[] = { "profile", "users_in", NULL };
	struct hr_chart c = { "connections", "Connections", "time (s since "
			      "start)", "connections", 1, false, false, 0,
			      NULL, false, 0 };

	hr_section(b, "connections", "Connections and logins");
	hr_tick_series(&c, r, "past the greeting", op, false, false);
	hr_tick_series(&c, r, "existing", tot, false, false);
	hr_tick_series(&c, r, "stalled over 3 s", st, false, false);
	if (r->nt > 0 && isfinite(hr_tick_val(r, 0, ui)))
		hr_tick_series(&c, r, "users logged in", ui, false, false);
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	if (!r->has_summary)
		return;
	const struct jv *s = &r->summary;
	hb_put(b, "<table class=\"settings\" data-table=\"connections\">");
	hr_kv_num(b, "connects", jv_num(jv_get(s, "connects"), NAN), "");
	hr_kv_num(b, "logins", jv_num(jv_get(s, "logins"), NAN), "");
	hr_kv_num(b, "connect to greeting p50", jv_num(jv_at(s,
		  "connect_latency_us", "p50", NULL), NAN) / 1000, "ms");
	hr_kv_num(b, "connect to greeting p99", jv_num(jv_at(s,
		  "connect_latency_us", "p99", NULL), NAN) / 1000, "ms");
	if (jv_get(s, "tls") != NULL) {
		hr_kv_num(b, "TLS handshakes", jv_num(jv_at(s, "tls",
			  "handshakes", NULL), NAN), "");
		hr_kv_num(b, "TLS resumed", jv_num(jv_at(s, "tls", "resumed",
			  NULL), NAN), "");
	}
	hb_put(b, "</table>\n");
}

static void
client(struct hbuf *b, const struct hr_run *r)
{
	static const char *const cpu[] = { "cpu_pct", NULL };
	static const char *const lag[] = { "loop_lag_max_us", NULL };
	struct hr_chart c = { "client-cpu", "imapstress's own CPU",
			      "time (s since start)", "CPU (%, 100 = one core)",
			      1, false, false, 0, NULL, false, 0 };
	struct hr_chart l = { "client-lag", "imapstress's event loop: "
			      "latest it ran in each second",
			      "time (s since start)", "lateness (ms)", 1e-3,
			      false, false, 0, NULL, false, 0 };

	hr_section(b, "client", "The load generator itself");
	hr_tick_series(&c, r, "cpu", cpu, false, false);
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	hr_tick_series(&l, r, "loop lag max", lag, false, false);
	hr_line_chart(b, &l);
	hr_chart_free(&l);
}

void
hr_run_page(struct hbuf *b, const struct hr_run *r)
{
	bool pop3 = hr_run_has_pop3(r);

	hb_put(b, "<nav><a href=\"#run\">run</a><a href=\"#commands\">"
	       "commands</a><a href=\"#latency\">latency</a><a href=\""
	       "#errors\">errors</a><a href=\"#connections\">connections</a>"
	       "<a href=\"#server\">server</a><a href=\"#profile\">profile"
	       "</a>");
	if (pop3)
		hb_put(b, "<a href=\"#pop3\">POP3</a>");
	hb_put(b, "</nav>\n");
	settings(b, r);
	commands(b, r);
	errors(b, r);
	connections(b, r);
	hr_run_server(b, r);
	hr_run_profile(b, r);
	if (pop3)
		hr_run_pop3(b, r);
	client(b, r);
}
