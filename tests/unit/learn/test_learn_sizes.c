/* test_learn_sizes.c: the sizes `imapstress learn` saw, as --msg-sizes
 * buckets (src/learn/learn_sizes.c): each size goes to the power of two
 * nearest in log scale, a bucket is its sizes' mean, the weights are
 * percent summing to 100, and the mix file's argument line carries a
 * spec msg_sizes_parse takes back unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "learn/learn_int.h"
#include "msg/msg_sizes.h"

static void
add_n(struct learn *l, uint64_t size, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		learn_size_add(&l->append_sizes, &l->append_sz, size);
}

/* The mix the shell round trip uses: 1k:30,4k:40,32k:20,256k:10. */
static void
add_known(struct learn *l)
{
	add_n(l, 1024, 30);
	add_n(l, 4096, 40);
	add_n(l, 32768, 20);
	add_n(l, 262144, 10);
}

static void
spec_of(const struct lsizes *c, char *out, size_t len)
{
	struct msg_sizes s;

	ck_assert_int_eq(learn_sizes_spec(c, &s), 0);
	msg_sizes_format(&s, out, len);
}

START_TEST(test_exact_sizes_back)
{
	struct learn l = { 0 };
	char spec[256];

	add_known(&l);
	spec_of(&l.append_sz, spec, sizeof(spec));
	ck_assert_str_eq(spec, "1k:30,4k:40,32k:20,256k:10");
	ck_assert_uint_eq(l.append_sizes.n, 100);
}
END_TEST

/* The class edges: 2^10.5 = 1448.15, so 1448 is nearer 1k and 1449
 * nearer 2k; a bucket is the mean of its class; sizes under the
 * generator's 512 join the 512 class, at 512 at least. */
START_TEST(test_classes_and_means)
{
	struct lsizes c = { 0 };
	struct learn l = { 0 };
	char spec[256];
	struct msg_sizes s;

	static const uint64_t edge[] = { 1448, 1000, 1449, 2047 };
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		add_n(&l, edge[i], 1);
	spec_of(&l.append_sz, spec, sizeof(spec));
	ck_assert_str_eq(spec, "1224:50,1748:50");

	learn_size_add(&l.fetch_sizes, &c, 100);
	learn_size_add(&l.fetch_sizes, &c, 300);
	spec_of(&c, spec, sizeof(spec));
	ck_assert_str_eq(spec, "512:100");
	learn_size_add(&l.fetch_sizes, &c, 700);
	learn_size_add(&l.fetch_sizes, &c, 700);
	learn_size_add(&l.fetch_sizes, &c, 700);
	learn_size_add(&l.fetch_sizes, &c, 700);
	spec_of(&c, spec, sizeof(spec));
	ck_assert_str_eq(spec, "533:100");	/* (100+300+4*700)/6 */

	/* Three classes of one each: 34, 33, 33 by largest remainder
	 * (ties to the smaller size); under half a percent is left out. */
	struct lsizes d = { 0 };
	learn_size_add(&l.fetch_sizes, &d, 1024);
	learn_size_add(&l.fetch_sizes, &d, 8192);
	learn_size_add(&l.fetch_sizes, &d, 65536);
	spec_of(&d, spec, sizeof(spec));
	ck_assert_str_eq(spec, "1k:34,8k:33,64k:33");
	struct lsizes e = { 0 };
	for (int i = 0; i < 999; i++)
		learn_size_add(&l.fetch_sizes, &e, 2048);
	learn_size_add(&l.fetch_sizes, &e, 1ull << 40);	/* past 1g */
	spec_of(&e, spec, sizeof(spec));
	ck_assert_str_eq(spec, "2k:100");
	struct lsizes f = { 0 };
	learn_size_add(&l.fetch_sizes, &f, 1ull << 40);
	spec_of(&f, spec, sizeof(spec));
	ck_assert_str_eq(spec, "1024m:100");
	ck_assert_int_eq(learn_sizes_spec(&c, &s), 0);
	struct lsizes none = { 0 };
	ck_assert_int_eq(learn_sizes_spec(&none, &s), -1);
}
END_TEST

/* The mix file: the spec is on the argument line, as --msg-sizes, and
 * parses back. */
START_TEST(test_mix_line)
{
	struct learn l = { 0 };
	char path[] = "/tmp/learn-sizes.XXXXXX", line[4096], why[160];
	int fd = mkstemp(path);
	const char *args = NULL;

	ck_assert_int_ge(fd, 0);
	close(fd);
	add_known(&l);
	ck_assert_int_eq(learn_write_mix(&l, path), 0);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (line[0] != '#')
			args = strstr(line, " --msg-sizes ");
	fclose(f);
	unlink(path);
	ck_assert_ptr_nonnull(args);
	char spec[256];
	ck_assert_int_eq(sscanf(args, " --msg-sizes %255s", spec), 1);
	ck_assert_str_eq(spec, "1k:30,4k:40,32k:20,256k:10");
	struct msg_sizes s;
	ck_assert_int_eq(msg_sizes_parse(spec, &s, why, sizeof(why)), 0);
	ck_assert_uint_eq(s.n, 4);
	learn_free(&l);
}
END_TEST

static Suite *
learn_sizes_suite(void)
{
	Suite *s = suite_create("learn_sizes");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_exact_sizes_back);
	tcase_add_test(tc, test_classes_and_means);
	tcase_add_test(tc, test_mix_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(learn_sizes_suite)
