/* test_msg_mbox.c: message pools read from mbox files: parsing to exact
 * CRLF bytes (LF and CRLF files, "From " quoting), the one-line errors for
 * bad files, FIFOs and /proc files, a generated pool written as an mbox
 * and read back byte for byte, an earlier run's marker dropped and this
 * run's sent first.  Split from test_msg.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "msg/msg.h"

#include "msg_assert.h"

/* Tests run from the top of the tree (make unit). */
#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static struct msg_pool *
load_mbox(const char *path)
{
	char err[512] = "";
	struct msg_pool *p = msg_pool_from_mbox(path, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s: %s", path, err);
	return p;
}

static void
assert_msg_is(const struct msg_pool *p, unsigned idx, const char *want)
{
	const struct msg *m = msg_pool_get(p, idx);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(m->len == strlen(want) &&
	    memcmp(m->data, want, m->len) == 0,
	    "message %u is\n[%.*s]\nwant\n[%s]", idx, (int)m->len, m->data,
	    want);
	ck_assert(!m->needs_id);
}

START_TEST(test_mbox_lf)
{
	struct msg_pool *p = load_mbox(TEST_DATA_DIR "/sample.mbox");
	/* Six From_ lines; one message is empty, one only blank lines. */
	ck_assert_uint_eq(msg_pool_count(p), 5);
	assert_msg_is(p, 0,
	    "From: Alice Adams <alice@example.org>\r\n"
	    "To: Bob Baker <bob@example.com>\r\n"
	    "Subject: Quarterly numbers\r\n"
	    "Date: Mon, 06 Jan 2020 10:00:00 +0000\r\n"
	    "\r\n"
	    "Hello Bob,\r\n"
	    "From the top: the numbers are in.\r\n"
	    ">From here on it is quoted twice.\r\n"
	    ">Fromage is not a From_ line.\r\n"
	    "Nothing to unquote From here.\r\n"
	    "\r\n");
	assert_msg_is(p, 1,
	    "From: Bob Baker <bob@example.com>\r\n"
	    "To: Alice Adams <alice@example.org>\r\n"
	    "Subject: Re: Quarterly numbers\r\n\r\nThanks.\r\n\r\n");
	assert_msg_is(p, 2,
	    "From: Carol Chen <carol@example.net>\r\n"
	    "To: Alice Adams <alice@example.org>\r\n"
	    "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n"
	    "MIME-Version: 1.0\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Transfer-Encoding: 8bit\r\n"
	    "\r\n"
	    "Gr\xc3\xbc\xc3\x9f" "e aus Z\xc3\xbcrich, and a caf\xc3\xa9.\r\n"
	    "\r\n");
	assert_msg_is(p, 3,
	    "From: Dave Dubois <dave@example.org>\r\n"
	    "To: Bob Baker <bob@example.com>\r\n"
	    "Subject: Spacing\r\n\r\nOne.\r\n\r\n\r\n"
	    "Two, after two blank lines.\r\n\r\n");
	assert_msg_is(p, 4,
	    "From: Erin Evans <erin@example.com>\r\n"
	    "To: Dave Dubois <dave@example.org>\r\n"
	    "Subject: No newline at the end\r\n\r\n"
	    "The file ends right after this line\r\n");
	uint64_t sum = 0;
	for (unsigned i = 0; i < msg_pool_count(p); i++) {
		assert_crlf_text(msg_pool_get(p, i), 998, "mbox");
		assert_marked(msg_pool_get(p, i), 42, 0, "mbox");
		sum += msg_pool_get(p, i)->len;
	}
	ck_assert_uint_eq(sum, msg_pool_bytes(p));
	ck_assert_ptr_null(msg_pool_get(p, 5));
	msg_pool_free(p);
}
END_TEST

START_TEST(test_mbox_crlf)
{
	struct msg_pool *p = load_mbox(TEST_DATA_DIR "/sample-crlf.mbox");
	ck_assert_uint_eq(msg_pool_count(p), 5);
	/* CRLF kept, bare LF converted, CR CR LF collapsed to CRLF. */
	assert_msg_is(p, 0,
	    "From: Alice Adams <alice@example.org>\r\n"
	    "To: Bob Baker <bob@example.com>\r\n"
	    "Subject: CRLF already\r\n"
	    "\r\n"
	    "Line one.\r\n"
	    "From a quoted line.\r\n"
	    "A bare LF line in a CRLF file.\r\n"
	    "A line with a stray CR before CRLF.\r\n"
	    "\r\n");
	assert_msg_is(p, 1, "From: Bob Baker <bob@example.com>\r\n"
	    "Subject: Second\r\n\r\n>From twice quoted.\r\n\r\n");
	assert_msg_is(p, 2, "From: Carol Chen <carol@example.net>\r\n"
	    "Subject: Third\r\n\r\nBody three.\r\n\r\n");
	assert_msg_is(p, 4, "From: Erin Evans <erin@example.com>\r\n"
	    "Subject: Fifth, no line ending at the end\r\n\r\nLast line\r\n");
	for (unsigned i = 0; i < msg_pool_count(p); i++)
		assert_crlf_text(msg_pool_get(p, i), 998, "mbox");
	msg_pool_free(p);
}
END_TEST

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* An mbox saved from a mailbox an earlier run filled brings that run's
 * marker along: it is dropped with its folded lines, in any case, so the
 * message as sent carries this run's marker only; the same text in the
 * body or in a later message's body stays.  The message's size is then
 * its bytes without the old field. */
START_TEST(test_mbox_old_marker)
{
	char dir[] = "/tmp/imapstress-msg-XXXXXX", path[64];
	static const char mbox[] =
	    "From a\n"
	    "X-Imapstress: run=0123456789abcdef (imapstress 0.0.1)\n"
	    "Subject: one\n"
	    "x-imapstress: run=1111111111111111\n"
	    "\tfolded on\n"
	    "X-Imapstressed: kept\n"
	    "\n"
	    "X-Imapstress: in the body, kept\n"
	    "From b\r\n"
	    "Subject: two\r\n"
	    "X-IMAPSTRESS:run=2222222222222222\r\n"
	    "\r\n"
	    "body\r\n";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.mbox", dir);
	write_file(path, mbox, sizeof(mbox) - 1);
	struct msg_pool *p = load_mbox(path);
	ck_assert_uint_eq(msg_pool_count(p), 2);
	assert_msg_is(p, 0, "Subject: one\r\nX-Imapstressed: kept\r\n\r\n"
		      "X-Imapstress: in the body, kept\r\n");
	assert_msg_is(p, 1, "Subject: two\r\n\r\nbody\r\n");
	for (unsigned i = 0; i < 2; i++)
		assert_marked(msg_pool_get(p, i), 0x00c0ffee12345678ULL, 0,
			      "old marker");
	ck_assert_uint_eq(msg_pool_bytes(p), msg_pool_get(p, 0)->len +
			  msg_pool_get(p, 1)->len);
	msg_pool_free(p);
	unlink(path);
	rmdir(dir);
}
END_TEST

static void
assert_mbox_error(const char *path, const char *want_tail)
{
	char err[512] = "", want[512];
	ck_assert_ptr_null(msg_pool_from_mbox(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "mbox=%s: %s", path, want_tail);
	ck_assert_str_eq(err, want);
}

START_TEST(test_mbox_errors)
{
	static const char not_mbox[] = "no messages found (not an mbox? "
	    "first line must start with 'From ')";
	char dir[] = "/tmp/imapstress-msg-XXXXXX", path[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.mbox", dir);

	assert_mbox_error(path, "cannot open: No such file or directory");
	assert_mbox_error(dir, "not a regular file (a directory)");
	write_file(path, "", 0);
	assert_mbox_error(path, not_mbox);
	write_file(path, "Subject: hi\n\nFrom x y\nbody\n", 26);
	assert_mbox_error(path, not_mbox);
	write_file(path, "From a\nFrom b\n\r\n\nFrom c", 23);
	assert_mbox_error(path, not_mbox);
	write_file(path, "Fro", 3);
	assert_mbox_error(path, not_mbox);
	chmod(path, 0);
	if (access(path, R_OK) != 0) {	/* root reads it anyway */
		char tail[128];
		snprintf(tail, sizeof(tail), "cannot open: %s", strerror(EACCES));
		assert_mbox_error(path, tail);
	}
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A FIFO is refused at once, with no writer on the other end (opening
 * it for reading would block forever), and so is /dev/zero (it would fill
 * memory): main at 1a4eff3 hung on both. */
START_TEST(test_mbox_fifo)
{
	char dir[] = "/tmp/imapstress-msg-XXXXXX", path[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	assert_mbox_error(path, "not a regular file (a FIFO)");
	assert_mbox_error("/dev/zero", "not a regular file (a character device)");
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A file with st_size 0 is read, not mapped, and still bounded. */
START_TEST(test_mbox_proc_file)
{
	char err[512] = "";
	ck_assert_ptr_null(msg_pool_from_mbox("/proc/self/status", err,
					      sizeof(err)));
	ck_assert_msg(strstr(err, "no messages found") != NULL, "%s", err);
}
END_TEST

/* Generated mail written as an mboxrd (lines matching ^>*From quoted)
 * reads back byte for byte: ~1000 messages through the scanner. */
START_TEST(test_mbox_roundtrip)
{
	char dir[] = "/tmp/imapstress-msg-XXXXXX", path[64];
	struct msg_pool *gen = msg_pool_generate(3, 2048, 4 * MIB);
	unsigned quoted = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rt.mbox", dir);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < msg_pool_count(gen); i++) {
		const struct msg *m = msg_pool_get(gen, i);
		fputs("From MAILER-DAEMON Thu Jan  1 00:00:00 2020\n", f);
		for (size_t k = 0; k < m->len;) {
			const char *eol = memchr(m->data + k, '\n', m->len - k);
			size_t len = (size_t)(eol - (m->data + k)) + 1, q = k;
			while (q < k + len && m->data[q] == '>')
				q++;
			if (k + len - q >= 5 && memcmp(m->data + q, "From ", 5)
			    == 0) {
				fputc('>', f);
				quoted++;
			}
			fwrite(m->data + k, 1, len, f);
			k += len;
		}
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_gt(quoted, 0);	/* sentences do start with "From" */

	struct msg_pool *got = load_mbox(path);
	ck_assert_uint_eq(msg_pool_count(got), msg_pool_count(gen));
	for (unsigned i = 0; i < msg_pool_count(gen); i++) {
		const struct msg *a = msg_pool_get(gen, i);
		const struct msg *b = msg_pool_get(got, i);
		ck_assert_uint_eq(a->len, b->len);
		ck_assert(memcmp(a->data, b->data, a->len) == 0);
	}
	msg_pool_free(got);
	msg_pool_free(gen);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *
msg_mbox_suite(void)
{
	Suite *s = suite_create("msg_mbox");
	TCase *tc = tcase_create("mbox");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_mbox_lf);
	tcase_add_test(tc, test_mbox_crlf);
	tcase_add_test(tc, test_mbox_errors);
	tcase_add_test(tc, test_mbox_fifo);
	tcase_add_test(tc, test_mbox_proc_file);
	tcase_add_test(tc, test_mbox_roundtrip);
	tcase_add_test(tc, test_mbox_old_marker);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(msg_mbox_suite)
