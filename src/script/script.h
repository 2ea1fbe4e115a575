/* script.h: imaptest's scripted-test files, parsed.
 *
 * A test file is a header ("key: value" lines up to the first empty line),
 * then commands with the replies the server must give.  script_parse()
 * turns the text into a struct script: steps, each one command (imaptest's
 * forms 1 and 2) or a pipelined group of tagged commands (form 3) sent on
 * one connection at once, with the untagged replies expected while they
 * run.  Variables, `$` and list directives are left in the text: the
 * matcher (script_pat.h, script_match.h) reads them when a step runs, so
 * that a value captured by one step is known to the next.
 *
 * What we define where imaptest's documentation says nothing:
 *  - a line that begins with a space or a tab continues the line before
 *    it (joined with one space), except inside a "{{{" block;
 *  - a command or reply line ending in a literal "{N}" (or "{N+}") is
 *    followed by the literal's octets: the next lines, each ending in
 *    CRLF, until N octets are taken (an error if a line would cross the
 *    end); the line after them continues the command (an empty one ends
 *    it).  That is how APPEND carries a message;
 *  - imaptest's own form for the same (its parser's, not its docs'): a
 *    line ending in "{{{" (or "~{{{", a literal8) opens a block that the
 *    next line beginning with "}}}" closes; the lines between, joined
 *    with CRLF (with LF for "~{{{", their own CRs kept), become one
 *    literal "{N}" ("~{N}"), and the rest of the "}}}" line continues
 *    the command or reply (it may open another block).  Only a
 *    literal's octets may hold NUL;
 *  - a result line of a form-2 command may leave out the connection
 *    number: it is the command's (imaptest's suite does so);
 *  - a leading number is a connection number (1..connections); with more
 *    than one connection every command and result line needs one;
 *  - the first word of a command line is a tag (form 3) when a later line
 *    of the same connection is "<that word> OK|NO|BAD|\"\"";
 *  - a group directive (!sleep, !output, !ordered) before the first
 *    command is an error (imaptest would send it as a command). */
#ifndef IMAPSTRESS_SCRIPT_H
#define IMAPSTRESS_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#define SCRIPT_MAX_CONNS 16
#define SCRIPT_MAX_FILE (4u << 20)	/* a test file larger than this is refused */

enum script_state {
	SCRIPT_ST_NONAUTH,	/* no login, nothing touched */
	SCRIPT_ST_AUTH,		/* logged in, test mailboxes deleted */
	SCRIPT_ST_CREATED,	/* ... the test mailbox created */
	SCRIPT_ST_APPENDED,	/* ... the mbox's messages appended */
	SCRIPT_ST_SELECTED	/* ... and selected (the default) */
};

enum script_result_kind {
	SCRIPT_R_OK,
	SCRIPT_R_NO,
	SCRIPT_R_BAD,
	SCRIPT_R_ANY		/* "": any of the three */
};

/* How an untagged line of the file binds the server (imaptest's three
 * prefixes; its docs name only "*", its parser all three). */
enum script_exist {
	SCRIPT_X_MUST,		/* "* ": a reply must match it */
	SCRIPT_X_MUST_NOT,	/* "! ": no reply may match it */
	SCRIPT_X_MAY		/* "? ": a reply may match it (never extra) */
};

/* One expected untagged reply: its text after "* " (literals inline as
 * "{N}\r\n<octets>"; len counts the octets, which may hold NUL inside a
 * literal), and where it is in the file. */
struct script_line {
	char *text;
	size_t len;
	unsigned line;
	enum script_exist exist;
};

struct script_cmd {
	char *tag;		/* form 3: the file's tag; NULL: the runner's */
	char *text;		/* the command, variables unexpanded */
	size_t text_len;	/* its octets (NUL only inside a literal) */
	unsigned line;		/* where the command is */
	enum script_result_kind result;
	char *prefix;		/* expected start of the result text, or NULL */
	unsigned result_line;	/* where the result is (== line for form 1) */
};

/* A "!output TEXT" line: TEXT, variables unexpanded. */
struct script_output {
	char *text;
	unsigned line;
};

/* Commands sent together on one connection and the untagged replies
 * expected (in any order, or with !ordered in the listed order) before
 * the last of them completes.  imaptest's group directives, lines that
 * follow the step's command (script_parse_directive.c), end up here: when
 * the step is over its outputs are printed, then the run pauses
 * sleep_ms before the next step, as imaptest's test_group_finished does. */
struct script_step {
	unsigned conn;		/* 0-based connection index */
	struct script_cmd *cmds;
	unsigned n_cmds;
	struct script_line *untagged;
	unsigned n_untagged;
	bool ordered;		/* !ordered */
	unsigned sleep_ms;	/* !sleep INTERVAL (the last one) */
	struct script_output *outputs;	/* !output TEXT, in file order */
	unsigned n_outputs;
};

struct script {
	char *path;		/* as given */
	char *name;		/* base name, for output */
	char *mbox_path;	/* NAME.mbox or default.mbox, else NULL */
	char **caps;		/* capabilities: (upper-cased words) */
	unsigned n_caps;
	unsigned connections;	/* 1..SCRIPT_MAX_CONNS */
	long messages;		/* -1: all of the mbox */
	bool messages_given;	/* a "messages:" line set it */
	enum script_state state;
	bool ignore_extra_untagged;	/* default yes */
	/* "user N: NAME" header lines: connection N-1 logs in as NAME
	 * (NULL: as user=); "$user2" or "${user2}" means user2=. */
	char *users[SCRIPT_MAX_CONNS];
	/* each mbox message's INTERNALDATE from its "From " line (NULL: the
	 * line has none), as imaptest appends them (script_idate.c) */
	char **idates;
	unsigned n_idates;
	struct script_step *steps;
	unsigned n_steps;
	/* Not a file: the clean-up after the last test (script_cleanup_new),
	 * which logs in and deletes the test mailboxes and is no test of
	 * its own (the report does not count it). */
	bool cleanup;
};

/* Parse len octets of a test file named path.  Environment variables for
 * !ifenv/!ifnenv come from getenv().  NULL with "PATH:LINE: why" in err
 * on malformed input.  mbox_path is left NULL (script_load sets it). */
struct script *script_parse(const char *path, const char *text, size_t len,
			    char *err, size_t errlen);

/* Read and parse the file at path, and look for path.mbox beside it,
 * else default.mbox in its directory (imaptest's fallback; with it, and
 * no "messages:" line, no message is appended, as imaptest does). */
struct script *script_load(const char *path, char *err, size_t errlen);

void script_free(struct script *s);	/* NULL is a no-op */

/* The clean-up run after a list's last test: state auth, no commands.
 * Its set-up deletes every "<mailbox>*" mailbox as a test's does (the
 * set-up's APPENDs carry no marker, so what the tests leave must not
 * outlive the run: the next run's foreign-mail check would refuse it). */
struct script *script_cleanup_new(void);

/* Fill s->idates from s->mbox_path (script_idate.c). */
void script_idates_load(struct script *s);

/* Is a "user N:" value imaptest's "$user2" (or "${user2}")? */
bool script_user_is_user2(const char *v);
/* Does a "user N:" line of s name user2=? */
bool script_needs_user2(const struct script *s);

/* Does the step log its connection out (LOGOUT, or a "* bye" it
 * expects)?  The server may then close it: as imaptest, no failure. */
bool script_step_says_bye(const struct script_step *st);
/* The "individual commands" imaptest counts for s in its verdict lines:
 * one per command group (a step) and one more for the LOGOUT it adds
 * at the end of a file that has none (no LOGOUT command, no "* bye"
 * step), as its test-parser.c (test_add_logout) and test-exec.c
 * (test_group_finished) count; a pipelined group of eight commands is
 * one. */
unsigned script_imaptest_groups(const struct script *s);

/* Dovecot's time interval v (the whole of it), as imaptest's !sleep
 * reads it, in milliseconds (script_parse_directive.c): 0, else -1. */
int script_interval_ms(const char *v, unsigned *ms);

const char *script_state_name(enum script_state st);
const char *script_result_name(enum script_result_kind r);

#endif
