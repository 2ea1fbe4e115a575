/* test_infile.c: files named on the command line for reading: regular
 * files only, a size bound that holds whatever st_size says, and no
 * open that can block (a FIFO with no writer). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "util/infile.h"

static char dir[64], path[128];

static void
setup(void)
{
	strcpy(dir, "/tmp/imapstress-infile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
}

static void
teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static void
put(const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, n), (ssize_t)n);
	close(fd);
}

static void
refused(const char *p, size_t max, const char *want)
{
	char why[256] = "";
	size_t len = 99;
	ck_assert_ptr_null(infile_read(p, max, &len, why, sizeof(why)));
	ck_assert_str_eq(why, want);
}

START_TEST(test_regular)
{
	char why[256];
	size_t len;
	put("abc\0def", 7);
	char *s = infile_read(path, 7, &len, why, sizeof(why));
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 7);
	ck_assert_mem_eq(s, "abc\0def", 8);
	free(s);
	put("", 0);
	s = infile_read(path, 7, &len, why, sizeof(why));
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 0);
	free(s);
}
END_TEST

START_TEST(test_bound)
{
	static char big[10000];
	memset(big, 'x', sizeof(big));
	put(big, sizeof(big));
	refused(path, sizeof(big) - 1, "larger than 9.8 KiB");
	char why[256];
	size_t len;
	char *s = infile_read(path, sizeof(big), &len, why, sizeof(why));
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, sizeof(big));
	free(s);
}
END_TEST

/* /proc files say st_size 0: the bound must hold while reading. */
START_TEST(test_bound_without_size)
{
	char why[256];
	size_t len;
	refused("/proc/self/maps", 16, "larger than 16 B");
	char *s = infile_read("/proc/self/status", 1 << 20, &len, why,
			      sizeof(why));
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_gt(len, 0);
	free(s);
}
END_TEST

START_TEST(test_not_regular)
{
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* No writer: a blocking open would never return. */
	refused(path, 1024, "not a regular file (a FIFO)");
	refused("/dev/zero", 1024, "not a regular file (a character device)");
	refused("/dev/null", 1024, "not a regular file (a character device)");
	refused("/", 1024, "not a regular file (a directory)");
	refused("/nonexistent/imapstress", 1024,
		"cannot open: No such file or directory");
}
END_TEST

START_TEST(test_check_regular)
{
	char why[128] = "";
	put("x", 1);
	ck_assert_int_eq(infile_check_regular(path, why, sizeof(why)), 0);
	ck_assert_int_eq(infile_check_regular("/nonexistent/x", why,
					      sizeof(why)), 0);
	ck_assert_int_eq(infile_check_regular("/dev/zero", why, sizeof(why)), -1);
	ck_assert_str_eq(why, "not a regular file (a character device)");
}
END_TEST

static Suite *
infile_suite(void)
{
	Suite *s = suite_create("infile");
	TCase *tc = tcase_create("infile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_regular);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_bound_without_size);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_check_regular);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(infile_suite)
