/* test_hr_json.c: the report's JSON reader (hr_json.c): what imapstress
 * writes reads back, escapes decode, and anything not JSON is refused
 * with its column, nesting included (a hostile file must not blow the
 * stack). */
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_json.h"
#include "check_main.h"

START_TEST(test_values)
{
	struct jv v;
	char err[160];
	const char *in = " {\"type\":\"tick\",\"t\":1.5,\"warmup\":false,"
			 "\"commands\":{\"LOGIN\":{\"ok\":12,\"p50_us\":130}},"
			 "\"sla\":[{\"ok\":true},null,-2e3]} ";

	ck_assert_int_eq(jv_parse(in, &v, err, sizeof(err)), 0);
	ck_assert_str_eq(jv_str(jv_get(&v, "type")), "tick");
	ck_assert(jv_num(jv_get(&v, "t"), 0) == 1.5);
	ck_assert_int_eq(jv_get(&v, "warmup")->t, J_BOOL);
	ck_assert(!jv_get(&v, "warmup")->b);
	ck_assert(jv_num(jv_at(&v, "commands", "LOGIN", "p50_us", NULL), 0)
		  == 130);
	ck_assert_ptr_null(jv_at(&v, "commands", "NOOP", "ok", NULL));
	ck_assert(jv_num(NULL, 7) == 7);
	const struct jv *a = jv_get(&v, "sla");
	ck_assert_uint_eq(a->nk, 3);
	ck_assert(jv_get(&a->kids[0], "ok")->b);
	ck_assert_int_eq(a->kids[1].t, J_NULL);
	ck_assert(a->kids[2].n == -2000);
	jv_free(&v);
}
END_TEST

START_TEST(test_strings)
{
	struct jv v;
	char err[160];

	ck_assert_int_eq(jv_parse("\"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\udce7"
				  "\\ud800x\"", &v, err, sizeof(err)), 0);
	ck_assert_str_eq(v.s, "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x93\xa7"
			 "\xef\xbf\xbdx");
	jv_free(&v);
}
END_TEST

static void
refused(const char *in, const char *want)
{
	struct jv v;
	char err[160];

	ck_assert_msg(jv_parse(in, &v, err, sizeof(err)) < 0, "took %s", in);
	ck_assert_msg(strstr(err, want) != NULL, "%s: %s, want %s", in, err,
		      want);
}

START_TEST(test_refused)
{
	refused("", "column 1: unexpected end");
	refused("hello", "column 1: not JSON");
	refused("{\"a\":1,}", "column 8: expected a key");
	refused("{\"a\" 1}", "column 6: expected ':'");
	refused("[1 2]", "column 4: expected ',' or ']'");
	refused("\"abc", "string not closed");
	refused("\"a\tb\"", "control character in a string");
	refused("\"\\x41\"", "bad escape");
	refused("01", "column 2: text after the value");
	refused("1.", "bad number");
	refused("1e999", "out of range");
	refused("{\"a\":1} x", "column 9: text after the value");
	refused("{\"type\":\"tick\",\"t\":", "unexpected end");
	refused("tru", "not JSON");
}
END_TEST

START_TEST(test_depth)
{
	char deep[200];
	struct jv v;
	char err[160];

	memset(deep, '[', 100);
	memset(deep + 100, ']', 99);
	deep[199] = '\0';
	refused(deep, "nested too deep");
	/* 64 levels are fine. */
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	deep[128] = '\0';
	ck_assert_int_eq(jv_parse(deep, &v, err, sizeof(err)), 0);
	jv_free(&v);
}
END_TEST

static Suite *
hr_json_suite(void)
{
	Suite *s = suite_create("hr_json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_depth);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hr_json_suite)
