/* test_conn_caps.c: conn_caps_parse, the CAP_ bits of a capability list.
 * Every name we use, in any case, gives its bit and nothing else; names
 * that only look like one (a prefix, one octet more, another name of the
 * same length) give none; and random lists of real and near-miss names
 * give the same bits as a plain reference (each known name looked for
 * with imap_caps_has, the old way). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "conn/conn_int.h"
#include "imap/imap.h"
#include "util/rng.h"

static const struct { const char *name; unsigned bit; } known[] = {
	{ "LITERAL+", CAP_LITERALPLUS }, { "LITERAL-", CAP_LITERALMINUS },
	{ "MULTIAPPEND", CAP_MULTIAPPEND }, { "IDLE", CAP_IDLE },
	{ "UIDPLUS", CAP_UIDPLUS }, { "CONDSTORE", CAP_CONDSTORE },
	{ "QRESYNC", CAP_QRESYNC }, { "SORT", CAP_SORT },
	{ "THREAD=REFERENCES", CAP_THREAD }, { "MOVE", CAP_MOVE },
	{ "STARTTLS", CAP_STARTTLS }, { "SASL-IR", CAP_SASL_IR },
	{ "AUTH=PLAIN", CAP_AUTH_PLAIN }, { "ENABLE", CAP_ENABLE },
	{ "NOTIFY", CAP_NOTIFY },
	{ "ID", CAP_ID }, { "IMAP4rev2", CAP_IMAP4REV2 },
	{ "COMPRESS=DEFLATE", CAP_COMPRESS },
	{ "LOGINDISABLED", CAP_LOGINDISABLED },
};
#define N_KNOWN (sizeof(known) / sizeof(known[0]))

/* Names that are not ours: Dovecot's others, and near misses. */
static const char *const others[] = {
	"IMAP4rev1", "LOGIN-REFERRALS", "AUTH", "AUTH=PLAINX", "AUTH=LOGIN",
	"LITERAL", "LITERAL*", "IDLEX", "IDL", "I", "IE", "SORT=DISPLAY",
	"THREAD=REFS", "THREAD=ORDEREDSUBJECT", "MOVED", "ESORT", "ENABLED",
	"UIDPLUSS", "QRESYNC2", "SASL_IR", "COMPRESS=DEFLATEX", "CONDSTORF",
	"IMAP4rev3", "MULTIAPPENX", "LOGINDISABLEX", "STARTTLZ", "BINARY",
	"NAMESPACE", "SPECIAL-USE", "CHILDREN", "I18NLEVEL=1", "X",
};
#define N_OTHERS (sizeof(others) / sizeof(others[0]))

static unsigned
reference(const char *s, size_t n)
{
	unsigned caps = CAP_KNOWN;
	for (size_t k = 0; k < N_KNOWN; k++)
		if (imap_caps_has(s, n, known[k].name))
			caps |= known[k].bit;
	return caps;
}

static unsigned
parse(const char *s)
{
	return conn_caps_parse(s, strlen(s));
}

/* name in a random mix of upper and lower case */
static void
mixed_case(char *out, const char *name, struct rng *r)
{
	size_t i;
	for (i = 0; name[i] != '\0'; i++) {
		char ch = name[i];
		if (ch >= 'a' && ch <= 'z' && rng_pct(r, 50))
			ch = (char)(ch - 32);
		else if (ch >= 'A' && ch <= 'Z' && rng_pct(r, 50))
			ch = (char)(ch + 32);
		out[i] = ch;
	}
	out[i] = '\0';
}

START_TEST(test_caps_each_name)
{
	struct rng r;
	rng_seed(&r, 7, 1);
	char buf[64];

	ck_assert_uint_eq(parse(""), CAP_KNOWN);
	ck_assert_uint_eq(parse("   "), CAP_KNOWN);
	for (size_t k = 0; k < N_KNOWN; k++) {
		ck_assert_uint_eq(parse(known[k].name), CAP_KNOWN | known[k].bit);
		for (int t = 0; t < 8; t++) {
			mixed_case(buf, known[k].name, &r);
			ck_assert_msg(parse(buf) == (CAP_KNOWN | known[k].bit),
				      "%s", buf);
		}
		/* one octet more or less is another name */
		snprintf(buf, sizeof(buf), "%sX", known[k].name);
		ck_assert_uint_eq(parse(buf), CAP_KNOWN);
		snprintf(buf, sizeof(buf), "%.*s", (int)strlen(known[k].name) - 1,
			 known[k].name);
		ck_assert_uint_eq(parse(buf), CAP_KNOWN);
	}
	for (size_t k = 0; k < N_OTHERS; k++)
		ck_assert_msg(parse(others[k]) == CAP_KNOWN, "%s", others[k]);
	/* Dovecot 2.3's list after LOGIN */
	ck_assert_uint_eq(parse("IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE "
	    "IDLE SORT SORT=DISPLAY THREAD=REFERENCES THREAD=REFS "
	    "THREAD=ORDEREDSUBJECT MULTIAPPEND URL-PARTIAL CATENATE UNSELECT "
	    "CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED I18NLEVEL=1 CONDSTORE "
	    "QRESYNC ESEARCH ESORT SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS "
	    "BINARY MOVE SNIPPET=FUZZY PREVIEW=FUZZY PREVIEW STATUS=SIZE "
	    "SAVEDATE LITERAL+ NOTIFY SPECIAL-USE"),
	    CAP_KNOWN | CAP_SASL_IR | CAP_ID | CAP_ENABLE | CAP_IDLE | CAP_SORT |
	    CAP_THREAD | CAP_MULTIAPPEND | CAP_UIDPLUS | CAP_CONDSTORE |
	    CAP_QRESYNC | CAP_MOVE | CAP_LITERALPLUS | CAP_NOTIFY);
}
END_TEST

/* Random lists (spaces doubled, leading and trailing) against the
 * reference; also parsed from a copy cut at every length, since the
 * list is counted, not NUL-terminated. */
START_TEST(test_caps_random_lists)
{
	struct rng r;
	rng_seed(&r, 19, 1);
	char list[1024], name[64];

	for (int round = 0; round < 2000; round++) {
		size_t n = 0;
		unsigned words = rng_below(&r, 12);
		for (unsigned w = 0; w < words; w++) {
			unsigned sp = rng_below(&r, 3);
			for (unsigned i = 0; i < sp || (w > 0 && i < 1); i++)
				list[n++] = ' ';
			if (rng_pct(&r, 50))
				mixed_case(name, known[rng_below(&r, N_KNOWN)].name, &r);
			else
				mixed_case(name, others[rng_below(&r, N_OTHERS)], &r);
			size_t l = strlen(name);
			memcpy(list + n, name, l);
			n += l;
		}
		if (rng_pct(&r, 30))
			list[n++] = ' ';
		list[n] = '\0';
		for (size_t cut = 0; cut <= n; cut++)
			ck_assert_msg(conn_caps_parse(list, cut) == reference(list, cut),
				      "\"%.*s\"", (int)cut, list);
	}
}
END_TEST

/* The memo of the last two lists: lists of one length that differ in one
 * octet, in turns of two and three, each answer the list's own bits, and
 * a list longer than the memo holds is still parsed. */
START_TEST(test_caps_memo)
{
	const char *lists[] = {
		"IMAP4rev1 IDLE LITERAL+ ID",
		"IMAP4rev1 IDLX LITERAL+ ID",
		"IMAP4rev1 IDLE LITERAL- ID",
	};
	for (int round = 0; round < 12; round++) {
		const char *l = lists[round % (round < 6 ? 2 : 3)];
		ck_assert_msg(parse(l) == reference(l, strlen(l)), "round %d: %s",
			      round, l);
	}
	static char longer[3000];
	size_t n = 0;
	while (n + 12 < sizeof(longer) - 20)
		n += (size_t)sprintf(longer + n, "X-NAME%05zu ", n);
	strcpy(longer + n, "STARTTLS");
	ck_assert_uint_eq(parse(longer), CAP_KNOWN | CAP_STARTTLS);
	longer[n] = 'X';
	ck_assert_uint_eq(parse(longer), CAP_KNOWN);
}
END_TEST

static Suite *
conn_caps_suite(void)
{
	Suite *s = suite_create("conn_caps");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_caps_each_name);
	tcase_add_test(tc, test_caps_random_lists);
	tcase_add_test(tc, test_caps_memo);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(conn_caps_suite)
