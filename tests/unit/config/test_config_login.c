/* test_config_login.c: user names and passwords with control characters
 * from the places that are not one argv word (test_config_bad.c has
 * those): --password-file, userfile= (each line's name and password) and
 * the defaults from $USER and $IMAPSTRESS_PASSWORD.  Each is refused with
 * the file and line or the variable named, a name shown escaped and a
 * password not shown; octets of 0x80 and up (UTF-8) stay allowed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "config_fixture.h"
#include "config/userfile.h"

static char path[64];

/* A temporary file holding n octets of text; its name in path. */
static void
file_with(const char *text, size_t n)
{
	strcpy(path, "/tmp/imapstress-login-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
}

/* err, with the temporary file's name replaced by "F". */
static const char *
err_with_f(void)
{
	static char out[256];
	const char *at = strstr(err, path);
	if (at == NULL)
		return err;
	snprintf(out, sizeof(out), "%.*sF%s", (int)(at - err), err,
		 at + strlen(path));
	return out;
}

START_TEST(test_password_file_control)
{
	file_with("s3\033cret\nsecond\n", 15);
	ck_assert_int_eq(parse(ARGS("--password-file", path)), -1);
	ck_assert_str_eq(err_with_f(), "--password-file F: control character "
			 "\\x1b at octet 3 of the first line, the password (not "
			 "shown)");
	ck_assert_str_eq(cfg.pass, "pass");	/* the default, untouched */
	ck_assert_ptr_null(cfg.password_file);
	unlink(path);

	/* CRLF ends the first line; a CR inside it does not. */
	file_with("pw\r\n", 4);
	ck_assert_int_eq(parse(ARGS("--password-file", path)), 0);
	ck_assert_str_eq(cfg.pass, "pw");
	unlink(path);
	file_with("p\rw\n", 4);
	ck_assert_int_eq(parse(ARGS("--password-file", path)), -1);
	ck_assert_ptr_nonnull(strstr(err, "\\x0d at octet 2"));
	unlink(path);
}
END_TEST

static const struct {
	const char *text;
	const char *want;	/* NULL: loads */
} userfiles[] = {
	{ "ok:pw\r\nbad\001name:secret\n",
	  "userfile=F line 2: control character \\x01 in the user name "
	  "\"bad\\x01name\"" },
	{ "# users\n\na\r\rb\n",
	  "userfile=F line 3: control character \\x0d in the user name "
	  "\"a\\x0d\\x0db\"" },
	{ "x\ty\n", "userfile=F line 1: control character \\x09 in the user "
	  "name \"x\\x09y\"" },
	{ "good:sec\rret\n", "userfile=F line 1: control character \\x0d at "
	  "octet 4 of the password of \"good\" (not shown)" },
	{ "good:{PLAIN}\177\n", "userfile=F line 1: control character \\x7f "
	  "at octet 1 of the password of \"good\" (not shown)" },
	{ "\033[31mred\n", "userfile=F line 1: control character \\x1b in the "
	  "user name \"\\x1b[31mred\"" },
	/* CRLF line ends, UTF-8 and blanks-free printable names are fine */
	{ "j\xc3\xb6rg:p\xc3\xa4ss\r\nu2\r\n", NULL },
};

START_TEST(test_userfile_control)
{
	const char *t = userfiles[_i].text;
	file_with(t, strlen(t));
	struct userfile *u = userfile_load(path, err, sizeof(err));
	if (userfiles[_i].want == NULL) {
		ck_assert_ptr_nonnull(u);
		ck_assert_str_eq(u->e[0].user, "j\xc3\xb6rg");
		ck_assert_str_eq(u->e[1].user, "u2");
	} else {
		ck_assert_ptr_null(u);
		ck_assert_str_eq(err_with_f(), userfiles[_i].want);
		ck_assert_ptr_null(strstr(err, "ret"));	/* no password */
	}
	userfile_free(u);
	unlink(path);
}
END_TEST

START_TEST(test_env_control)
{
	struct config c;

	setenv("USER", "al\033ice", 1);
	unsetenv("IMAPSTRESS_PASSWORD");
	config_defaults(&c);
	ck_assert_int_eq(config_validate(&c, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "user=al\\x1bice (from $USER): control "
			 "character \\x1b in a user name");
	config_free(&c);

	/* user= given: $USER is not used, so not checked */
	config_defaults(&c);
	char *av[] = { (char *)"imapstress", (char *)"user=bob" };
	ck_assert_int_eq(config_parse(&c, 2, av, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&c, err, sizeof(err)), 0);
	config_free(&c);

	unsetenv("USER");
	setenv("IMAPSTRESS_PASSWORD", "pw\n", 1);
	config_defaults(&c);
	ck_assert_int_eq(config_validate(&c, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "pass= (from $IMAPSTRESS_PASSWORD): control "
			 "character \\x0a at octet 3 of the password (not shown)");
	config_free(&c);
	unsetenv("IMAPSTRESS_PASSWORD");
}
END_TEST

static Suite *
config_login_suite(void)
{
	Suite *s = suite_create("config_login");
	TCase *tc = tcase_create("login");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_password_file_control);
	tcase_add_loop_test(tc, test_userfile_control, 0, N(userfiles));
	tcase_add_test(tc, test_env_control);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(config_login_suite)
