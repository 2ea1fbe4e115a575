/* hr_run_profile.c: the run page's sections that only some runs have:
 * the server's counters (--server-pid) and a profile's actions, push
 * (IDLE) and delivery latencies and LMTP deliveries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "htmlreport/hr_int.h"

static bool
sampled(const struct hr_run *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		const struct jv *v = jv_at(&r->ticks[i], "server", "sampled",
					   NULL);
		if (v != NULL && v->b)
			return true;
	}
	return false;
}

void
hr_run_server(struct hbuf *b, const struct hr_run *r)
{
	static const char *const cpu[] = { "server", "cpu_pct", NULL };
	static const char *const mem[] = { "server", "mem_kb", NULL };
	static const char *const rd[] = { "server", "disk_read_bytes", NULL };
	static const char *const wr[] = { "server", "disk_write_bytes", NULL };
	static const char *const net[] = { "server", "net_kbps", NULL };

	hr_section(b, "server", "The server");
	if (!sampled(r)) {
		hb_put(b, "<p class=\"note\">The server's processor, memory "
		       "and disk were not sampled (give --server-pid).</p>\n");
		return;
	}
	struct hr_chart c = { "server-cpu", "Server CPU", "time (s since "
			      "start)", "CPU (%, 100 = one core)", 1, false,
			      false, 0, NULL, false, 0 };
	hr_tick_series(&c, r, "server cpu", cpu, false, false);
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	struct hr_chart m = { "server-mem", "Server memory", "time (s since "
			      "start)", "memory (MiB)", 1.0 / 1024, false,
			      false, 0, NULL, false, 0 };
	hr_tick_series(&m, r, "server memory", mem, false, false);
	hr_line_chart(b, &m);
	hr_chart_free(&m);
	struct hr_chart d = { "server-disk", "Server disk", "time (s since "
			      "start)", "KB/s (1000 bytes)", 1e-3, false, false,
			      0, NULL, false, 0 };
	if (r->nt > 0 && isfinite(hr_tick_val(r, 0, rd))) {
		hr_tick_series(&d, r, "disk read", rd, true, false);
		hr_tick_series(&d, r, "disk write", wr, true, false);
		hr_line_chart(b, &d);
	} else {
		hb_put(b, "<p class=\"note\">The server's disk was not "
		       "readable (/proc/PID/io).</p>\n");
	}
	hr_chart_free(&d);
	struct hr_chart n = { "server-net", "Network (the run's IMAP traffic, "
			      "both ways)", "time (s since start)", "kbit/s", 1,
			      false, false, 0, NULL, false, 0 };
	hr_tick_series(&n, r, "network", net, false, false);
	hr_line_chart(b, &n);
	hr_chart_free(&n);
}

static void
push_section(struct hbuf *b, const struct hr_run *r)
{
	if (r->has_summary)
		hr_pct_chart(b, "push-distribution", "Push and delivery "
			     "latency distribution (whole run)",
			     jv_at(&r->summary, "profile", "push", NULL),
			     "latency_us");
	static const char *const obj[] = { "profile", "push", NULL };

	hr_p3_charts(b, r, "push", "push ", obj);
}

static void
lmtp(struct hbuf *b, const struct hr_run *r)
{
	static const char *const ok[] = { "profile", "lmtp", "ok", NULL };
	static const char *const tf[] = { "profile", "lmtp", "tempfail",
					  NULL };
	static const char *const pf[] = { "profile", "lmtp", "permfail",
					  NULL };
	static const char *const nr[] = { "profile", "lmtp", "no_reply",
					  NULL };
	struct hr_chart c = { "deliveries", "LMTP deliveries", "time (s since "
			      "start)", "recipients per second", 1, false,
			      false, 0, NULL, false, 0 };

	if (r->nt == 0 || !isfinite(hr_tick_val(r, 0, ok)))
		return;
	hr_tick_series(&c, r, "accepted (250)", ok, true, true);
	hr_tick_series(&c, r, "tempfail (4xx)", tf, true, true);
	hr_tick_series(&c, r, "permfail (5xx)", pf, true, true);
	hr_tick_series(&c, r, "no reply", nr, true, true);
	hr_line_chart(b, &c);
	hr_chart_free(&c);
}

void
hr_run_profile(struct hbuf *b, const struct hr_run *r)
{
	const char *ap[] = { "profile", "actions", NULL };
	size_t n;
	const char **acts = hr_keys(r, ap, &n);

	hr_section(b, "profile", "Profile: actions, push and deliveries");
	if (n == 0 && !(r->nt > 0 && jv_get(&r->ticks[0], "profile"))) {
		hb_put(b, "<p class=\"note\">Not a profile run: no actions, "
		       "push or delivery latencies.</p>\n");
		free(acts);
		return;
	}
	if (n == 0) {
		/* POP3 users only: their section has their figures. */
		hb_put(b, "<p class=\"note\" data-actions=\"0\">No profile "
		       "action in the whole run.</p>\n");
		free(acts);
		push_section(b, r);
		lmtp(b, r);
		return;
	}
	struct hr_chart c = { "actions", "Profile actions", "time (s since "
			      "start)", "actions done per second", 1, false,
			      false, 0, NULL, false, 0 };
	struct hr_chart l = { "actions-p95", "Profile actions: p95 per second",
			      "time (s since start)", "latency (ms, log scale)",
			      1e-3, true, false, 0, NULL, false, 0 };
	for (size_t i = 0; i < n; i++) {
		const char *okp[] = { "profile", "actions", acts[i], "ok",
				      NULL };
		const char *pp[] = { "profile", "actions", acts[i], "p95_us",
				     NULL };
		hr_tick_series(&c, r, acts[i], okp, true, true);
		hr_tick_series(&l, r, acts[i], pp, false, false);
	}
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	if (r->has_summary) {
		const struct jv *a = jv_at(&r->summary, "profile", "actions",
					   NULL);
		hr_latency_table(b, "actions", a);
		hr_pct_chart(b, "actions-distribution", "Action latency "
			     "distribution (whole run)", a, "latency_us");
	}
	hr_line_chart(b, &l);
	hr_chart_free(&l);
	free(acts);
	push_section(b, r);
	lmtp(b, r);
}
