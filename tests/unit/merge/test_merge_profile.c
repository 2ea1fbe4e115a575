/* `imapstress merge` of profile-mode shards: the merged summary has the
 * profile sections, its counts are the shards' sums, and its push
 * percentiles are those of the union of the samples (merged buckets),
 * not an average of the shards' percentiles; a stress shard and a profile
 * shard are refused as two different runs. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "merge/merge.h"
#include "report_fixture.h"
#include "report/result.h"

/* Shard i of 2: its push samples are lo..lo+n-1 ms. */
static void
write_shard(const char *path, unsigned i, bool profile, uint64_t lo_ms,
	    unsigned n)
{
	struct config cfg;
	struct stats_snap s;
	char err[256];

	config_defaults(&cfg);
	cfg.result_path = strdup(path);
	cfg.args_key = strdup("clients=2");
	cfg.shard_index = i;
	cfg.shard_count = 2;
	if (profile)
		cfg.profile_path = strdup("day.profile");
	stats_snap_init(&s);
	s.ok[OP_LOGIN] = 1;
	s.act.profile = profile;
	s.act.users_in = 10 + i;
	s.act.users_started = 12 + i;
	s.act.ok[ACT_READ] = n;
	s.act.lmtp.rcpts = s.act.lmtp.rcpt_ok = s.act.lmtp.codes[250] = n;
	for (unsigned k = 0; k < n; k++)
		hist_record(s.act.push[PUSH_EXISTS], (lo_ms + k) * 1000);
	struct derived dv;
	derived_init(&dv, &cfg, false);
	struct result_writer *w = result_writer_new(&cfg, &dv, err,
						    sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct report_run run = { .elapsed_s = 1, .measured_s = 1, .clients = 1,
				  .workers = 1 };
	result_writer_tick(w, &run, &s);
	result_writer_final(w, &run, &s);
	result_writer_free(w);
	stats_snap_free(&s);
	config_free(&cfg);
}

/* The shards were written a moment apart and may straddle a wall-clock
 * second, which would put their ticks in two merged rows: give `to` the
 * `start` and `tick` lines of `from`, as if both ran the same second. */
static char *
next_line(char *l)
{
	char *nl = strchr(l, '\n');
	return nl != NULL ? nl + 1 : NULL;
}

static void
same_clock(const char *from, const char *to)
{
	char *f = slurp(from), *t = slurp(to);
	char start[64] = "", tick[64] = "";
	for (char *l = f; l != NULL && *l != '\0'; l = next_line(l)) {
		size_t n = strcspn(l, "\n");
		if (n < sizeof(start) && strncmp(l, "start ", 6) == 0)
			memcpy(start, l, n), start[n] = '\0';
		else if (n < sizeof(tick) && strncmp(l, "tick ", 5) == 0 && tick[0] == '\0')
			memcpy(tick, l, n), tick[n] = '\0';
	}
	ck_assert(start[0] != '\0' && tick[0] != '\0');
	FILE *o = fopen(to, "w");
	ck_assert_ptr_nonnull(o);
	for (char *l = t; l != NULL && *l != '\0'; l = next_line(l)) {
		int n = (int)strcspn(l, "\n");
		if (strncmp(l, "start ", 6) == 0)
			fprintf(o, "%s\n", start);
		else if (strncmp(l, "tick ", 5) == 0)
			fprintf(o, "%s\n", tick);
		else
			fprintf(o, "%.*s\n", n, l);
	}
	ck_assert_int_eq(fclose(o), 0);
	free(f);
	free(t);
}

static uint64_t
json_field(const char *json, const char *after, const char *key)
{
	const char *p = strstr(json, after);
	ck_assert_msg(p != NULL, "%s not in %s", after, json);
	p = strstr(p, key);
	ck_assert_ptr_nonnull(p);
	return strtoull(p + strlen(key), NULL, 10);
}

START_TEST(test_merge_profile)
{
	char a[] = "/tmp/mprof-a-XXXXXX", b[] = "/tmp/mprof-b-XXXXXX",
	     j[] = "/tmp/mprof-j-XXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));
	close(mkstemp(j));
	/* Shard 0: 10 samples at 1..10 ms; shard 1: 90 at 101..190 ms.  The
	 * union's p50 is its 50th sample, 140 ms (reported as the upper end
	 * of its bucket, within 0.1%); an average of the shards' p50s would
	 * be (5 + 145) / 2 = 75 ms. */
	write_shard(a, 0, true, 1, 10);
	write_shard(b, 1, true, 101, 90);
	same_clock(a, b);
	char *argv[] = { "merge", "-q", "--json", j, a, b, NULL };
	ck_assert_int_eq(merge_main(6, argv), 0);
	char *json = slurp(j);
	const char *sum = strstr(json, "\"type\":\"summary\"");
	ck_assert_ptr_nonnull(sum);
	ck_assert_uint_eq(json_field(sum, "\"profile\":", "\"users_in\":"), 21);
	ck_assert_uint_eq(json_field(sum, "\"profile\":", "\"users_started\":"),
			  25);
	ck_assert_uint_eq(json_field(sum, "\"actions\":{\"read\"", "\"ok\":"), 100);
	ck_assert_uint_eq(json_field(sum, "\"exists\":{", "\"count\":"), 100);
	uint64_t p50 = json_field(sum, "\"exists\":{", "\"p50\":");
	ck_assert_msg(p50 >= 140000 && p50 <= 140000 + 140000 / 1000,
		      "p50 %llu", (unsigned long long)p50);
	ck_assert_uint_eq(json_field(sum, "\"exists\":{", "\"max\":"), 190000);
	ck_assert_uint_eq(json_field(sum, "\"lmtp\":{", "\"ok\":"), 100);
	ck_assert_uint_eq(json_field(sum, "\"codes\":{", "\"250\":"), 100);
	/* The merged tick carries it too. */
	const char *tick = strstr(json, "\"type\":\"tick\"");
	ck_assert(tick != NULL && tick < sum);
	ck_assert_uint_eq(json_field(tick, "\"profile\":", "\"users_in\":"), 21);
	free(json);

	/* A stress shard with a profile shard: not one run. */
	write_shard(b, 1, false, 101, 90);
	char *argv2[] = { "merge", "-q", a, b, NULL };
	ck_assert_int_eq(merge_main(4, argv2), 2);
	unlink(a);
	unlink(b);
	unlink(j);
}
END_TEST

static Suite *
merge_profile_suite(void)
{
	Suite *s = suite_create("merge_profile");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_merge_profile);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(merge_profile_suite)
