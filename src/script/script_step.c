/* script_step.c: the script's own steps, after the set-up: expand and
 * send a step's commands, match the replies of its connection, and
 * explain a failure (the command, the expected line with its line number,
 * what the server sent); then LOGOUT everywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

#define TRANSCRIPT_MAX_LINES 40
#define SHOW_MAX 300

void
sstep_reset(struct script_run *r)
{
	for (unsigned i = 0; i < r->n_pats; i++) {
		spat_free(r->pats[i]);
		free(r->near_miss[i]);
	}
	for (unsigned i = 0; i < r->n_tags; i++)
		free(r->tags[i]);
	free(r->pats);
	free(r->matched);
	free(r->near_miss);
	free(r->tags);
	free(r->done);
	r->pats = NULL;
	r->matched = r->done = NULL;
	r->near_miss = r->tags = NULL;
	r->n_pats = r->n_tags = 0;
	sbuf_reset(&r->extra);
	sfetch_reset(r);
}

static void
show(struct sbuf *b, const char *s, size_t n)
{
	sbuf_add_escaped(b, s, n > SHOW_MAX ? SHOW_MAX : n);
	if (n > SHOW_MAX)
		sbuf_adds(b, "...");
}

/* The step under way (or the next, while sleeping); NULL after the
 * last. */
static const struct script_step *
cur_step(const struct script_run *r)
{
	return r->step < r->s->n_steps ? &r->s->steps[r->step] : NULL;
}

/* The failure report: the step's commands, the line at fault, why, and
 * what the server sent on the step's connection. */
static char *
fail_detail(struct script_run *r, const struct script_step *st,
	    unsigned line, const char *expected, const char *why)
{
	struct rconn *c = st ? &r->conn[st->conn] : NULL;
	struct sbuf b = { 0 };

	for (unsigned i = 0; st != NULL && i < st->n_cmds; i++) {
		const struct script_cmd *cmd = &st->cmds[i];
		sbuf_addf(&b, "command (line %u, connection %u): ", cmd->line,
			  st->conn + 1);
		if (cmd->tag != NULL)
			sbuf_addf(&b, "%s ", cmd->tag);
		show(&b, cmd->text, strlen(cmd->text));
		sbuf_adds(&b, "\n");
	}
	if (expected != NULL) {
		sbuf_addf(&b, "expected (line %u): ", line);
		show(&b, expected, strlen(expected));
		sbuf_adds(&b, "\n");
	}
	sbuf_adds(&b, "why: ");
	sbuf_adds(&b, why);
	sbuf_adds(&b, "\n");
	if (c != NULL) {
		sbuf_adds(&b, "server sent:\n");
		sbuf_adds(&b, c->transcript.s ? c->transcript.s : "    (nothing)\n");
	}
	return sbuf_take(&b);
}

/* One failure of the step under way: counted, and the test goes on. */
static void
step_fail(struct script_run *r, unsigned line, const char *expected,
	  const char *why)
{
	srun_note_failure(r, line, fail_detail(r, cur_step(r), line, expected,
						why));
}

/* A failure that ends the test: the server is not where the script is.
 * st: the step to show (NULL: none). */
static void
step_fatal(struct script_run *r, const struct script_step *st, unsigned line,
	   const char *expected, const char *why)
{
	srun_finish(r, SCRIPT_FAIL, line, fail_detail(r, st, line, expected, why));
}

static int
expand_cmd(struct script_run *r, const char *text, size_t len,
	   struct sbuf *out, struct sbuf *why)
{
	const char *p = text, *q, *end = text + len;

	/* Variables are replaced outside literals only: a literal's size
	 * is the file's, and its octets may hold NUL. */
	while ((q = memmem(p, (size_t)(end - p), "}\r\n", 3)) != NULL) {
		size_t lit = 0;
		bool marker = spat_literal_marker(p, q, &lit);
		char *seg = xstrndup(p, (size_t)(q + 3 - p));
		int rc = smatch_expand(&r->m, seg, out, why);
		free(seg);
		if (rc < 0)
			return -1;
		size_t avail = (size_t)(end - (q + 3));
		if (!marker || lit > avail)
			lit = marker ? avail : 0;
		sbuf_add(out, q + 3, lit);
		p = q + 3 + lit;
	}
	return smatch_expand(&r->m, p, out, why);
}

static void
start_logout(struct script_run *r)
{
	r->logging_out = true;
	for (unsigned i = 0; i < r->s->connections; i++)
		r->conn[i].logged_out = !r->conn[i].open;
	for (unsigned i = 0; i < r->s->connections && !r->finished; i++)
		if (r->conn[i].open)
			srun_send(r, i, "z", "LOGOUT");
	sstep_logout_done(r, SCRIPT_MAX_CONNS);
}

static void
begin_step(struct script_run *r)
{
	sstep_reset(r);
	r->step_failures = 0;
	if (r->step >= r->s->n_steps) {
		start_logout(r);
		return;
	}
	const struct script_step *st = &r->s->steps[r->step];
	struct rconn *c = &r->conn[st->conn];
	char err[256];

	smatch_step_begin(&r->m);
	sbuf_reset(&c->transcript);
	c->transcript_lines = 0;
	r->pats = xcalloc(st->n_untagged + 1, sizeof(*r->pats));
	r->matched = xcalloc(st->n_untagged + 1, sizeof(bool));
	r->near_miss = xcalloc(st->n_untagged + 1, sizeof(char *));
	r->tags = xcalloc(st->n_cmds, sizeof(char *));
	r->done = xcalloc(st->n_cmds, sizeof(bool));
	r->n_pats = st->n_untagged;
	r->n_tags = st->n_cmds;
	for (unsigned i = 0; i < st->n_untagged; i++) {
		const struct script_line *l = &st->untagged[i];
		r->pats[i] = spat_compile(l->text, l->len, err, sizeof(err));
		if (r->pats[i] == NULL) {	/* script_parse checked it */
			step_fatal(r, st, l->line, l->text, err);
			return;
		}
	}
	struct sbuf *texts = xcalloc(st->n_cmds, sizeof(*texts));
	for (unsigned i = 0; i < st->n_cmds; i++) {
		const struct script_cmd *cmd = &st->cmds[i];
		struct sbuf why = { 0 };
		char tag[24];
		snprintf(tag, sizeof(tag), "s%u", ++r->tag_no);
		r->tags[i] = xstrdup(cmd->tag ? cmd->tag : tag);
		/* As imaptest: a failure, and what was expanded up to the
		 * variable goes out all the same. */
		if (expand_cmd(r, cmd->text, cmd->text_len, &texts[i], &why) < 0)
			step_fail(r, cmd->line, NULL, why.s);
		sbuf_reset(&why);
		sbuf_add(&texts[i], "", 0);
		sappend_fill(r, texts[i].s, texts[i].len, &texts[i]);
	}
	/* $tag: the tag of the step's first command, as in imaptest */
	svars_set(r->m.vars, "tag", r->tags[0]);
	/* Nothing destructive outside the test's own mailboxes (their
	 * SELECTs noted first: a group may select, then expunge). */
	for (unsigned i = 0; i < st->n_cmds; i++)
		if (!sguard_step(r, st->conn, texts[i].s, st->cmds[i].line))
			goto out;
	r->n_pending = st->n_cmds;
	/* A pipelined group goes out at once. */
	for (unsigned i = 0; i < st->n_cmds && !r->finished; i++)
		srun_send_n(r, st->conn, r->tags[i], texts[i].s, texts[i].len);
	/* What came on this connection during other steps counts now. */
	struct imap_resp q;
	char *qline;
	unsigned step = r->step;
	while (!r->finished && r->step == step && squeue_pop(c, &q, &qline)) {
		sstep_resp(r, st->conn, &q);
		free(qline);
	}
out:
	for (unsigned i = 0; i < st->n_cmds; i++)
		sbuf_reset(&texts[i]);
	free(texts);
}

void
sstep_start(struct script_run *r)
{
	r->in_steps = true;
	r->step = 0;
	begin_step(r);
}

static void
step_untagged(struct script_run *r, const struct script_step *st,
	      const struct imap_resp *resp)
{
	bool hit = false, forbidden = false;

	/* As in imaptest, a reply is tried against every line not yet
	 * matched: it may satisfy several (LIST's "()" and "(\noselect)"),
	 * and a "! " line it matches fails the test even when a "* " line
	 * took it too.  With !ordered it takes one line at most, and is
	 * tried no further than the first "* " line still waiting: one it
	 * does not match there came out of order (imaptest's
	 * untagged_ordered). */
	for (unsigned i = 0; i < st->n_untagged; i++) {
		struct sbuf why = { 0 };
		bool banned = st->untagged[i].exist == SCRIPT_X_MUST_NOT;
		if (r->matched[i])
			continue;
		bool m = smatch_untagged(&r->m, r->pats[i], resp, &why);
		if (m && banned) {
			sbuf_reset(&why);
			sbuf_adds(&why, "the server sent a reply this \"!\" line "
				  "forbids: '");
			show(&why, resp->line, resp->line_len);
			sbuf_adds(&why, "'");
			step_fail(r, st->untagged[i].line, st->untagged[i].text,
				  why.s);
			sbuf_reset(&why);
			forbidden = true;
			break;
		}
		if (m && !banned) {
			hit = true;
			r->matched[i] = true;
			sbuf_reset(&why);
			if (st->ordered)
				break;
			continue;
		}
		if (!banned && r->near_miss[i] == NULL &&
		    spat_names(r->pats[i], resp->keyword, resp->keyword_len))
			r->near_miss[i] = sbuf_take(&why);
		sbuf_reset(&why);
		if (st->ordered && st->untagged[i].exist == SCRIPT_X_MUST)
			break;
	}
	/* A FETCH may be the rest of one before it (script_fetch.c): an
	 * extra only if nothing takes it by the end of the step.  Not with
	 * !ordered, where each reply is one line's, in turn. */
	if (forbidden) {
		/* imaptest takes the reply no further */
	} else if (!hit && !st->ordered && resp->has_num &&
		   imap_resp_kw(resp) == IMAP_KW_FETCH) {
		sfetch_merge(r, st, resp);
	} else if (!hit && !r->s->ignore_extra_untagged && r->extra.len == 0) {
		show(&r->extra, resp->line, resp->line_len);
	}
	if (imap_resp_kw(resp) == IMAP_KW_EXPUNGE && resp->has_num)
		smatch_note_expunge(&r->m, resp->num);
}

/* The step's missing "* " lines: one failure for them all, as imaptest
 * counts them, naming the first. */
static void
check_missing(struct script_run *r, const struct script_step *st)
{
	unsigned first = st->n_untagged, missing = 0;

	for (unsigned i = 0; i < st->n_untagged; i++)
		if (!r->matched[i] && st->untagged[i].exist == SCRIPT_X_MUST) {
			if (missing++ == 0)
				first = i;
		}
	if (missing == 0)
		return;
	struct sbuf exp = { 0 }, why = { 0 };
	sbuf_adds(&exp, "* ");
	sbuf_adds(&exp, st->untagged[first].text);
	sbuf_adds(&why, r->near_miss[first] ? r->near_miss[first]
		  : st->ordered ? "no reply of the server matched this line "
				  "in its turn (!ordered)"
				: "no reply of the server matched this line");
	if (missing > 1)
		sbuf_addf(&why, " (and %u more lines of this step had no reply)",
			  missing - 1);
	step_fail(r, st->untagged[first].line, exp.s, why.s);
	sbuf_reset(&exp);
	sbuf_reset(&why);
}

/* !output: each line, its variables replaced; one without a value is a
 * failure, and what came before it is printed, as imaptest does. */
static void
step_output(struct script_run *r, const struct script_step *st)
{
	for (unsigned i = 0; i < st->n_outputs && !r->finished; i++) {
		struct sbuf out = { 0 }, why = { 0 };
		if (smatch_expand(&r->m, st->outputs[i].text, &out, &why) < 0) {
			struct sbuf exp = { 0 };
			sbuf_adds(&exp, "!output ");
			sbuf_adds(&exp, st->outputs[i].text);
			step_fail(r, st->outputs[i].line, exp.s, why.s);
			sbuf_reset(&exp);
		}
		if (r->io.output != NULL)
			r->io.output(r->ctx, out.s ? out.s : "", out.len);
		sbuf_reset(&out);
		sbuf_reset(&why);
	}
}

/* Every command of the step has its result: the checks imaptest makes
 * then (test_group_finished), the !output lines, the !sleep, and the
 * next step. */
/* After a BAD the script does not expect, imaptest's client has dropped
 * its connection, and the test goes on to the next command group: its
 * commands are expanded (an unset variable is a failure, as at any
 * send), and the send finds the connection gone ("Unexpected
 * disconnection"), the test's last failure.  The groups counted end with
 * the BAD one (r->step is not advanced): the reference imaptest prints
 * 2/1 for tests/scripts-fail/bad-drop, and 9/4 for the suite's urlauth
 * on Cyrus (a BAD at its fourth group, the fifth's $mail_url2 unset). */
static void
drop_end(struct script_run *r, const struct script_step *bad)
{
	const struct script_step *next = r->step + 1 < r->s->n_steps ?
	    &r->s->steps[r->step + 1] : NULL;

	for (unsigned i = 0; next != NULL && i < next->n_cmds; i++) {
		const struct script_cmd *cmd = &next->cmds[i];
		struct sbuf out = { 0 }, why = { 0 };
		if (expand_cmd(r, cmd->text, cmd->text_len, &out, &why) < 0)
			srun_note_failure(r, cmd->line, fail_detail(r, next,
			    cmd->line, NULL, why.s));
		sbuf_reset(&out);
		sbuf_reset(&why);
	}
	step_fatal(r, next != NULL ? next : bad,
		   next != NULL ? next->cmds[0].line : bad->cmds[0].line, NULL,
		   "imaptest drops the connection after a BAD the script does "
		   "not expect: the next command finds it gone, and the test "
		   "ends here");
}

static void
step_complete(struct script_run *r, const struct script_step *st)
{
	check_missing(r, st);
	if (r->extra.len == 0 && !r->s->ignore_extra_untagged)
		sfetch_extra(r, &r->extra, SHOW_MAX);
	if (r->extra.len > 0) {
		struct sbuf why = { 0 };
		sbuf_adds(&why, "ignore_extra_untagged: no, and the server sent a "
			  "reply the script does not list: '");
		sbuf_adds(&why, r->extra.s);
		sbuf_adds(&why, "'");
		step_fail(r, st->cmds[0].line, NULL, why.s);
		sbuf_reset(&why);
	}
	step_output(r, st);
	if (r->finished)
		return;
	srun_drop_chunks(r, st->conn);
	if (script_step_says_bye(st))
		r->conn[st->conn].said_bye = true;
	if (r->step_failures == 0)
		r->out.commands += st->n_cmds;
	if (r->drop) {
		drop_end(r, st);
		return;
	}
	r->step++;
	if (st->sleep_ms > 0 && r->io.sleep != NULL) {
		r->sleeping = true;
		r->io.sleep(r->ctx, st->sleep_ms);
		return;
	}
	begin_step(r);
}

void
sstep_wake(struct script_run *r)
{
	if (!r->sleeping)
		return;
	r->sleeping = false;
	begin_step(r);
}

void
sstep_resp(struct script_run *r, unsigned conn, const struct imap_resp *resp)
{
	if (r->logging_out) {
		if (resp->kind == IMAP_TAGGED && r->conn[conn].open) {
			r->conn[conn].open = false;
			r->io.close(r->ctx, conn);
			sstep_logout_done(r, conn);
		}
		return;
	}
	const struct script_step *st = cur_step(r);
	if (r->sleeping || conn != st->conn) {
		/* another session's news, or news during a !sleep: for its
		 * connection's next step (script_queue.c) */
		if (resp->kind == IMAP_UNTAGGED)
			squeue_push(&r->conn[conn], resp);
		else if (r->sleeping)
			step_fatal(r, NULL, 0, NULL, "a tagged reply while no "
				   "command was waiting for one (during !sleep)");
		return;
	}
	struct rconn *c = &r->conn[conn];
	if (c->transcript_lines++ < TRANSCRIPT_MAX_LINES) {
		sbuf_adds(&c->transcript, "    ");
		show(&c->transcript, resp->line, resp->line_len);
		sbuf_adds(&c->transcript, "\n");
	} else if (c->transcript_lines == TRANSCRIPT_MAX_LINES + 1) {
		sbuf_adds(&c->transcript, "    ...\n");
	}
	if (resp->kind == IMAP_UNTAGGED) {
		step_untagged(r, st, resp);
		return;
	}
	unsigned i;
	for (i = 0; i < st->n_cmds; i++)
		if (!r->done[i] && strlen(r->tags[i]) == resp->tag_len &&
		    memcmp(r->tags[i], resp->tag, resp->tag_len) == 0)
			break;
	if (i == st->n_cmds) {
		step_fatal(r, st, st->cmds[0].line, NULL,
			   "a tagged reply whose tag no command of this step has");
		return;
	}
	const struct script_cmd *cmd = &st->cmds[i];
	struct sbuf why = { 0 };
	if (!smatch_tagged(&r->m, cmd, resp, &why)) {
		struct sbuf exp = { 0 };
		sbuf_addf(&exp, "%s%s%s%s", cmd->tag ? cmd->tag : "",
			  cmd->tag ? " " : "", script_result_name(cmd->result),
			  cmd->prefix ? " " : "");
		if (cmd->prefix)
			sbuf_adds(&exp, cmd->prefix);
		step_fail(r, cmd->result_line, exp.s, why.s);
		sbuf_reset(&exp);
	}
	sbuf_reset(&why);
	/* imaptest's client drops the connection on a BAD it was not told
	 * to expect ("bad" as the result; "" is not): the test ends once
	 * this step has been checked, or now if it waits for more. */
	if (resp->cond == IMAP_COND_BAD && cmd->result != SCRIPT_R_BAD)
		r->drop = true;
	r->done[i] = true;
	if (--r->n_pending == 0)
		step_complete(r, st);
	else if (r->drop)
		step_fatal(r, st, cmd->result_line, NULL, "imaptest drops "
			   "the connection after a BAD the script does not "
			   "expect, and so the test ends here");
}

void
sstep_unexpected(struct script_run *r, unsigned conn,
		 const struct imap_resp *resp)
{
	const struct script_step *st = cur_step(r);

	if (r->logging_out || (!r->sleeping && conn != st->conn))
		return;
	struct sbuf why = { 0 };
	sbuf_adds(&why, "a continuation request no literal or IDLE asked for: '");
	show(&why, resp->line, resp->line_len);
	sbuf_adds(&why, "'");
	if (r->sleeping)
		step_fatal(r, NULL, 0, NULL, why.s);
	else
		step_fatal(r, st, st->cmds[0].line, NULL, why.s);
	sbuf_reset(&why);
}

void
sstep_closed(struct script_run *r, unsigned conn, char *why)
{
	const struct script_step *st = cur_step(r);

	if (r->logging_out) {
		free(why);
		sstep_logout_done(r, conn);
		return;
	}
	if (r->conn[conn].said_bye && (r->sleeping || conn != st->conn)) {
		r->conn[conn].logged_out = true;	/* its own LOGOUT */
		free(why);
		return;
	}
	if (r->sleeping)
		step_fatal(r, NULL, 0, NULL, why);
	else
		step_fatal(r, st, st->cmds[0].line, NULL, why);
	free(why);
}

/* conn finished logging out (SCRIPT_MAX_CONNS: none, just check). */
void
sstep_logout_done(struct script_run *r, unsigned conn)
{
	if (conn < SCRIPT_MAX_CONNS)
		r->conn[conn].logged_out = true;
	for (unsigned i = 0; i < r->s->connections; i++)
		if (!r->conn[i].logged_out)
			return;
	srun_finish(r, SCRIPT_PASS, 0, NULL);
}
