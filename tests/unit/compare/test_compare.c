/* `imapstress compare`: the bootstrap on samples whose intervals are
 * known, the verdict rules, the rows' sample rules, and the refusal of
 * files that measure something else, all on small result files written
 * here with the result writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "compare/compare.h"
#include "compare/compare_int.h"
#include "config/derived.h"
#include "report_fixture.h"
#include "report/result.h"

/* What a test file holds: n seconds, second k with ok[k] APPENDs (each
 * a latency sample of lat_us), the first `warm` of them inside
 * --warmup; the options' key and APPEND's share of the mix. */
struct spec {
	const char *args;
	unsigned n, warm;
	const uint64_t *ok;
	uint64_t lat_us;
	int append_prob;
	unsigned shard, shards;
	const double *elapsed;	/* tick k's elapsed_s; NULL: k + 1 */
};

static void
write_res(const char *path, const struct spec *sp)
{
	struct config cfg;
	struct stats_snap s, tot;
	char err[256];

	config_defaults(&cfg);
	cfg.result_path = strdup(path);
	cfg.args_key = strdup(sp->args);
	cfg.shard_index = sp->shard;
	cfg.shard_count = sp->shards;
	struct derived dv;
	derived_init(&dv, &cfg, false);
	dv.states[OP_APPEND].prob = sp->append_prob;
	struct result_writer *w = result_writer_new(&cfg, &dv, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	stats_snap_init(&s);
	stats_snap_init(&tot);
	for (unsigned k = 0; k < sp->n; k++) {
		stats_snap_clear(&s);
		s.ok[OP_APPEND] = sp->ok[k];
		if (sp->ok[k] > 0)
			hist_record_n(s.lat[OP_APPEND], sp->lat_us, sp->ok[k]);
		struct report_run run = { .elapsed_s = sp->elapsed ?
					  sp->elapsed[k] : k + 1, .clients = 1,
					  .workers = 1, .warmup = k < sp->warm };
		result_writer_tick(w, &run, &s);
		if (k >= sp->warm)
			stats_snap_add(&tot, &s);
	}
	struct report_run fin = { .elapsed_s = sp->n, .clients = 1,
				  .workers = 1,
				  .measured_s = sp->n - sp->warm };
	result_writer_final(w, &fin, &tot);
	result_writer_free(w);
	stats_snap_free(&s);
	stats_snap_free(&tot);
	config_free(&cfg);
}

static char *
tmp_path(void)
{
	char *p = strdup("/tmp/cmp-test-XXXXXX");
	close(mkstemp(p));
	return p;
}

/* Each side's files from specs; loaded into s[0] (BASE) and s[1]. */
struct pair {
	char *paths[2][8];
	unsigned n[2];
	struct cmp_side s[2];
	struct cmp_file files[16];
	unsigned n_files;
	char err[1100];
};

static void
pair_write(struct pair *p, int side, const struct spec *sp)
{
	char *path = tmp_path();
	write_res(path, sp);
	p->paths[side][p->n[side]++] = path;
}

static int
pair_load(struct pair *p)
{
	p->s[0].name = "BASE";
	p->s[1].name = "NEW";
	if (cmp_side_load(&p->s[0], p->paths[0], p->n[0], p->files,
			  &p->n_files, p->err, sizeof(p->err)) < 0 ||
	    cmp_side_load(&p->s[1], p->paths[1], p->n[1], p->files,
			  &p->n_files, p->err, sizeof(p->err)) < 0)
		return -1;
	return 0;
}

static void
pair_free(struct pair *p)
{
	cmp_side_free(&p->s[0]);
	cmp_side_free(&p->s[1]);
	for (unsigned i = 0; i < p->n_files; i++)
		free(p->files[i].h.args_key);
	for (int side = 0; side < 2; side++)
		for (unsigned i = 0; i < p->n[side]; i++) {
			unlink(p->paths[side][i]);
			free(p->paths[side][i]);
		}
}

static const struct cmp_opts opts = { .threshold = 0.05, .seed = 1,
				      .resamples = 2000, .min_count = 30 };

/* Seconds only: BASE does 100 APPENDs every second of 100; NEW does 40
 * in half its seconds and 60 in the other half.  A resample of NEW's
 * seconds has mean 50 + 10 (2X/100 - 1), X ~ Binomial(100, 1/2), whose
 * 2.5% and 97.5% quantiles are X = 40 and 60: the ratio's interval is
 * 0.48 .. 0.52 (to within 0.005, the resampling's own error), around
 * the ratio 0.5. */
START_TEST(test_interval_of_seconds)
{
	uint64_t base[100], nw[100];
	struct pair p = { 0 };
	double lo[OP_COUNT][CMP_METRICS], hi[OP_COUNT][CMP_METRICS];

	for (unsigned k = 0; k < 100; k++) {
		base[k] = 100;
		nw[k] = k % 2 ? 40 : 60;
	}
	pair_write(&p, 0, &(struct spec){ "clients=1", 100, 0, base, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "clients=1", 100, 0, nw, 1000, 100, 0, 1, NULL });
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	cmp_bootstrap(&p.s[0], &p.s[1], &opts, lo, hi);
	ck_assert_msg(fabs(lo[OP_APPEND][CMP_RATE] - 0.48) <= 0.005 &&
		      fabs(hi[OP_APPEND][CMP_RATE] - 0.52) <= 0.005,
		      "interval %.4f .. %.4f", lo[OP_APPEND][CMP_RATE],
		      hi[OP_APPEND][CMP_RATE]);
	/* The same seed: the same interval, to the bit. */
	double lo2[OP_COUNT][CMP_METRICS], hi2[OP_COUNT][CMP_METRICS];
	cmp_bootstrap(&p.s[0], &p.s[1], &opts, lo2, hi2);
	ck_assert(lo2[OP_APPEND][CMP_RATE] == lo[OP_APPEND][CMP_RATE]);
	ck_assert(hi2[OP_APPEND][CMP_RATE] == hi[OP_APPEND][CMP_RATE]);
	/* Latency is 1 ms on both sides in every second: exactly 1. */
	ck_assert(lo[OP_APPEND][CMP_P95] == 1.0 && hi[OP_APPEND][CMP_P95] == 1.0);
	unsigned n;
	struct cmp_row *rows = cmp_rows(&p.s[0], &p.s[1], &opts, &n);
	ck_assert_uint_eq(n, CMP_METRICS);	/* APPEND only */
	ck_assert_int_eq(rows[0].op, OP_APPEND);
	ck_assert(fabs(rows[0].ratio - 0.5) < 1e-12);
	ck_assert(fabs(rows[0].base - 100.0) < 1e-12);
	ck_assert_int_eq(rows[0].verdict, CMP_WORSE);
	ck_assert_int_eq(rows[2].verdict, CMP_SAME);
	free(rows);
	pair_free(&p);
}
END_TEST

/* Runs: BASE's three runs do 90, 100 and 110 a second, NEW's all 100.
 * A resample of BASE averages three draws from the runs; all three are
 * 110 with probability 1/27 = 3.7% and all 90 likewise, more than
 * 2.5%: the interval is exactly 100/110 .. 100/90. */
/* A tick is due each second but fires when the loop gets to it: each
 * second lasts from the tick before to its own, as elapsed_s says, so
 * that a run's seconds add up to its measured time (before, each was
 * 1 s, and a run whose last tick came 30 ms late had 30 ms too few, its
 * rate that much too high: t_compare.sh (a) failed on a loaded CI
 * machine).  The first tick, inside --warmup, is left out. */
START_TEST(test_late_ticks)
{
	static const uint64_t ok[4] = { 100, 100, 100, 100 };
	static const double at[4] = { 1.2, 2.05, 3.5, 3.75 };
	struct spec sp = { .args = "a", .n = 4, .warm = 1, .ok = ok,
			   .lat_us = 1000, .append_prob = 100,
			   .elapsed = at };
	struct pair p = { 0 };

	pair_write(&p, 0, &sp);
	pair_write(&p, 1, &sp);
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	const struct cmp_run *r = &p.s[0].runs[0];
	ck_assert_uint_eq(r->n_secs, 3);
	ck_assert_double_eq_tol(r->secs[0].dur, 0.85, 1e-9);
	ck_assert_double_eq_tol(r->secs[1].dur, 1.45, 1e-9);
	ck_assert_double_eq_tol(r->secs[2].dur, 0.25, 1e-9);
	ck_assert_double_eq_tol(r->dur, 3.75 - 1.2, 1e-9);
	ck_assert_uint_eq(r->ok[OP_APPEND], 300);
	pair_free(&p);
}
END_TEST

START_TEST(test_interval_of_runs)
{
	uint64_t r[3][5], c[5];
	struct pair p = { 0 };
	double lo[OP_COUNT][CMP_METRICS], hi[OP_COUNT][CMP_METRICS];

	for (unsigned k = 0; k < 5; k++) {
		r[0][k] = 90;
		r[1][k] = 100;
		r[2][k] = 110;
		c[k] = 100;
	}
	for (unsigned i = 0; i < 3; i++) {
		pair_write(&p, 0, &(struct spec){ "clients=1", 5, 0, r[i], 1000, 100, 0, 1, NULL });
		pair_write(&p, 1, &(struct spec){ "clients=1", 5, 0, c, 1000, 100, 0, 1, NULL });
	}
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	ck_assert_uint_eq(p.s[0].n_runs, 3);
	cmp_bootstrap(&p.s[0], &p.s[1], &opts, lo, hi);
	ck_assert_msg(fabs(lo[OP_APPEND][CMP_RATE] - 100.0 / 110) < 1e-12 &&
		      fabs(hi[OP_APPEND][CMP_RATE] - 100.0 / 90) < 1e-12,
		      "interval %.6f .. %.6f", lo[OP_APPEND][CMP_RATE],
		      hi[OP_APPEND][CMP_RATE]);
	pair_free(&p);
}
END_TEST

/* Latency doubled (1 ms to 2 ms, both exact buckets), rate the same;
 * warm-up seconds left out (their 1 APPEND a second would halve the
 * rate); through compare_main: exit 1, JSON rows as computed. */
START_TEST(test_main_worse_latency)
{
	uint64_t ok[6] = { 1, 1, 200, 200, 200, 200 };
	struct pair p = { 0 };
	char *json = tmp_path();

	pair_write(&p, 0, &(struct spec){ "clients=1 secs=6 warmup=2", 6, 2, ok, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "warmup=2 secs=6 clients=1 port=2", 6, 2, ok, 2000, 100, 0, 1, NULL });
	char *argv[] = { "compare", "--json", json, p.paths[0][0], "--",
			 p.paths[1][0], NULL };
	ck_assert_int_eq(compare_main(6, argv), 1);
	char *j = slurp(json);
	ck_assert_msg(strstr(j, "{\"command\":\"APPEND\",\"figure\":\"rate\","
			     "\"unit\":\"1/s\",\"base\":200,\"new\":200,"
			     "\"ratio\":1,\"ci_low\":1,\"ci_high\":1,"
			     "\"base_samples\":800,\"new_samples\":800,"
			     "\"verdict\":\"no-change\"}") != NULL, "%s", j);
	ck_assert_msg(strstr(j, "\"figure\":\"p99\",\"unit\":\"ms\",\"base\":1,"
			     "\"new\":2,\"ratio\":2,\"ci_low\":2,\"ci_high\":2,"
			     "\"base_samples\":800,\"new_samples\":800,"
			     "\"verdict\":\"worse\"") != NULL, "%s", j);
	ck_assert_msg(strstr(j, "\"worse\":3,\"exit_status\":1}") != NULL, "%s", j);
	free(j);
	/* The other way round it is better, and nothing is worse. */
	char *argv2[] = { "compare", "--json", json, p.paths[1][0], "--",
			  p.paths[0][0], NULL };
	ck_assert_int_eq(compare_main(6, argv2), 0);
	j = slurp(json);
	ck_assert_msg(strstr(j, "\"ci_high\":0.5,\"base_samples\":800,"
			     "\"new_samples\":800,\"verdict\":\"better\"") != NULL,
		      "%s", j);
	free(j);
	unlink(json);
	free(json);
	pair_free(&p);
}
END_TEST

START_TEST(test_verdict_rules)
{
	/* Rate: lower is worse; the whole interval must pass the line. */
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 0.80, 0.90, 0.05), CMP_WORSE);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 0.80, 0.949, 0.05), CMP_WORSE);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 0.80, 0.96, 0.05), CMP_SAME);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 0.97, 1.03, 0.05), CMP_SAME);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 1.04, 1.30, 0.05), CMP_SAME);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, 1.051, 1.30, 0.05), CMP_BETTER);
	/* Latency: higher is worse. */
	ck_assert_int_eq(cmp_verdict_of(CMP_P95, 1.06, 1.50, 0.05), CMP_WORSE);
	ck_assert_int_eq(cmp_verdict_of(CMP_P99, 1.04, 1.50, 0.05), CMP_SAME);
	ck_assert_int_eq(cmp_verdict_of(CMP_P50, 0.50, 0.94, 0.05), CMP_BETTER);
	ck_assert_int_eq(cmp_verdict_of(CMP_P50, 0.50, 0.96, 0.05), CMP_SAME);
	/* Threshold 0: any interval that excludes 1. */
	ck_assert_int_eq(cmp_verdict_of(CMP_P50, 1.001, 1.002, 0), CMP_WORSE);
	ck_assert_int_eq(cmp_verdict_of(CMP_RATE, NAN, 1.0, 0.05), CMP_NODATA);
}
END_TEST

/* Fewer samples than --min-count: "few", never "worse"; a rate that
 * fell to nothing on NEW is still a finding. */
START_TEST(test_few_samples)
{
	uint64_t few[5] = { 2, 2, 2, 2, 2 }, many[5] = { 50, 50, 50, 50, 50 };
	uint64_t none[5] = { 0 };
	struct pair p = { 0 };
	unsigned n;

	pair_write(&p, 0, &(struct spec){ "clients=1", 5, 0, few, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "clients=1", 5, 0, few, 3000, 100, 0, 1, NULL });
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	struct cmp_row *rows = cmp_rows(&p.s[0], &p.s[1], &opts, &n);
	ck_assert_uint_eq(n, CMP_METRICS);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(rows[i].verdict, CMP_FEW);
	ck_assert(fabs(rows[CMP_P50].ratio - 3.0) < 1e-12);
	free(rows);
	pair_free(&p);

	memset(&p, 0, sizeof(p));
	pair_write(&p, 0, &(struct spec){ "clients=1", 5, 0, many, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "clients=1", 5, 0, none, 1000, 100, 0, 1, NULL });
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	rows = cmp_rows(&p.s[0], &p.s[1], &opts, &n);
	ck_assert_uint_eq(n, CMP_METRICS);
	ck_assert_int_eq(rows[CMP_RATE].verdict, CMP_WORSE);
	ck_assert(rows[CMP_RATE].ratio == 0 && rows[CMP_RATE].hi == 0);
	ck_assert_int_eq(rows[CMP_P50].verdict, CMP_NODATA);
	free(rows);
	pair_free(&p);
}
END_TEST

/* cmp_match on two files: NULL when they may be compared, else the
 * message (static). */
static const char *
match_two(const struct spec *a, const struct spec *b)
{
	static char err[1100];
	char note[1024];
	struct pair p = { 0 };

	pair_write(&p, 0, a);
	pair_write(&p, 1, b);
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	int r = cmp_match(p.files, p.n_files, err, sizeof(err), note,
			  sizeof(note));
	/* The message names the second file: make that checkable. */
	if (r < 0) {
		char *at = strstr(err, p.paths[1][0]);
		ck_assert_msg(at == err, "%s does not start with the file", err);
		memmove(err, err + strlen(p.paths[1][0]),
			strlen(err + strlen(p.paths[1][0])) + 1);
	}
	pair_free(&p);
	return r < 0 ? err : NULL;
}

START_TEST(test_refusals)
{
	uint64_t ok[3] = { 50, 50, 50 };
	const struct spec a = { "clients=10 secs=3", 3, 0, ok, 1000, 100, 0, 1, NULL };
	struct spec b = a;
	const char *e;

	/* Where the server is, the seed, the order of options: the same. */
	b.args = "secs=3 host=10.0.0.1 port=1143 seed=7 clients=10";
	ck_assert_ptr_null(match_two(&a, &b));
	b.args = "clients=20 secs=3";
	e = match_two(&a, &b);
	ck_assert_msg(e != NULL && strstr(e, "option 'clients': 'clients=20' "
					  "against 'clients=10'") != NULL, "%s", e);
	b.args = "clients=10 secs=3 no-pipelining";
	e = match_two(&a, &b);
	ck_assert_msg(e != NULL && strstr(e, "option 'no-pipelining': 'no-pipelining' against '(not given)'") != NULL,
		      "%s", e);
	b.args = "clients=10";
	e = match_two(&a, &b);
	ck_assert_msg(e != NULL && strstr(e, "option 'secs': '(not given)' "
					  "against 'secs=3'") != NULL, "%s", e);
	b = a;
	b.append_prob = 50;
	e = match_two(&a, &b);
	ck_assert_msg(e != NULL && strstr(e, "key 'states' (the command mix): "
					  "'APPEND=50,") != NULL, "%s", e);
}
END_TEST

/* Another result format version, a shard without its siblings, a
 * truncated file: exit 2 before any table. */
START_TEST(test_refused_files)
{
	uint64_t ok[3] = { 50, 50, 50 };
	struct pair p = { 0 };

	pair_write(&p, 0, &(struct spec){ "clients=1", 3, 0, ok, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "clients=1", 3, 0, ok, 1000, 100, 0, 1, NULL });
	pair_write(&p, 1, &(struct spec){ "clients=1", 3, 0, ok, 1000, 100, 0, 1, NULL });
	char *v1 = slurp(p.paths[1][0]);
	FILE *f = fopen(p.paths[1][0], "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "imapstress-result 1%s", strchr(v1, '\n'));
	fclose(f);
	free(v1);
	ck_assert_msg(pair_load(&p) == 0, "%s", p.err);
	char err[1100], note[1024];
	ck_assert_int_eq(cmp_match(p.files, p.n_files, err, sizeof(err), note,
				   sizeof(note)), -1);
	ck_assert_msg(strstr(err, "key 'version': result format 1 against 2") &&
		      strncmp(err, p.paths[1][0], strlen(p.paths[1][0])) == 0,
		      "%s", err);
	char *argv[] = { "compare", p.paths[0][0], "--", p.paths[1][0], NULL };
	ck_assert_int_eq(compare_main(4, argv), 2);
	/* Without its end line. */
	ck_assert_int_eq(truncate(p.paths[1][1], 200), 0);
	char *argv2[] = { "compare", p.paths[0][0], "--", p.paths[1][1], NULL };
	ck_assert_int_eq(compare_main(4, argv2), 2);
	pair_free(&p);

	/* Shard 0 of 2 alone. */
	memset(&p, 0, sizeof(p));
	pair_write(&p, 0, &(struct spec){ "clients=1", 3, 0, ok, 1000, 100, 0, 2, NULL });
	ck_assert_int_eq(pair_load(&p), -1);
	ck_assert_msg(strstr(p.err, "shard 0 of 2, but only 1 file(s) follow") !=
		      NULL, "%s", p.err);
	pair_free(&p);
}
END_TEST

START_TEST(test_usage)
{
	char *a1[] = { "compare", "x", "y", NULL };
	ck_assert_int_eq(compare_main(3, a1), 2);	/* no -- */
	char *a2[] = { "compare", "--threshold", "120", "x", "--", "y", NULL };
	ck_assert_int_eq(compare_main(6, a2), 2);
	char *a3[] = { "compare", "--resamples", "10", "x", "--", "y", NULL };
	ck_assert_int_eq(compare_main(6, a3), 2);
	char *a4[] = { "compare", "x", "--", NULL };
	ck_assert_int_eq(compare_main(3, a4), 2);
	char *a5[] = { "compare", "/nonexistent/r", "--", "/nonexistent/s", NULL };
	ck_assert_int_eq(compare_main(4, a5), 2);
}
END_TEST

START_TEST(test_quantile)
{
	double v[5] = { 5, 1, 4, 2, 3 };
	ck_assert(cmp_quantile(v, 5, 0.5) == 3.0);
	ck_assert(cmp_quantile(v, 5, 0.0) == 1.0);
	ck_assert(cmp_quantile(v, 5, 1.0) == 5.0);
	ck_assert(fabs(cmp_quantile(v, 5, 0.1) - 1.4) < 1e-12);
	ck_assert(isnan(cmp_quantile(v, 0, 0.5)));
}
END_TEST

static Suite *
compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_interval_of_seconds);
	tcase_add_test(tc, test_late_ticks);
	tcase_add_test(tc, test_interval_of_runs);
	tcase_add_test(tc, test_main_worse_latency);
	tcase_add_test(tc, test_verdict_rules);
	tcase_add_test(tc, test_few_samples);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_refused_files);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_quantile);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(compare_suite)
