/* check_main.h: suites register themselves, so adding a test file never
 * means editing a shared list.  In a test file:
 *
 *     static Suite *imap_suite(void) { ... }
 *     TEST_SUITE(imap_suite)
 */
#ifndef IMAPSTRESS_CHECK_MAIN_H
#define IMAPSTRESS_CHECK_MAIN_H

#include <check.h>

typedef Suite *(*suite_fn)(void);
void test_register_suite(suite_fn fn, const char *name);

#define TEST_SUITE(fn)                                                  \
	__attribute__((constructor)) static void register_##fn(void)    \
	{                                                               \
		test_register_suite(fn, #fn);                                \
	}

#endif
