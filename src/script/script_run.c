/* script_run.c: one scripted test as a state machine (script_run.h).
 * The set-up commands are built here; the script's steps are sent and
 * checked by script_step.c; both write and end the run through
 * script_send.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

struct script_run *
script_run_new(const struct script_env *env, const struct script_io *io,
	       void *ctx)
{
	struct script_run *r = xcalloc(1, sizeof(*r));

	r->env = *env;
	r->io = *io;
	r->ctx = ctx;
	r->finished = true;
	return r;
}

static void
run_reset(struct script_run *r)
{
	for (unsigned i = 0; i < SCRIPT_MAX_CONNS; i++) {
		for (unsigned k = 0; k < r->conn[i].n_chunks; k++)
			free(r->conn[i].chunks[k].data);
		free(r->conn[i].chunks);
		sbuf_reset(&r->conn[i].transcript);
		free(r->conn[i].selected);
		squeue_free(&r->conn[i]);
		memset(&r->conn[i], 0, sizeof(r->conn[i]));
	}
	free(r->out.detail);
	memset(&r->out, 0, sizeof(r->out));
	sbuf_reset(&r->caps);
	free(r->box);
	r->box = NULL;
	sns_reset(&r->ns);
	for (unsigned i = 0; i < r->n_boxes; i++)
		free(r->boxes[i]);
	free(r->boxes);
	r->boxes = NULL;
	r->n_boxes = 0;
	r->guard_i = r->guard_phase = 0;
	r->guard_examined = false;
	sstep_reset(r);
	r->in_steps = r->logging_out = r->sleeping = r->drop = false;
	r->step_failures = 0;
	r->step = 0;
	smatch_free(&r->m);
}

void
script_run_free(struct script_run *r)
{
	if (r == NULL)
		return;
	run_reset(r);
	free(r);
}

bool
script_run_finished(const struct script_run *r)
{
	return r->finished;
}

const struct script_outcome *
script_run_outcome(const struct script_run *r)
{
	return &r->out;
}

void
srun_fail_setup(struct script_run *r, const char *what,
		const struct imap_resp *resp, const char *hint)
{
	struct sbuf b = { 0 };

	sbuf_addf(&b, "set-up: %s", what);
	if (resp != NULL) {
		sbuf_adds(&b, ": the server sent '");
		sbuf_add_escaped(&b, resp->line, resp->line_len);
		sbuf_adds(&b, "'");
	}
	if (hint != NULL) {
		sbuf_adds(&b, "\n");
		sbuf_adds(&b, hint);
	}
	srun_finish(r, SCRIPT_FAIL, 0, sbuf_take(&b));
}


/* --- the set-up ------------------------------------------------------------- */

/* user= unless a "user N:" line names one; "$user2" is user2= (as in
 * imaptest, whose other connections all log in as user=). */
static const char *
conn_user(const struct script_run *r, unsigned conn)
{
	const char *u = r->s->users[conn];

	if (u == NULL)
		return r->env.user;
	if (script_user_is_user2(u))
		return r->env.user2 ? r->env.user2 : r->env.user;
	return u;
}

static void
set_user_vars(struct script_run *r, unsigned conn)
{
	const char *u = conn_user(r, conn);
	const char *at = strchr(u, '@');
	char name[32], *v;
	char suffix[16] = "";

	if (conn > 0)
		snprintf(suffix, sizeof(suffix), "%u", conn + 1);
	snprintf(name, sizeof(name), "user%s", suffix);
	svars_set(r->m.vars, name, u);
	v = xstrndup(u, at ? (size_t)(at - u) : strlen(u));
	snprintf(name, sizeof(name), "username%s", suffix);
	svars_set(r->m.vars, name, v);
	free(v);
	snprintf(name, sizeof(name), "domain%s", suffix);
	/* imaptest: the host when the user has no domain */
	svars_set(r->m.vars, name, at ? at + 1 : r->env.host);
	snprintf(name, sizeof(name), "password%s", suffix);
	svars_set(r->m.vars, name, r->env.password);
}

/* $mailbox and $mailbox_url: again once NAMESPACE has placed the box.
 * $mailbox_url is imaptest's: the name as a URL path segment (RFC 5092
 * imap URLs put it after "imap://user@host/"), every octet outside
 * RFC 3986's unreserved set and '/' %-escaped. */
static void
set_box_vars(struct script_run *r)
{
	struct sbuf url = { 0 };

	svars_set(r->m.vars, "mailbox", r->box);
	for (const char *u = r->box; *u; u++)
		if (isalnum((unsigned char)*u) || strchr("-._~/", *u) != NULL)
			sbuf_add(&url, u, 1);
		else
			sbuf_addf(&url, "%%%02X", (unsigned char)*u);
	svars_set(r->m.vars, "mailbox_url", url.s ? url.s : "");
	sbuf_reset(&url);
}

static void
set_vars(struct script_run *r)
{
	for (unsigned i = 0; i < r->s->connections; i++)
		set_user_vars(r, i);
	set_box_vars(r);
}

/* The option compress, an io that can put the layer in, and the server
 * offers it after login (as the stress mix's COMPRESS, nothing is asked
 * of a server that does not). */
static bool
compress_wanted(const struct script_run *r)
{
	return r->env.compress && r->io.compress != NULL &&
	    imap_caps_has(r->caps.s ? r->caps.s : "", r->caps.len,
			  "COMPRESS=DEFLATE");
}

/* COMPRESS's OK on conn: it is not ready until the driver says so again,
 * with the layer on, and the set-up goes on from there
 * (script_on_ready). */
static void
compress_done(struct script_run *r, unsigned conn)
{
	r->conn[conn].ready = false;
	r->n_ready--;
	if (!r->io.compress(r->ctx, conn))
		srun_fail_setup(r, "COMPRESS: the connection could not put "
				"the deflate layer in", NULL, NULL);
}

/* Send set-up command number r->setup_no (as needed by the state). */
static void
setup_next(struct script_run *r)
{
	const struct script *s = r->s;
	struct sbuf b = { 0 };
	unsigned conn = 0, k;
	bool again = false;

	for (;;) {
		k = r->setup_no;
		if (k == SU_CAPS) {
			sbuf_adds(&b, "CAPABILITY");
		} else if (k >= SU_LOGIN && k < SU_LOGIN + s->connections) {
			if (s->state == SCRIPT_ST_NONAUTH) {
				r->setup_no = SU_CHECK;
				continue;
			}
			conn = k - SU_LOGIN;
			sbuf_adds(&b, "LOGIN ");
			sbuf_add_quoted(&b, conn_user(r, conn));
			sbuf_adds(&b, " ");
			sbuf_add_quoted(&b, r->env.password);
		} else if (k < SU_CAPS2) {
			r->setup_no = SU_CAPS2;
			continue;
		} else if (k == SU_CAPS2) {
			sbuf_adds(&b, "CAPABILITY");
		} else if (k == SU_CHECK) {
			if (r->env.user2 == NULL && script_needs_user2(s)) {
				srun_finish(r, SCRIPT_SKIP, 0, xstrdup("needs user2= "
					    "(a 'user N: $user2' line)"));
				return;
			}
			for (unsigned i = 0; i < s->n_caps; i++)
				if (!imap_caps_has(r->caps.s ? r->caps.s : "",
						   r->caps.len, s->caps[i])) {
					struct sbuf w = { 0 };
					sbuf_adds(&w, "missing capability ");
					sbuf_adds(&w, s->caps[i]);
					srun_finish(r, SCRIPT_SKIP, 0, sbuf_take(&w));
					return;
				}
			r->setup_no = s->state == SCRIPT_ST_NONAUTH ? SU_STEPS
			    : SU_COMPRESS;
			continue;
		} else if (k >= SU_COMPRESS && k < SU_COMPRESS + s->connections &&
			   compress_wanted(r)) {
			conn = k - SU_COMPRESS;
			sbuf_adds(&b, "COMPRESS DEFLATE");
		} else if (k < SU_NAMESPACE) {
			r->setup_no = SU_NAMESPACE;
			continue;
		} else if (k == SU_NAMESPACE) {
			if (!sns_wanted(r)) {
				r->setup_no = SU_LIST;
				continue;
			}
			sbuf_adds(&b, "NAMESPACE");
		} else if (k == SU_LIST) {
			struct sbuf pat = { 0 };
			r->prefix_used = true;
			sbuf_adds(&pat, r->box);
			sbuf_adds(&pat, "*");
			sbuf_adds(&b, "LIST \"\" ");
			sbuf_add_quoted(&b, pat.s);
			sbuf_reset(&pat);
		} else if (k == SU_GUARD) {
			/* Nothing is deleted before it is known to hold only
			 * our mail (script_guard.c). */
			if (!sguard_next(r, &b)) {
				r->setup_no = SU_CLOSE;
				continue;
			}
			again = true;
		} else if (k == SU_CLOSE) {
			if (!r->guard_examined) {
				r->setup_no = SU_DELETE;
				continue;
			}
			sbuf_adds(&b, "CLOSE");	/* EXAMINEd: expunges nothing */
		} else if (k == SU_DELETE) {
			if (r->n_boxes == 0) {
				r->setup_no = SU_CREATE;
				continue;
			}
			/* The longest name first: children before parents. */
			char *name = r->boxes[--r->n_boxes];
			sbuf_adds(&b, "DELETE ");
			sbuf_add_quoted(&b, name + 1);	/* past the flag */
			free(name);
			again = true;	/* come back for the next one */
		} else if (k == SU_CREATE) {
			if (s->state < SCRIPT_ST_CREATED) {
				r->setup_no = SU_STEPS;
				continue;
			}
			sbuf_adds(&b, "CREATE ");
			sbuf_add_quoted(&b, r->box);
		} else if (k == SU_APPEND) {
			unsigned have = r->pool ? msg_pool_count(r->pool) : 0;
			unsigned want = s->messages < 0 ? have : (unsigned)s->messages;
			if (s->state < SCRIPT_ST_APPENDED || have == 0 ||
			    r->appended >= want) {
				r->setup_no = SU_SELECT;
				continue;
			}
			sbuf_adds(&b, "APPEND ");
			sbuf_add_quoted(&b, r->box);
			sappend_next(r, &b, true, false);	/* script_append.c */
			again = true;
		} else if (k >= SU_SELECT && k < SU_SELECT + s->connections) {
			if (s->state < SCRIPT_ST_SELECTED) {
				r->setup_no = SU_STEPS;
				continue;
			}
			conn = k - SU_SELECT;
			free(r->conn[conn].selected);
			r->conn[conn].selected = xstrdup(r->box);
			sbuf_adds(&b, "SELECT ");
			sbuf_add_quoted(&b, r->box);
		} else if (k < SU_STEPS) {
			r->setup_no = SU_STEPS;
			continue;
		} else {
			sbuf_reset(&b);
			sstep_start(r);
			return;
		}
		break;
	}
	r->setup_was = k;
	if (!again)
		r->setup_no++;
	r->setup_conn = conn;
	snprintf(r->setup_tag, sizeof(r->setup_tag), "u%u", ++r->tag_no);
	srun_send(r, conn, r->setup_tag, b.s);
	sbuf_reset(&b);
}

static int
by_length(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
	return x < y ? -1 : x > y;
}

/* An untagged reply during the set-up: capabilities and LIST names. */
static void
setup_untagged(struct script_run *r, const struct imap_resp *resp)
{
	unsigned was = r->setup_was;
	enum imap_kw kw = imap_resp_kw(resp);

	if (kw == IMAP_KW_CAPABILITY && (was == SU_CAPS || was == SU_CAPS2)) {
		sbuf_reset(&r->caps);
		sbuf_add(&r->caps, resp->text, resp->text_len);
	}
	if (kw == IMAP_KW_NAMESPACE && was == SU_NAMESPACE)
		sns_reply(r, resp);
	if (kw == IMAP_KW_LIST && was == SU_LIST) {
		const struct imap_arg *root = imap_args_parse(r->m.args,
							      resp->text,
							      resp->text_len);
		const struct imap_arg *name = root ? imap_arg_nth(root, 2) : NULL;
		if (name != NULL && name->type != IMAP_ARG_LIST &&
		    name->type != IMAP_ARG_LITERAL_SKIPPED)
			sguard_listed(r, resp, name->str, name->len);
	}
	if (was == SU_GUARD)
		sguard_untagged(r, resp);
}

/* The name it tried, the server's line and where the name came from:
 * "CREATE imaptest" refused by a server whose personal mailboxes live
 * under "INBOX." must not look like a broken server. */
static void
create_failed(struct script_run *r, const struct imap_resp *resp)
{
	struct sbuf what = { 0 }, hint = { 0 };

	sbuf_adds(&what, "CREATE of the test mailbox '");
	sbuf_add_escaped(&what, r->box, strlen(r->box));
	sbuf_adds(&what, "' failed");
	sns_hint(r, &hint);
	srun_fail_setup(r, what.s, resp, hint.s);
	sbuf_reset(&what);
	sbuf_reset(&hint);
}

static void
setup_tagged(struct script_run *r, const struct imap_resp *resp)
{
	unsigned was = r->setup_was;
	static const char *const what[] = {
		[SU_CAPS] = "CAPABILITY", [SU_CAPS2] = "CAPABILITY after LOGIN",
		[SU_LIST] = "LIST of the test mailboxes",
		[SU_DELETE] = "DELETE of an old test mailbox",
		[SU_CLOSE] = "CLOSE after the foreign-mail check",
	};

	if (was == SU_GUARD) {
		if (sguard_tagged(r, resp))
			setup_next(r);
		return;
	}
	if (was == SU_NAMESPACE) {
		/* Not fatal: the test mailbox stays at the top level, and a
		 * refused CREATE will say so. */
		sns_done(r, resp->cond == IMAP_COND_OK);
		set_box_vars(r);
		setup_next(r);
		return;
	}
	const char *code, *arg;
	size_t code_len, arg_len;
	/* A mailbox LIST named that is gone already is no failure; any other
	 * refused DELETE would only resurface as a puzzling CREATE error. */
	bool gone = was == SU_DELETE &&
		    imap_resp_code(resp, &code, &code_len, &arg, &arg_len) &&
		    code_len == 11 && strncasecmp(code, "NONEXISTENT", 11) == 0;
	if (resp->cond != IMAP_COND_OK && !gone) {
		if (was >= SU_LOGIN && was < SU_LOGIN + SCRIPT_MAX_CONNS)
			srun_fail_setup(r, "LOGIN failed", resp, NULL);
		else if (was >= SU_COMPRESS && was < SU_NAMESPACE)
			srun_fail_setup(r, "COMPRESS DEFLATE failed", resp, NULL);
		else if (was == SU_APPEND)
			srun_fail_setup(r, "APPEND of the mbox's messages failed",
					resp, NULL);
		else if (was >= SU_SELECT && was < SU_STEPS)
			srun_fail_setup(r, "SELECT of the test mailbox failed",
					resp, NULL);
		else if (was == SU_CREATE)
			create_failed(r, resp);
		else
			srun_fail_setup(r, what[was] ? what[was] : "failed", resp,
					NULL);
		return;
	}
	if (was >= SU_COMPRESS && was < SU_NAMESPACE) {
		compress_done(r, was - SU_COMPRESS);
		return;
	}
	if (was == SU_LIST && r->n_boxes > 1)
		qsort(r->boxes, r->n_boxes, sizeof(char *), by_length);
	setup_next(r);
}

/* --- the driver's calls -------------------------------------------------- */

void
script_run_start(struct script_run *r, const struct script *s,
		 const struct msg_pool *pool)
{
	run_reset(r);
	r->s = s;
	r->pool = pool;
	/* No test logged in and listed the test mailboxes: nothing of ours
	 * to clean up, and no login to make. */
	if (s->cleanup && !r->prefix_used) {
		r->out.verdict = SCRIPT_PASS;
		r->finished = true;
		return;
	}
	r->finished = false;
	r->tag_no = 0;
	r->appended = 0;
	r->setup_no = SU_CAPS;
	r->n_ready = 0;
	r->box = xstrdup(r->env.mailbox);
	smatch_init(&r->m);
	set_vars(r);
	for (unsigned i = 0; i < s->connections && !r->finished; i++) {
		r->conn[i].open = true;
		r->io.open(r->ctx, i);
	}
}

void
script_on_ready(struct script_run *r, unsigned conn)
{
	if (r->finished || conn >= r->s->connections || r->conn[conn].ready)
		return;
	r->conn[conn].ready = true;
	if (++r->n_ready == r->s->connections)
		setup_next(r);
}

void
script_on_resp(struct script_run *r, unsigned conn, const struct imap_resp *resp)
{
	if (r->finished || conn >= r->s->connections)
		return;
	if (resp->kind == IMAP_CONTINUATION) {
		struct rconn *c = &r->conn[conn];
		if (c->n_chunks == 0 || !c->chunks[0].wait_plus) {
			if (r->in_steps)
				sstep_unexpected(r, conn, resp);
			else
				srun_fail_setup(r, "a continuation nobody asked for",
						resp, NULL);
			return;
		}
		c->plus_seen = true;
		srun_flush(r, conn);
		return;
	}
	if (!r->in_steps) {
		if (resp->kind == IMAP_UNTAGGED) {
			setup_untagged(r, resp);
		} else if (conn == r->setup_conn &&
			   resp->tag_len == strlen(r->setup_tag) &&
			   memcmp(resp->tag, r->setup_tag, resp->tag_len) == 0) {
			setup_tagged(r, resp);
		} else {
			srun_fail_setup(r, "a tagged reply to no set-up command",
					resp, NULL);
		}
		return;
	}
	sstep_resp(r, conn, resp);
}

void
script_on_wake(struct script_run *r)
{
	if (!r->finished && r->in_steps)
		sstep_wake(r);
}

void
script_on_closed(struct script_run *r, unsigned conn, const char *why)
{
	if (r->finished || conn >= r->s->connections || !r->conn[conn].open)
		return;
	r->conn[conn].open = false;
	if (r->logging_out) {
		sstep_logout_done(r, conn);
		return;
	}
	struct sbuf b = { 0 };
	sbuf_addf(&b, "connection %u closed", conn + 1);
	if (why != NULL) {
		sbuf_adds(&b, ": ");
		sbuf_add_escaped(&b, why, strlen(why));
	}
	if (r->in_steps)
		sstep_closed(r, conn, sbuf_take(&b));
	else
		srun_finish(r, SCRIPT_FAIL, 0, sbuf_take(&b));
	sbuf_reset(&b);
}
