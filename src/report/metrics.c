/* metrics.c: the Prometheus text page (exposition format 0.0.4) and the
 * evhttp server that hands it out.  Names follow the Prometheus
 * conventions: an imapstress_ prefix, base units (seconds, bytes),
 * _total on counters, one histogram family with fixed le boundaries.  The
 * man page lists every name and label. */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "util/clock.h"
#include "util/log.h"
#include "report/metrics.h"
#include "plan/ops.h"
#include "version.h"
#include "util/xmalloc.h"

/* Fixed boundaries (microseconds), from a fast local server's 100 us to
 * the command timeout's range, so series from different runs line up. */
static const uint64_t le_us[] = {
	100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000,
	250000, 500000, 1000000, 2500000, 5000000, 10000000, 30000000, 60000000,
};
#define N_LE (sizeof(le_us) / sizeof(le_us[0]))

struct metrics {
	struct event_base *base;
	struct evhttp *http;
	struct evbuffer *page;
	char where[80];		/* host:port as bound, for messages */
	double linger_s;
	bool final;		/* the page holds the final values */
	bool final_served;	/* ... and one scrape received all of it */
};

static void
on_final_sent(struct evhttp_request *req, void *arg)
{
	((struct metrics *)arg)->final_served = true;
}

static void
on_request(struct evhttp_request *req, void *arg)
{
	struct metrics *m = arg;
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	struct evbuffer *out = evbuffer_new();

	if (path == NULL || strcmp(path, "/metrics") != 0) {
		evbuffer_add_printf(out, "imapstress: the metrics are at /metrics\n");
		evhttp_send_reply(req, HTTP_NOTFOUND, "Not Found", out);
		evbuffer_free(out);
		return;
	}
	size_t len = evbuffer_get_length(m->page);
	evbuffer_add(out, evbuffer_pullup(m->page, -1), len);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; version=0.0.4; charset=utf-8");
	/* Called once the reply has left us in full: only then may a
	 * lingering run end. */
	if (m->final)
		evhttp_request_set_on_complete_cb(req, on_final_sent, m);
	evhttp_send_reply(req, HTTP_OK, "OK", out);
	evbuffer_free(out);
}

struct metrics *
metrics_new(const struct config *cfg, char *err, size_t errlen)
{
	char host[64];
	unsigned port;
	bool loopback;

	char why[160];
	if (config_parse_listen(cfg->metrics_listen, host, sizeof(host), &port,
				&loopback, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--metrics-listen %s: %s", cfg->metrics_listen, why);
		return NULL;
	}
	struct metrics *m = xcalloc(1, sizeof(*m));
	m->linger_s = cfg->metrics_linger_s;
	m->base = event_base_new();
	m->http = m->base ? evhttp_new(m->base) : NULL;
	m->page = evbuffer_new();
	if (m->http == NULL || m->page == NULL)
		fatal(1, "metrics: cannot set up libevent's HTTP server");
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_timeout(m->http, 10);
	evhttp_set_gencb(m->http, on_request, m);
	struct evhttp_bound_socket *bs =
	    evhttp_bind_socket_with_handle(m->http, host, (ev_uint16_t)port);
	if (bs == NULL) {
		snprintf(err, errlen, "--metrics-listen %s: cannot listen on %s "
			 "port %u: %s", cfg->metrics_listen, host, port, strerror(errno));
		metrics_free(m);
		return NULL;
	}
	/* Port 0 asks the kernel for one: say which it gave. */
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss, &sl) == 0)
		port = ntohs(ss.ss_family == AF_INET6 ?
		    ((struct sockaddr_in6 *)&ss)->sin6_port :
		    ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(m->where, sizeof(m->where), strchr(host, ':') ? "[%s]:%u" : "%s:%u",
		 host, port);
	if (!loopback)
		log_warn("--metrics-listen %s: not a loopback address, so other "
			 "hosts can read the metrics", cfg->metrics_listen);
	log_info("metrics at http://%s/metrics", m->where);
	return m;
}

void
metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	if (m->http)
		evhttp_free(m->http);
	if (m->page)
		evbuffer_free(m->page);
	if (m->base)
		event_base_free(m->base);
	free(m);
}

/* --- the page ----------------------------------------------------------- */

static void
family(struct evbuffer *b, const char *name, const char *type, const char *help)
{
	evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
counter(struct evbuffer *b, const char *name, const char *help, uint64_t v)
{
	family(b, name, "counter", help);
	evbuffer_add_printf(b, "%s %" PRIu64 "\n", name, v);
}

static void
gauge(struct evbuffer *b, const char *name, const char *help, double v)
{
	family(b, name, "gauge", help);
	evbuffer_add_printf(b, "%s %.17g\n", name, v);
}

/* One histogram's series of family fam for command cmd: the fixed
 * buckets, +Inf, _sum and _count. */
static void
histogram(struct evbuffer *b, const char *fam, const char *cmd,
	  const struct hist *h)
{
	uint64_t le_n[N_LE];

	hist_count_le_each(h, le_us, N_LE, le_n);
	for (size_t i = 0; i < N_LE; i++)
		evbuffer_add_printf(b, "%s_bucket{command=\"%s\",le=\"%g\"} %"
				    PRIu64 "\n", fam, cmd,
				    (double)le_us[i] / 1e6, le_n[i]);
	evbuffer_add_printf(b, "%s_bucket{command=\"%s\",le=\"+Inf\"} %" PRIu64
			    "\n%s_sum{command=\"%s\"} %.6f\n"
			    "%s_count{command=\"%s\"} %" PRIu64 "\n",
			    fam, cmd, hist_count(h), fam, cmd,
			    (double)hist_sum(h) / 1e6, fam, cmd, hist_count(h));
}

static bool
op_active(const struct stats_snap *s, int op)
{
	return s->ok[op] + s->no[op] + s->bad[op] + s->failed[op] > 0;
}

static void
render_commands(struct evbuffer *b, const struct stats_snap *s)
{
	static const char *const result[] = { "ok", "no", "bad", "failed" };

	family(b, "imapstress_commands_total", "counter",
	       "Commands by tagged result; failed = in flight when the "
	       "connection died.");
	for (int op = 0; op < OP_COUNT; op++) {
		if (!op_active(s, op))
			continue;
		const uint64_t v[] = { s->ok[op], s->no[op], s->bad[op], s->failed[op] };
		for (int r = 0; r < 4; r++)
			evbuffer_add_printf(b, "imapstress_commands_total{command=\"%s\","
					    "result=\"%s\"} %" PRIu64 "\n",
					    op_table[op].name, result[r], v[r]);
	}

	family(b, "imapstress_command_duration_seconds", "histogram",
	       "Time from sending a command to its tagged reply.");
	for (int op = 0; op < OP_COUNT; op++)
		if (op_active(s, op))
			histogram(b, "imapstress_command_duration_seconds",
				  op_table[op].name, s->lat[op]);
}

/* POP3 users (profile mode, src/pop3/): the families appear once a POP3
 * session has run, so a run without POP3 users shows none of them. */
static void
render_pop3(struct evbuffer *b, const struct pop3_snap *p)
{
	static const char *const result[] = { "ok", "err", "failed" };

	if (!pop3_snap_any(p))
		return;
	family(b, "imapstress_pop3_commands_total", "counter",
	       "POP3 commands by status (the greeting counts as one); "
	       "failed = in flight when the session died.");
	for (int c = 0; c < P3_CMD_COUNT; c++) {
		const uint64_t v[] = { p->ok[c], p->err[c], p->failed[c] };
		if (v[0] + v[1] + v[2] == 0)
			continue;
		for (int r = 0; r < 3; r++)
			evbuffer_add_printf(b, "imapstress_pop3_commands_total"
					    "{command=\"%s\",result=\"%s\"} %"
					    PRIu64 "\n", pop3_cmd_name[c],
					    result[r], v[r]);
	}
	family(b, "imapstress_pop3_command_duration_seconds", "histogram",
	       "Time from sending a POP3 command to its status line (RETR: "
	       "to its body's end).");
	for (int c = 0; c < P3_CMD_COUNT; c++)
		if (p->ok[c] + p->err[c] + p->failed[c] > 0)
			histogram(b, "imapstress_pop3_command_duration_seconds",
				  pop3_cmd_name[c], p->lat[c]);
	family(b, "imapstress_pop3_failed_sessions_total", "counter",
	       "POP3 sessions that ended without QUIT's +OK, by why.");
	for (int k = 0; k < P3F_COUNT; k++)
		evbuffer_add_printf(b, "imapstress_pop3_failed_sessions_total"
				    "{kind=\"%s\"} %" PRIu64 "\n",
				    pop3_fail_name[k], p->fails[k]);
	const struct { const char *name, *help; uint64_t v; } ctr[] = {
		{ "imapstress_pop3_sessions_total", "POP3 sessions opened.",
		  p->sessions },
		{ "imapstress_pop3_logins_total", "POP3 logins (PASS +OK).",
		  p->logins },
		{ "imapstress_pop3_retrieved_messages_total",
		  "Messages RETR returned in full.", p->retrieved },
		{ "imapstress_pop3_retrieved_bytes_total",
		  "Bytes of those messages (dot-unstuffed).", p->retr_bytes },
		{ "imapstress_pop3_deleted_messages_total",
		  "DELE +OK that QUIT's +OK committed.", p->deleted },
		{ "imapstress_pop3_delete_lost_total", "DELE +OK in sessions "
		  "without QUIT's +OK (the server keeps those messages).",
		  p->delete_lost },
	};
	for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		counter(b, ctr[i].name, ctr[i].help, ctr[i].v);
	gauge(b, "imapstress_pop3_sessions", "POP3 sessions open now.",
	      (double)p->sessions_open);
}

static void
render(struct evbuffer *b, const struct stats_snap *s, const struct metrics_run *run)
{
	family(b, "imapstress_build_info", "gauge", "Always 1; the version as a label.");
	evbuffer_add_printf(b, "imapstress_build_info{version=\"%s\"} 1\n",
			    IMAPSTRESS_VERSION);
	render_commands(b, s);

	family(b, "imapstress_errors_total", "counter",
	       "Failures by kind (no, bad, bye, disconnect, timeout, ...).");
	for (int k = 0; k < ERR_COUNT; k++)
		evbuffer_add_printf(b, "imapstress_errors_total{kind=\"%s\"} %" PRIu64 "\n",
				    err_kind_name[k], s->errors[k]);

	family(b, "imapstress_state_errors_total", "counter",
	       "The state errors by sub-kind (seq-too-high, keyword, "
	       "static-changed, ...); they add up to errors_total{kind=\"state\"}.");
	for (int k = 0; k < MBOX_ERR_COUNT; k++)
		evbuffer_add_printf(b, "imapstress_state_errors_total{kind=\"%s\"} %"
				    PRIu64 "\n", mbox_err_name((enum mbox_err)k),
				    s->state[k]);
	counter(b, "imapstress_state_unannounced_total",
		"State errors that are the server's unannounced messages after "
		"a STATUS of the selected mailbox (also among the state errors).",
		s->state[MBOX_ERR_UNANNOUNCED]);

	family(b, "imapstress_network_bytes_total", "counter",
	       "Bytes on the wire (layer=wire, after TLS and COMPRESS) and "
	       "IMAP octets (layer=imap).");
	const struct { const char *dir, *layer; uint64_t v; } bytes[] = {
		{ "sent", "wire", s->bytes_sent }, { "received", "wire", s->bytes_received },
		{ "sent", "imap", s->imap_sent }, { "received", "imap", s->imap_received },
	};
	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
		evbuffer_add_printf(b, "imapstress_network_bytes_total{direction=\"%s\","
				    "layer=\"%s\"} %" PRIu64 "\n",
				    bytes[i].dir, bytes[i].layer, bytes[i].v);

	counter(b, "imapstress_appended_messages_total",
		"Messages in APPEND commands the server acknowledged.", s->append_msgs);
	counter(b, "imapstress_appended_bytes_total",
		"Bytes of those messages.", s->append_bytes);
	counter(b, "imapstress_connects_total",
		"Connections that reached the greeting.", s->connects);
	counter(b, "imapstress_logins_total", "Successful logins.", s->logins);
	counter(b, "imapstress_tls_handshakes_total", "Completed TLS handshakes.",
		s->tls_handshakes);
	gauge(b, "imapstress_connections", "Connections open now (past the greeting).",
	      (double)s->conns_open);
	gauge(b, "imapstress_clients", "Connections asked for (clients=).",
	      (double)run->clients);

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	family(b, "imapstress_cpu_seconds_total", "counter",
	       "CPU time of the imapstress process itself.");
	evbuffer_add_printf(b, "imapstress_cpu_seconds_total{mode=\"user\"} %ld.%06ld\n"
			    "imapstress_cpu_seconds_total{mode=\"system\"} %ld.%06ld\n",
			    (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
			    (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	render_pop3(b, &s->act.pop3);
	gauge(b, "imapstress_elapsed_seconds", "Time since the run started.",
	      run->elapsed_s);
	gauge(b, "imapstress_finished", "1 once the page holds the run's final "
	      "totals.", run->finished ? 1 : 0);
}

void
metrics_publish(struct metrics *m, const struct stats_snap *cum,
		const struct metrics_run *run)
{
	if (m == NULL)
		return;
	evbuffer_drain(m->page, evbuffer_get_length(m->page));
	render(m->page, cum, run);
	m->final = run->finished;
}

/* --- serving ------------------------------------------------------------ */

int
metrics_wait(struct metrics *m, const sigset_t *sigs, uint64_t us)
{
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };
	struct timespec zero = { 0, 0 };

	event_base_loopexit(m->base, &tv);
	event_base_dispatch(m->base);
	int sig = sigtimedwait(sigs, NULL, &zero);
	return sig > 0 ? sig : 0;
}

void
metrics_linger(struct metrics *m, const sigset_t *sigs)
{
	if (m == NULL || m->linger_s <= 0 || m->final_served)
		return;
	uint64_t end = clock_us() + (uint64_t)(m->linger_s * 1e6);
	log_info("metrics: waiting up to %.0f s for a scrape of the final values "
		 "at http://%s/metrics", m->linger_s, m->where);
	while (!m->final_served) {
		uint64_t now = clock_us();
		if (now >= end) {
			log_warn("--metrics-linger: nobody scraped the final values "
				 "within %.0f s", m->linger_s);
			return;
		}
		uint64_t step = end - now < 100000 ? end - now : 100000;
		if (metrics_wait(m, sigs, step) != 0)
			return;		/* a signal: stop now */
	}
}
