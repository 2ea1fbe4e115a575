/* test_profile.c: the profile parser (src/profile/): one case per key with
 * a good value and its parsed result, one per bad value with the exact
 * "FILE:LINE: KEY:" prefix, the whole-file checks (required keys, counts
 * adding up to 100%, duplicate and unterminated blocks), the expansion
 * (user names, userfile, client kinds per seed) and the schedule helpers. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "config/config.h"
#include "profile/profile.h"

/* Line 1-2 globals, 3 the global slot, 4 "user u {", 5 count, 6 username,
 * 7 the user slot, 8 "}", 9 "client c {", 10 count, 11 the client slot. */
static char *
make(const char *g, const char *u, const char *c)
{
	static char buf[4096];
	bool own_port = strncmp(g, "lmtp_port", 9) == 0;
	bool own_total = strncmp(g, "total_user_count", 16) == 0;
	bool own_ucount = strncmp(u, "count", 5) == 0;
	bool own_name = strncmp(u, "username_format", 15) == 0;
	bool own_ccount = strncmp(c, "count", 5) == 0;

	snprintf(buf, sizeof(buf),
		 "%s\n%s\n%s\nuser u {\n  %s\n  %s\n  %s\n}\nclient c {\n  %s\n  %s\n}\n",
		 own_port ? "# own port" : "lmtp_port = 24",
		 own_total ? "# own total" : "total_user_count = 10", g,
		 own_ucount ? "# own count" : "count = 100%",
		 own_name ? "# own name" : "username_format = u%n", u,
		 own_ccount ? "# own count" : "count = 100%", c);
	return buf;
}

static struct profile *
parse(const char *text, char *err, size_t n)
{
	err[0] = '\0';
	return profile_parse("t.conf", text, strlen(text), err, n);
}

enum where { G, U, C };

#define UB(f) offsetof(struct profile_user_block, f)
#define CB(f) offsetof(struct profile_client_block, f)
#define GB(f) offsetof(struct profile, f)

static const struct {
	enum where w;
	const char *line;
	size_t off;
	int size;		/* 8: uint64_t, 4: unsigned, 1: bool, 0: string */
	uint64_t want;
	const char *want_s;
} good[] = {
	{ G, "lmtp_port = 2424", GB(lmtp_port), 4, 2424, NULL },
	{ G, "lmtp_max_parallel_count = 175", GB(lmtp_max_parallel), 4, 175, NULL },
	{ G, "submission_port = 587", GB(submission_port), 4, 587, NULL },
	{ G, "submission_port = 587\nsubmission_auth = login", GB(submission_auth), 4,
	  PROFILE_SUBMIT_LOGIN, NULL },
	{ G, "submission_port = 587\nsubmission_auth = none", GB(submission_auth), 4,
	  PROFILE_SUBMIT_NONE, NULL },
	{ G, "submission_port = 587\nsubmission_host = 127.0.0.2", GB(submission_host), 0,
	  0, "127.0.0.2" },
	{ G, "submission_port = 587\nsubmission_host = ::1", GB(submission_host), 0, 0, "::1" },
	{ G, "submission_port = 587\nsubmission_domain = mail.example-1.org",
	  GB(submission_domain), 0, 0, "mail.example-1.org" },
	{ G, "submission_port = 587\nsubmission_tls = starttls", GB(submission_tls), 1,
	  1, NULL },
	{ G, "submission_port = 587\nsubmission_tls = none", GB(submission_tls), 1, 0, NULL },
	{ G, "submission_port = 587\nsubmission_rcpt_count = 100", GB(submission_rcpts),
	  4, 100, NULL },
	{ G, "lmtp_host = 127.0.0.3", GB(lmtp_host), 0, 0, "127.0.0.3" },
	{ G, "total_user_count = 500", GB(total_users), 4, 500, NULL },
	{ G, "rampup_time = 5s", GB(rampup_us), 8, 5000000, NULL },
	{ G, "rampup_time=2 secs", GB(rampup_us), 8, 2000000, NULL },
	{ U, "count = 100%", UB(count_pct), 4, 100, NULL },
	{ U, "username_start_index = 501", UB(start_index), 4, 501, NULL },
	{ U, "userfile = /some/users", UB(userfile), 0, 0, "/some/users" },
	{ U, "mail_session_length = 3 min", UB(session_length_us), 8, 180000000, NULL },
	{ U, "mail_session_length = 20 mins", UB(session_length_us), 8, 1200000000, NULL },
	{ U, "mail_inbox_delivery_interval = 2 mins", UB(inbox_delivery_us), 8, 120000000, NULL },
	{ U, "mail_inbox_delivery_interval = 120s", UB(inbox_delivery_us), 8, 120000000, NULL },
	{ U, "mail_spam_delivery_interval = 1 hour", UB(spam_delivery_us), 8, 3600000000ULL, NULL },
	{ U, "mail_spam_delivery_interval = 0", UB(spam_delivery_us), 8, 0, NULL },
	{ U, "mail_action_delay = 10s", UB(action_delay_us), 8, 10000000, NULL },
	{ U, "mail_action_repeat_delay = 500 ms", UB(action_repeat_us), 8, 500000, NULL },
	{ U, "mail_send_interval = 2 hours", UB(send_interval_us), 8, 7200000000ULL, NULL },
	{ U, "mail_send_interval = 1 day", UB(send_interval_us), 8, 86400000000ULL, NULL },
	{ U, "mail_write_duration = 1 sec", UB(write_duration_us), 8, 1000000, NULL },
	{ U, "mail_write_duration = 1 week", UB(write_duration_us), 8, 604800000000ULL, NULL },
	{ U, "mail_inbox_reply_percentage = 50", UB(reply_pct), 4, 50, NULL },
	{ U, "mail_inbox_delete_percentage = 5%", UB(delete_pct), 4, 5, NULL },
	{ U, "mail_inbox_move_percentage = 7", UB(move_pct), 4, 7, NULL },
	{ U, "mail_inbox_move_filter_percentage = 10", UB(move_filter_pct), 4, 10, NULL },
	{ C, "count = 100%", CB(count_pct), 4, 100, NULL },
	{ C, "connection_max_count = 2", CB(connection_max), 4, 2, NULL },
	{ C, "imap_idle = yes", CB(imap_idle), 1, 1, NULL },
	{ C, "imap_idle = 1", CB(imap_idle), 1, 1, NULL },
	{ C, "imap_idle = no", CB(imap_idle), 1, 0, NULL },
	{ C, "push = notify", CB(push), 4, PROFILE_PUSH_NOTIFY, NULL },
	{ C, "push = idle", CB(push), 4, PROFILE_PUSH_IDLE, NULL },
	{ C, "# push unset", CB(push), 4, PROFILE_PUSH_IDLE, NULL },
	{ C, "imap_fetch_immediate = UID FLAGS BODY.PEEK[HEADER.FIELDS (From To)]",
	  CB(fetch_immediate), 0, 0, "UID FLAGS BODY.PEEK[HEADER.FIELDS (From To)]" },
	{ C, "imap_fetch_manual = RFC822.SIZE BODY[]", CB(fetch_manual), 0, 0,
	  "RFC822.SIZE BODY[]" },
	{ C, "login_interval = 1s", CB(login_interval_us), 8, 1000000, NULL },
	{ C, "protocol = imap", CB(protocol), 4, PROFILE_PROTO_IMAP, NULL },
	{ C, "protocol = pop3", CB(protocol), 4, PROFILE_PROTO_POP3, NULL },
	{ G, "pop3_port = 1110", GB(pop3_port), 4, 1110, NULL },
	/* imaptest's profile.conf: read, and unused as in imaptest. */
	{ C, "imap_status_interval = 5 min", CB(status_interval_us), 8, 300000000, NULL },
	{ C, "pop3_keep_mails = yes", CB(pop3_keep_mails), 1, 1, NULL },
	{ C, "connection_max_count = 0", CB(connection_max), 4, 0, NULL },
	{ C, "# unset", CB(connection_max), 4, 1, NULL },
	/* Dovecot's documented tests: 2,000,000 and 4,000,000 users. */
	{ G, "total_user_count = 4000000", GB(total_users), 4, 4000000, NULL },
};

START_TEST(test_good_key)
{
	char err[512];
	const char *l = good[_i].line;
	struct profile *p = parse(make(good[_i].w == G ? l : "", good[_i].w == U ? l : "",
				       good[_i].w == C ? l : ""), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s: %s", l, err);
	const char *base = good[_i].w == G ? (const char *)p
			   : good[_i].w == U ? (const char *)&p->users[0]
			   : (const char *)&p->clients[0];
	const char *f = base + good[_i].off;
	switch (good[_i].size) {
	case 8: ck_assert_uint_eq(*(const uint64_t *)(const void *)f, good[_i].want); break;
	case 4: ck_assert_uint_eq(*(const unsigned *)(const void *)f, good[_i].want); break;
	case 1: ck_assert_uint_eq(*(const bool *)(const void *)f, good[_i].want); break;
	default: ck_assert_str_eq(*(char *const *)(const void *)f, good[_i].want_s);
	}
	profile_free(p);
}
END_TEST

static const struct {
	enum where w;
	const char *line;
	const char *key;	/* as the message must name it */
	const char *why;	/* a piece of the message */
	unsigned dline;		/* 0: the slot's line; else this line */
} bad[] = {
	{ U, "mail_session_length = 3 fortnights", "mail_session_length", "unknown time unit", 0 },
	{ U, "mail_action_delay = -5s", "mail_action_delay", "negative", 0 },
	{ U, "mail_action_delay =", "mail_action_delay", "empty value", 0 },
	{ U, "mail_inbox_delivery_interval = 5 x", "mail_inbox_delivery_interval", "unknown time unit", 0 },
	{ U, "mail_spam_delivery_interval = abc", "mail_spam_delivery_interval", "not a number", 0 },
	{ U, "mail_send_interval = 400 days", "mail_send_interval", "too large", 0 },
	{ U, "mail_write_duration = 1.5.5s", "mail_write_duration", "unknown", 0 },
	{ U, "mail_action_repeat_delay = 5ss", "mail_action_repeat_delay", "unknown time unit", 0 },
	{ G, "rampup_time = soon", "rampup_time", "not a number", 0 },
	{ G, "msg_sizes = 1k:30,4x:70", "msg_sizes",
	  "item 2 '4x:70': size: unknown unit 'x'", 0 },
	{ G, "msg_sizes = 1k:0", "msg_sizes", "item 1 '1k:0': weight: out of range", 0 },
	{ G, "msg_sizes =", "msg_sizes", "empty", 0 },
	{ G, "lmtp_port = 0", "lmtp_port", "out of range", 0 },
	{ G, "lmtp_port = 65536", "lmtp_port", "out of range", 0 },
	{ G, "pop3_port = 0", "pop3_port", "out of range", 0 },
	{ G, "lmtp_port = 24x", "lmtp_port", "not a number", 0 },
	{ G, "total_user_count = 0", "total_user_count", "out of range", 0 },
	{ G, "total_user_count = 50000001", "total_user_count", "out of range", 0 },
	{ G, "lmtp_max_parallel_count = -1", "lmtp_max_parallel_count", "negative", 0 },
	{ G, "submission_port = 0", "submission_port", "(1..65535)", 0 },
	{ G, "submission_port = 587x", "submission_port", "not a number", 0 },
	{ G, "submission_host = localhost", "submission_host",
	  "'localhost': not a numeric IPv4 or IPv6 address", 0 },
	{ G, "submission_auth = cram-md5", "submission_auth",
	  "'cram-md5': not any, plain, login or none", 0 },
	{ G, "submission_domain = a b", "submission_domain", "not a domain", 0 },
	{ G, "submission_tls = yes", "submission_tls", "'yes': not none or starttls", 0 },
	{ G, "submission_rcpt_count = 0", "submission_rcpt_count", "(1..100)", 0 },
	{ G, "submission_rcpt_count = 101", "submission_rcpt_count", "(1..100)", 0 },
	{ G, "lmtp_host = backend", "lmtp_host",
	  "'backend': not a numeric IPv4 or IPv6 address", 0 },
	{ G, "lmtp_host = ::1\nlmtp_host = ::1", "lmtp_host", "given twice", 4 },
	{ G, "submission_port = 25\nsubmission_port = 26", "submission_port",
	  "given twice (first on line 3)", 4 },
	{ U, "submission_port = 25", "submission_port", "unknown key in a user", 0 },
	{ G, "bogus_key = 1", "bogus_key", "unknown key in the global section", 0 },
	{ U, "bogus = 1", "bogus", "unknown key in a user { } block", 0 },
	{ C, "bogus = 1", "bogus", "unknown key in a client { } block", 0 },
	{ U, "connection_max_count = 2", "connection_max_count", "unknown key in a user", 0 },
	{ G, "count = 100%", "count", "belongs in a user { } or client { } block", 0 },
	{ U, "lmtp_port = 24", "lmtp_port", "is a global key", 0 },
	{ U, "count = 50", "count", "must be a percentage like 10%", 0 },
	{ U, "count = 150%", "count", "percent must be 0..100", 0 },
	{ C, "count = x%", "count", "not a number", 0 },
	{ U, "mail_inbox_reply_percentage = 101", "mail_inbox_reply_percentage", "0..100", 0 },
	{ U, "mail_inbox_delete_percentage = lots", "mail_inbox_delete_percentage", "not a number", 0 },
	{ U, "mail_inbox_move_percentage = -1", "mail_inbox_move_percentage", "0..100", 0 },
	{ U, "mail_inbox_move_filter_percentage = 5%%", "mail_inbox_move_filter_percentage", "not a number", 0 },
	{ U, "username_start_index = -1", "username_start_index", "negative", 0 },
	{ U, "userfile =", "userfile", "empty value", 0 },
	{ C, "connection_max_count = 101", "connection_max_count", "out of range", 0 },
	{ C, "imap_idle = maybe", "imap_idle", "not a boolean", 0 },
	{ C, "push = NOTIFY", "push", "'NOTIFY': not a push mechanism (idle, notify)", 0 },
	{ C, "push = poll", "push", "not a push mechanism", 0 },
	{ C, "push =", "push", "not a push mechanism", 0 },
	{ C, "protocol = smtp", "protocol", "not a protocol", 0 },
	{ C, "imap_status_interval = soon", "imap_status_interval", "not a number", 0 },
	{ C, "imap_search_query = seen", "imap_search_query", "not supported", 0 },
	{ U, "mail_write_size = 10k", "mail_write_size", "not supported", 0 },
	{ U, "mail_inbox_search_percentage = 10", "mail_inbox_search_percentage", "not supported", 0 },
	{ U, "user_count = 10", "user_count", "not supported", 0 },
	{ C, "login_interval = 1 fortnight", "login_interval", "unknown time unit", 0 },
	{ C, "imap_fetch_immediate = BODY[HEADER", "imap_fetch_immediate", "unbalanced", 0 },
	{ C, "imap_fetch_manual = BODY[])", "imap_fetch_manual", "unbalanced", 0 },
	{ C, "imap_fetch_manual = \"x\"", "imap_fetch_manual", "quotes", 0 },
	{ C, "imap_fetch_manual = {5}", "imap_fetch_manual", "literals", 0 },
	{ C, "imap_fetch_manual =", "imap_fetch_manual", "empty value", 0 },
	{ U, "username_format = u%d", "username_format", "unknown %-sequence", 0 },
	{ U, "username_format = u%{user}", "username_format", "only %{username_idx}", 0 },
	{ U, "username_format = u%{username_idx | upper}", "username_format", "only filter", 0 },
	{ U, "username_format = u%{username_idx | lfill(3, '0')", "username_format", "", 0 },
	{ U, "username_format = u%{username_idx | lfill(99, '0')}", "username_format", "over 32", 0 },
	{ U, "username_format = a b", "username_format", "without blanks", 0 },
	{ U, "username_format = %n%n", "username_format", "more than one index", 0 },
	{ U, "username_format = t%5.2n", "username_format", "unknown %-sequence", 0 },
	{ U, "username_format = t%0n", "username_format", "unknown %-sequence", 0 },
	{ U, "username_format = t%x4n", "username_format", "unknown %-sequence", 0 },
	{ U, "username_format = t%099n", "username_format", "over 32", 0 },
	{ U, "username_format =", "username_format", "empty value", 0 },
	{ U, "mail_action_delay = 1s\n  mail_action_delay = 2s", "mail_action_delay",
	  "given twice (first on line 7)", 8 },
	{ G, "= 5", "=", "a key is missing", 0 },
	{ U, "just some words", "just some words", "not 'key = value'", 0 },
	{ G, "}", "}", "no block is open", 0 },
	{ U, "user inner {", "user", "blocks do not nest", 0 },
	{ G, "mailbox x {", "mailbox", "unknown block", 0 },
	{ G, "lmtp {", "lmtp", "blocks are not supported", 0 },
	{ G, "user this_name_is_much_longer_than_the_sixty_four_characters_we_allow_x {",
	  "user", "longer than 64", 0 },
};

/* A submission host or auth with no port anywhere is refused (it would be
 * silently unused); --submission-* override the file's keys. */
START_TEST(test_submission_cli)
{
	char err[512];
	struct config cfg;
	struct profile *p = parse(make("submission_host = 127.0.0.1", "", ""),
				  err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	memset(&cfg, 0, sizeof(cfg));
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "submission_port: missing") != NULL, "%s", err);
	cfg.submission_port = 2587;
	cfg.submission_host = (char *)"::1";
	cfg.submission_auth = (char *)"plain";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), 0);
	ck_assert_uint_eq(p->submission_port, 2587);
	ck_assert_str_eq(p->submission_host, "::1");
	ck_assert_int_eq(p->submission_auth, PROFILE_SUBMIT_PLAIN);
	cfg.submission_auth = (char *)"gssapi";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--submission-auth 'gssapi': not any, plain, login or none");
	cfg.submission_auth = NULL;
	cfg.submission_host = (char *)"mail.example";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--submission-host 'mail.example': not a numeric IPv4 or IPv6 address");
	cfg.submission_host = NULL;
	/* --lmtp-host, --submission-tls, --submission-rcpts */
	cfg.lmtp_host = (char *)"10.0.0.1";
	cfg.submission_tls = (char *)"starttls";
	cfg.submission_rcpts = 7;
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), 0);
	ck_assert_str_eq(p->lmtp_host, "10.0.0.1");
	ck_assert(p->submission_tls);
	ck_assert_uint_eq(p->submission_rcpts, 7);
	cfg.lmtp_host = (char *)"lmtp.example";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--lmtp-host 'lmtp.example': not a numeric IPv4 or IPv6 address");
	cfg.lmtp_host = NULL;
	cfg.submission_tls = (char *)"tls";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--submission-tls 'tls': not none or starttls");
	/* --ca-file with TLS nowhere: unused, refused */
	cfg.submission_tls = (char *)"none";
	cfg.ca_file = (char *)"ca.pem";
	ck_assert_int_eq(profile_submit_cli(p, &cfg, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "--ca-file needs --tls, --starttls or "
			      "submission_tls = starttls") != NULL, "%s", err);
	profile_free(p);
}
END_TEST

START_TEST(test_bad_value)
{
	char err[512], want[160];
	const char *l = bad[_i].line;
	/* A second user block in the global slot comes before user u. */
	struct profile *p = parse(make(bad[_i].w == G ? l : "", bad[_i].w == U ? l : "",
				       bad[_i].w == C ? l : ""), err, sizeof(err));
	unsigned line = bad[_i].dline ? bad[_i].dline
			: bad[_i].w == G ? 3 : bad[_i].w == U ? 7 : 11;

	ck_assert_msg(p == NULL, "%s: accepted", l);
	snprintf(want, sizeof(want), "t.conf:%u: %s: ", line, bad[_i].key);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s: got '%s', want '%s...'",
		      l, err, want);
	ck_assert_msg(strstr(err, bad[_i].why) != NULL, "%s: '%s' lacks '%s'", l, err,
		      bad[_i].why);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

static const struct {
	const char *text;
	const char *err;	/* exact */
} whole[] = {
	{ "total_user_count = 5\nuser u {\n count = 100%\n username_format = x\n}\n"
	  "client c {\n count = 100%\n}\n", "t.conf:8: lmtp_port: missing (required)" },
	{ "lmtp_port = 24\nuser u {\n count = 100%\n username_format = x\n}\n"
	  "client c {\n count = 100%\n}\n", "t.conf:8: total_user_count: missing (required)" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nclient c {\n count = 100%\n}\n",
	  "t.conf:5: user: no user { } block (at least one is required)" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser u {\n count = 100%\n username_format = x\n}\n",
	  "t.conf:6: client: no client { } block (at least one is required)" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser a {\n count = 50%\n username_format = x\n}\n"
	  "user b {\n count = 40%\n username_format = y\n}\nclient c {\n count = 100%\n}\n",
	  "t.conf:8: count: the user blocks' counts add up to 90%, not 100%" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser a {\n count = 100%\n username_format = x\n}\n"
	  "client c {\n count = 60%\n}\nclient d {\n count = 60%\n}\n",
	  "t.conf:11: count: the client blocks' counts add up to 120%, not 100%" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser u {\n username_format = x\n}\n",
	  "t.conf:3: count: missing in user block 'u' (required)" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser u {\n count = 100%\n username_format = x\n}\n"
	  "client {\n imap_idle = yes\n}\n", "t.conf:7: count: missing in client block (required)" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser u {\n count = 100%\n}\nclient c {\n count = 100%\n}\n",
	  "t.conf:3: username_format: user block 'u' needs username_format or userfile" },
	{ "lmtp_port = 24\ntotal_user_count = 5\nuser u {\n count = 100%\n username_format = x\n",
	  "t.conf:3: user: block is never closed (no '}' before the end of the file)" },
	{ "lmtp_port = 24\n\0total_user_count = 5\n", "t.conf:2: file: holds a NUL byte (not a text file)" },
};

START_TEST(test_whole_file)
{
	char err[512];
	const char *t = whole[_i].text;
	size_t len = strlen(t);

	if (len == 15)	/* the NUL case: count past it */
		len = 15 + 1 + strlen(t + 16);
	struct profile *p = profile_parse("t.conf", t, len, err, sizeof(err));
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err, whole[_i].err);
}
END_TEST

START_TEST(test_comments_blanks_crlf_unnamed)
{
	const char *t = "# a profile\r\n   # indented comment = not a key\r\n\r\n"
			"lmtp_port=24\r\n\ttotal_user_count  =  4  \r\nuser {\r\n"
			" count = 100%\r\n username_format = x%n\r\n}\r\n"
			"client {\r\n count = 100%\r\n}\r\nclient {\r\n count = 0%\r\n}";
	char err[512];
	struct profile *p = profile_parse("t.conf", t, strlen(t), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->lmtp_port, 24);
	ck_assert_uint_eq(p->total_users, 4);
	ck_assert_uint_eq(p->n_client_blocks, 2);
	ck_assert_str_eq(p->users[0].name, "");
	profile_free(p);
}
END_TEST

static const struct {
	const char *fmt;
	unsigned idx;
	const char *want;
} names[] = {
	{ "testuser_%{username_idx | lfill(3, '0')}@example.com", 7, "testuser_007@example.com" },
	{ "testuser_%{username_idx|lfill(3,'0')}@example.com", 501, "testuser_501@example.com" },
	{ "u%{username_idx | lfill(2, '0')}", 501, "u501" },
	{ "u%{username_idx | lfill(4, \"x\")}", 7, "uxxx7" },
	{ "u%{username_idx | lfill(3)}", 7, "u007" },
	{ "u%{username_idx}", 42, "u42" },
	{ "test_%03n@example.com", 5, "test_005@example.com" },
	{ "test_%n", 5, "test_5" },
	{ "t%010n", 5, "t0000000005" },
	/* Dovecot 2.3: a width without 0 is a substring, the first N
	 * characters; its 4,000,000-user example's %7n is the number. */
	{ "user%7n", 4000000, "user4000000" },
	{ "user%7n", 5, "user5" },
	{ "u%2n", 501, "u50" },
	{ "100%%_%n", 5, "100%_5" },
	{ "fixed", 9, "fixed" },
};

START_TEST(test_username_format)
{
	char text[512], err[512], out[128];
	snprintf(text, sizeof(text), "lmtp_port = 24\ntotal_user_count = 1\nuser u {\n"
		 " count = 100%%\n username_format = %s\n}\nclient c {\n count = 100%%\n}\n",
		 names[_i].fmt);
	struct profile *p = parse(text, err, sizeof(err));

	ck_assert_msg(p != NULL, "%s: %s", names[_i].fmt, err);
	size_t n = profile_template_expand(&p->users[0].username, names[_i].idx, out,
					   sizeof(out));
	ck_assert_str_eq(out, names[_i].want);
	ck_assert_uint_eq(n, strlen(names[_i].want));
	profile_free(p);
}
END_TEST

static const char example[] =
	"lmtp_port = 24\nlmtp_max_parallel_count = 175\ntotal_user_count = 500\n"
	"rampup_time = 5s\n"
	"user aggressive {\n username_format = testuser_%03n@example.com\n"
	" username_start_index = 501\n count = 10%\n mail_inbox_delivery_interval = 5s\n"
	" mail_spam_delivery_interval = 0\n}\n"
	"user normal {\n username_format = testuser_%{username_idx | lfill(3, '0')}@example.com\n"
	" count = 90%\n mail_inbox_delivery_interval = 120s\n"
	" mail_spam_delivery_interval = 1 hour\n}\n"
	"client Thunderbird {\n count = 80%\n imap_idle = yes\n}\n"
	"client AppleMail {\n count = 20%\n imap_idle = yes\n}\n";

static unsigned
count_client(const struct profile *p, unsigned block, unsigned client)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->n_u; i++)
		n += p->u[i].block == block && p->u[i].client == client;
	return n;
}

START_TEST(test_expand_example)
{
	char err[512];
	struct profile *p = parse(example, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(profile_expand(p, 7, err, sizeof(err)), 0);
	ck_assert_uint_eq(p->n_u, 500);
	ck_assert_uint_eq(p->users[0].n_users, 50);
	ck_assert_uint_eq(p->users[1].n_users, 450);
	ck_assert_uint_eq(p->clients[0].n_users, 400);
	ck_assert_uint_eq(p->clients[1].n_users, 100);
	ck_assert_str_eq(p->u[0].name, "testuser_501@example.com");
	ck_assert_str_eq(p->u[49].name, "testuser_550@example.com");
	ck_assert_str_eq(p->u[50].name, "testuser_001@example.com");
	ck_assert_str_eq(p->u[499].name, "testuser_450@example.com");
	ck_assert_ptr_null(p->u[0].pass);
	ck_assert_uint_eq(count_client(p, 0, 0) + count_client(p, 1, 0), 400);
	/* 50 users @5 s + 450 @120 s + 450 Spam @1 h */
	ck_assert(fabs(profile_deliveries_per_hour(p) - 49950) < 1e-6);
	ck_assert_uint_eq(profile_start_offset_us(p, 0, 50), 100000);
	ck_assert_uint_eq(profile_start_offset_us(p, 49, 50), 5000000);

	/* Same seed, same assignment; another seed, another one. */
	struct profile *q = parse(example, err, sizeof(err)), *r = parse(example, err, sizeof(err));
	ck_assert_int_eq(profile_expand(q, 7, err, sizeof(err)), 0);
	ck_assert_int_eq(profile_expand(r, 8, err, sizeof(err)), 0);
	unsigned same = 0, differ = 0;
	for (unsigned i = 0; i < 500; i++) {
		same += p->u[i].client == q->u[i].client;
		differ += p->u[i].client != r->u[i].client;
	}
	ck_assert_uint_eq(same, 500);
	ck_assert_uint_gt(differ, 0);
	ck_assert_uint_eq(r->clients[0].n_users, 400);
	profile_free(p);
	profile_free(q);
	profile_free(r);
}
END_TEST

START_TEST(test_apportion_adds_up)
{
	char err[512];
	const char *t = "lmtp_port = 24\ntotal_user_count = 15\n"
			"user a {\n count = 10%\n username_format = a%n\n}\n"
			"user b {\n count = 90%\n username_format = b%n\n}\n"
			"client x {\n count = 33%\n}\nclient y {\n count = 33%\n}\n"
			"client z {\n count = 34%\n}\n";
	struct profile *p = parse(t, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(profile_expand(p, 1, err, sizeof(err)), 0);
	/* 1.5 + 13.5: the tie goes to the earlier block */
	ck_assert_uint_eq(p->users[0].n_users, 2);
	ck_assert_uint_eq(p->users[1].n_users, 13);
	ck_assert_uint_eq(p->clients[0].n_users + p->clients[1].n_users +
			  p->clients[2].n_users, 15);
	ck_assert_uint_eq(p->clients[2].n_users, 5);
	ck_assert_int_eq(profile_expand(p, 1, err, sizeof(err)), -1);
	profile_free(p);
}
END_TEST

START_TEST(test_userfile)
{
	char path[] = "/tmp/test_profile_users.XXXXXX", text[512], err[512];
	int fd = mkstemp(path);
	const char *users = "alice:pw1\nbob\ncarol:pw3\n";
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, users, strlen(users)), (ssize_t)strlen(users));
	close(fd);
	for (int total = 3; total <= 5; total += 2) {
		snprintf(text, sizeof(text), "lmtp_port = 24\ntotal_user_count = %d\n"
			 "user u {\n count = 100%%\n userfile = %s\n}\n"
			 "client c {\n count = 100%%\n}\n", total, path);
		struct profile *p = parse(text, err, sizeof(err));
		ck_assert_msg(p != NULL, "%s", err);
		int rc = profile_expand(p, 1, err, sizeof(err));
		if (total == 3) {
			ck_assert_msg(rc == 0, "%s", err);
			ck_assert_str_eq(p->u[0].name, "alice");
			ck_assert_str_eq(p->u[0].pass, "pw1");
			ck_assert_ptr_null(p->u[1].pass);
			ck_assert_str_eq(p->u[2].name, "carol");
		} else {
			ck_assert_int_eq(rc, -1);
			ck_assert_msg(strncmp(err, "t.conf:5: userfile: ", 20) == 0 &&
				      strstr(err, "has 3 users, but this block needs 5"),
				      "%s", err);
		}
		profile_free(p);
	}
	unlink(path);
}
END_TEST

START_TEST(test_jitter)
{
	struct rng r, r2;
	const uint64_t n = 10000000;	/* 10 s */
	double sum = 0, sq = 0;
	const int k = 200000;

	rng_seed(&r, 3, 1);
	rng_seed(&r2, 3, 1);
	ck_assert_uint_eq(profile_jitter_us(&r, 0), 0);
	(void)profile_jitter_us(&r2, 0);
	int differ = 0;
	uint64_t hi = 0;
	for (int i = 0; i < k; i++) {
		uint64_t v = profile_jitter_us(&r, n);
		differ += v != profile_jitter_us(&r2, n);
		hi = v > hi ? v : hi;
		sum += (double)v;
		sq += (double)v * (double)v;
	}
	/* Asserted once, not per draw: under CK_FORK each ck_assert writes
	 * to the runner through a pipe (400000 of them: minutes under ASan
	 * on a loaded machine). */
	ck_assert_int_eq(differ, 0);	/* the same seed, the same draws */
	ck_assert_uint_le(hi, 2 * n);
	double mean = sum / k, sd = sqrt(sq / k - mean * mean);
	ck_assert_msg(fabs(mean - n) < 0.01 * n, "mean %f", mean);
	/* sigma n/2, a little less after the clamp at 0 and 2n */
	ck_assert_msg(sd > 0.45 * n && sd < 0.5 * n, "sd %f", sd);
}
END_TEST

/* msg_sizes = SPEC: the buckets as --msg-sizes parses them. */
START_TEST(test_msg_sizes_key)
{
	char err[512];
	struct profile *p = parse(make("msg_sizes = 256k:10,1k:30,4k:40,32k:20",
				       "", ""), err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->msg_sizes.n, 4);
	ck_assert_uint_eq(p->msg_sizes.size[0], 1024);
	ck_assert_uint_eq(p->msg_sizes.size[3], 256 * 1024);
	ck_assert_uint_eq(p->msg_sizes.cum[3], 100);
	profile_free(p);
	p = parse(make("", "", ""), err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->msg_sizes.n, 0);
	profile_free(p);
}
END_TEST

START_TEST(test_load_errors)
{
	char err[512];
	ck_assert_ptr_null(profile_load("/nonexistent/p.conf", err, sizeof(err)));
	ck_assert_str_eq(err, "/nonexistent/p.conf: cannot open: No such file or directory");
	ck_assert_ptr_null(profile_load("/", err, sizeof(err)));
	ck_assert_str_eq(err, "/: not a regular file (a directory)");
}
END_TEST

START_TEST(test_config_options)
{
	struct config cfg;
	char err[256];
	char *a1[] = { "imapstress", "profile=p.conf", NULL };
	char *a2[] = { "imapstress", "--profile", "q.conf", "--profile-check", NULL };
	char *a3[] = { "imapstress", "--profile-check", NULL };

	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 2, a1, err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.profile_path, "p.conf");
	ck_assert(!cfg.profile_check);
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 4, a2, err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.profile_path, "q.conf");
	ck_assert(cfg.profile_check);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 2, a3, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--profile-check: needs --profile FILE");
	config_free(&cfg);

	/* --profile-users N: 1..1000000, and only with a profile. */
	char *a4[] = { "imapstress", "--profile", "q.conf", "--profile-users", "250", NULL };
	char *a5[] = { "imapstress", "--profile-users", "5", NULL };
	char *a6[] = { "imapstress", "--profile", "q.conf", "--profile-users", "0", NULL };
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 5, a4, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.profile_users, 250);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), 0);
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 3, a5, err, sizeof(err)), 0);
	ck_assert_int_eq(config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--profile-users: needs --profile FILE");
	config_free(&cfg);
	config_defaults(&cfg);
	ck_assert_int_eq(config_parse(&cfg, 5, a6, err, sizeof(err)), -1);
	config_free(&cfg);
}
END_TEST

/* Two blocks named alike are two blocks (imaptest's names are labels). */
START_TEST(test_same_name_blocks)
{
	const char *t = "lmtp_port = 24\ntotal_user_count = 10\n"
			"user u {\n count = 50%\n username_format = a%n\n}\n"
			"user u {\n count = 50%\n username_format = b%n\n}\n"
			"client c {\n count = 30%\n}\nclient c {\n count = 70%\n"
			" imap_idle = yes\n}\n";
	char err[512];
	struct profile *p = parse(t, err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->n_user_blocks, 2);
	ck_assert_uint_eq(p->n_client_blocks, 2);
	ck_assert(p->clients[1].imap_idle && !p->clients[0].imap_idle);
	ck_assert_int_eq(profile_expand(p, 1, err, sizeof(err)), 0);
	ck_assert_uint_eq(p->n_u, 10);
	ck_assert_uint_eq(p->clients[0].n_users, 3);
	profile_free(p);
}
END_TEST

/* imaptest's own profile.conf: a second user block, count = 0%, with
 * `username_format = test%d`, which imaptest never expands (the block
 * has no users): accepted, no user from it.  With users, refused at its
 * line, after the rest of the file parsed. */
START_TEST(test_unused_username_format)
{
	const char *t = "lmtp_port = 24\ntotal_user_count = 10\n"
			"user aggressive {\n username_format = test%n\n count = 100%\n}\n"
			"user normal {\n username_format = test%d\n count = 0%\n}\n"
			"client c {\n count = 100%\n}\n";
	char err[512], other[512];
	struct profile *p = parse(t, err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(profile_expand(p, 1, err, sizeof(err)), 0);
	ck_assert_uint_eq(p->n_u, 10);
	ck_assert_uint_eq(p->users[0].n_users, 10);
	ck_assert_uint_eq(p->users[1].n_users, 0);
	profile_free(p);

	snprintf(other, sizeof(other), "%s", t);
	char *at = strstr(other, "count = 100%\n}\nuser normal");
	memcpy(at, "count = 90% ", 12);
	memcpy(strstr(other, "count = 0%"), "count =10%", 10);
	p = parse(other, err, sizeof(err));
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err, "t.conf:8: username_format: 'test%d': unknown "
			 "%-sequence (use %{username_idx}, %n, %Nn or %0Nn)");
}
END_TEST

/* Two user blocks giving the same names: one user per name (imaptest's
 * user_get), with the later block's settings. */
START_TEST(test_repeated_names)
{
	const char *t = "lmtp_port = 24\ntotal_user_count = 20\n"
			"user a {\n count = 50%\n username_format = u%n\n"
			" mail_inbox_delivery_interval = 10s\n}\n"
			"user b {\n count = 50%\n username_format = u%n\n"
			" username_start_index = 6\n mail_inbox_delivery_interval = 20s\n}\n"
			"client c {\n count = 100%\n}\n";
	char err[512];
	struct profile *p = parse(t, err, sizeof(err));

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(profile_expand(p, 1, err, sizeof(err)), 0);
	/* a: u1..u10, b: u6..u15: u6..u10 are b's. */
	ck_assert_uint_eq(p->n_u, 15);
	ck_assert_uint_eq(p->n_repeated, 5);
	ck_assert_uint_eq(p->users[0].n_users, 5);
	ck_assert_uint_eq(p->users[1].n_users, 10);
	ck_assert_uint_eq(p->clients[0].n_users, 15);
	ck_assert_str_eq(p->u[4].name, "u5");
	ck_assert_uint_eq(p->u[4].block, 0);
	ck_assert_str_eq(p->u[5].name, "u6");
	ck_assert_uint_eq(p->u[5].block, 1);
	ck_assert_str_eq(p->u[14].name, "u15");
	for (unsigned i = 0; i < p->n_u; i++)
		for (unsigned j = i + 1; j < p->n_u; j++)
			ck_assert_str_ne(p->u[i].name, p->u[j].name);
	/* 5 users every 10 s + 10 every 20 s */
	ck_assert(fabs(profile_deliveries_per_hour(p) - 3600) < 1e-6);
	profile_free(p);
}
END_TEST

/* imaptest's order: delete, else move, else reply.  The docs' poweruser
 * block: delete 50%, move 17.5%, reply 16.25% of read mail. */
START_TEST(test_action_order)
{
	struct profile_user_block ub = { .delete_pct = 50, .move_pct = 35,
					 .reply_pct = 50 };
	double del, mv, rep;
	unsigned n[4] = { 0 };
	struct rng r;
	const unsigned k = 400000;

	profile_action_shares(&ub, &del, &mv, &rep);
	ck_assert(fabs(del - 0.5) < 1e-12);
	ck_assert(fabs(mv - 0.175) < 1e-12);
	ck_assert(fabs(rep - 0.1625) < 1e-12);
	rng_seed(&r, 9, 1);
	for (unsigned i = 0; i < k; i++)
		n[profile_pick_action(&r, &ub)]++;
	/* 400000 draws: one sigma is under 0.08%; 0.5% is over 6 sigma. */
	ck_assert_msg(fabs(n[PROFILE_ACT_DELETE] / (double)k - 0.5) < 0.005, "%u",
		      n[PROFILE_ACT_DELETE]);
	ck_assert_msg(fabs(n[PROFILE_ACT_MOVE] / (double)k - 0.175) < 0.005, "%u",
		      n[PROFILE_ACT_MOVE]);
	ck_assert_msg(fabs(n[PROFILE_ACT_REPLY] / (double)k - 0.1625) < 0.005, "%u",
		      n[PROFILE_ACT_REPLY]);
	ub = (struct profile_user_block){ .reply_pct = 100 };
	ck_assert_int_eq(profile_pick_action(&r, &ub), PROFILE_ACT_REPLY);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_submission_cli);
	tcase_add_loop_test(tc, test_good_key, 0, N(good));
	tcase_add_loop_test(tc, test_bad_value, 0, N(bad));
	tcase_add_loop_test(tc, test_whole_file, 0, N(whole));
	tcase_add_test(tc, test_comments_blanks_crlf_unnamed);
	tcase_add_loop_test(tc, test_username_format, 0, N(names));
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_msg_sizes_key);
	tcase_add_test(tc, test_config_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("expand");
	tcase_add_test(tc, test_expand_example);
	tcase_add_test(tc, test_apportion_adds_up);
	tcase_add_test(tc, test_userfile);
	tcase_add_test(tc, test_jitter);
	tcase_add_test(tc, test_same_name_blocks);
	tcase_add_test(tc, test_unused_username_format);
	tcase_add_test(tc, test_repeated_names);
	tcase_add_test(tc, test_action_order);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(profile_suite)
