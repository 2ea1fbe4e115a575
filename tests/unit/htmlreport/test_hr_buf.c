/* test_hr_buf.c: the report page's escaping and numbers (hr_buf.c): what
 * comes from a server or a file reaches the HTML as text, never as markup
 * or a raw control character, and invalid UTF-8 never reaches it. */
#include <math.h>
#include <string.h>

#include "htmlreport/hr_buf.h"
#include "check_main.h"

static char *
esc(struct hbuf *b, const char *s, size_t n)
{
	b->len = 0;
	b->p[0] = '\0';
	hb_escn(b, s, n);
	return b->p;
}

START_TEST(test_escape_markup)
{
	struct hbuf b;

	hb_init(&b);
	ck_assert_str_eq(esc(&b, "<script>a&b</script>", 20),
			 "&lt;script&gt;a&amp;b&lt;/script&gt;");
	ck_assert_str_eq(esc(&b, "x=\"1\" y='2'", 11),
			 "x=&quot;1&quot; y=&#39;2&#39;");
	ck_assert_str_eq(esc(&b, "\\Seen FETCH", 11), "\\Seen FETCH");
	hb_free(&b);
}
END_TEST

START_TEST(test_escape_controls)
{
	struct hbuf b;

	hb_init(&b);
	/* ESC, CR, LF, NUL, DEL: visible, never raw. */
	ck_assert_str_eq(esc(&b, "a\x1b[31mb\r\n", 9),
			 "a\\x1b[31mb\\x0d\\x0a");
	ck_assert_str_eq(esc(&b, "a\0b\x7f", 4), "a\\x00b\\x7f");
	/* Tab too: the page shows where one was. */
	ck_assert_str_eq(esc(&b, "\t", 1), "\\x09");
	/* C1 controls in their UTF-8 form (U+0085, U+009B CSI). */
	ck_assert_str_eq(esc(&b, "\xc2\x85\xc2\x9b", 4),
			 "\\xc2\\x85\\xc2\\x9b");
	for (size_t i = 0; i < b.len; i++)
		ck_assert((unsigned char)b.p[i] >= 0x20);
	hb_free(&b);
}
END_TEST

START_TEST(test_escape_utf8)
{
	struct hbuf b;

	hb_init(&b);
	/* Valid UTF-8 passes: an accented name, a CJK folder, an emoji. */
	ck_assert_str_eq(esc(&b, "Entw\xc3\xbcrfe", 9), "Entw\xc3\xbcrfe");
	ck_assert_str_eq(esc(&b, "\xe6\x96\x87", 3), "\xe6\x96\x87");
	ck_assert_str_eq(esc(&b, "\xf0\x9f\x93\xa7", 4), "\xf0\x9f\x93\xa7");
	/* Not UTF-8: Latin-1, an overlong '<', a surrogate, a cut sequence. */
	ck_assert_str_eq(esc(&b, "\xe9t\xe9", 3), "\\xe9t\\xe9");
	ck_assert_str_eq(esc(&b, "\xc0\xbc", 2), "\\xc0\\xbc");
	ck_assert_str_eq(esc(&b, "\xed\xa0\x80", 3), "\\xed\\xa0\\x80");
	ck_assert_str_eq(esc(&b, "a\xe6\x96", 3), "a\\xe6\\x96");
	hb_free(&b);
}
END_TEST

START_TEST(test_numbers)
{
	struct hbuf b;

	hb_init(&b);
	hb_num(&b, NAN);
	hb_put(&b, " ");
	hb_num(&b, INFINITY);
	hb_put(&b, " ");
	hb_num(&b, -0.0);
	hb_put(&b, " ");
	hb_num(&b, 1234567);
	hb_put(&b, " ");
	hb_num(&b, 0.125);
	ck_assert_str_eq(b.p, "0 0 0 1.23457e+06 0.125");
	b.len = 0;
	hb_human(&b, 12345);
	hb_put(&b, " ");
	hb_human(&b, 12.345);
	hb_put(&b, " ");
	hb_human(&b, 1.2345);
	hb_put(&b, " ");
	hb_human(&b, 0.012345);
	hb_put(&b, " ");
	hb_human(&b, NAN);
	ck_assert_str_eq(b.p, "12345 12.3 1.23 0.0123 -");
	hb_free(&b);
}
END_TEST

START_TEST(test_grow)
{
	struct hbuf b;
	char big[10000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	hb_init(&b);
	hb_printf(&b, "%s|%s", big, big);
	ck_assert_uint_eq(b.len, 2 * (sizeof(big) - 1) + 1);
	ck_assert_uint_eq(strlen(b.p), b.len);
	ck_assert_int_eq(b.p[sizeof(big) - 1], '|');
	hb_free(&b);
}
END_TEST

static Suite *
hr_buf_suite(void)
{
	Suite *s = suite_create("hr_buf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_escape_markup);
	tcase_add_test(tc, test_escape_controls);
	tcase_add_test(tc, test_escape_utf8);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_grow);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hr_buf_suite)
