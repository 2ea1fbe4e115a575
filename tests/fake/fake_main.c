/* fake_main.c: fakeimapd's command line, shared pieces, event loops,
 * signal handling and the --stats-file written at exit. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/thread.h>

#include "fake.h"
#include "fake_store.h"
#include "util/xmalloc.h"

#define FAKE_DEFAULT_CAPS "IMAP4rev1 LITERAL+ MULTIAPPEND IDLE UIDPLUS " \
	"ENABLE ID NAMESPACE SASL-IR AUTH=PLAIN MOVE CONDSTORE"
#define FAKE_MAX_THREADS 256
#define FAKE_MAX_MSG_SIZE (1024ull * 1024 * 1024)

static const char fake_usage[] =
	"usage: fakeimapd [--listen 127.0.0.1] [--port N] [--port-file FILE]\n"
	"         [--threads N] [--mode MODE] [--pct P] [--delay-ms D]\n"
	"         [--slow-pct P --slow-ms S] [--stall-after-ms T --stall-ms S]\n"
	"         [--cmd-delay NAME=MS]... [--delay-per-conn-us N]\n"
	"         [--messages N] [--foreign N] [--msg-size BYTES]\n"
	"         [--caps \"CAP ...\"]\n"
	"         [--script FILE] [--tls-cert F --tls-key F] [--stats-file FILE]\n"
	"         [--lmtp-port N] [--lmtp-port-file FILE] [--push-delay-ms D]\n"
	"         [--notify-overflow N]\n"
	"modes: normal no-greeting close-mid-command close-mid-literal reset\n"
	"  bye-random garbage endless-line huge-literal drip stall refuse\n"
	"  tls-fail plain-on-tls script\n"
	"(a close or BYE at the greeting, refused logins, NO/BAD to everything,\n"
	"  a foreign tag: --script tests/fake/scenarios/fault-*.conf)\n"
	"--stall-after-ms T --stall-ms S: every reply due in the S ms that\n"
	"  begin T ms after the first connection waits to the end of them.\n"
	"--foreign N: the first N of the --messages lack the X-Imapstress\n"
	"  marker, mail the foreign-mail check must find (fake_mark.c).\n"
	"--lmtp-port/--lmtp-port-file: mail-store mode, an LMTP server too;\n"
	"  a delivery lands in its mailbox (and IDLE hears EXISTS) D ms after\n"
	"  its 250 (tests/fake/fake_store.h).  NOTIFY SET (give NOTIFY in\n"
	"  --caps) pushes without IDLE: EXISTS for the selected mailbox,\n"
	"  STATUS for INBOX when another is; --notify-overflow N: a session's\n"
	"  Nth notification is * OK [NOTIFICATIONOVERFLOW] instead, and ends it.\n"
	"Loopback only. Prints \"PORT n\" when listening (then \"LMTP n\" in\n"
	"mail-store mode); runs until SIGTERM.\n";

_Noreturn static void fake_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void
fake_die(const char *fmt, ...)
{
	va_list ap;
	fputs("fakeimapd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t
fake_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < min ||
	    v > max)
		fake_die("--%s: '%s' is not a number in %" PRIu64 "..%" PRIu64,
			 opt, s, min, max);
	return v;
}

enum {
	FAKE_O_LISTEN = 256, FAKE_O_PORT, FAKE_O_PORT_FILE, FAKE_O_THREADS,
	FAKE_O_MODE, FAKE_O_PCT, FAKE_O_DELAY, FAKE_O_SLOW_PCT, FAKE_O_SLOW_MS,
	FAKE_O_STALL_AFTER, FAKE_O_STALL_MS, FAKE_O_MESSAGES, FAKE_O_FOREIGN, FAKE_O_MSG_SIZE,
	FAKE_O_CAPS, FAKE_O_SCRIPT, FAKE_O_TLS_CERT, FAKE_O_TLS_KEY,
	FAKE_O_STATS_FILE, FAKE_O_CMD_DELAY, FAKE_O_DELAY_PER_CONN,
	FAKE_O_LMTP_PORT, FAKE_O_LMTP_PORT_FILE, FAKE_O_PUSH_DELAY, FAKE_O_HELP,
	FAKE_O_NOTIFY_OVERFLOW,
};

static const struct option fake_options[] = {
	{ "listen", required_argument, NULL, FAKE_O_LISTEN },
	{ "port", required_argument, NULL, FAKE_O_PORT },
	{ "port-file", required_argument, NULL, FAKE_O_PORT_FILE },
	{ "threads", required_argument, NULL, FAKE_O_THREADS },
	{ "mode", required_argument, NULL, FAKE_O_MODE },
	{ "pct", required_argument, NULL, FAKE_O_PCT },
	{ "delay-ms", required_argument, NULL, FAKE_O_DELAY },
	{ "slow-pct", required_argument, NULL, FAKE_O_SLOW_PCT },
	{ "slow-ms", required_argument, NULL, FAKE_O_SLOW_MS },
	{ "stall-after-ms", required_argument, NULL, FAKE_O_STALL_AFTER },
	{ "stall-ms", required_argument, NULL, FAKE_O_STALL_MS },
	{ "messages", required_argument, NULL, FAKE_O_MESSAGES },
	{ "foreign", required_argument, NULL, FAKE_O_FOREIGN },
	{ "msg-size", required_argument, NULL, FAKE_O_MSG_SIZE },
	{ "caps", required_argument, NULL, FAKE_O_CAPS },
	{ "script", required_argument, NULL, FAKE_O_SCRIPT },
	{ "tls-cert", required_argument, NULL, FAKE_O_TLS_CERT },
	{ "tls-key", required_argument, NULL, FAKE_O_TLS_KEY },
	{ "stats-file", required_argument, NULL, FAKE_O_STATS_FILE },
	{ "cmd-delay", required_argument, NULL, FAKE_O_CMD_DELAY },
	{ "delay-per-conn-us", required_argument, NULL, FAKE_O_DELAY_PER_CONN },
	{ "lmtp-port", required_argument, NULL, FAKE_O_LMTP_PORT },
	{ "lmtp-port-file", required_argument, NULL, FAKE_O_LMTP_PORT_FILE },
	{ "push-delay-ms", required_argument, NULL, FAKE_O_PUSH_DELAY },
	{ "notify-overflow", required_argument, NULL, FAKE_O_NOTIFY_OVERFLOW },
	{ "help", no_argument, NULL, FAKE_O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* --cmd-delay NAME=MS, e.g. FETCH=20: that command's replies wait MS. */
static void
fake_cmd_delay_parse(struct fake_cfg *cfg, const char *arg, uint64_t max_ms)
{
	const char *eq = strchr(arg, '=');
	size_t nl = eq ? (size_t)(eq - arg) : 0;
	if (nl == 0 || nl >= sizeof(cfg->cmd_delay[0].name))
		fake_die("--cmd-delay: '%s' is not NAME=MS", arg);
	if (cfg->n_cmd_delays == FAKE_MAX_CMD_DELAYS)
		fake_die("--cmd-delay: at most %d", FAKE_MAX_CMD_DELAYS);
	memcpy(cfg->cmd_delay[cfg->n_cmd_delays].name, arg, nl);
	cfg->cmd_delay[cfg->n_cmd_delays].name[nl] = '\0';
	cfg->cmd_delay[cfg->n_cmd_delays].us =
	    1000 * fake_num("cmd-delay", eq + 1, 0, max_ms);
	cfg->n_cmd_delays++;
}

static void
fake_parse_args(int argc, char **argv, struct fake_cfg *cfg)
{
	const uint64_t hour_ms = 3600000;
	bool mode_set = false, slow_pct_set = false, slow_ms_set = false;
	bool stall_after_set = false, threads_set = false, delay_set = false;
	int o;
	*cfg = (struct fake_cfg){
		.listen = "127.0.0.1", .threads = 1, .mode = FAKE_M_NORMAL,
		.messages = 100, .msg_size = 4096, .pct = 20,
		.caps = FAKE_DEFAULT_CAPS,
	};
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":", fake_options, NULL)) != -1) {
		const char *name = optind > 0 && optind <= argc ?
			argv[optind - 1] : "?";
		switch (o) {
		case FAKE_O_LISTEN: cfg->listen = optarg; break;
		case FAKE_O_PORT:
			cfg->port = (unsigned)fake_num("port", optarg, 0, 65535);
			break;
		case FAKE_O_PORT_FILE: cfg->port_file = optarg; break;
		case FAKE_O_THREADS:
			cfg->threads = (unsigned)fake_num("threads", optarg, 1,
							  FAKE_MAX_THREADS);
			threads_set = true;
			break;
		case FAKE_O_MODE:
			if (!fake_mode_parse(optarg, &cfg->mode))
				fake_die("--mode: unknown mode '%s' (see --help)",
					 optarg);
			mode_set = true;
			break;
		case FAKE_O_PCT:
			cfg->pct = (unsigned)fake_num("pct", optarg, 0, 100);
			break;
		case FAKE_O_DELAY:
			cfg->delay_us = 1000 * fake_num("delay-ms", optarg, 0, hour_ms);
			break;
		case FAKE_O_CMD_DELAY:
			fake_cmd_delay_parse(cfg, optarg, hour_ms);
			break;
		case FAKE_O_DELAY_PER_CONN:
			cfg->delay_per_conn_us = fake_num("delay-per-conn-us",
							  optarg, 0, 1000000);
			break;
		case FAKE_O_SLOW_PCT:
			cfg->slow_pct = (unsigned)fake_num("slow-pct", optarg, 0, 100);
			slow_pct_set = true;
			break;
		case FAKE_O_SLOW_MS:
			cfg->slow_us = 1000 * fake_num("slow-ms", optarg, 0, hour_ms);
			slow_ms_set = true;
			break;
		case FAKE_O_STALL_AFTER:
			cfg->stall_after_us = 1000 * fake_num("stall-after-ms",
							      optarg, 0, hour_ms);
			stall_after_set = true;
			break;
		case FAKE_O_STALL_MS:
			cfg->stall_us = 1000 * fake_num("stall-ms", optarg, 1, hour_ms);
			cfg->stall = true;
			break;
		case FAKE_O_MESSAGES:
			cfg->messages = fake_num("messages", optarg, 0, UINT32_MAX);
			break;
		case FAKE_O_FOREIGN:
			cfg->foreign = fake_num("foreign", optarg, 0, UINT32_MAX);
			break;
		case FAKE_O_MSG_SIZE:
			cfg->msg_size = fake_num("msg-size", optarg, 0,
						 FAKE_MAX_MSG_SIZE);
			break;
		case FAKE_O_CAPS:
			if (*optarg == '\0' || strpbrk(optarg, "\r\n]") != NULL)
				fake_die("--caps: '%s' must be a non-empty list of "
					 "words without CR, LF or ']'", optarg);
			cfg->caps = optarg;
			break;
		case FAKE_O_SCRIPT: cfg->script_file = optarg; break;
		case FAKE_O_TLS_CERT: cfg->tls_cert = optarg; break;
		case FAKE_O_TLS_KEY: cfg->tls_key = optarg; break;
		case FAKE_O_STATS_FILE: cfg->stats_file = optarg; break;
		case FAKE_O_LMTP_PORT:
			cfg->lmtp_port = (unsigned)fake_num("lmtp-port", optarg, 0,
							    65535);
			cfg->store = true;
			break;
		case FAKE_O_LMTP_PORT_FILE:
			cfg->lmtp_port_file = optarg;
			cfg->store = true;
			break;
		case FAKE_O_PUSH_DELAY:
			cfg->push_delay_us = 1000 * fake_num("push-delay-ms",
							     optarg, 0, hour_ms);
			delay_set = true;
			break;
		case FAKE_O_NOTIFY_OVERFLOW:
			cfg->notify_overflow = (unsigned)fake_num(
			    "notify-overflow", optarg, 1, 1000000);
			break;
		case FAKE_O_HELP:
			fputs(fake_usage, stdout);
			exit(0);
		case ':':
			fake_die("option '%s' needs a value", name);
		default:
			fake_die("unknown option '%s' (see --help)", name);
		}
	}
	if (optind < argc)
		fake_die("unexpected argument '%s' (see --help)", argv[optind]);
	if (!fake_addr_parse(cfg->listen, &cfg->addr, &cfg->addr_len))
		fake_die("--listen: '%s' is not a numeric loopback address "
			 "(only 127.0.0.0/8 or ::1 are allowed)", cfg->listen);
	if (slow_pct_set != slow_ms_set)
		fake_die("--slow-pct and --slow-ms must be given together");
	if (stall_after_set && !cfg->stall)
		fake_die("--stall-after-ms needs --stall-ms");
	if (cfg->script_file != NULL) {
		if (mode_set && cfg->mode != FAKE_M_SCRIPT)
			fake_die("--script cannot be combined with --mode %s",
				 fake_mode_name(cfg->mode));
		cfg->mode = FAKE_M_SCRIPT;
	} else if (cfg->mode == FAKE_M_SCRIPT) {
		fake_die("--mode script needs --script FILE");
	}
	if (delay_set && !cfg->store)
		fake_die("--push-delay-ms needs --lmtp-port or --lmtp-port-file");
	if (cfg->foreign > cfg->messages)
		fake_die("--foreign %llu: more than the %llu --messages",
			 (unsigned long long)cfg->foreign,
			 (unsigned long long)cfg->messages);
	if (cfg->store && threads_set && cfg->threads != 1)
		fake_die("--lmtp-port: the mail store runs on one thread "
			 "(leave out --threads)");
	if (cfg->store && (cfg->mode != FAKE_M_NORMAL || cfg->delay_us != 0 ||
			   cfg->slow_pct != 0 || cfg->stall))
		fake_die("--lmtp-port: mail-store mode answers normally; no "
			 "--mode, --script, --delay-ms, --slow-* or --stall-*");
	if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL))
		fake_die("--tls-cert and --tls-key must be given together");
	if (cfg->tls_cert != NULL && cfg->mode == FAKE_M_TLS_FAIL)
		fake_die("--mode tls-fail plays a broken TLS server; "
			 "do not give it --tls-cert/--tls-key");
}

/* The messages a test account holds, as an earlier run of imapstress
 * left them: with the X-Imapstress marker (fake_mark.c), so the
 * foreign-mail check finds none but the --foreign ones.  *marked: the
 * header fit in size. */
static char *
fake_build_message(uint64_t size, bool *marked)
{
	static const char hdr[] =
		"X-Imapstress: run=0000000000000000 (fakeimapd)\r\n"
		"From: fakeimapd <fake@example.invalid>\r\n"
		"To: imapstress <test@example.invalid>\r\n"
		"Subject: fakeimapd test message\r\n"
		"Message-ID: <fakeimapd@example.invalid>\r\n"
		"Date: Mon, 01 Jan 2024 00:00:00 +0000\r\n"
		"MIME-Version: 1.0\r\n"
		"Content-Type: text/plain; charset=us-ascii\r\n"
		"\r\n";
	const size_t hlen = sizeof(hdr) - 1;
	char *m = xmalloc((size_t)size + 1);
	memset(m, 'x', (size_t)size);
	size_t start = 0;
	*marked = size >= hlen + 2;
	if (*marked) {
		memcpy(m, hdr, hlen);
		start = hlen;
	}
	/* 72-character body lines, and the message always ends in CRLF. */
	for (size_t j = start + 72; size >= 4 && j + 2 <= size - 2; j += 74) {
		m[j] = '\r';
		m[j + 1] = '\n';
	}
	if (size >= 2) {
		m[size - 2] = '\r';
		m[size - 1] = '\n';
	}
	m[size] = '\0';
	return m;
}

static void
fake_shared_init(struct fake_shared *sh, const struct fake_cfg *cfg)
{
	char err[512];
	memset(sh, 0, sizeof(*sh));
	sh->cfg = cfg;
	size_t glen = strlen(cfg->caps) + 64;
	sh->greeting = xmalloc(glen);
	snprintf(sh->greeting, glen, "* OK [CAPABILITY %s] fakeimapd ready\r\n",
		 cfg->caps);
	sh->greeting_len = strlen(sh->greeting);
	sh->msg = fake_build_message(cfg->msg_size, &sh->msg_marked);
	sh->body_suffix = xmalloc(48);
	snprintf(sh->body_suffix, 48, " BODY[] {%" PRIu64 "}\r\n", cfg->msg_size);
	sh->body_suffix_len = strlen(sh->body_suffix);
	sh->endless = xmalloc(FAKE_ENDLESS_CHUNK);
	memset(sh->endless, 'x', FAKE_ENDLESS_CHUNK);
	if (cfg->script_file != NULL) {
		sh->script = fake_script_load(cfg->script_file, err, sizeof(err));
		if (sh->script == NULL)
			fake_die("%s", err);
	}
	if (cfg->tls_cert != NULL) {
		sh->ssl_ctx = fake_tls_ctx(cfg->tls_cert, cfg->tls_key, err,
					   sizeof(err));
		if (sh->ssl_ctx == NULL)
			fake_die("%s", err);
	}
}

static void
fake_shared_free(struct fake_shared *sh)
{
	free(sh->greeting);
	free(sh->msg);
	free(sh->body_suffix);
	free(sh->endless);
	fake_script_free(sh->script);
	if (sh->ssl_ctx != NULL)
		SSL_CTX_free(sh->ssl_ctx);
}

static void
fake_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
	       struct sockaddr *sa, int sa_len, void *arg)
{
	fake_conn_accept(arg, (int)fd);
}

static void
fake_accept_error_cb(struct evconnlistener *l, void *arg)
{
	fprintf(stderr, "fakeimapd: accept: %s\n", strerror(errno));
}

struct fake_server {
	struct fake_cfg cfg;
	struct fake_shared sh;
	struct fake_loop *loops;
	unsigned nloops;
	struct event *sigterm, *sigint;
};

/* Each loop breaks itself from an activated event: a loopbreak sent
 * before a thread has entered its loop would be forgotten. */
static void
fake_stop_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fake_loop *loop = arg;
	event_base_loopbreak(loop->base);
}

static void
fake_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct fake_server *srv = arg;
	for (unsigned i = 0; i < srv->nloops; i++)
		event_active(srv->loops[i].stop, 0, 0);
}

static void *
fake_loop_thread(void *arg)
{
	struct fake_loop *loop = arg;
	event_base_dispatch(loop->base);
	return NULL;
}

/* Binds every loop's listener (all on one port via SO_REUSEPORT) and
 * returns the port; in refuse mode returns a port nobody listens on. */
static unsigned
fake_listen_all(struct fake_server *srv)
{
	const struct fake_cfg *cfg = &srv->cfg;
	char err[256];
	unsigned port = cfg->port;
	if (cfg->mode == FAKE_M_REFUSE) {
		if (port != 0)
			return port;
		int fd = fake_listen_socket(cfg, 0, &port, err, sizeof(err));
		if (fd < 0)
			fake_die("%s", err);
		close(fd);
		return port;
	}
	for (unsigned i = 0; i < srv->nloops; i++) {
		struct fake_loop *loop = &srv->loops[i];
		int fd = fake_listen_socket(cfg, port, i == 0 ? &port : NULL,
					    err, sizeof(err));
		if (fd < 0)
			fake_die("%s", err);
		if (listen(fd, 4096) < 0)
			fake_die("listen on port %u: %s", port, strerror(errno));
		loop->listener = evconnlistener_new(
			loop->base, fake_accept_cb, loop,
			LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
		if (loop->listener == NULL)
			fake_die("cannot create a listener on port %u", port);
		evconnlistener_set_error_cb(loop->listener,
					    fake_accept_error_cb);
	}
	return port;
}

static void
fake_announce(const char *opt, const char *path, const char *word,
	      unsigned port)
{
	/* The file first: whoever saw PORT on stdout may read it at once.
	 * Write then rename, so a poller never reads a half-written file. */
	if (path == NULL) {
		printf("%s %u\n", word, port);
		fflush(stdout);
		return;
	}
	size_t len = strlen(path) + 8;
	char *tmp = xmalloc(len);
	snprintf(tmp, len, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		fake_die("%s: cannot write '%s': %s", opt, path, strerror(errno));
	free(tmp);
	printf("%s %u\n", word, port);
	fflush(stdout);
}

static void
fake_write_stats(const struct fake_cfg *cfg, const struct fake_stats *st,
		 struct fake_store *store)	/* its lags get sorted */
{
	if (cfg->stats_file == NULL)
		return;
	FILE *f = fopen(cfg->stats_file, "w");
	if (f == NULL) {
		fprintf(stderr, "fakeimapd: --stats-file: cannot write '%s': %s\n",
			cfg->stats_file, strerror(errno));
		return;
	}
	fprintf(f,
		"connections=%" PRIu64 "\nlogins=%" PRIu64 "\ncommands=%" PRIu64
		"\nappends=%" PRIu64 "\nappend_bytes=%" PRIu64
		"\nfetches=%" PRIu64 "\nfetch_bodies=%" PRIu64
		"\nbytes_in=%" PRIu64 "\nbytes_out=%" PRIu64 "\n",
		st->connections, st->logins, st->commands, st->appends,
		st->append_bytes, st->fetches, st->fetch_bodies, st->bytes_in,
		st->bytes_out);
	if (store != NULL)
		fprintf(f, "lmtp_sessions=%" PRIu64 "\nlmtp_rcpts=%" PRIu64
			"\nlmtp_delivered=%" PRIu64 "\npushes=%" PRIu64
			"\npush_lag_p50_us=%" PRIu64 "\nnotify_sets=%" PRIu64
			"\nnotify_status=%" PRIu64 "\nnotify_overflows=%" PRIu64 "\n",
			store->st.lmtp_sessions, store->st.lmtp_rcpts,
			store->st.lmtp_delivered, store->st.pushes,
			fake_store_lag_p50(store), store->st.notify_sets,
			store->st.notify_status,
			store->st.notify_overflows);
	if (fclose(f) != 0)
		fprintf(stderr, "fakeimapd: --stats-file: error writing '%s'\n",
			cfg->stats_file);
}

static void
fake_stats_add(struct fake_stats *sum, const struct fake_stats *s)
{
	sum->connections += s->connections;
	sum->logins += s->logins;
	sum->commands += s->commands;
	sum->appends += s->appends;
	sum->append_bytes += s->append_bytes;
	sum->fetches += s->fetches;
	sum->fetch_bodies += s->fetch_bodies;
	sum->bytes_in += s->bytes_in;
	sum->bytes_out += s->bytes_out;
}

int
main(int argc, char **argv)
{
	struct fake_server srv;
	memset(&srv, 0, sizeof(srv));
	fake_parse_args(argc, argv, &srv.cfg);
	signal(SIGPIPE, SIG_IGN);
	if (evthread_use_pthreads() != 0)
		fake_die("libevent has no pthreads support");
	fake_shared_init(&srv.sh, &srv.cfg);
	srv.sh.start_us = fake_now_us();

	srv.nloops = srv.cfg.threads;
	srv.loops = xcalloc(srv.nloops, sizeof(srv.loops[0]));
	for (unsigned i = 0; i < srv.nloops; i++) {
		srv.loops[i].sh = &srv.sh;
		srv.loops[i].seed = fake_seed(((uint64_t)getpid() << 16) ^ i ^
					      srv.sh.start_us);
		/* Precise timers: --delay-ms must mean what it says (the
		 * coarse default clock adds 1-4 ms). */
		struct event_config *ec = event_config_new();
		event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
		srv.loops[i].base = event_base_new_with_config(ec);
		event_config_free(ec);
		if (srv.loops[i].base == NULL)
			fake_die("cannot create an event loop");
		srv.loops[i].stop = event_new(srv.loops[i].base, -1, 0,
					      fake_stop_cb, &srv.loops[i]);
		if (srv.loops[i].stop == NULL)
			fake_die("cannot create an event loop");
	}
	unsigned port = fake_listen_all(&srv);
	struct event_base *main_base = srv.loops[0].base;
	unsigned lmtp_port = 0;
	if (srv.cfg.store) {
		srv.sh.store = fake_store_new(main_base, srv.cfg.push_delay_us);
		srv.sh.store->notify_overflow = srv.cfg.notify_overflow;
		lmtp_port = fake_lmtp_listen(srv.sh.store, &srv.cfg,
					     srv.cfg.lmtp_port);
	}
	srv.sigterm = evsignal_new(main_base, SIGTERM, fake_signal_cb, &srv);
	srv.sigint = evsignal_new(main_base, SIGINT, fake_signal_cb, &srv);
	if (srv.sigterm == NULL || srv.sigint == NULL ||
	    evsignal_add(srv.sigterm, NULL) != 0 ||
	    evsignal_add(srv.sigint, NULL) != 0)
		fake_die("cannot install signal handlers");
	/* LMTP after PORT: a harness that waits for PORT sees it first. */
	fake_announce("--port-file", srv.cfg.port_file, "PORT", port);
	if (srv.cfg.store)
		fake_announce("--lmtp-port-file", srv.cfg.lmtp_port_file, "LMTP",
			      lmtp_port);

	for (unsigned i = 1; i < srv.nloops; i++)
		if (pthread_create(&srv.loops[i].thread, NULL, fake_loop_thread,
				   &srv.loops[i]) != 0)
			fake_die("cannot start thread %u", i);
	event_base_dispatch(main_base);
	for (unsigned i = 1; i < srv.nloops; i++)
		pthread_join(srv.loops[i].thread, NULL);

	struct fake_stats total = { 0 };
	for (unsigned i = 0; i < srv.nloops; i++) {
		struct fake_loop *loop = &srv.loops[i];
		while (loop->conns != NULL)
			fake_conn_free(loop->conns);
		if (loop->listener != NULL)
			evconnlistener_free(loop->listener);
		fake_stats_add(&total, &loop->stats);
	}
	fake_write_stats(&srv.cfg, &total, srv.sh.store);
	if (srv.sh.store != NULL) {
		fake_lmtp_free_all(srv.sh.store);
		fake_store_free(srv.sh.store);
	}
	event_free(srv.sigterm);
	event_free(srv.sigint);
	for (unsigned i = 0; i < srv.nloops; i++) {
		event_free(srv.loops[i].stop);
		event_base_free(srv.loops[i].base);
		fake_zcache_free(srv.loops[i].zcache);
	}
	free(srv.loops);
	fake_shared_free(&srv.sh);
	libevent_global_shutdown();
	return 0;
}
