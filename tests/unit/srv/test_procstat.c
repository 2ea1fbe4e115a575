/* test_procstat.c: the /proc parsers on hand-made text (a comm with
 * spaces and parentheses, missing fields), and a live watch of this very
 * process: CPU a child burned and that we reaped shows up through
 * cutime/cstime, memory is non-zero, and a watched pid that exits makes
 * the watch say it is gone. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "srv/procread.h"
#include "srv/procstat.h"

START_TEST(test_parse_stat)
{
	struct srv_stat st;
	const char *line = "4242 (imap (x) y) S 17 4242 4242 0 -1 4194560 "
	    "1234 0 0 0 11 22 33 44 20 0 1 0 5555 12345678 321 "
	    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	ck_assert_int_eq(srv_parse_stat(line, &st), 0);
	ck_assert_int_eq(st.ppid, 17);
	ck_assert_uint_eq(st.utime, 11);
	ck_assert_uint_eq(st.stime, 22);
	ck_assert_uint_eq(st.cutime, 33);
	ck_assert_uint_eq(st.cstime, 44);
	ck_assert_uint_eq(st.start, 5555);
	ck_assert_uint_eq(st.rss_pages, 321);
	ck_assert_int_eq(srv_parse_stat("4242 (imap) S 17 1 2\n", &st), -1);
	ck_assert_int_eq(srv_parse_stat("no parens", &st), -1);
}
END_TEST

START_TEST(test_parse_io_pss)
{
	uint64_t rd, wr, kb;
	const char *io = "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\n"
	    "read_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
	ck_assert_int_eq(srv_parse_io(io, &rd, &wr), 0);
	ck_assert_uint_eq(rd, 4096);
	ck_assert_uint_eq(wr, 8192);
	ck_assert_int_eq(srv_parse_io("rchar: 1\n", &rd, &wr), -1);
	const char *sm = "55d0-7ffd ---p 00000000 00:00 0 [rollup]\n"
	    "Rss:  2048 kB\nPss:  1024 kB\nPss_Anon: 512 kB\n";
	ck_assert_int_eq(srv_parse_pss(sm, &kb), 0);
	ck_assert_uint_eq(kb, 1024);
	ck_assert_int_eq(srv_parse_pss("Rss: 1 kB\n", &kb), -1);
}
END_TEST

START_TEST(test_parse_uptime)
{
	uint64_t t;
	ck_assert_int_eq(srv_parse_uptime("12345.67 99.00\n", 100, &t), 0);
	ck_assert_uint_eq(t, 1234567);
	ck_assert_int_eq(srv_parse_uptime("3.5\n", 100, &t), 0);
	ck_assert_uint_eq(t, 350);
	ck_assert_int_eq(srv_parse_uptime("7 1\n", 250, &t), 0);
	ck_assert_uint_eq(t, 1750);
	ck_assert_int_eq(srv_parse_uptime("x1.00 2\n", 100, &t), -1);
	ck_assert_int_eq(srv_parse_uptime("1.00x\n", 100, &t), -1);
}
END_TEST

static uint64_t
mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Spin until this process has used `us` of CPU (not of wall time). */
static void
burn_cpu(uint64_t us)
{
	struct rusage ru;
	volatile uint64_t x = 0;
	for (;;) {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		getrusage(RUSAGE_SELF, &ru);
		if ((uint64_t)ru.ru_utime.tv_sec * 1000000u +
		    (uint64_t)ru.ru_utime.tv_usec +
		    (uint64_t)ru.ru_stime.tv_sec * 1000000u +
		    (uint64_t)ru.ru_stime.tv_usec >= us)
			return;
	}
}

START_TEST(test_watch_self_and_reaped_child)
{
	char err[256];
	int me = (int)getpid();
	struct srv_sample s;
	struct srv_watch *w = srv_watch_new(&me, 1, err, sizeof(err));

	ck_assert_ptr_nonnull(w);
	srv_watch_sample(w, mono_us(), &s);
	ck_assert(s.alive);
	ck_assert_uint_ge(s.procs, 1);
	ck_assert_uint_gt(s.mem_kb, 0);
	/* A child burns 300 ms of CPU and is reaped by us: its time moves
	 * into our cutime/cstime, which the watch counts. */
	pid_t kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		burn_cpu(300000);
		_exit(0);
	}
	int st;
	ck_assert_int_eq(waitpid(kid, &st, 0), kid);
	srv_watch_sample(w, mono_us(), &s);
	ck_assert(s.alive);
	ck_assert(s.cpu_s >= 0.25);
	ck_assert(s.cpu_pct > 0);
	srv_watch_free(w);
}
END_TEST

START_TEST(test_watch_gone)
{
	char err[256];
	struct srv_sample s;
	pid_t kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		pause();
		_exit(0);
	}
	int pid = (int)kid;
	struct srv_watch *w = srv_watch_new(&pid, 1, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	srv_watch_sample(w, mono_us(), &s);
	ck_assert(s.alive);
	kill(kid, SIGKILL);
	int st;
	ck_assert_int_eq(waitpid(kid, &st, 0), kid);
	srv_watch_sample(w, mono_us(), &s);
	ck_assert(!s.alive);
	srv_watch_sample(w, mono_us(), &s);
	ck_assert(!s.alive);		/* and stays gone */
	srv_watch_free(w);
	/* A pid that does not exist is refused up front. */
	ck_assert_ptr_null(srv_watch_new(&pid, 1, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "no such process"));
}
END_TEST

static Suite *
procstat_suite(void)
{
	Suite *s = suite_create("procstat");
	TCase *tc = tcase_create("procstat");
	tcase_add_test(tc, test_parse_stat);
	tcase_add_test(tc, test_parse_io_pss);
	tcase_add_test(tc, test_parse_uptime);
	tcase_add_test(tc, test_watch_self_and_reaped_child);
	tcase_add_test(tc, test_watch_gone);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(procstat_suite)
