/* test_escape.c: the one escaping function (escape.c) and the sinks that
 * use it: every octet outside printable ASCII becomes \xNN, a short buffer
 * holds a whole-escape prefix, escaping is idempotent, and log.c's lines
 * and the config error buffer come out escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "util/escape.h"
#include "util/log.h"

static const char hostile[] =
	"\033]0;owned\007\033[2J\rtext\n\tx\177\xc3\xb6\x9b";
#define HOSTILE_ESCAPED							\
	"\\x1b]0;owned\\x07\\x1b[2J\\x0dtext\\x0a\\x09x\\x7f\\xc3\\xb6\\x9b"

START_TEST(test_every_octet)
{
	char out[8];
	for (unsigned c = 0; c < 256; c++) {
		char in = (char)c;
		size_t n = escape_text(out, sizeof(out), &in, 1);
		if (c >= 0x20 && c <= 0x7e) {
			ck_assert_uint_eq(n, 1);
			ck_assert_int_eq(out[0], (int)c);
		} else {
			char want[8];
			snprintf(want, sizeof(want), "\\x%02x", c);
			ck_assert_uint_eq(n, 4);
			ck_assert_str_eq(out, want);
		}
	}
}
END_TEST

START_TEST(test_hostile_text)
{
	char out[256];
	size_t n = escape_text(out, sizeof(out), hostile, sizeof(hostile) - 1);
	ck_assert_str_eq(out, HOSTILE_ESCAPED);
	ck_assert_uint_eq(n, strlen(HOSTILE_ESCAPED));
	ck_assert_uint_eq(escape_len(hostile, sizeof(hostile) - 1), n);
	/* Printable ASCII only, so a second pass changes nothing. */
	char again[256];
	escape_text(again, sizeof(again), out, n);
	ck_assert_str_eq(again, out);
	/* A NUL inside the length is shown, not a terminator. */
	escape_text(out, sizeof(out), "a\0b", 3);
	ck_assert_str_eq(out, "a\\x00b");
	/* Backslashes and IMAP text pass unchanged. */
	escape_text(out, sizeof(out), "* OK [ALERT] \\Seen", 18);
	ck_assert_str_eq(out, "* OK [ALERT] \\Seen");
}
END_TEST

/* Every buffer size gives a prefix of the full result, never half an
 * escape, and always a NUL within the buffer. */
START_TEST(test_short_buffers)
{
	char full[256], out[256];
	size_t n = escape_text(full, sizeof(full), hostile, sizeof(hostile) - 1);
	ck_assert_uint_eq(escape_text(out, 0, hostile, 5), 0);
	for (size_t size = 1; size <= n + 1; size++) {
		memset(out, 'X', sizeof(out));
		size_t m = escape_text(out, size, hostile, sizeof(hostile) - 1);
		ck_assert_uint_lt(m, size);
		ck_assert_int_eq(out[m], '\0');
		ck_assert_int_eq(memcmp(out, full, m), 0);
		ck_assert_msg(m + 4 >= size || m == n,
			      "size %zu: stopped at %zu with room left", size, m);
		ck_assert_msg(m == 0 || out[m - 1] != '\\', "size %zu", size);
	}
}
END_TEST

/* In place, cut at the buffer's end (even inside an escape). */
START_TEST(test_in_place)
{
	static const struct {
		const char *in;
		size_t size;
		const char *want;
	} cases[] = {
		{ "user=a\033[2Jb", 64, "user=a\\x1b[2Jb" },
		{ "ab\033cdefg", 10, "ab\\x1bcde" },
		{ "\033ab", 4, "\\x1" },
		{ "nothing", 16, "nothing" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		snprintf(buf, cases[i].size, "%s", cases[i].in);
		escape_in_place(buf, cases[i].size);
		ck_assert_str_eq(buf, cases[i].want);
	}
	escape_in_place(NULL, 10);
}
END_TEST

/* What log.c writes to fd 2 while f is put in its place. */
static char *
capture_log(const char *text)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
	log_error("server said: %s", text);
	log_warn("%s", text);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);
	rewind(f);
	char *got = calloc(1, 4096);
	ck_assert_ptr_nonnull(got);
	size_t n = fread(got, 1, 4095, f);
	got[n] = '\0';
	fclose(f);
	return got;
}

START_TEST(test_log_lines_escaped)
{
	char *got = capture_log(hostile);
	ck_assert_str_eq(got, "Error: server said: " HOSTILE_ESCAPED "\n"
			 "Warning: " HOSTILE_ESCAPED "\n");
	free(got);
}
END_TEST

/* A long message is cut, still one escaped line. */
START_TEST(test_log_long_line)
{
	char *big = malloc(3000);
	ck_assert_ptr_nonnull(big);
	memset(big, '\033', 2999);
	big[2999] = '\0';
	char *got = capture_log(big);
	char *nl = strchr(got, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_ptr_null(strchr(got, '\033'));
	ck_assert_int_eq(nl[-1], 'b');		/* ends on a whole \x1b */
	free(got);
	free(big);
}
END_TEST

/* The config error buffer: argv values come back escaped. */
START_TEST(test_config_error_escaped)
{
	struct config cfg;
	char err[256];
	char *av[] = { (char *)"imapstress", (char *)"clients=\0337x" };
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 2, av, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "clients=\\x1b7x") != NULL, "%s", err);
	config_free(&cfg);
}
END_TEST

/* The control octets: below 0x20 and DEL; 0x80 and up are not. */
START_TEST(test_find_ctl)
{
	char s[3] = "a?";

	for (unsigned c = 1; c < 256; c++) {
		s[1] = (char)c;
		bool ctl = c < 0x20 || c == 0x7f;
		ck_assert_uint_eq(escape_find_ctl(s), ctl ? 1 : 2);
	}
	ck_assert_uint_eq(escape_find_ctl(""), 0);
	ck_assert_uint_eq(escape_find_ctl("ab\r\n"), 2);
}
END_TEST

static Suite *
escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("escape");

	tcase_add_test(tc, test_every_octet);
	tcase_add_test(tc, test_find_ctl);
	tcase_add_test(tc, test_hostile_text);
	tcase_add_test(tc, test_short_buffers);
	tcase_add_test(tc, test_in_place);
	tcase_add_test(tc, test_log_lines_escaped);
	tcase_add_test(tc, test_log_long_line);
	tcase_add_test(tc, test_config_error_escaped);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(escape_suite)
