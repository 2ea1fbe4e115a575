/* script_run_int.h: the inside of a struct script_run, shared by
 * script_run.c (set-up, the driver's calls), script_step.c (the script's
 * own steps) and script_send.c (writing, ending).  Nothing else includes
 * it. */
#ifndef IMAPSTRESS_SCRIPT_RUN_INT_H
#define IMAPSTRESS_SCRIPT_RUN_INT_H

#include "script/script_buf.h"
#include "script/script_match.h"
#include "script/script_pat.h"
#include "script/script_run.h"

/* The set-up commands, in order (script_run.h). */
enum {
	SU_CAPS = 0,
	SU_LOGIN,				/* one per connection */
	SU_CAPS2 = SU_LOGIN + SCRIPT_MAX_CONNS,
	SU_CHECK,				/* no command: compare caps */
	SU_COMPRESS,				/* one per connection (compress) */
	SU_NAMESPACE = SU_COMPRESS + SCRIPT_MAX_CONNS,	/* default mailbox */
	SU_LIST,
	SU_GUARD,				/* EXAMINE (SEARCH) per mailbox */
	SU_CLOSE,				/* after an EXAMINE */
	SU_DELETE,				/* once per listed mailbox */
	SU_CREATE,
	SU_APPEND,				/* once per message */
	SU_SELECT,				/* one per connection */
	SU_STEPS = SU_SELECT + SCRIPT_MAX_CONNS
};

/* Where the foreign-mail check of one listed mailbox is. */
enum { SG_EXAMINE, SG_SEARCH };

/* Octets to write; one with wait_plus goes after the server's "+". */
struct chunk {
	char *data;
	size_t len;
	bool wait_plus;
};

/* Where the test mailbox's name came from (script_ns.c). */
enum sns_state {
	SNS_FIXED,		/* box= given: never asked */
	SNS_NOT_OFFERED,	/* no NAMESPACE capability */
	SNS_ASKED,
	SNS_FAILED,		/* NAMESPACE not OK */
	SNS_ANSWERED
};

struct sns {
	enum sns_state state;
	bool personal;		/* a personal namespace with a usable prefix */
	bool unusable;		/* its prefix cannot go in a quoted string */
	char *prefix;		/* the first personal namespace's (or NULL) */
	char *sep;		/* its separator, NULL for NIL */
};

struct sfetch;
struct squeued;

struct rconn {
	bool open, ready;
	bool plus_seen;		/* a "+" arrived for the first chunk */
	struct chunk *chunks;
	unsigned n_chunks;
	struct sbuf transcript;	/* this step's replies, escaped */
	unsigned transcript_lines;
	bool logged_out;
	bool said_bye;		/* a step of its ended in LOGOUT or "* bye" */
	char *selected;		/* the mailbox a step SELECTed (guard) */
	struct squeued *queued;	/* untagged replies during others' steps */
	unsigned n_queued, q_next;
};

struct script_run {
	struct script_env env;
	struct script_io io;
	void *ctx;

	const struct script *s;
	const struct msg_pool *pool;
	char *box;		/* the test mailbox ($mailbox) for this test */
	struct sns ns;
	bool finished;
	struct script_outcome out;
	struct smatch m;
	struct rconn conn[SCRIPT_MAX_CONNS];
	unsigned n_ready;
	unsigned tag_no;
	/* A set-up of this process got as far as the LIST of the test
	 * mailboxes: the clean-up run has something to delete (never
	 * reset between tests). */
	bool prefix_used;

	/* set-up */
	unsigned setup_no, setup_was, setup_conn;
	char setup_tag[16];
	struct sbuf caps;
	char **boxes;		/* test mailboxes to delete, by length; each
				 * after a flag: 'N' \Noselect, else 'S' */
	unsigned n_boxes;
	unsigned appended;
	unsigned guard_i;	/* the box being checked (script_guard.c) */
	unsigned guard_phase;	/* SG_* */
	uint32_t guard_exists;	/* its EXAMINE's EXISTS */
	bool guard_examined;	/* an EXAMINE was sent: CLOSE it */

	/* steps */
	bool in_steps, logging_out;
	bool sleeping;		/* io.sleep asked: the next step waits */
	bool drop;		/* a BAD nobody expected: end after the step */
	unsigned step;
	unsigned step_failures;	/* failures of the step under way */
	struct spat **pats;	/* the step's expected untagged replies */
	bool *matched;
	char **near_miss;	/* why each one failed against its nearest reply */
	char **tags;		/* the tag each command of the step was sent with */
	bool *done;		/* its tagged reply arrived */
	unsigned n_pats, n_tags;	/* sizes of pats/near_miss and tags */
	unsigned n_pending;
	struct sbuf extra;	/* replies nobody expected (ignore_extra_untagged: no) */
	unsigned extra_line;
	struct sfetch *fetch;	/* FETCH replies no line took, per message */
	unsigned n_fetch;
};

/* script_send.c: the end of the test (FAIL: detail is one more
 * failure, its last), and a failure that does not end it. */
void srun_finish(struct script_run *r, enum script_verdict v, unsigned line,
		 char *detail);
void srun_note_failure(struct script_run *r, unsigned line, char *detail);
void srun_send(struct script_run *r, unsigned conn, const char *tag,
	       const char *text);
/* The same for len octets of text, which may hold NUL in a literal. */
void srun_send_n(struct script_run *r, unsigned conn, const char *tag,
		 const char *text, size_t len);
/* Forget what still waits for a "+" on conn: every command of a step
 * was answered, so the server refused a literal (a NO before its "+"),
 * and its octets must not go out ahead of the next step. */
void srun_drop_chunks(struct script_run *r, unsigned conn);
/* Send what may go now on conn: up to a chunk that waits for "+". */
void srun_flush(struct script_run *r, unsigned conn);

/* script_guard.c: the set-up's check (the next command into b, false
 * when there is none; its replies: false when it refused and the test
 * is over), a LIST name with its flags into r->boxes, and a step's
 * command (false: refused, the test is over). */
bool sguard_next(struct script_run *r, struct sbuf *b);
void sguard_untagged(struct script_run *r, const struct imap_resp *resp);
bool sguard_tagged(struct script_run *r, const struct imap_resp *resp);
void sguard_listed(struct script_run *r, const struct imap_resp *resp,
		   const char *name, size_t len);
bool sguard_step(struct script_run *r, unsigned conn, const char *text,
		 unsigned line);
/* Is box (len octets) one of the test's own mailboxes: a name that
 * begins with the test mailbox's? */
bool sguard_ours(const struct script_run *r, const char *box, size_t len);

/* script_run.c; hint (or NULL) goes on a line of its own */
void srun_fail_setup(struct script_run *r, const char *what,
		     const struct imap_resp *resp, const char *hint);

/* script_append.c: (with_date: the mbox's date for it and) " {N}\r\n"
 * and the mbox's next message onto b, as the mbox has it when it goes
 * into the test's own mailboxes (sguard_ours), else with the marker
 * first; false when the test has no message to give. */
bool sappend_next(struct script_run *r, struct sbuf *b, bool with_date,
		  bool marked);
/* text (expanded, len octets) is imaptest's bodiless APPEND: out is
 * replaced by the command with the next message; false: not one (or no
 * message to give), out untouched. */
bool sappend_fill(struct script_run *r, const char *text, size_t len,
		  struct sbuf *out);

/* script_fetch.c: a message's FETCH replies matched together */
void sfetch_reset(struct script_run *r);
/* resp matched no line alone: keep it, and try it with the others of
 * its message against st's open FETCH lines.  true: one matched. */
bool sfetch_merge(struct script_run *r, const struct script_step *st,
		  const struct imap_resp *resp);
/* The first kept FETCH no line took, escaped (max octets of items). */
void sfetch_extra(const struct script_run *r, struct sbuf *b, size_t max);

/* script_queue.c: replies of a connection kept for its next step */
void squeue_push(struct rconn *c, const struct imap_resp *resp);
/* The oldest kept reply, its line the caller's to free; false (and
 * the queue emptied) when none is left. */
bool squeue_pop(struct rconn *c, struct imap_resp *resp, char **line);
void squeue_free(struct rconn *c);

/* script_ns.c: the test mailbox's name */
void sns_reset(struct sns *ns);
/* Should the set-up ask NAMESPACE?  (Records why not.) */
bool sns_wanted(struct script_run *r);
void sns_reply(struct script_run *r, const struct imap_resp *resp);
/* NAMESPACE completed (ok: with OK): r->box set from its reply. */
void sns_done(struct script_run *r, bool ok);
/* "hint: ..." for a refused CREATE: where the name came from. */
void sns_hint(const struct script_run *r, struct sbuf *b);

void sstep_start(struct script_run *r);
void sstep_resp(struct script_run *r, unsigned conn, const struct imap_resp *resp);
void sstep_unexpected(struct script_run *r, unsigned conn,
		      const struct imap_resp *resp);
void sstep_closed(struct script_run *r, unsigned conn, char *why);
void sstep_logout_done(struct script_run *r, unsigned conn);
void sstep_wake(struct script_run *r);
void sstep_reset(struct script_run *r);

#endif
