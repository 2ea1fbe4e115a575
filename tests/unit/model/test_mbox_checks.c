/* test_mbox_checks.c: every consistency check of the mailbox model, each
 * with a minimal sequence that must trigger exactly that error and a
 * sibling sequence that is legal and must not; then the ownership rules
 * (own_msgs, own_flags), which need two sessions. */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "mbox_test.h"

#define CLEAN (-1)

static const struct check_case {
	const char *name;
	unsigned opts;
	const char *lines[8];
	int kind;		/* CLEAN: no violation allowed */
	unsigned count;
	const char *msg;	/* substring of the first message */
} cases[] = {
	/* a) seq too high */
	{ "fetch seq too high", 0, { "!state FETCH", "* 6 FETCH (FLAGS ())" },
	  MBOX_ERR_SEQ_TOO_HIGH, 1, "seq too high (6 > 5, state=FETCH)" },
	{ "fetch after exists", 0, { "* 6 EXISTS", "* 6 FETCH (FLAGS ())" },
	  CLEAN, 0, NULL },
	{ "expunge seq too high", 0, { "* 6 EXPUNGE" },
	  MBOX_ERR_SEQ_TOO_HIGH, 1, "seq too high (6 > 5)" },
	{ "expunges in range", 0, { "* 5 EXPUNGE", "* 4 EXPUNGE", "* 1 EXPUNGE",
				    "* 2 FETCH (FLAGS ())" }, CLEAN, 0, NULL },
	/* a') after a STATUS of the selected mailbox: Cyrus 3.6, captured by
	 * scripts/cyrus-unannounced ("* 787 EXISTS", STATUS, five
	 * "* 1 EXPUNGE", then "* 783 FETCH (UID 1043)"); the FETCH grows
	 * the view, so the same seq is in range at once */
	{ "cyrus unannounced fetch", 0, { "* 7 EXISTS", "!status",
					  "* 1 EXPUNGE", "* 1 EXPUNGE",
					  "!state FETCH", "* 6 FETCH (UID 20)",
					  "* 6 FETCH (FLAGS ())" },
	  MBOX_ERR_UNANNOUNCED, 1, "seq 6 > 5 never announced by EXISTS, "
	  "after a STATUS of the selected mailbox, state=FETCH" },
	{ "unannounced expunge", 0, { "!status", "* 6 EXPUNGE",
				      "* 5 FETCH (FLAGS ())" },
	  MBOX_ERR_UNANNOUNCED, 1, "seq 6 > 5 never announced" },
	{ "exists after status", 0, { "!status", "* 6 EXISTS",
				      "* 6 FETCH (FLAGS ())" }, CLEAN, 0, NULL },
	{ "status then exists then too high", 0, { "!status", "* 6 EXISTS",
						   "* 7 FETCH (FLAGS ())" },
	  MBOX_ERR_SEQ_TOO_HIGH, 1, "seq too high (7 > 6)" },
	/* b) EXISTS backwards */
	{ "exists backwards", 0, { "* 4 EXISTS" }, MBOX_ERR_EXISTS_BACKWARDS,
	  1, "EXISTS went backwards: 5 -> 4" },
	{ "exists after expunge", 0, { "* 2 EXPUNGE", "* 4 EXISTS",
				       "* 5 EXISTS" }, CLEAN, 0, NULL },
	/* c) UIDs */
	{ "uid changed", O_KNOWN, { "* 2 FETCH (UID 6 FLAGS ())" },
	  MBOX_ERR_UID_CHANGED, 1, "UID changed for seq 2: 5 -> 6" },
	{ "uids learned late", 0, { "* 4 FETCH (UID 9)", "* 1 FETCH (UID 3)",
				    "* 3 FETCH (UID 7)", "* 2 EXPUNGE",
				    "* 2 FETCH (UID 7)", "* 4 FETCH (UID 10)" },
	  CLEAN, 0, NULL },
	{ "uids not ascending", 0, { "* 1 FETCH (UID 3)", "* 2 FETCH (UID 2)" },
	  MBOX_ERR_UID_ORDER, 1,
	  "UIDs not ascending: seq 1 has UID 3 but seq 2 has UID 2" },
	{ "uids ascending, fetched backwards", 0,
	  { "* 5 FETCH (UID 10)", "* 3 FETCH (UID 7)", "* 4 FETCH (UID 8)",
	    "* 1 FETCH (UID 1)" }, CLEAN, 0, NULL },
	{ "new uid below uidnext", 0, { "* 6 EXISTS", "* 6 FETCH (UID 10)" },
	  MBOX_ERR_UIDNEXT, 1,
	  "UID 10 below UIDNEXT 11 (seq 6 arrived after SELECT)" },
	{ "new uids from uidnext", 0, { "* 6 EXISTS", "* 6 FETCH (UID 11)",
					"* 7 EXISTS", "* 7 FETCH (UID 15)" },
	  CLEAN, 0, NULL },
	{ "old uid not below uidnext", 0, { "* 5 FETCH (UID 11)" },
	  MBOX_ERR_UIDNEXT, 1,
	  "UID 11 not below UIDNEXT 11 (seq 5 existed at SELECT)" },
	{ "uidnext backwards", 0, { "* OK [UIDNEXT 10] Predicted" },
	  MBOX_ERR_UIDNEXT, 1, "UIDNEXT went backwards: 11 -> 10" },
	/* d) static metadata */
	{ "size changed", 0, { "* 1 FETCH (UID 3 RFC822.SIZE 1234)",
			       "* 1 FETCH (RFC822.SIZE 1235)" },
	  MBOX_ERR_STATIC_CHANGED, 1,
	  "RFC822.SIZE changed for UID 3: 1234 -> 1235" },
	{ "size same, expunged placeholder", 0,
	  { "* 1 FETCH (UID 3 RFC822.SIZE 1234)", "* 1 FETCH (RFC822.SIZE 1234)",
	    "* 1 FETCH (RFC822.SIZE 0)" }, CLEAN, 0, NULL },
	{ "internaldate changed", 0,
	  { "* 1 FETCH (UID 3 INTERNALDATE \"17-Jul-1996 02:44:25 -0700\")",
	    "* 1 FETCH (INTERNALDATE \"17-Jul-1996 02:44:25 +0000\")" },
	  MBOX_ERR_STATIC_CHANGED, 1, "INTERNALDATE changed for UID 3: "
	  "17-Jul-1996 02:44:25 -0700 -> 17-Jul-1996 02:44:25 +0000" },
	{ "internaldate same", 0,
	  { "* 1 FETCH (UID 3 INTERNALDATE \"07-Jul-1996 02:44:25 -0700\")",
	    "* 1 FETCH (INTERNALDATE \" 7-Jul-1996 02:44:25 -0700\")",
	    "* 1 FETCH (INTERNALDATE \"01-Jan-1970 00:00:00 +0000\")" },
	  CLEAN, 0, NULL },
	{ "envelope changed", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 1, "ENVELOPE changed for UID 3: hash " },
	{ "envelope same modulo case and literal", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" {2}\r\nhi nil NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL))" },
	  CLEAN, 0, NULL },
	{ "bodystructure changed", 0,
	  { "* 1 FETCH (UID 3 BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"us-ascii\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"us-ascii\") NIL NIL \"7bit\" 11 1 NIL NIL NIL NIL))" },
	  MBOX_ERR_STATIC_CHANGED, 1, "BODYSTRUCTURE changed for UID 3: hash" },
	{ "bodystructure placeholder and skipped literal", 0,
	  { "* 1 FETCH (UID 3 BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"us-ascii\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" "
	    "0 0 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "{9000!}) NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))" },
	  CLEAN, 0, NULL },
	{ "message-id changed", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (BODY[HEADER.FIELDS (MESSAGE-ID)] {19}\r\n"
	    "Message-ID: <b@x>\r\n)" },
	  MBOX_ERR_STATIC_CHANGED, 1,
	  "Message-ID changed for UID 3: <a@x> -> <b@x>" },
	{ "message-id same, folded header", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (UID 3 BODY[HEADER.FIELDS (MESSAGE-ID)] {23}\r\n"
	    "Message-Id:\r\n <a@x>\r\n\r\n)" },
	  CLEAN, 0, NULL },
	/* a FETCH naming an item twice ("FETCH 1 (RFC822.SIZE ENVELOPE
	 * RFC822.SIZE)", as the stress FETCH may) is answered with it twice:
	 * one change, one report (issue 33: 36 lines from 31 changes) */
	{ "size changed, named twice", 0,
	  { "* 1 FETCH (UID 3 RFC822.SIZE 1234)",
	    "* 1 FETCH (RFC822.SIZE 1235 FLAGS () RFC822.SIZE 1235)" },
	  MBOX_ERR_STATIC_CHANGED, 1,
	  "RFC822.SIZE changed for UID 3: 1234 -> 1235" },
	{ "internaldate and bodystructure changed, named twice", 0,
	  { "* 1 FETCH (UID 3 INTERNALDATE \"17-Jul-1996 02:44:25 -0700\" "
	    "BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 10 1 "
	    "NIL NIL NIL NIL))",
	    "* 1 FETCH (INTERNALDATE \"17-Jul-1996 02:44:25 +0000\" "
	    "BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 11 1 "
	    "NIL NIL NIL NIL) INTERNALDATE \"17-Jul-1996 02:44:25 +0000\" "
	    "BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 11 1 "
	    "NIL NIL NIL NIL))" },
	  MBOX_ERR_STATIC_CHANGED, 2, "INTERNALDATE changed for UID 3: " },
	{ "message-id changed, in the envelope and a header section", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (BODY[HEADER.FIELDS (MESSAGE-ID)] {19}\r\n"
	    "Message-ID: <b@x>\r\n ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL "
	    "NIL NIL NIL \"<b@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 2,
	  "Message-ID changed for UID 3: <a@x> -> <b@x>" },
	{ "envelope changed, named twice", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\") ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 2, "ENVELOPE changed for UID 3: hash " },
	{ "envelope changed after repeats", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<b@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 2, "ENVELOPE changed for UID 3: hash " },
	{ "envelope change reported every time", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Ho\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"hi\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 2, "ENVELOPE changed for UID 3: hash " },
	{ "message-id mismatch in a repeated envelope reported every time", 0,
	  { "* 1 FETCH (UID 3 BODY[HEADER.FIELDS (MESSAGE-ID)] {19}\r\n"
	    "Message-ID: <b@x>\r\n)",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 2, "Message-ID changed for UID 3: <b@x> -> "
	  "<a@x>" },
	{ "envelope variants and back", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"D\" \"hI\" nil NIL NIL NIL NIL NIL NIL "
	    "\"<A@X>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE ({1}\r\nd \"Hi\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 1, "Message-ID changed for UID 3: <a@x> -> "
	  "<A@X>" },
	{ "envelope strings split", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" ((\"a\" \"b\")) NIL NIL "
	    "NIL NIL NIL NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" ((\"ab\")) NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" (\"a\" \"b\") NIL NIL NIL NIL "
	    "NIL NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"Hi\" ((a \"b\")) NIL NIL NIL NIL "
	    "NIL NIL \"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 3, "ENVELOPE changed for UID 3: hash " },
	{ "envelope only letters fold", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"a[b@c^\" NIL NIL NIL NIL NIL "
	    "NIL NIL \"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"A{b@c^\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"A[B`c^\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"d\" \"A[B@C~\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))",
	    "* 1 FETCH (ENVELOPE (\"D\" \"A[B@C^\" NIL NIL NIL NIL NIL NIL NIL "
	    "\"<a@x>\"))" },
	  MBOX_ERR_STATIC_CHANGED, 3, "ENVELOPE changed for UID 3: hash " },
	{ "bodystructure skipped literal, then changed", 0,
	  { "* 1 FETCH (UID 3 BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"us-ascii\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "{9000!}) NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "{9000!}) NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"us-ascii\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))",
	    "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" "
	    "\"utf-8\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL))" },
	  MBOX_ERR_STATIC_CHANGED, 1, "BODYSTRUCTURE changed for UID 3: hash" },
	{ "item names in any case", 0,
	  { "* 1 FETCH (uid 3 rfc822.size 1234 internaldate "
	    "\"17-jul-1996 02:44:25 -0700\")",
	    "* 1 FETCH (Rfc822.Size 1234 InternalDate "
	    "\"17-JUL-1996 02:44:25 -0700\" Uid 3 fLaGs (\\seen))",
	    "* 1 FETCH (RFC822.SIZE 1235)" },
	  MBOX_ERR_STATIC_CHANGED, 1,
	  "RFC822.SIZE changed for UID 3: 1234 -> 1235" },
	{ "message-id section in any case", 0,
	  { "* 1 FETCH (UID 3 ENVELOPE (\"d\" \"Hi\" NIL NIL NIL NIL NIL NIL "
	    "NIL \"<a@x>\"))",
	    "* 1 FETCH (body[header.fields (subject message-id)] {19}\r\n"
	    "message-ID: <a@x>\r\n)",
	    "* 1 FETCH (Body[Header.Fields (Message-Id)] {19}\r\n"
	    "MESSAGE-ID: <b@x>\r\n)" },
	  MBOX_ERR_STATIC_CHANGED, 1,
	  "Message-ID changed for UID 3: <a@x> -> <b@x>" },
	{ "names that only look alike", 0,
	  { "* 1 FETCH (UID 3 RFC822.SIZE 1234)",
	    "* 1 FETCH (RFC822.SIZf 1235 RFC822-SIZE 1235 RFC822.SIZES 1 "
	    "BODY[HEADER.FIELDS (MESSAGEXID)] {19}\r\nMessage-ID: <b@x>\r\n "
	    "UIDS 4 FLAG (\\Bogus))" },
	  CLEAN, 0, NULL },
	/* e) keywords */
	{ "keyword not in FLAGS", 0, { "* 1 FETCH (FLAGS ($Junk))",
				       "* 2 FETCH (FLAGS ($Junk))" },
	  MBOX_ERR_KEYWORD, 1, "Keyword used without being in FLAGS: $Junk" },
	{ "keyword announced in a later FLAGS", 0,
	  { "* FLAGS (\\Seen $Label1 $Junk)", "* 1 FETCH (FLAGS ($Junk))" },
	  CLEAN, 0, NULL },
	{ "keyword dropped while used", 0,
	  { "* 1 FETCH (FLAGS ($Label1))", "* FLAGS (\\Seen)" },
	  MBOX_ERR_KEYWORD, 1,
	  "Keyword $Label1 dropped from FLAGS but 1 messages still have it" },
	/* Courier-IMAP 5.0 drops a keyword from FLAGS once no message has
	 * it, inside the session's own STORE that took it from the last
	 * one (issue 33): "-FLAGS.SILENT ($Label1)" of seq 4, the only
	 * message with $Label1, answered by these lines and the tagged OK */
	{ "own silent store, keyword dropped (courier)", O_KNOWN,
	  { "!silent 4",
	    "* FLAGS (\\Draft \\Answered \\Flagged \\Deleted \\Seen "
	    "\\Recent)",
	    "* OK [PERMANENTFLAGS (\\* \\Draft \\Answered \\Flagged "
	    "\\Deleted \\Seen)] Limited", "!end" },
	  CLEAN, 0, NULL },
	{ "own silent store ended, keyword dropped later", O_KNOWN,
	  { "!silent 4", "!end", "* FLAGS (\\Seen)" }, CLEAN, 0, NULL },
	{ "own store, FLAGS before its FETCH", O_KNOWN,
	  { "!store 4", "* FLAGS (\\Seen)", "* 4 FETCH (FLAGS ())", "!end" },
	  CLEAN, 0, NULL },
	{ "own silent store of another message", O_KNOWN,
	  { "!silent 2", "* FLAGS (\\Seen)", "!end" }, MBOX_ERR_KEYWORD, 1,
	  "Keyword $Label1 dropped from FLAGS but 1 messages still have it" },
	{ "keyword fetched after own silent store", O_KNOWN,
	  { "!silent 4", "!end", "* 4 FETCH (FLAGS ($Label1))",
	    "* FLAGS (\\Seen)" }, MBOX_ERR_KEYWORD, 1,
	  "Keyword $Label1 dropped from FLAGS but 1 messages still have it" },
	{ "permanentflags keyword not in FLAGS", 0,
	  { "* OK [PERMANENTFLAGS (\\Seen $Other \\*)] Flags permitted." },
	  MBOX_ERR_KEYWORD, 1,
	  "Keyword in PERMANENTFLAGS not introduced with FLAGS: $Other" },
	/* the store's memo of the last clean FLAGS and PERMANENTFLAGS
	 * (select_box fed both): a repeat means what it meant, a changed
	 * or broken list is parsed and judged again, and a list that
	 * reported something is never kept, so it reports every time */
	{ "same FLAGS again, then a keyword dropped", O_KNOWN,
	  { "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft "
	    "$Label1)", "* FLAGS (\\Seen)" }, MBOX_ERR_KEYWORD, 1,
	  "Keyword $Label1 dropped from FLAGS but 1 messages still have it" },
	{ "same FLAGS again, keyword kept", O_KNOWN,
	  { "* FLAGS (\\Seen)", "* FLAGS (\\Answered \\Flagged \\Deleted "
	    "\\Seen \\Draft $Label1)", "* 4 FETCH (FLAGS ($Label1))" },
	  MBOX_ERR_KEYWORD, 1, "dropped from FLAGS" },
	{ "bad system flag in FLAGS, twice", 0,
	  { "* FLAGS (\\Seen \\Bogus)", "* FLAGS (\\Seen \\Bogus)" },
	  MBOX_ERR_SYNTAX, 2, "Invalid system flag in FLAGS: \\Bogus" },
	{ "broken FLAGS after a clean one", 0, { "* FLAGS (\\Seen" },
	  MBOX_ERR_SYNTAX, 1, "Broken FLAGS" },
	{ "broken PERMANENTFLAGS", 0, { "* OK [PERMANENTFLAGS \\Seen] x" },
	  MBOX_ERR_SYNTAX, 1, "Broken PERMANENTFLAGS" },
	{ "permanentflags keyword not in FLAGS, twice", 0,
	  { "* OK [PERMANENTFLAGS (\\Seen $Other \\*)] Flags permitted.",
	    "* OK [PERMANENTFLAGS (\\Seen $Other \\*)] Flags permitted." },
	  MBOX_ERR_KEYWORD, 2,
	  "Keyword in PERMANENTFLAGS not introduced with FLAGS: $Other" },
	/* f) MODSEQ */
	{ "modseq backwards", O_MODSEQ, { "* 1 FETCH (UID 3 MODSEQ (12))",
					  "* 1 FETCH (UID 3 MODSEQ (11))" },
	  MBOX_ERR_MODSEQ, 1, "MODSEQ went backwards for UID 3: 12 -> 11" },
	{ "modseq not checked", 0, { "* 1 FETCH (UID 3 MODSEQ (12))",
				     "* 1 FETCH (UID 3 MODSEQ (11))" },
	  CLEAN, 0, NULL },
	{ "modseq forwards", O_MODSEQ, { "* 1 FETCH (UID 3 MODSEQ (12))",
					 "* 1 FETCH (MODSEQ (12))",
					 "* 1 FETCH (MODSEQ (15))" },
	  CLEAN, 0, NULL },
	{ "highestmodseq backwards", O_MODSEQ, { "* OK [HIGHESTMODSEQ 19] x" },
	  MBOX_ERR_MODSEQ, 1, "HIGHESTMODSEQ went backwards: 20 -> 19" },
	/* g) UIDVALIDITY */
	{ "uidvalidity changed", 0, { "* OK [UIDVALIDITY 1700000001] x" },
	  MBOX_ERR_UIDVALIDITY, 1,
	  "UIDVALIDITY changed: 1700000000 -> 1700000001" },
	{ "uidvalidity same after reselect", 0,
	  { "!reset", "* OK [UIDVALIDITY 1700000000] x", "* 5 EXISTS" },
	  CLEAN, 0, NULL },
	/* i) VANISHED / EXPUNGE of unknown messages */
	{ "vanished unknown uid", O_KNOWN, { "* VANISHED 4" }, MBOX_ERR_EXPUNGE,
	  1, "VANISHED UID 4 not in the mailbox view (1 of 1 UIDs unknown)" },
	{ "vanished earlier", O_KNOWN, { "* VANISHED (EARLIER) 1:4,6" },
	  CLEAN, 0, NULL },
	{ "vanished known uids", O_KNOWN, { "* VANISHED 5,9:10" },
	  CLEAN, 0, NULL },
	{ "vanished more uids than messages", 0, { "* VANISHED 1:8" },
	  MBOX_ERR_EXPUNGE, 1,
	  "VANISHED lists 8 UIDs but only 5 messages exist" },
	{ "expunge seq 0", 0, { "* 0 EXPUNGE" }, MBOX_ERR_EXPUNGE, 1,
	  "EXPUNGE of seq 0" },
	/* RECENT */
	{ "recent above exists", 0, { "* 6 RECENT" }, MBOX_ERR_RECENT, 1,
	  "RECENT count 6 > EXISTS 5" },
	{ "recent after exists", 0, { "* 7 EXISTS", "* 6 RECENT" },
	  CLEAN, 0, NULL },
	/* malformed data */
	{ "fetch not a list", 0, { "* 1 FETCH UID 3" }, MBOX_ERR_SYNTAX, 1,
	  "FETCH didn't return a list" },
	{ "fetch unparsable", 0, { "* 1 FETCH (UID 3" }, MBOX_ERR_SYNTAX, 1,
	  "Broken FETCH: unterminated list opened at offset 0" },
	{ "bad system flag", 0, { "* 1 FETCH (FLAGS (\\Bogus))" },
	  MBOX_ERR_SYNTAX, 1, "Invalid system flag: \\Bogus" },
	{ "bad uid", 0, { "* 1 FETCH (UID 0)" }, MBOX_ERR_SYNTAX, 1,
	  "Invalid UID in FETCH: 0" },
	{ "bad modseq", 0, { "* 1 FETCH (UID 3 MODSEQ 5)" }, MBOX_ERR_SYNTAX, 1,
	  "Invalid MODSEQ: 5" },
	{ "bad internaldate", 0, { "* 1 FETCH (UID 3 INTERNALDATE \"yesterday\")" },
	  MBOX_ERR_SYNTAX, 1, "Broken INTERNALDATE: yesterday" },
	{ "bad vanished", 0, { "* VANISHED 3:*" }, MBOX_ERR_SYNTAX, 1,
	  "Invalid VANISHED parameters: 3:*" },
	{ "bad uidnext", 0, { "* OK [UIDNEXT x1] Predicted" }, MBOX_ERR_SYNTAX,
	  1, "Invalid UIDNEXT: x1" },
};

START_TEST(test_check)
{
	const struct check_case *c = &cases[_i];
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("user1\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, c->opts, &e);
	unsigned n = 0;

	select_box(v, c->opts, &e);
	for (unsigned i = 0; i < 8 && c->lines[i] != NULL; i++)
		n += feed(v, c->lines[i]);
	ck_assert_msg(n == e.n, "%s: returned %u, reported %u", c->name, n,
		      e.n);
	if (c->kind == CLEAN) {
		ck_assert_msg(e.n == 0, "%s: unexpected: %s", c->name,
			      e.msg[0]);
	} else {
		ck_assert_msg(e.n == c->count, "%s: %u errors, first: %s",
			      c->name, e.n, e.n ? e.msg[0] : "-");
		for (unsigned i = 0; i < e.n; i++)
			ck_assert_msg(e.kind[i] == (enum mbox_err)c->kind,
				      "%s: kind %s: %s", c->name,
				      mbox_err_name(e.kind[i]), e.msg[i]);
		ck_assert_msg(strstr(e.msg[0], c->msg) != NULL,
			      "%s: '%s' lacks '%s'", c->name, e.msg[0], c->msg);
	}
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* Structure hashes go eight octets at a time: a change of any one octet
 * of a long string is seen, a change of case is not. */
START_TEST(test_hash_every_octet)
{
	static const char subj[] = "Re: Quarterly budget REVIEW, final "
				   "numbers attached (v2) - please check";
	char line[256], mod[sizeof(subj)];

	for (size_t i = 0; i < sizeof(subj) - 1; i++) {
		struct errs e = { 0 };
		struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
		struct mbox_view *v = mkview(s, 1, 0, &e);
		int up = (unsigned)((subj[i] | 0x20) - 'a') < 26;

		select_box(v, 0, &e);
		snprintf(line, sizeof(line), "* 1 FETCH (UID 3 ENVELOPE (\"d\" "
			 "\"%s\" NIL NIL NIL NIL NIL NIL NIL NIL))", subj);
		ck_assert_uint_eq(feed(v, line), 0);
		memcpy(mod, subj, sizeof(subj));
		mod[i] = up ? (char)(subj[i] ^ 0x20) : subj[i];
		snprintf(line, sizeof(line), "* 1 FETCH (ENVELOPE (\"d\" "
			 "\"%s\" NIL NIL NIL NIL NIL NIL NIL NIL))", mod);
		ck_assert_msg(feed(v, line) == 0, "case at %zu: %s", i,
			      e.msg[0]);
		mod[i] = (char)(subj[i] ^ 0x01);
		snprintf(line, sizeof(line), "* 1 FETCH (ENVELOPE (\"d\" "
			 "\"%s\" NIL NIL NIL NIL NIL NIL NIL NIL))", mod);
		ck_assert_msg(feed(v, line) == 1, "octet %zu not seen", i);
		ck_assert_int_eq(e.kind[0], MBOX_ERR_STATIC_CHANGED);
		mbox_view_free(v);
		mbox_store_free(s);
	}
}
END_TEST

/* own_msgs: only the owner complains, and not inside its STORE window. */
START_TEST(test_own_msgs)
{
	struct errs ea = { 0 }, eb = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *a = mkview(s, 1, O_MSGS | O_KNOWN, &ea);
	struct mbox_view *b = mkview(s, 2, O_MSGS | O_KNOWN, &eb);

	select_box(a, O_KNOWN, &ea);
	select_box(b, O_KNOWN, &eb);
	ck_assert(mbox_store_claim_msg(s, 3, 1));
	ck_assert(!mbox_store_claim_msg(s, 3, 2));
	ck_assert(!mbox_store_claim_msg(s, 4, 2));	/* no such UID */
	ck_assert_uint_eq(mbox_store_msg_owner(s, 3), 1);

	/* another session changed it: the non-owner does not care */
	ck_assert_uint_eq(feed(b, "* 1 FETCH (FLAGS (\\Seen))"), 0);
	ck_assert_uint_eq(feed(a, "* 1 FETCH (FLAGS (\\Seen))"), 1);
	ck_assert_int_eq(ea.kind[0], MBOX_ERR_OWN_MSG);
	ck_assert_str_eq(ea.msg[0], "Flags unexpectedly changed for owned "
			 "message UID 3: () -> (\\Seen)");

	/* its own STORE, with an older pipelined FETCH first, is fine;
	 * \Recent never counts */
	static const char *const own[] = {
		"!store 1", "* 1 FETCH (FLAGS ())",
		"* 1 FETCH (FLAGS (\\Seen \\Flagged))", "!end",
		"* 1 FETCH (FLAGS (\\Seen \\Flagged \\Recent))", NULL
	};
	ck_assert_uint_eq(feed_all(a, own), 0);
	/* a .SILENT STORE leaves the flags unknown until the next FETCH */
	static const char *const silent[] = {
		"!silent 1", "!end", "* 1 FETCH (FLAGS (\\Draft))", NULL
	};
	ck_assert_uint_eq(feed_all(a, silent), 0);
	ck_assert_uint_eq(feed(a, "* 1 FETCH (FLAGS ())"), 1);
	ck_assert_int_eq(ea.n, 2);
	/* a STORE whose FETCH never came: likewise unknown afterwards */
	static const char *const lost[] = {
		"!store 1:2", "!end", "* 1 FETCH (FLAGS (\\Answered))", NULL
	};
	ck_assert_uint_eq(feed_all(a, lost), 0);
	ck_assert_uint_eq(eb.n, 0);
	mbox_view_free(a);
	mbox_view_free(b);
	mbox_store_free(s);
}
END_TEST

/* own_flags: each flag has an owner, who complains about foreign
 * changes on any message. */
START_TEST(test_own_flags)
{
	struct errs ea = { 0 }, eb = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *a = mkview(s, 1, O_FLAGS, &ea);
	struct mbox_view *b = mkview(s, 2, O_FLAGS, &eb);

	select_box(a, O_KNOWN, &ea);
	select_box(b, O_KNOWN, &eb);
	ck_assert(mbox_store_claim_flag(s, "\\Flagged", 8, 1));
	ck_assert(mbox_store_claim_flag(s, "$Label1", 7, 2));
	ck_assert(!mbox_store_claim_flag(s, "$label1", 7, 1));
	ck_assert(!mbox_store_claim_flag(s, "\\Recent", 7, 1));
	ck_assert(!mbox_store_claim_flag(s, "\\Bogus", 6, 1));
	ck_assert_uint_eq(mbox_store_flag_owner(s, "\\FLAGGED", 8), 1);
	ck_assert_uint_eq(mbox_store_flag_owner(s, "\\Seen", 5), 0);

	/* B set A's \Flagged on UID 5 */
	ck_assert_uint_eq(feed(b, "* 2 FETCH (FLAGS (\\Seen \\Flagged))"), 0);
	ck_assert_uint_eq(feed(a, "* 2 FETCH (FLAGS (\\Seen \\Flagged))"), 1);
	ck_assert_int_eq(ea.kind[0], MBOX_ERR_OWN_FLAG);
	ck_assert_str_eq(ea.msg[0], "Owned flag changed: \\Flagged "
			 "(seq 2, UID 5)");
	/* \Seen has no owner; $Label1 is B's */
	ck_assert_uint_eq(feed(a, "* 2 FETCH (FLAGS (\\Flagged))"), 0);
	ck_assert_uint_eq(feed(a, "* 4 FETCH (FLAGS ())"), 0);
	ck_assert_uint_eq(feed(b, "* 4 FETCH (FLAGS ())"), 1);
	ck_assert_str_eq(eb.msg[0], "Owned keyword changed: $Label1 "
			 "(seq 4, UID 9)");
	/* A's own STORE of its flag */
	static const char *const own[] = {
		"!store 3", "* 3 FETCH (FLAGS (\\Flagged))", "!end", NULL
	};
	ck_assert_uint_eq(feed_all(a, own), 0);
	ck_assert_uint_eq(ea.n, 1);
	ck_assert_uint_eq(eb.n, 1);
	mbox_view_free(a);
	mbox_view_free(b);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_store_window_sets)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 0);
	struct mbox_view *v = mkview(s, 1, O_MSGS, &e);

	select_box(v, 0, &e);
	ck_assert_int_eq(mbox_view_store_begin(v, "2:4", 3, false, false), 3);
	ck_assert_int_eq(mbox_view_store_begin(v, "4:2,*", 5, false, false), 4);
	ck_assert_int_eq(mbox_view_store_begin(v, "1:x", 3, false, false), -1);
	ck_assert_int_eq(mbox_view_store_begin(v, "1,", 2, false, false), -1);
	ck_assert_int_eq(mbox_view_store_begin(v, "", 0, false, false), -1);
	ck_assert_int_eq(mbox_view_store_begin(v, "0", 1, false, false), -1);
	/* a UID STORE may hit every message whose UID is unknown */
	ck_assert_int_eq(mbox_view_store_begin(v, "3", 1, true, false), 5);
	feed_all(v, known_lines);
	ck_assert_int_eq(mbox_view_store_begin(v, "3,9:100", 7, true, false),
			 3);
	for (int i = 0; i < 4; i++)
		mbox_view_store_end(v);
	mbox_view_store_end(v);	/* one too many is harmless */
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(v);
	mbox_store_free(s);
}
END_TEST

/* A second view of the store gets the first one's FLAGS and
 * PERMANENTFLAGS from the memo with the same meaning: its keywords, and
 * \\* or not; a PERMANENTFLAGS without \\* is not the memo's. */
START_TEST(test_flags_memo)
{
	struct errs e = { 0 };
	struct mbox_store *s = mbox_store_new("user1\tINBOX", 0);
	struct mbox_view *a = mkview(s, 1, O_KNOWN, &e);
	struct mbox_view *b = mkview(s, 2, O_KNOWN, &e);

	select_box(a, O_KNOWN, &e);
	ck_assert(mbox_view_can_create_keywords(a));
	select_box(b, O_KNOWN, &e);
	ck_assert(mbox_view_can_create_keywords(b));
	/* $Label1 is known to b's FLAGS: a FETCH of it is clean */
	ck_assert_uint_eq(feed(b, "* 4 FETCH (FLAGS ($Label1 \\Seen))"), 0);
	ck_assert_uint_eq(feed(b, "* OK [PERMANENTFLAGS (\\Seen $Label1)] x"),
			  0);
	ck_assert(!mbox_view_can_create_keywords(b));
	ck_assert_uint_eq(feed(a, "* OK [PERMANENTFLAGS (\\Answered \\Flagged "
			       "\\Deleted \\Seen \\Draft $Label1 \\*)] x"), 0);
	ck_assert(mbox_view_can_create_keywords(a));
	ck_assert_uint_eq(e.n, 0);
	mbox_view_free(a);
	mbox_view_free(b);
	mbox_store_free(s);
}
END_TEST

START_TEST(test_err_names)
{
	for (int i = 0; i < MBOX_ERR_COUNT; i++) {
		const char *n = mbox_err_name((enum mbox_err)i);
		ck_assert_ptr_nonnull(n);
		ck_assert_str_ne(n, "unknown");
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(n, mbox_err_name((enum mbox_err)j));
	}
	ck_assert_str_eq(mbox_err_name(MBOX_ERR_SEQ_TOO_HIGH), "seq-too-high");
	ck_assert_str_eq(mbox_err_name(MBOX_ERR_UNANNOUNCED),
			 "unannounced-after-status");
	ck_assert_str_eq(mbox_err_name(MBOX_ERR_COUNT), "unknown");
}
END_TEST

static Suite *
mbox_checks_suite(void)
{
	Suite *s = suite_create("mbox_checks");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_check, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_hash_every_octet);
	tcase_add_test(tc, test_own_msgs);
	tcase_add_test(tc, test_own_flags);
	tcase_add_test(tc, test_store_window_sets);
	tcase_add_test(tc, test_err_names);
	tcase_add_test(tc, test_flags_memo);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(mbox_checks_suite)
