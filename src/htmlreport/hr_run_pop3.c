/* hr_run_pop3.c: the run page's POP3 section (profile mode's POP3 users,
 * src/pop3/; the JSON's profile.pop3): sessions, logins, messages
 * retrieved and deleted over time, +OK per command per second, the
 * summary's table of commands and their latency distribution, p50, p95
 * and p99 per command over time, and the run's totals.  A run without POP3
 * users has no such section, so its page is what it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "htmlreport/hr_int.h"

static const char *const cmd_obj[] = { "profile", "pop3", "commands", NULL };

bool
hr_run_has_pop3(const struct hr_run *r)
{
	if (r->has_summary && jv_at(&r->summary, "profile", "pop3", NULL))
		return true;
	for (size_t i = 0; i < r->nt; i++)
		if (jv_at(&r->ticks[i], "profile", "pop3", NULL) != NULL)
			return true;
	return false;
}

/* Sessions and messages: the counters that only grow, per second (a
 * second without POP3 activity has no "pop3" and counts 0). */
static void
sessions_chart(struct hbuf *b, const struct hr_run *r)
{
	static const char *const keys[] = { "sessions", "logins", "retrieved",
					    "deleted" };
	struct hr_chart c = { "pop3-sessions", "POP3 sessions and messages",
			      "time (s since start)", "per second", 1, false,
			      false, 0, NULL, false, 0 };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *path[] = { "profile", "pop3", keys[k], NULL };
		hr_tick_series(&c, r, keys[k], path, true, true);
	}
	hr_line_chart(b, &c);
	hr_chart_free(&c);
}

static void
throughput_chart(struct hbuf *b, const struct hr_run *r)
{
	size_t n;
	const char **cmds = hr_keys(r, cmd_obj, &n);
	struct hr_chart c = { "pop3-throughput", "POP3 throughput per command",
			      "time (s since start)", "+OK replies per second",
			      1, false, false, 0, NULL, false, 0 };

	for (size_t i = 0; i < n; i++) {
		const char *path[] = { "profile", "pop3", "commands", cmds[i],
				       "ok", NULL };
		hr_tick_series(&c, r, cmds[i], path, true, true);
	}
	hr_line_chart(b, &c);
	hr_chart_free(&c);
	free(cmds);
}

/* The summary's totals, keyed by their JSON names (failed sessions as
 * failed_sessions.KIND). */
static void
totals(struct hbuf *b, const struct jv *p)
{
	static const char *const keys[] = { "sessions", "logins", "retrieved",
					    "retr_bytes", "deleted",
					    "delete_lost" };
	const struct jv *f = jv_get(p, "failed_sessions");
	char key[96];

	hb_put(b, "<table class=\"settings\" data-table=\"pop3-totals\">");
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		hr_kv_num(b, keys[k], jv_num(jv_get(p, keys[k]), NAN),
			  k == 3 ? "B" : "");
	for (size_t i = 0; f != NULL && f->t == J_OBJ && i < f->nk; i++) {
		snprintf(key, sizeof(key), "failed_sessions.%.60s",
			 f->keys[i]);
		hr_kv_num(b, key, jv_num(&f->kids[i], NAN), "");
	}
	hb_put(b, "</table>\n");
}

void
hr_run_pop3(struct hbuf *b, const struct hr_run *r)
{
	static const char *const counts[] = { "ok", "err", "failed", NULL };

	hr_section(b, "pop3", "POP3");
	sessions_chart(b, r);
	throughput_chart(b, r);
	const struct jv *p = r->has_summary ?
	    jv_at(&r->summary, "profile", "pop3", NULL) : NULL;
	if (p != NULL) {
		totals(b, p);
		const struct jv *c = jv_get(p, "commands");
		hr_count_table(b, "pop3-commands", c, counts);
		hr_pct_chart(b, "pop3-distribution", "POP3 latency "
			     "distribution per command (whole run)", c,
			     "latency_us");
	}
	hr_p3_charts(b, r, "pop3", "POP3 ", cmd_obj);
}
