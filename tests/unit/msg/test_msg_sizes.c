/* --msg-sizes (src/msg/msg_sizes.c, msg_pool_generate_sizes): the
 * parser takes what the man page says and refuses each bad item by
 * number; a draw follows the weights (counts within the binomial's
 * bound); a pool holds messages of exactly each bucket's size as sent;
 * a uniform pool's pick is the single draw every sender made before. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "msg/msg.h"
#include "msg/msg_sizes.h"
#include "msg_assert.h"
#include "util/rng.h"

static struct msg_sizes
parsed(const char *spec)
{
	struct msg_sizes s;
	char why[160];

	ck_assert_msg(msg_sizes_parse(spec, &s, why, sizeof(why)) == 0,
		      "%s: %s", spec, why);
	return s;
}

START_TEST(test_parse_good)
{
	struct msg_sizes s = parsed("256k:10,1k:30,4k:40,32k:20");
	char out[128];

	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.size[0], 1024);
	ck_assert_uint_eq(s.size[3], 256 * 1024);
	ck_assert_uint_eq(s.weight[0], 30);
	ck_assert_uint_eq(s.weight[3], 10);
	ck_assert_uint_eq(s.cum[3], 100);
	msg_sizes_format(&s, out, sizeof(out));
	ck_assert_str_eq(out, "1k:30,4k:40,32k:20,256k:10");
	/* 0.3 * 1024 + 0.4 * 4096 + 0.2 * 32768 + 0.1 * 262144 */
	ck_assert_double_eq_tol(msg_sizes_mean(&s), 34713.6, 1e-6);

	s = parsed("700:1,1.5k:2,1m:3,1g:1,2048:5");
	msg_sizes_format(&s, out, sizeof(out));
	ck_assert_str_eq(out, "700:1,1536:2,2k:5,1m:3,1024m:1");
	struct msg_sizes back = parsed(out);
	ck_assert_mem_eq(&back, &s, sizeof(s));
	s = parsed("512:1000000");
	ck_assert_uint_eq(s.n, 1);
	/* A short buffer: cut, but the length needed is said. */
	ck_assert_int_eq(msg_sizes_format(&s, out, 4), 11);
	ck_assert_str_eq(out, "512");
}
END_TEST

START_TEST(test_parse_bad)
{
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "", "empty: give SIZE:WEIGHT items" },
		{ "1k", "item 1 '1k': not SIZE:WEIGHT" },
		{ "1k:30,4x:40", "item 2 '4x:40': size: unknown unit 'x'" },
		{ "1k:30,:5", "item 2 ':5': size: " },
		{ "1k:30,4k:", "item 2 '4k:': weight: " },
		{ "1k:0", "item 1 '1k:0': weight: out of range" },
		{ "1k:-3", "item 1 '1k:-3': weight: " },
		{ "1k:1000001", "item 1 '1k:1000001': weight: out of range" },
		{ "1k:2.5", "item 1 '1k:2.5': weight: " },
		{ "511:1", "item 1 '511:1': size out of range (512 octets" },
		{ "1025m:1", "item 1 '1025m:1': size out of range" },
		{ "1k:30,,4k:1", "item 2 '': empty" },
		{ "1k:30,", "item 2 '': empty" },
		{ "1k:3,1024:5", "item 2 '1024:5': size 1024 given twice" },
		{ "1k:1:2", "item 1 '1k:1:2': weight: " },
		{ "1k:1\x1b[2J", "item 1 '1k:1?[2J': weight: " },
		{ "1k:1,2k:1,3k:1,4k:1,5k:1,6k:1,7k:1,8k:1,9k:1,10k:1,11k:1,"
		  "12k:1,13k:1,14k:1,15k:1,16k:1,17k:1", "more than 16 items" },
		{ "123456789012345678901234567890:1",
		  "item 1 '123456789012345678901234...': size: too large" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct msg_sizes s = { .n = 99 };
		char why[160] = "";
		int r = msg_sizes_parse(bad[i].spec, &s, why, sizeof(why));
		ck_assert_msg(r == -1, "'%s' accepted", bad[i].spec);
		ck_assert_msg(strncmp(why, bad[i].why, strlen(bad[i].why)) == 0,
			      "'%s': '%s', not '%s...'", bad[i].spec, why,
			      bad[i].why);
		ck_assert_uint_eq(s.n, 99);	/* out untouched */
	}
}
END_TEST

/* count of N draws with probability p: within 5 standard deviations of
 * the binomial, a bound a correct draw misses once in ~1.7 million
 * (the seed is fixed, so the test is repeatable; an off-by-one in the
 * cumulative table moves a bucket by N/100 = 1000 here, past it). */
static void
assert_binomial(uint64_t count, uint64_t n, double p, const char *what)
{
	double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
	ck_assert_msg(fabs((double)count - mean) <= 5 * sd,
		      "%s: %llu of %llu draws, expected %.0f +- %.0f", what,
		      (unsigned long long)count, (unsigned long long)n, mean,
		      5 * sd);
}

START_TEST(test_draw_counts)
{
	struct msg_sizes s = parsed("1k:30,4k:40,32k:20,256k:10");
	struct rng r;
	uint64_t got[MSG_SIZES_MAX] = { 0 };
	const uint64_t n = 100000;

	rng_seed(&r, 42, 0);
	for (uint64_t i = 0; i < n; i++)
		got[msg_sizes_draw(&s, &r)]++;
	for (unsigned b = 0; b < s.n; b++)
		assert_binomial(got[b], n, s.weight[b] / 100.0, "bucket");

	/* Weights need not sum to 100; a weight of 1 among 1000000 still
	 * comes up (and the last bucket is reachable). */
	s = parsed("1k:1,2k:999999");
	memset(got, 0, sizeof(got));
	for (uint64_t i = 0; i < 4000000; i++)
		got[msg_sizes_draw(&s, &r)]++;
	ck_assert_uint_gt(got[0], 0);
	assert_binomial(got[0], 4000000, 1e-6, "weight 1 of 10^6");
}
END_TEST

START_TEST(test_pool_sizes)
{
	struct msg_sizes s = parsed("512:10,1k:30,4k:40,32k:15,256k:5");
	struct msg_pool *p = msg_pool_generate_sizes(7, &s, 16 * MIB);
	uint64_t per[MSG_SIZES_MAX] = { 0 }, got[MSG_SIZES_MAX] = { 0 };
	const uint64_t n = 100000;
	struct rng r;

	/* Every message is exactly its bucket's size as sent, and valid
	 * text; each bucket has at least MSG_POOL_MIN_COUNT. */
	for (unsigned i = 0; i < msg_pool_count(p); i++) {
		const struct msg *m = msg_pool_get(p, i);
		unsigned b = 0;
		while (b < s.n && s.size[b] != msg_wire_len(m))
			b++;
		ck_assert_msg(b < s.n, "message %u: %zu octets, no bucket's",
			      i, msg_wire_len(m));
		ck_assert(m->needs_id);
		assert_crlf_text(m, 998, "sized pool");
		per[b]++;
	}
	for (unsigned b = 0; b < s.n; b++)
		ck_assert_uint_ge(per[b], MSG_POOL_MIN_COUNT);
	ck_assert_uint_le(msg_pool_bytes(p), 17 * MIB);

	rng_seed(&r, 5, 1);
	for (uint64_t i = 0; i < n; i++) {
		const struct msg *m = msg_pool_get(p, msg_pool_pick(p, &r));
		for (unsigned b = 0; b < s.n; b++)
			got[b] += s.size[b] == msg_wire_len(m);
	}
	for (unsigned b = 0; b < s.n; b++)
		assert_binomial(got[b], n, s.weight[b] / 100.0, "picked");

	/* Same seed, same bytes. */
	struct msg_pool *q = msg_pool_generate_sizes(7, &s, 16 * MIB);
	ck_assert_uint_eq(msg_pool_count(q), msg_pool_count(p));
	for (unsigned i = 0; i < msg_pool_count(p); i++)
		ck_assert_mem_eq(msg_pool_get(p, i)->data,
				 msg_pool_get(q, i)->data,
				 msg_pool_get(p, i)->len);
	msg_pool_free(q);
	msg_pool_free(p);
}
END_TEST

/* A bucket of 1 GiB still makes a pool of 8 (the memory check is the
 * config's); here only that a large bucket is exact, at 4 MiB. */
START_TEST(test_pool_large_bucket)
{
	struct msg_sizes s = parsed("4m:1,600:1");
	struct msg_pool *p = msg_pool_generate_sizes(1, &s, 16 * MIB);

	for (unsigned i = 0; i < msg_pool_count(p); i++) {
		size_t len = msg_wire_len(msg_pool_get(p, i));
		ck_assert_msg(len == 600 || len == 4 * MIB, "%zu", len);
	}
	msg_pool_free(p);
}
END_TEST

/* Without --msg-sizes a pick is the one draw senders made before, so
 * seeded runs send the messages they did. */
START_TEST(test_pick_uniform_unchanged)
{
	struct msg_pool *p = msg_pool_generate(3, 4096, 4 * MIB);
	struct rng a, b;

	rng_seed(&a, 9, 2);
	rng_seed(&b, 9, 2);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(msg_pool_pick(p, &a),
				  rng_below(&b, msg_pool_count(p)));
	msg_pool_free(p);
}
END_TEST

static Suite *
msg_sizes_suite(void)
{
	Suite *s = suite_create("msg_sizes");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_good);
	tcase_add_test(tc, test_parse_bad);
	tcase_add_test(tc, test_draw_counts);
	tcase_add_test(tc, test_pool_sizes);
	tcase_add_test(tc, test_pool_large_bucket);
	tcase_add_test(tc, test_pick_uniform_unchanged);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(msg_sizes_suite)
