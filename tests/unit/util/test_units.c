/* test_units.c: the parsers and printers in units.c, table-driven. */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "util/units.h"

static const struct {
	const char *in;
	double secs;
} dur_good[] = {
	{ "0", 0 }, { "30", 30 }, { "30s", 30 }, { "30S", 30 }, { "2m", 120 },
	{ "1h", 3600 }, { "1.5h", 5400 }, { "500ms", 0.5 }, { "500MS", 0.5 },
	{ "250us", 0.00025 }, { "0.5", 0.5 }, { "1.25s", 1.25 },
	{ "0ms", 0 }, { "007", 7 }, { "1000000000", 1e9 },
};

static const struct {
	const char *in;
	const char *why;
} dur_bad[] = {
	{ "", "empty value" }, { "5x", "unknown unit 'x'" },
	{ "5 s", "unknown unit ' s'" }, { "10sec", "unknown unit 'sec'" },
	{ "1d", "unknown unit 'd'" }, { "-1", "negative" }, { "-0.5s", "negative" },
	{ "abc", "not a number" }, { "s", "not a number" }, { "+5", "not a number" },
	{ " 5", "not a number" }, { ".5", "not a number" }, { "1.", "not a number" },
	{ "1e3", "unknown unit 'e3'" }, { "0x10", "unknown unit 'x10'" },
	{ "inf", "not a number" }, { "nan", "not a number" },
	{ "99999999999999999999", "too large" }, { "1000000001", "too large" },
	{ "300000h", "too large" }, { "5s ", "unknown unit 's '" },
};

START_TEST(test_duration_good)
{
	double v = -1;
	const char *why = NULL;
	ck_assert_msg(units_parse_duration(dur_good[_i].in, &v, &why) == 0,
		      "%s: %s", dur_good[_i].in, why);
	double want = dur_good[_i].secs;
	ck_assert_msg(v >= want - 1e-9 * (1 + want) &&
		      v <= want + 1e-9 * (1 + want),
		      "%s gave %g", dur_good[_i].in, v);
}
END_TEST

START_TEST(test_duration_bad)
{
	double v = 42;
	const char *why = NULL;
	ck_assert_int_eq(units_parse_duration(dur_bad[_i].in, &v, &why), -1);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, dur_bad[_i].why);
	ck_assert(v == 42);	/* untouched on error */
}
END_TEST

START_TEST(test_duration_odd_unit_is_printable)
{
	double v;
	const char *why = NULL;
	ck_assert_int_eq(units_parse_duration("5\x01\x02", &v, &why), -1);
	ck_assert_str_eq(why, "unknown unit '\\x01\\x02'");
	ck_assert_int_eq(units_parse_duration("5abcdefghijklmnopqrstuvwxyz",
					      &v, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "..."));
	ck_assert(strlen(why) < 48);
	/* why may be NULL when the caller does not care. */
	ck_assert_int_eq(units_parse_duration("x", &v, NULL), -1);
}
END_TEST

static const struct {
	const char *in;
	uint64_t bytes;
} size_good[] = {
	{ "0", 0 }, { "1", 1 }, { "4096", 4096 }, { "10b", 10 }, { "10B", 10 },
	{ "4k", 4096 }, { "4K", 4096 }, { "75KB", 76800 }, { "75kb", 76800 },
	{ "1kib", 1024 }, { "1KiB", 1024 }, { "1.5k", 1536 }, { "1m", 1048576 },
	{ "1MB", 1048576 }, { "1MiB", 1048576 }, { "2g", 2147483648ULL },
	{ "1GiB", 1073741824ULL }, { "0.5m", 524288 }, { "1.3k", 1331 },
	{ "0.0001k", 0 }, { "0.0005k", 1 }, { "1.0b", 1 },
	{ "8589934591g", 9223372035781033984ULL },
	{ "9223372036854775807", 9223372036854775807ULL },
};

static const struct {
	const char *in;
	const char *why;
} size_bad[] = {
	{ "", "empty value" }, { "-1", "negative" }, { "-1k", "negative" },
	{ "k", "not a number" }, { "abc", "not a number" },
	{ "4x", "unknown unit 'x'" }, { "4t", "unknown unit 't'" },
	{ "4kk", "unknown unit 'kk'" }, { "4 k", "unknown unit ' k'" },
	{ "1.5", "not a whole number of bytes" },
	{ "1.5b", "not a whole number of bytes" },
	{ "9223372036854775808", "too large" },
	{ "8589934592g", "too large" }, { "99999999999999999999", "too large" },
	{ "+4k", "not a number" },
};

START_TEST(test_size_good)
{
	uint64_t v = 7;
	const char *why = NULL;
	ck_assert_msg(units_parse_size(size_good[_i].in, &v, &why) == 0,
		      "%s: %s", size_good[_i].in, why);
	ck_assert_msg(v == size_good[_i].bytes, "%s gave %llu",
		      size_good[_i].in, (unsigned long long)v);
}
END_TEST

START_TEST(test_size_bad)
{
	uint64_t v = 7;
	const char *why = NULL;
	ck_assert_int_eq(units_parse_size(size_bad[_i].in, &v, &why), -1);
	ck_assert_str_eq(why, size_bad[_i].why);
	ck_assert(v == 7);
}
END_TEST

static const struct {
	const char *in;
	uint64_t min, max;
	int ret;
	uint64_t v;
	const char *why;
} uint_cases[] = {
	{ "0", 0, 10, 0, 0, NULL },
	{ "10", 0, 10, 0, 10, NULL },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX, NULL },
	{ "00042", 0, 100, 0, 42, NULL },
	{ "11", 0, 10, -1, 0, "out of range" },
	{ "0", 1, 10, -1, 0, "out of range" },
	{ "18446744073709551616", 0, UINT64_MAX, -1, 0, "too large" },
	{ "", 0, 10, -1, 0, "empty value" },
	{ "-1", 0, 10, -1, 0, "negative" },
	{ "+1", 0, 10, -1, 0, "not a number" },
	{ "1.5", 0, 10, -1, 0, "not a number" },
	{ "1.0", 0, 10, -1, 0, "not a number" },
	{ "5k", 0, 10000, -1, 0, "not a number" },
	{ "0x5", 0, 10, -1, 0, "not a number" },
	{ "5 ", 0, 10, -1, 0, "not a number" },
	{ "abc", 0, 10, -1, 0, "not a number" },
};

START_TEST(test_uint)
{
	uint64_t v = 99;
	const char *why = NULL;
	int r = units_parse_uint(uint_cases[_i].in, uint_cases[_i].min,
				 uint_cases[_i].max, &v, &why);
	ck_assert_msg(r == uint_cases[_i].ret, "%s", uint_cases[_i].in);
	if (r == 0)
		ck_assert(v == uint_cases[_i].v);
	else
		ck_assert_str_eq(why, uint_cases[_i].why);
}
END_TEST

static const struct {
	const char *in;
	int ret;
	int v;
	const char *why;
} pct_cases[] = {
	{ "0", 0, 0, NULL }, { "50", 0, 50, NULL }, { "100", 0, 100, NULL },
	{ "101", -1, 0, "percent must be 0..100" },
	{ "150", -1, 0, "percent must be 0..100" },
	{ "-5", -1, 0, "percent must be 0..100" },
	{ "99999999999999999999", -1, 0, "percent must be 0..100" },
	{ "50%", -1, 0, "not a number" }, { "5.5", -1, 0, "not a number" },
	{ "", -1, 0, "empty value" }, { "x", -1, 0, "not a number" },
};

START_TEST(test_percent)
{
	int v = -7;
	const char *why = NULL;
	int r = units_parse_percent(pct_cases[_i].in, &v, &why);
	ck_assert_msg(r == pct_cases[_i].ret, "%s", pct_cases[_i].in);
	if (r == 0)
		ck_assert_int_eq(v, pct_cases[_i].v);
	else
		ck_assert_str_eq(why, pct_cases[_i].why);
}
END_TEST

static const struct {
	uint64_t us;
	const char *out;
} fmt_us_cases[] = {
	{ 0, "0 us" }, { 450, "450 us" }, { 999, "999 us" },
	{ 1000, "1.00 ms" }, { 1230, "1.23 ms" }, { 9994, "9.99 ms" },
	{ 9996, "10.0 ms" }, { 12345, "12.3 ms" }, { 99949, "99.9 ms" },
	{ 99950, "100 ms" }, { 500000, "500 ms" }, { 999499, "999 ms" },
	{ 999500, "1.00 s" }, { 1500000, "1.50 s" }, { 12000000, "12.0 s" },
	{ 100000000, "100 s" }, { 3600000000ULL, "3600 s" },
};

START_TEST(test_fmt_us)
{
	char buf[32];
	units_fmt_us(buf, sizeof(buf), fmt_us_cases[_i].us);
	ck_assert_str_eq(buf, fmt_us_cases[_i].out);
}
END_TEST

static const struct {
	uint64_t bytes;
	const char *out;
} fmt_size_cases[] = {
	{ 0, "0 B" }, { 1023, "1023 B" }, { 1024, "1.0 KiB" },
	{ 1536, "1.5 KiB" }, { 76800, "75.0 KiB" },
	{ 3355443, "3.2 MiB" }, { 1048524, "1023.9 KiB" },
	{ 1048575, "1.0 MiB" }, { 1073741824ULL, "1.0 GiB" },
	{ 1099511627776ULL, "1.0 TiB" }, { UINT64_MAX, "16.0 EiB" },
};

START_TEST(test_fmt_size)
{
	char buf[32];
	units_fmt_size(buf, sizeof(buf), fmt_size_cases[_i].bytes);
	ck_assert_str_eq(buf, fmt_size_cases[_i].out);
}
END_TEST

START_TEST(test_fmt_truncates)
{
	char buf[4];
	units_fmt_us(buf, sizeof(buf), 12345);
	ck_assert_str_eq(buf, "12.");
	units_fmt_size(buf, sizeof(buf), 76800);
	ck_assert_str_eq(buf, "75.");
}
END_TEST

/* What the printers write, the parsers read back (within rounding). */
START_TEST(test_size_roundtrip)
{
	char buf[32];
	uint64_t v;
	units_fmt_size(buf, sizeof(buf), 1536);
	buf[strlen(buf) - 4] = '\0';		/* "1.5 KiB" -> "1.5" */
	strcat(buf, "KiB");
	ck_assert_int_eq(units_parse_size(buf, &v, NULL), 0);
	ck_assert(v == 1536);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_duration_good, 0, N(dur_good));
	tcase_add_loop_test(tc, test_duration_bad, 0, N(dur_bad));
	tcase_add_test(tc, test_duration_odd_unit_is_printable);
	tcase_add_loop_test(tc, test_size_good, 0, N(size_good));
	tcase_add_loop_test(tc, test_size_bad, 0, N(size_bad));
	tcase_add_loop_test(tc, test_uint, 0, N(uint_cases));
	tcase_add_loop_test(tc, test_percent, 0, N(pct_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("format");
	tcase_add_loop_test(tc, test_fmt_us, 0, N(fmt_us_cases));
	tcase_add_loop_test(tc, test_fmt_size, 0, N(fmt_size_cases));
	tcase_add_test(tc, test_fmt_truncates);
	tcase_add_test(tc, test_size_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(units_suite)
