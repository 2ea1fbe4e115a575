/* script_run.h: one scripted test as a state machine over an abstract
 * session interface.  No sockets and no event loop here: a connection
 * driver (drivers/script/: the engine's connections in raw mode)
 * opens connections, writes what it is told to
 * write, parses the server's bytes with imap.h and hands each response
 * to script_on_resp().
 *
 * Life of a test:
 *   r = script_run_new(&env, &io, ctx);
 *   script_run_start(r, script, pool);   -> io.open(ctx, 0..n-1)
 *   driver: greeting read on conn k      -> script_on_ready(r, k)
 *   driver: each response on conn k      -> script_on_resp(r, k, resp)
 *   driver: conn k lost                  -> script_on_closed(r, k, why)
 *   runner: io.sleep(ctx, ms) (!sleep)   -> later script_on_wake(r)
 *   ... until script_run_finished(r); then script_run_outcome(r).
 * The runner then has called io.close for every connection it opened.
 * One run object may start the next test after finishing one.
 *
 * The set-up before the script's own commands (state: in script.h): on
 * connection 1 CAPABILITY, then LOGIN on every connection (unless
 * nonauth), CAPABILITY again, the test's capabilities: checked (missing
 * one: the test is skipped), COMPRESS DEFLATE on every connection (env
 * compress, when offered), NAMESPACE (mailbox_auto only), every mailbox whose name begins with the
 * test mailbox's is deleted (LIST "" "box*": DESTRUCTIVE, the man page
 * warns), CREATE, APPEND of the mbox's messages (messages: of them,
 * wrapping), SELECT on every connection.  After the last step each
 * connection sends LOGOUT.
 *
 * A failure does not end the test, as in imaptest (test-exec.c): a
 * command whose result is not the expected one, a "! " line a reply
 * matched, the step's missing untagged replies (one failure for all of
 * them), an extra reply (ignore_extra_untagged: no), a variable with no
 * value in a command (what was expanded up to it is sent, as imaptest
 * sends it) or in an !output line each count one, and the test goes on
 * to its next step.  What ends it is what ends imaptest's: the set-up
 * failing, a connection lost (or --cmd-timeout), a continuation or a
 * tagged reply nobody asked for, a BAD the script does not expect
 * (imaptest's client drops the connection on one), and the foreign-mail
 * guard's refusal.
 *
 * Callbacks may be made from inside io.send/io.close; io.close must not
 * free anything the driver is still using in the current callback (defer
 * it).  Calls after the test finished are ignored. */
#ifndef IMAPSTRESS_SCRIPT_RUN_H
#define IMAPSTRESS_SCRIPT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imap/imap.h"
#include "msg/msg.h"
#include "script/script.h"

struct script_env {
	const char *user;	/* connection 1 (and the others without user2) */
	const char *user2;	/* connections 2..n, or NULL */
	const char *password;
	const char *mailbox;	/* the test mailbox ($mailbox) */
	/* mailbox is a default, not the user's box=: when the server offers
	 * NAMESPACE the set-up asks it and puts mailbox under the personal
	 * namespace's prefix (script_ns.c) */
	bool mailbox_auto;
	const char *host;	/* for $mailbox_url */
	int port;
	/* The process's foreign-mail memory (imap/guard.h); NULL:
	 * --allow-foreign-mail. */
	struct guard *guard;
	uint64_t run_id;	/* the marker on the set-up's APPENDs (msg.h) */
	/* COMPRESS DEFLATE on every connection after login, when the server
	 * offers it (the option compress). */
	bool compress;
};

struct script_io {
	void (*open)(void *ctx, unsigned conn);
	void (*send)(void *ctx, unsigned conn, const char *data, size_t len);
	void (*close)(void *ctx, unsigned conn);
	/* The tagged OK of the set-up's COMPRESS DEFLATE on conn is being
	 * handled: deflate from the octets after it on (false: cannot, the
	 * test fails).  Nothing is sent on conn until it is ready again
	 * (script_on_ready), with the layer on.  NULL: no COMPRESS. */
	bool (*compress)(void *ctx, unsigned conn);
	/* !sleep: pause ms before the next step, then call script_on_wake
	 * (NULL: no pause).  What arrives meanwhile counts for the next
	 * step of its connection. */
	void (*sleep)(void *ctx, unsigned ms);
	/* !output: one line to print, len octets, variables replaced (server
	 * text: unescaped).  NULL: dropped. */
	void (*output)(void *ctx, const char *line, size_t len);
};

enum script_verdict { SCRIPT_PASS, SCRIPT_FAIL, SCRIPT_SKIP };

struct script_outcome {
	enum script_verdict verdict;
	unsigned line;		/* FAIL: the line of the first failure */
	char *detail;		/* FAIL: the diffs (lines, server text escaped),
				 * the first failure's, then "failure N (line
				 * L):" and each later one's (the first ten);
				 * SKIP: "missing capability X" */
	unsigned commands;	/* script commands of the steps that passed */
	/* imaptest's counts for its verdict lines: failures as its test_fail
	 * counts them ("individual commands failed"), and the command groups
	 * it counts for the test: every step and the LOGOUT it adds
	 * (script_imaptest_groups) when the test runs to its end; the
	 * finished ones and the one under way when something ends it; none
	 * for a skipped test or a failed set-up. */
	unsigned failures;
	unsigned groups;
	bool foreign;		/* FAIL: the foreign-mail guard refused
				 * (detail is its line): the run stops */
};

struct script_run;

struct script_run *script_run_new(const struct script_env *env,
				  const struct script_io *io, void *ctx);
void script_run_free(struct script_run *r);	/* NULL is a no-op */

/* s and pool (the test's mbox, or NULL) must outlive the test. */
void script_run_start(struct script_run *r, const struct script *s,
		      const struct msg_pool *pool);
void script_on_ready(struct script_run *r, unsigned conn);
void script_on_resp(struct script_run *r, unsigned conn,
		    const struct imap_resp *resp);
void script_on_closed(struct script_run *r, unsigned conn, const char *why);
/* The pause io.sleep asked for is over. */
void script_on_wake(struct script_run *r);

bool script_run_finished(const struct script_run *r);
const struct script_outcome *script_run_outcome(const struct script_run *r);

#endif
