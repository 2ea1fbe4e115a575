/* test_init_run.c: `imapstress init` through the common runner: its
 * driver (src/drivers/init/) handed to the run's workers (run/worker.c,
 * real threads) and the main thread in the runner's loop (run_wait),
 * against an IMAP server played by the test on 127.0.0.1 in a thread of
 * its own.  What init did is checked where it lands: the server's
 * mailboxes, the results, the workers' stats shards (the sessions ran on
 * the runner's workers, not on loops of init's own), the runner's hooks;
 * and a SIGTERM taken by the runner drains init's connections and ends
 * the run with no user taken after it. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <fcntl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "check_main.h"
#include "config/config.h"
#include "config/derived.h"
#include "conn/shared.h"
#include "drivers/init/init_driver.h"
#include "drivers/init/init_results.h"
#include "drivers/init/init_spec.h"
#include "init/init.h"
#include "run/run.h"
#include "run/setup.h"
#include "run/worker.h"
#include "stats/stats.h"

#define USERS 6
#define BOXES 64

/* The server: a mailbox per (user, folder), kept by its thread. */
struct box {
	char user[32], name[64];
	unsigned messages;
};

struct srv {
	struct event_base *base;
	struct evconnlistener *lis;
	pthread_t thread;
	_Atomic pid_t tid;		/* the thread's, once it runs */
	int stop_fd[2];			/* srv_stop's word to the thread */
	struct event *stop_ev;
	int port;
	bool greet;			/* false: accept, never greet */
	struct box box[BOXES];
	unsigned n_box;
	unsigned conns, logins, logouts, statuses, creates, appends;
	uint64_t literal_octets;
};

/* One client connection of the server. */
struct sconn {
	struct srv *s;
	char user[32];
	size_t lit;			/* literal octets still to come */
	bool in_append;			/* between an APPEND's literals */
	char tag[32], box[64];
	unsigned msgs;
};

static struct srv S;

static struct box *
box_find(const char *user, const char *name)
{
	for (unsigned i = 0; i < S.n_box; i++)
		if (strcmp(S.box[i].user, user) == 0 &&
		    strcmp(S.box[i].name, name) == 0)
			return &S.box[i];
	return NULL;
}

/* The first quoted string of a line (init quotes every folder name). */
static void
quoted(const char *line, char *out, size_t n)
{
	const char *a = strchr(line, '"'), *b = a ? strchr(a + 1, '"') : NULL;
	size_t len = b ? (size_t)(b - a - 1) : 0;

	if (len >= n)
		len = n - 1;
	memcpy(out, a ? a + 1 : "", len);
	out[len] = '\0';
}

/* A line ending in {N} or {N+}: N, and whether to send "+ go". */
static bool
literal_at_end(const char *line, size_t *n, bool *sync)
{
	size_t len = strlen(line);

	if (len < 3 || line[len - 1] != '}')
		return false;
	const char *o = strrchr(line, '{');
	if (o == NULL)
		return false;
	*n = strtoul(o + 1, NULL, 10);
	*sync = line[len - 2] != '+';
	return true;
}

static void say(struct bufferevent *bev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
say(struct bufferevent *bev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	evbuffer_add_vprintf(bufferevent_get_output(bev), fmt, ap);
	va_end(ap);
}

static void
command(struct sconn *sc, struct bufferevent *bev, char *line)
{
	char tag[32], cmd[32], name[64];

	if (sscanf(line, "%31s %31s", tag, cmd) != 2)
		return;
	quoted(line, name, sizeof(name));
	if (strcasecmp(cmd, "LOGIN") == 0) {
		/* LOGIN user pass, either quoted or not */
		const char *u = strchr(line + strlen(tag) + 1, ' ');
		sscanf(u ? u + 1 : "", "%31s", sc->user);
		if (sc->user[0] == '"')
			memmove(sc->user, sc->user + 1, strlen(sc->user));
		char *q = strchr(sc->user, '"');
		if (q != NULL)
			*q = '\0';
		S.logins++;
		if (box_find(sc->user, "INBOX") == NULL && S.n_box < BOXES) {
			snprintf(S.box[S.n_box].user, 32, "%s", sc->user);
			snprintf(S.box[S.n_box++].name, 64, "INBOX");
		}
		say(bev, "%s OK logged in\r\n", tag);
	} else if (strcasecmp(cmd, "STATUS") == 0) {
		struct box *b = box_find(sc->user, name);
		S.statuses++;
		if (b == NULL) {
			say(bev, "%s NO no such mailbox\r\n", tag);
			return;
		}
		say(bev, "* STATUS \"%s\" (MESSAGES %u)\r\n", name, b->messages);
		say(bev, "%s OK status\r\n", tag);
	} else if (strcasecmp(cmd, "CREATE") == 0) {
		S.creates++;
		if (box_find(sc->user, name) == NULL && S.n_box < BOXES) {
			snprintf(S.box[S.n_box].user, 32, "%s", sc->user);
			snprintf(S.box[S.n_box++].name, 64, "%s", name);
		}
		say(bev, "%s OK created\r\n", tag);
	} else if (strcasecmp(cmd, "APPEND") == 0) {
		size_t n;
		bool sync;
		if (!literal_at_end(line, &n, &sync)) {
			say(bev, "%s BAD no literal\r\n", tag);
			return;
		}
		snprintf(sc->tag, sizeof(sc->tag), "%s", tag);
		snprintf(sc->box, sizeof(sc->box), "%s", name);
		sc->msgs = 1;
		sc->lit = n;
		if (sync)
			say(bev, "+ go\r\n");
	} else if (strcasecmp(cmd, "LOGOUT") == 0) {
		S.logouts++;
		say(bev, "* BYE bye\r\n");
		say(bev, "%s OK logged out\r\n", tag);
	} else if (strcasecmp(cmd, "CAPABILITY") == 0) {
		say(bev, "* CAPABILITY IMAP4rev1 LITERAL+ MULTIAPPEND\r\n");
		say(bev, "%s OK capability\r\n", tag);
	} else {
		say(bev, "%s OK\r\n", tag);
	}
}

/* After a literal: " {M+}" (MULTIAPPEND's next message) or the end. */
static void
append_rest(struct sconn *sc, struct bufferevent *bev, const char *line)
{
	size_t n;
	bool sync;

	if (literal_at_end(line, &n, &sync)) {
		sc->msgs++;
		sc->lit = n;
		if (sync)
			say(bev, "+ go\r\n");
		return;
	}
	sc->in_append = false;
	struct box *b = box_find(sc->user, sc->box);
	S.appends++;
	if (b == NULL) {
		say(bev, "%s NO [TRYCREATE] no such mailbox\r\n", sc->tag);
		return;
	}
	b->messages += sc->msgs;
	say(bev, "%s OK appended\r\n", sc->tag);
}

static void
srv_read(struct bufferevent *bev, void *arg)
{
	struct sconn *sc = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	for (;;) {
		if (sc->lit > 0) {
			size_t have = evbuffer_get_length(in);
			size_t take = have < sc->lit ? have : sc->lit;
			evbuffer_drain(in, take);
			sc->lit -= take;
			S.literal_octets += take;
			if (sc->lit > 0)
				return;
			sc->in_append = true;
		}
		size_t n;
		char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF_STRICT);
		if (line == NULL)
			return;
		if (sc->in_append)
			append_rest(sc, bev, line);
		else
			command(sc, bev, line);
		free(line);
	}
}

static void
srv_event(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		bufferevent_free(bev);
		free(arg);
	}
}

static void
srv_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
	   int len, void *arg)
{
	struct bufferevent *bev = bufferevent_socket_new(S.base, fd,
							 BEV_OPT_CLOSE_ON_FREE);
	struct sconn *sc = calloc(1, sizeof(*sc));

	sc->s = &S;
	S.conns++;
	bufferevent_setcb(bev, srv_read, NULL, srv_event, sc);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	if (S.greet)
		say(bev, "* OK [CAPABILITY IMAP4rev1 LITERAL+ MULTIAPPEND] "
		    "test\r\n");
}

static void *
srv_main(void *arg)
{
	atomic_store(&S.tid, gettid());
	event_base_dispatch(S.base);
	return NULL;
}

/* In the server's thread: srv_stop wrote. */
static void
srv_stop_cb(evutil_socket_t fd, short what, void *arg)
{
	event_base_loopbreak(S.base);
}

static void
srv_start(bool greet)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);

	memset(&S, 0, sizeof(S));
	S.greet = greet;
	S.base = event_base_new();
	S.lis = evconnlistener_new_bind(S.base, srv_accept, NULL,
					LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE,
					16, (struct sockaddr *)&sin, sizeof(sin));
	ck_assert_ptr_nonnull(S.lis);
	getsockname(evconnlistener_get_fd(S.lis), (struct sockaddr *)&sin, &len);
	S.port = ntohs(sin.sin_port);
	ck_assert_int_eq(pipe2(S.stop_fd, O_CLOEXEC), 0);
	S.stop_ev = event_new(S.base, S.stop_fd[0], EV_READ, srv_stop_cb, NULL);
	event_add(S.stop_ev, NULL);
	ck_assert_int_eq(pthread_create(&S.thread, NULL, srv_main, NULL), 0);
}

/* After the run: the server's thread ends, its counts are ours to read.
 * The word goes through a pipe the thread's base watches: this base has
 * no libevent thread support (no evthread_use_pthreads), so a loop exit
 * set from here would only be seen once the thread woke for something
 * else, and with every client gone it sleeps in epoll_wait for good. */
static void
srv_stop(void)
{
	ck_assert_int_eq(write(S.stop_fd[1], "x", 1), 1);
	pthread_join(S.thread, NULL);
	event_free(S.stop_ev);
	close(S.stop_fd[0]);
	close(S.stop_fd[1]);
	evconnlistener_free(S.lis);
	event_base_free(S.base);
}

/* The run's pieces as init_main builds them: users u1..u6, two
 * connections on two workers, a small table of 3 folders (INBOX 3, the
 * deleted folder 1, Folder01 2) of 2 KB messages. */
static struct {
	struct config cfg;
	struct shared *sh;
	struct init_spec spec;
	struct init_results res;
	unsigned polls, stops, stop_sig;
	bool stop_first;
} T;

static void
setup_run(void)
{
	char port[32], err[512];
	char *av[] = { "imapstress", "host=127.0.0.1", port, "user=u%d",
		       "users=1-6", "pass=p", "clients=2", "procs=2", NULL };

	memset(&T, 0, sizeof(T));
	snprintf(port, sizeof(port), "port=%d", S.port);
	config_defaults(&T.cfg);
	ck_assert_int_eq(config_parse(&T.cfg, 8, av, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&T.cfg, err, sizeof(err)), 0);
	struct init_table t;
	init_table_defaults(&t);
	t.inbox = 3;
	t.deleted = 1;
	t.new_folders = 1;
	t.folder_messages = 2;
	t.msg_size = 2000;
	ck_assert_int_eq(init_spec_build(&T.spec, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(T.spec.n, 3);
	struct derived dv;
	derived_init(&dv, &T.cfg, false);
	dv.msg_size_mean = t.msg_size;
	dv.states[OP_APPEND].prob = 100;
	T.sh = shared_new(&T.cfg, &dv);
	ck_assert_uint_eq(T.sh->n_workers, 2);
	init_results_init(&T.res, USERS, T.spec.n);
	for (unsigned u = 0; u < USERS; u++) {
		char name[16];
		snprintf(name, sizeof(name), "u%u", u + 1);
		T.res.names[u] = strdup(name);
	}
	/* The runner takes SIGINT/SIGTERM with sigtimedwait: blocked before
	 * any worker exists, as init_run does. */
	run_signals_block();
}

static void
teardown_run(void)
{
	init_results_free(&T.res);
	init_spec_free(&T.spec);
	shared_free(T.sh);
	config_free(&T.cfg);
}

static void
hook_poll(void *arg, uint64_t now)
{
	T.polls++;
}

static void
hook_stopping(void *arg, int sig, bool first)
{
	T.stops++;
	T.stop_sig = (unsigned)sig;
	T.stop_first = first;
}

/* init's driver on two workers of the runner, started as init_run
 * starts them (a SIGTERM raised between the start and the runner's loop
 * when `term`); the runner's loop until the run ends. */
static struct init_driver *
run_init(struct worker **w, bool term)
{
	static struct worker_group g = { .latency_log_fd = -1 };
	struct init_job job = { .cfg = &T.cfg, .sh = T.sh, .spec = &T.spec,
				.res = &T.res, .multiappend = true };
	struct init_driver *d = init_driver_new(&job);
	const struct driver *drv = init_driver_driver(d);

	ck_assert(drv->finite);		/* the run ends when its users do */
	ck_assert(!drv->ramp);
	for (unsigned i = 0; i < 2; i++)
		w[i] = worker_new(i, T.sh, &g, drv);
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(worker_start(w[i]), 0);
	if (term)
		ck_assert_int_eq(raise(SIGTERM), 0);	/* blocked: pending */
	struct run_hooks hooks = { .poll = hook_poll,
				   .stopping = hook_stopping };
	run_wait(w, 2, &T.cfg, &hooks);
	return d;
}

START_TEST(test_init_through_the_common_runner)
{
	struct worker *w[2];

	srv_start(true);
	setup_run();
	struct init_driver *d = run_init(w, false);

	/* run_wait returned on its own: the workers' finite work ended. */
	for (unsigned i = 0; i < 2; i++)
		ck_assert(atomic_load(&w[i]->done));
	ck_assert_uint_ge(T.polls, 1);
	ck_assert_uint_eq(T.stops, 0);
	/* The sessions ran on the runner's workers: their shards counted
	 * every APPEND the results say was OK'd, and the LOGOUTs. */
	uint64_t app_ok = 0, logouts = 0;
	for (unsigned i = 0; i < 2; i++) {
		app_ok += ctr_get(&worker_stats(w[i])->ok[OP_APPEND]);
		logouts += ctr_get(&worker_stats(w[i])->ok[OP_LOGOUT]);
	}
	ck_assert_uint_eq(app_ok, atomic_load(&T.res.append_cmds));
	/* MULTIAPPEND: one command per folder per user. */
	ck_assert_uint_eq(app_ok, USERS * 3);
	for (unsigned i = 0; i < 2; i++)
		worker_free(w[i]);
	init_driver_free(d);
	srv_stop();
	ck_assert_uint_eq(logouts, USERS);
	ck_assert_uint_eq(S.logouts, USERS);

	/* Every user once, filled and checked. */
	ck_assert_uint_eq(atomic_load(&T.res.users_done), USERS);
	ck_assert_uint_eq(S.logins, USERS);
	ck_assert_uint_eq(atomic_load(&T.res.appended), USERS * 6);
	ck_assert_uint_eq(atomic_load(&T.res.created), USERS * 2);
	/* detach summed the shards' APPEND octets: what the server read. */
	ck_assert_uint_gt(atomic_load(&T.res.bytes), 0);
	ck_assert_uint_eq(atomic_load(&T.res.bytes), S.literal_octets);
	for (unsigned u = 0; u < USERS; u++) {
		char name[16];
		snprintf(name, sizeof(name), "u%u", u + 1);
		ck_assert_uint_eq(atomic_load(&T.res.state[u]), INIT_U_CHECKED);
		for (unsigned f = 0; f < T.spec.n; f++) {
			struct box *b = box_find(name, T.spec.f[f].name);
			ck_assert_ptr_nonnull(b);
			ck_assert_uint_eq(b->messages, T.spec.f[f].want);
			ck_assert_uint_eq(T.res.have[u * T.spec.n + f],
					  T.spec.f[f].want);
		}
	}
	teardown_run();
}
END_TEST

/* The mode's own entry (init_run, as `imapstress init` calls it) twice
 * on one server: the first fills, the second finds it all there. */
START_TEST(test_init_run_twice)
{
	struct init_opts o = { .max_lines = 5 };

	srv_start(true);
	setup_run();
	ck_assert_int_eq(init_run(&T.cfg, T.sh, &T.spec, &T.res, &o), 0);
	ck_assert_uint_eq(atomic_load(&T.res.appended), USERS * 6);
	init_results_free(&T.res);
	init_results_init(&T.res, USERS, T.spec.n);
	for (unsigned u = 0; u < USERS; u++) {
		char name[16];
		snprintf(name, sizeof(name), "u%u", u + 1);
		T.res.names[u] = strdup(name);
	}
	ck_assert_int_eq(init_run(&T.cfg, T.sh, &T.spec, &T.res, &o), 0);
	ck_assert_uint_eq(atomic_load(&T.res.appended), 0);
	ck_assert_uint_eq(atomic_load(&T.res.created), 0);
	ck_assert_uint_eq(atomic_load(&T.res.users_done), USERS);
	srv_stop();
	ck_assert_uint_eq(S.logins, 2 * USERS);
	teardown_run();
}
END_TEST

/* A SIGTERM the runner takes (pending before its first wait; the server
 * never greets, so no session can get anywhere first): the stopping hook
 * hears it once, as the first of the two steps; the drain closes init's
 * connections, which take no new user, and the run ends by itself. */
START_TEST(test_init_sigterm_drains)
{
	struct worker *w[2];

	srv_start(false);
	setup_run();
	struct init_driver *d = run_init(w, true);

	ck_assert_uint_eq(T.stops, 1);
	ck_assert_uint_eq(T.stop_sig, SIGTERM);
	ck_assert(T.stop_first);
	for (unsigned i = 0; i < 2; i++)
		worker_free(w[i]);
	init_driver_free(d);
	srv_stop();
	/* Nobody got in; no user was done or given up on. */
	ck_assert_uint_eq(S.logins, 0);
	ck_assert_uint_eq(atomic_load(&T.res.users_done), 0);
	for (unsigned u = 0; u < USERS; u++)
		ck_assert_uint_eq(atomic_load(&T.res.state[u]), INIT_U_PENDING);
	/* One connection per slot at most: a stopped one takes no user and
	 * does not come back. */
	ck_assert_uint_le(S.conns, 2);
	teardown_run();
}
END_TEST

/* Whether the server's thread sleeps in epoll_wait with no timeout (its
 * base holds no timer): then only a file descriptor can wake it.  The
 * kernel says which system call a blocked thread is in, and its
 * arguments (proc(5), /proc/PID/task/TID/syscall: "running" otherwise). */
static bool
srv_asleep(void)
{
	char path[64], line[256];
	long nr;
	unsigned long a0, a1, a2, timeout;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall",
		 (int)atomic_load(&S.tid));
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: cannot read it", path);
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!got || sscanf(line, "%ld %lx %lx %lx %lx", &nr, &a0, &a1, &a2,
			   &timeout) != 5)
		return false;
#ifdef SYS_epoll_wait
	if (nr == SYS_epoll_wait)
		return (int)timeout == -1;
#endif
	return nr == SYS_epoll_pwait && (int)timeout == -1;
}

/* What every case's end meets when the server has answered everything:
 * its thread asleep in epoll_wait, and srv_stop called from this one.
 * The stop must wake it (a loop exit set from another thread on a base
 * without libevent's thread support is not seen until the thread wakes
 * for something else: under load, never, and the case timed out). */
START_TEST(test_server_stop_wakes_it)
{
	struct timespec ms = { 0, 1000000 };

	srv_start(true);
	while (atomic_load(&S.tid) == 0 || !srv_asleep())
		nanosleep(&ms, NULL);
	srv_stop();
	ck_assert_uint_eq(S.conns, 0);
}
END_TEST

static Suite *
init_run_suite(void)
{
	Suite *s = suite_create("init_run");
	TCase *tc = tcase_create("runner");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_server_stop_wakes_it);
	tcase_add_test(tc, test_init_through_the_common_runner);
	tcase_add_test(tc, test_init_run_twice);
	tcase_add_test(tc, test_init_sigterm_drains);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(init_run_suite)
