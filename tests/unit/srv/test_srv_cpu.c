/* test_srv_cpu.c: the server watch's CPU and disk figures over scripted
 * /proc trees (a temporary directory laid out like /proc, one sample per
 * step): a process missed in one sample, a child reaped into its
 * parent's cutime after the parent was read, a reused pid, a process
 * that starts and exits between two samples, a process reparented away,
 * and the cap of a second at 100% x the CPUs.  Each step's expected total
 * is worked out by hand in the comments.  Summing the tree's
 * utime+stime+cutime+cstime and taking the growth of the sum (clamped at
 * 0), as before, fails every one: the sum drops when a process with time
 * of its own leaves it (missed, reaped after the parent's read, moved
 * away), the clamp loses that second's real growth, and the lump comes
 * back whole when the process or its cutime shows up again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "srv/procstat.h"

struct fake {
	char root[64];
	long tck;
	uint64_t now_us;
	struct srv_watch *w;
	struct srv_sample s;
};

static void
put(const struct fake *f, int pid, const char *file, const char *text)
{
	char path[256];
	if (pid > 0) {
		snprintf(path, sizeof(path), "%s/%d", f->root, pid);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/%d/%s", f->root, pid, file);
	} else {
		snprintf(path, sizeof(path), "%s/%s", f->root, file);
	}
	FILE *o = fopen(path, "w");
	ck_assert_ptr_nonnull(o);
	fputs(text, o);
	fclose(o);
}

/* pid's stat: own ticks (utime; stime 0 keeps the sums plain), reaped
 * children's (cutime), start in ticks since boot; io write bytes. */
static void
proc(const struct fake *f, int pid, int ppid, uint64_t start, uint64_t own,
     uint64_t kids, uint64_t wr)
{
	char line[512];
	snprintf(line, sizeof(line), "%d (p%d) S %d %d %d 0 -1 0 0 0 0 0 "
		 "%llu 0 %llu 0 20 0 1 0 %llu 1000000 10 0\n", pid, pid, ppid,
		 pid, pid, (unsigned long long)own, (unsigned long long)kids,
		 (unsigned long long)start);
	put(f, pid, "stat", line);
	snprintf(line, sizeof(line), "rchar: 0\nwchar: 0\nread_bytes: 0\n"
		 "write_bytes: %llu\n", (unsigned long long)wr);
	put(f, pid, "io", line);
}

static void
gone(const struct fake *f, int pid)
{
	char path[256];
	const char *files[] = { "stat", "io" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%d/%s", f->root, pid, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%d", f->root, pid);
	rmdir(path);
}

/* The clock since boot when the next sample is taken. */
static void
uptime(const struct fake *f, uint64_t ticks)
{
	char text[64];
	snprintf(text, sizeof(text), "%llu.%02llu 0.00\n",
		 (unsigned long long)(ticks / (uint64_t)f->tck),
		 (unsigned long long)(ticks % (uint64_t)f->tck * 100 /
				      (uint64_t)f->tck));
	put(f, 0, "uptime", text);
}

static void
fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->root, sizeof(f->root), "/tmp/srvcpu-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->root));
	f->tck = sysconf(_SC_CLK_TCK);
	ck_assert_int_gt(f->tck, 0);
	f->now_us = 1000000;
}

static void
fake_watch(struct fake *f, unsigned ncpu, int root_pid)
{
	char err[256];
	f->w = srv_watch_new_at(f->root, ncpu, &root_pid, 1, err, sizeof(err));
	ck_assert_msg(f->w != NULL, "%s", err);
}

/* One sample, a second after the last; the totals so far in ticks. */
static void
sample(struct fake *f, uint64_t want_ticks)
{
	srv_watch_sample(f->w, f->now_us, &f->s);
	f->now_us += 1000000;
	ck_assert(f->s.alive);
	ck_assert_msg((uint64_t)(f->s.cpu_s * (double)f->tck + 0.5) ==
		      want_ticks, "cpu %.3f s, want %llu ticks", f->s.cpu_s,
		      (unsigned long long)want_ticks);
}

static void
fake_done(struct fake *f)
{
	char cmd[128];
	srv_watch_free(f->w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	ck_assert_int_eq(system(cmd), 0);
}

/* The next sample's clock since boot, and the master's figures then
 * (pid 100, started at 100): own ticks, reaped children's, bytes written. */
static void
master_at(struct fake *f, uint64_t boot, uint64_t own, uint64_t kids,
	  uint64_t wr)
{
	uptime(f, boot);
	proc(f, 100, 1, 100, own, kids, wr);
}

/* Most cases start alike: at 10000 ticks since boot, a master (100, 100
 * ticks used, wr_master bytes written) and a session of its (200, started
 * at 5000, 500 ticks, wr_session bytes), two CPUs; the first sample. */
static void
begin(struct fake *f, uint64_t wr_master, uint64_t wr_session)
{
	fake_init(f);
	master_at(f, 10000, 100, 0, wr_master);
	proc(f, 200, 100, 5000, 500, 0, wr_session);
	fake_watch(f, 2, 100);
	sample(f, 0);
}

/* The master (100) and a session (200, 500 ticks used before the watch).
 * The session is missed in sample 2 and back in sample 3: its growth in
 * between counts once.  A process first seen that started before the
 * last sample counts nothing for what it used before. */
START_TEST(test_missed_one_sample)
{
	struct fake f;
	begin(&f, 0, 0);
	master_at(&f, 10100, 110, 0, 0);
	gone(&f, 200);
	sample(&f, 10);			/* 100: +10 */
	master_at(&f, 10200, 120, 0, 0);
	proc(&f, 200, 100, 5000, 520, 0, 0);
	sample(&f, 40);			/* 100: +10, 200: +20 since sample 1 */
	ck_assert_double_le(f.s.cpu_pct, 200.0);
	ck_assert_double_eq_tol(f.s.cpu_pct, 30.0, 0.01);
	uptime(&f, 10300);
	proc(&f, 300, 100, 9000, 700, 0, 0);	/* started before sample 3 */
	sample(&f, 40);
	ck_assert_uint_eq(f.s.procs, 3);
	ck_assert_uint_eq(f.s.cpu_capped, 0);
	fake_done(&f);
}
END_TEST

/* A session (200) exits between samples 1 and 2 and is reaped after the
 * master was read: sample 2 sees neither it nor its time in the master's
 * cutime; sample 3 sees its final 520 ticks there, of which 500 were
 * counted already.  Then a reap the master's read does catch, and the
 * disk bytes, which the kernel adds to the parent the same way. */
START_TEST(test_reaped_late_into_cutime)
{
	struct fake f;
	begin(&f, 1000, 5000);
	master_at(&f, 10100, 110, 0, 1000);
	gone(&f, 200);
	sample(&f, 10);
	master_at(&f, 10200, 120, 520, 1000 + 5200);
	sample(&f, 40);			/* +10 own, +20 the rest of 200 */
	ck_assert_uint_eq(f.s.write_total, 200);
	/* 300 starts after sample 3: all of it is the window's */
	uptime(&f, 10300);
	proc(&f, 300, 100, 10250, 50, 0, 0);
	sample(&f, 90);
	/* and is reaped before the master's read: 60 reach cutime */
	gone(&f, 300);
	master_at(&f, 10400, 120, 520 + 60, 6200);
	sample(&f, 100);
	ck_assert_uint_eq(f.s.procs, 1);
	fake_done(&f);
}
END_TEST

/* Session 200 is reaped late (as above) and its pid goes at once to a
 * new process that started after sample 1: the old one's debt and the
 * new one's whole time are two processes, not one pid's growth. */
START_TEST(test_pid_reused)
{
	struct fake f;
	begin(&f, 0, 0);
	master_at(&f, 10100, 110, 0, 0);
	proc(&f, 200, 100, 10050, 5, 0, 0);
	sample(&f, 15);			/* 100: +10, the new 200: 5 */
	master_at(&f, 10200, 120, 520, 0);
	sample(&f, 45);			/* 100: +10, the old 200: +20 */
	/* A root pid whose start changed is someone else's: gone. */
	proc(&f, 100, 1, 200, 0, 0, 0);
	srv_watch_sample(f.w, f.now_us, &f.s);
	ck_assert(!f.s.alive);
	fake_done(&f);
}
END_TEST

/* A short process starts and exits between samples 1 and 2 (30 ticks,
 * reaped before the master's read) while session 200 is reaped after
 * it: the short one's time is counted (in sample 3, once the late reap
 * shows), and 200's rest once. */
START_TEST(test_start_and_exit_between)
{
	struct fake f;
	begin(&f, 0, 0);
	master_at(&f, 10100, 110, 30, 0);
	gone(&f, 200);
	sample(&f, 10);
	master_at(&f, 10200, 120, 30 + 520, 0);
	sample(&f, 70);			/* 100: 20, short: 30, 200: 20 */
	/* one more such, with nothing else going on */
	master_at(&f, 10300, 120, 550 + 25, 0);
	sample(&f, 95);
	fake_done(&f);
}
END_TEST

/* Session 200 is reparented away (ppid 1, outside the tree): no debt
 * waits for it, so the master's next reap of another child counts. */
START_TEST(test_reparented_away)
{
	struct fake f;
	begin(&f, 0, 0);
	uptime(&f, 10100);
	proc(&f, 200, 1, 5000, 600, 0, 0);
	proc(&f, 100, 1, 100, 110, 40, 0);
	sample(&f, 50);
	ck_assert_uint_eq(f.s.procs, 1);
	fake_done(&f);
}
END_TEST

/* More CPU in a window than the CPUs can give (ncpu 1): the second shows
 * 100%, the excess goes to the next one, the total keeps it. */
START_TEST(test_cap_per_second)
{
	struct fake f;
	fake_init(&f);
	master_at(&f, 10000, 0, 0, 0);
	fake_watch(&f, 1, 100);
	sample(&f, 0);
	master_at(&f, 10100, (uint64_t)f.tck * 3 / 2, 0, 0);
	sample(&f, (uint64_t)f.tck * 3 / 2);
	ck_assert_double_eq_tol(f.s.cpu_pct, 100.0, 0.01);
	ck_assert_uint_eq(f.s.cpu_capped, 1);
	master_at(&f, 10200, (uint64_t)f.tck * 17 / 10, 0, 0);
	sample(&f, (uint64_t)f.tck * 17 / 10);
	ck_assert_double_eq_tol(f.s.cpu_pct, 70.0, 0.01);
	ck_assert_uint_eq(f.s.cpu_capped, 1);
	fake_done(&f);
}
END_TEST

static Suite *
srv_cpu_suite(void)
{
	Suite *s = suite_create("srv_cpu");
	TCase *tc = tcase_create("srv_cpu");
	tcase_add_test(tc, test_missed_one_sample);
	tcase_add_test(tc, test_reaped_late_into_cutime);
	tcase_add_test(tc, test_pid_reused);
	tcase_add_test(tc, test_start_and_exit_between);
	tcase_add_test(tc, test_reparented_away);
	tcase_add_test(tc, test_cap_per_second);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(srv_cpu_suite)
