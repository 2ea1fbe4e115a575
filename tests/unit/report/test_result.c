/* Result files and shards: a histogram survives the file exactly, every
 * counter comes back, a file cut anywhere is refused, and the shard of a
 * process is found in each launcher's environment in the documented
 * order, with users, clients and rates split without overlap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "stats/hist.h"
#include "report_fixture.h"
#include "report/result.h"
#include "config/shard.h"

static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
fill_snap(struct stats_snap *s, uint64_t seed)
{
	for (int op = 0; op < OP_COUNT; op++) {
		s->ok[op] = next_rand(&seed) % 1000;
		s->no[op] = op % 3;
		s->failed[op] = op == OP_APPEND ? 7 : 0;
		for (int i = 0; i < 200; i++)
			hist_record(s->lat[op], next_rand(&seed) %
				    (1ull << (1 + next_rand(&seed) % 33)));
	}
	s->errors[ERR_TIMEOUT] = 5;
	s->errors[ERR_MBOXSTATE] = 2;
	s->append_msgs = 12345;
	s->ports_exhausted = 9;
	s->untracked_fetches = 4488;
	/* the 2 state errors by sub-kind */
	s->state[MBOX_ERR_KEYWORD] = 1;
	s->state[MBOX_ERR_UNANNOUNCED] = 1;
	s->conns_open = 3;
	s->loop_lag_max_us = 777;
	hist_record(s->tls_lat, 1500);
	hist_record(s->connect_lat, 2500);
	hist_record(s->connect_lat, HIST_MAX_US);
}

/* Writes a two-tick run with fixed contents to path. */
static void
write_run_file(const char *path, struct stats_snap *win, struct stats_snap *tot)
{
	struct config cfg;
	char err[256];
	config_defaults(&cfg);
	cfg.result_path = strdup(path);
	cfg.shard_index = 1;
	cfg.shard_count = 3;
	cfg.shard_from = "SLURM_PROCID/SLURM_NTASKS";
	cfg.args_key = strdup("clients=9 users=1-30");
	cfg.n_slas = 1;
	cfg.slas[0] = (struct sla){ .op = OP_APPEND, .percentile = 95,
				    .max_us = 500000, .text = "APPEND.p95<500 ms" };
	struct derived dv;
	derived_init(&dv, &cfg, false);
	struct result_writer *w = result_writer_new(&cfg, &dv, err,
						    sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct report_run run = { .elapsed_s = 1.0001, .clients = 3, .workers = 1 };
	result_writer_tick(w, &run, win);
	run.elapsed_s = 2.0002;
	run.ramping = true;
	result_writer_tick(w, &run, win);
	run.elapsed_s = 2.5;
	run.measured_s = 2.5;
	run.exit_status = 1;
	run.stop_reason = "server unusable";
	result_writer_final(w, &run, tot);
	result_writer_free(w);
	config_free(&cfg);
}

START_TEST(test_roundtrip)
{
	char path[] = "/tmp/result-test-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct stats_snap win, tot, got;
	stats_snap_init(&win);
	stats_snap_init(&tot);
	stats_snap_init(&got);
	fill_snap(&win, 1);
	fill_snap(&tot, 2);
	write_run_file(path, &win, &tot);

	char err[512];
	struct result_reader *r = result_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	const struct result_header *h = result_reader_header(r);
	ck_assert_uint_eq(h->shard_index, 1);
	ck_assert_uint_eq(h->shard_count, 3);
	ck_assert_str_eq(h->shard_from, "SLURM_PROCID/SLURM_NTASKS");
	ck_assert_str_eq(h->args_key, "clients=9 users=1-30");
	ck_assert_uint_eq(h->n_slas, 1);
	ck_assert_str_eq(h->slas[0].text, "APPEND.p95<500 ms");
	ck_assert_int_eq(h->slas[0].op, OP_APPEND);
	ck_assert_int_eq(h->states[OP_APPEND].again, 5);

	enum result_rec kind;
	int64_t sec[2] = { 0, 0 };
	struct report_run run;
	for (int t = 0; t < 3; t++) {
		ck_assert_msg(result_reader_next(r, &kind, &sec[t < 2 ? t : 0], &run,
						 &got, err, sizeof(err)) == 0, "%s", err);
		ck_assert_int_eq(kind, t < 2 ? RESULT_TICK : RESULT_FINAL);
		const struct stats_snap *want = t < 2 ? &win : &tot;
		for (int op = 0; op < OP_COUNT; op++) {
			ck_assert_uint_eq(got.ok[op], want->ok[op]);
			ck_assert_uint_eq(got.no[op], want->no[op]);
			ck_assert_uint_eq(got.failed[op], want->failed[op]);
			ck_assert(same_hist(got.lat[op], want->lat[op]));
			for (double p = 0; p <= 100; p += 0.5)
				ck_assert_uint_eq(hist_percentile(got.lat[op], p),
						  hist_percentile(want->lat[op], p));
		}
		for (int k = 0; k < ERR_COUNT; k++)
			ck_assert_uint_eq(got.errors[k], want->errors[k]);
		ck_assert_uint_eq(got.append_msgs, 12345);
		ck_assert_uint_eq(got.ports_exhausted, 9);
		ck_assert_uint_eq(got.untracked_fetches, 4488);
		for (int k = 0; k < MBOX_ERR_COUNT; k++)
			ck_assert_uint_eq(got.state[k], want->state[k]);
		ck_assert_uint_eq(got.state[MBOX_ERR_KEYWORD], 1);
		ck_assert_uint_eq(got.state[MBOX_ERR_UNANNOUNCED], 1);
		ck_assert_uint_eq(got.conns_open, 3);
		ck_assert_uint_eq(got.loop_lag_max_us, 777);
		ck_assert(same_hist(got.tls_lat, want->tls_lat));
		ck_assert(same_hist(got.connect_lat, want->connect_lat));
		if (t == 1)
			ck_assert(run.ramping);
	}
	ck_assert_int_eq(sec[1], sec[0] + 1);
	ck_assert(run.elapsed_s == 2.5);
	ck_assert_int_eq(run.exit_status, 1);
	ck_assert_str_eq(run.stop_reason, "server unusable");
	ck_assert_int_eq(result_reader_next(r, &kind, &sec[0], &run, &got, err,
					    sizeof(err)), 0);
	ck_assert_int_eq(kind, RESULT_END);
	result_reader_free(r);
	unlink(path);
	stats_snap_free(&win);
	stats_snap_free(&tot);
	stats_snap_free(&got);
}
END_TEST

/* Reads a whole file; 0 when it is accepted to its end line. */
static struct stats_snap read_snap;	/* one, reused: each is megabytes */

static int
read_all(const char *path, char *err, size_t errlen)
{
	struct report_run run;
	enum result_rec kind = RESULT_TICK;
	int64_t sec;
	int rc = 0;
	struct result_reader *r = result_reader_open(path, err, errlen);
	if (r == NULL)
		return -1;
	while (rc == 0 && kind != RESULT_END)
		rc = result_reader_next(r, &kind, &sec, &run, &read_snap, err,
					errlen);
	result_reader_free(r);
	return rc;
}

/* Every proper prefix of a good file is refused: a shard that died while
 * writing can never pass for a complete one. */
START_TEST(test_truncated_anywhere)
{
	char path[] = "/tmp/result-test-XXXXXX", cut[] = "/tmp/result-cut-XXXXXX";
	int fd = mkstemp(path), cfd = mkstemp(cut);
	ck_assert(fd >= 0 && cfd >= 0);
	struct stats_snap win, tot;
	stats_snap_init(&win);
	stats_snap_init(&tot);
	fill_snap(&win, 3);
	fill_snap(&tot, 4);
	write_run_file(path, &win, &tot);
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 20);
	size_t n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	char err[512];
	stats_snap_init(&read_snap);
	ck_assert_int_eq(read_all(path, err, sizeof(err)), 0);
	/* Every byte near the ends and next to a line end, a stride else:
	 * 251, two or more cuts inside each line (the lines average 580
	 * bytes).  Each cut parses up to the whole 127 KB file: the old
	 * stride of 61 (2994 cuts) took 73 s under ASan on a loaded
	 * machine, near the suite's 120 s timeout. */
	for (size_t len = 0; len < n; len++) {
		bool near_nl = buf[len] == '\n' || (len > 0 && buf[len - 1] == '\n');
		if (len > 256 && n - len > 256 && !near_nl && len % 251 != 0)
			continue;
		ck_assert_int_eq(ftruncate(cfd, 0), 0);
		ck_assert_int_eq(pwrite(cfd, buf, len, 0), (ssize_t)len);
		ck_assert_msg(read_all(cut, err, sizeof(err)) < 0,
			      "a file cut at %zu of %zu bytes was accepted", len, n);
	}
	/* A wrong number, a bucket that does not fit its min/max, another
	 * version: refused with the line. */
	const char *bad[][2] = {
		{ "imapstress-result 2\n", "imapstress-result 3\n" },
		{ " min=", " min=1" },
		{ "ok=", "ok=x" },
		{ "end ticks=2", "end ticks=3" },
		{ "\nstate syntax=", "\nstate bogus=" },
		/* a bare keyword: no name to read (the fuzzer's crash) */
		{ "\nhist ", "\nhist\nhist " },
		{ "\nop ", "\nop\nop " },
	};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		char *at = strstr(buf, bad[b][0]);
		ck_assert_ptr_nonnull(at);
		ck_assert_int_eq(ftruncate(cfd, 0), 0);
		size_t pre = (size_t)(at - buf), ol = strlen(bad[b][0]);
		ck_assert_int_eq(pwrite(cfd, buf, pre, 0), (ssize_t)pre);
		ck_assert_int_eq(pwrite(cfd, bad[b][1], strlen(bad[b][1]), (off_t)pre),
				 (ssize_t)strlen(bad[b][1]));
		ck_assert_int_eq(pwrite(cfd, at + ol, n - pre - ol,
					(off_t)(pre + strlen(bad[b][1]))),
				 (ssize_t)(n - pre - ol));
		ck_assert_msg(read_all(cut, err, sizeof(err)) < 0, "edit %zu accepted", b);
		ck_assert_ptr_nonnull(strstr(err, cut));
	}
	ck_assert_ptr_nonnull(strstr(err, ":"));
	stats_snap_free(&read_snap);
	free(buf);
	close(fd);
	close(cfd);
	unlink(path);
	unlink(cut);
	stats_snap_free(&win);
	stats_snap_free(&tot);
}
END_TEST

/* A file written before the state line had the unannounced-after-status
 * errors as a counter of the ctr line: still read, into their sub-kind. */
START_TEST(test_state_unannounced_ctr)
{
	char path[] = "/tmp/result-test-XXXXXX", old[] = "/tmp/result-old-XXXXXX";
	int fd = mkstemp(path), ofd = mkstemp(old);
	ck_assert(fd >= 0 && ofd >= 0);
	struct stats_snap win, tot;
	stats_snap_init(&win);
	stats_snap_init(&tot);
	fill_snap(&win, 5);
	fill_snap(&tot, 6);
	write_run_file(path, &win, &tot);
	FILE *in = fopen(path, "r"), *out = fdopen(ofd, "w");
	ck_assert(in != NULL && out != NULL);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, in) >= 0) {
		if (strncmp(line, "state ", 6) == 0)
			continue;
		if (strncmp(line, "ctr ", 4) == 0)
			fprintf(out, "ctr state_unannounced=4 %s", line + 4);
		else
			fputs(line, out);
	}
	free(line);
	fclose(in);
	fclose(out);
	char err[512];
	stats_snap_init(&read_snap);
	ck_assert_msg(read_all(old, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(read_snap.state[MBOX_ERR_UNANNOUNCED], 4);
	ck_assert_uint_eq(read_snap.state[MBOX_ERR_KEYWORD], 0);
	ck_assert_uint_eq(read_snap.errors[ERR_MBOXSTATE], 2);
	stats_snap_free(&read_snap);
	close(fd);
	unlink(path);
	unlink(old);
	stats_snap_free(&win);
	stats_snap_free(&tot);
}
END_TEST

/* --- shards ------------------------------------------------------------ */

static const char *const *fake_env;

static const char *
env_get(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static int
setup_with(struct config *cfg, const char *const *env, char *err, size_t len)
{
	fake_env = env;
	return shard_setup(cfg, env_get, err, len);
}

START_TEST(test_shard_env_order)
{
	/* in the order of the man page; all + 2k leaves the first k out */
	static const char *const all[] = {
		"JOB_COMPLETION_INDEX", "0", "SLURM_PROCID", "2",
		"SLURM_NTASKS", "4", "OMPI_COMM_WORLD_RANK", "1",
		"OMPI_COMM_WORLD_SIZE", "4", "PARALLEL_SEQ", "3", NULL,
	};
	struct config cfg;
	char err[256];

	/* Kubernetes first, and only with --shards. */
	config_defaults(&cfg);
	ck_assert_int_lt(setup_with(&cfg, all, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "JOB_COMPLETION_INDEX=0"));
	ck_assert_ptr_nonnull(strstr(err, "--shards"));
	cfg.shards = 4;
	ck_assert_int_eq(setup_with(&cfg, all, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 0);
	ck_assert_uint_eq(cfg.shard_count, 4);
	config_free(&cfg);
	/* then Slurm, Open MPI, GNU parallel (counted from 1) */
	config_defaults(&cfg);
	ck_assert_int_eq(setup_with(&cfg, all + 2, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 2);
	ck_assert_str_eq(cfg.shard_from, "SLURM_PROCID/SLURM_NTASKS");
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(setup_with(&cfg, all + 6, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 1);
	ck_assert_uint_eq(cfg.shard_count, 4);
	config_free(&cfg);
	config_defaults(&cfg);
	cfg.shards = 3;
	ck_assert_int_eq(setup_with(&cfg, all + 10, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 2);
	ck_assert_uint_eq(cfg.shard_count, 3);
	config_free(&cfg);
	/* --shard beats any environment */
	config_defaults(&cfg);
	cfg.shard_index = 1;
	cfg.shard_count = 2;
	cfg.shard_from = "--shard";
	ck_assert_int_eq(setup_with(&cfg, all, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 1);
	ck_assert_uint_eq(cfg.shard_count, 2);
	config_free(&cfg);
	/* a job array's task */
	static const char *const arr[] = { "SLURM_ARRAY_TASK_ID", "2",
		"SLURM_ARRAY_TASK_COUNT", "3", "SLURM_PROCID", "0",
		"SLURM_NTASKS", "1", NULL };
	config_defaults(&cfg);
	cfg.result_path = strdup("/r/shard-%i-100%%.res");
	ck_assert_int_eq(setup_with(&cfg, arr, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_index, 2);
	ck_assert_uint_eq(cfg.shard_count, 3);
	ck_assert_str_eq(cfg.result_path, "/r/shard-2-100%.res");
	config_free(&cfg);
	/* no launcher: one shard, nothing changed */
	config_defaults(&cfg);
	ck_assert_int_eq(setup_with(&cfg, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.shard_count, 1);
	ck_assert_uint_eq(cfg.clients, 10);
	config_free(&cfg);
}
END_TEST

START_TEST(test_shard_bad_env)
{
	static const char *const bad[][5] = {
		{ "SLURM_PROCID", "x", "SLURM_NTASKS", "3", NULL },
		{ "SLURM_PROCID", "3", "SLURM_NTASKS", "3", NULL },
		{ "SLURM_PROCID", "0", NULL },
		{ "OMPI_COMM_WORLD_RANK", "-1", "OMPI_COMM_WORLD_SIZE", "2", NULL },
		{ "PARALLEL_SEQ", "0", NULL },
	};
	static const char *const names[] = {
		"SLURM_PROCID=x", "SLURM_PROCID=3", "SLURM_NTASKS",
		"OMPI_COMM_WORLD_RANK=-1", "PARALLEL_SEQ=0",
	};
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config cfg;
		config_defaults(&cfg);
		cfg.shards = 3;
		if (i < 4)
			cfg.shards = 0;
		ck_assert_int_lt(setup_with(&cfg, bad[i], err, sizeof(err)), 0);
		ck_assert_msg(strstr(err, names[i]) != NULL, "%zu: %s", i, err);
		config_free(&cfg);
	}
	struct config cfg;
	config_defaults(&cfg);
	cfg.shards = 4;
	ck_assert_int_lt(setup_with(&cfg, NULL, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "--shards 4"));
	config_free(&cfg);
}
END_TEST

/* Users, clients and rates of N shards add up to the whole run, with no
 * user in two shards. */
START_TEST(test_shard_split)
{
	char err[256];
	for (unsigned n = 1; n <= 7; n++) {
		unsigned clients = 0, next_user = 5;
		double rate = 0;
		for (unsigned i = 0; i < n; i++) {
			struct config cfg;
			config_defaults(&cfg);
			cfg.users_min = 5;
			cfg.users_max = 104;
			cfg.clients = 23;
			cfg.rate = 700;
			cfg.have_seed = true;
			cfg.seed = 10;
			cfg.shard_index = i;
			cfg.shard_count = n;
			ck_assert_int_eq(setup_with(&cfg, NULL, err, sizeof(err)), 0);
			ck_assert_uint_eq(cfg.users_min, next_user);
			next_user = cfg.users_max + 1;
			clients += cfg.clients;
			rate += cfg.rate;
			ck_assert_uint_eq(cfg.seed, 10 + i);
			config_free(&cfg);
		}
		ck_assert_uint_eq(next_user, 105);
		ck_assert_uint_eq(clients, 23);
		ck_assert(rate > 699.999 && rate < 700.001);
	}
	struct config cfg;
	config_defaults(&cfg);
	cfg.clients = 2;
	cfg.shard_index = 0;
	cfg.shard_count = 3;
	ck_assert_int_lt(setup_with(&cfg, NULL, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "clients=2"));
	config_free(&cfg);
}
END_TEST

/* Connects that found no free local port and FETCH answers no view kept
 * (--track-max) are said in so many words, in the text summary and the
 * JSON; a run without any says nothing in the text, 0 in the JSON. */
START_TEST(test_shortfalls_said)
{
	for (int with = 0; with < 2; with++) {
		struct config cfg;
		struct memout m;
		struct stats_snap tot;
		char err[256], path[] = "/tmp/result-json-XXXXXX";
		int fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		close(fd);
		seed_config(&cfg);
		cfg.json_path = strdup(path);
		stats_snap_init(&tot);
		seed_window(&tot, 10, 100, 1000);
		tot.ports_exhausted = with ? 1234 : 0;
		tot.untracked_fetches = with ? 8976 : 0;
		memout_open(&m);
		struct report *r = report_new(&cfg, NULL, m.f, err, sizeof(err));
		ck_assert_msg(r != NULL, "%s", err);
		struct report_run run = plain_run(5);
		report_final(r, &run, &tot);
		report_free(r);
		const char *text = memout_text(&m);
		const char *line = strstr(text, "OUT OF LOCAL PORTS: 1234 ");
		ck_assert(with ? line != NULL : strstr(text, "OUT OF") == NULL);
		line = strstr(text, "untracked: 8976 FETCH answers were checked "
			      "but not kept (messages past --track-max");
		ck_assert(with ? line != NULL
			       : strstr(text, "untracked") == NULL);
		char *json = slurp(path);
		ck_assert_ptr_nonnull(strstr(json, with ? "\"ports_exhausted\":1234"
						   : "\"ports_exhausted\":0"));
		ck_assert_ptr_nonnull(strstr(json, with ?
					     "\"untracked_fetches\":8976" :
					     "\"untracked_fetches\":0"));
		free(json);
		memout_close(&m);
		stats_snap_free(&tot);
		config_free(&cfg);
		unlink(path);
	}
}
END_TEST

static Suite *
result_suite(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("result");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_truncated_anywhere);
	tcase_add_test(tc, test_state_unannounced_ctr);
	tcase_add_test(tc, test_shard_env_order);
	tcase_add_test(tc, test_shard_bad_env);
	tcase_add_test(tc, test_shard_split);
	tcase_add_test(tc, test_shortfalls_said);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(result_suite)
