/* script_send.c: what both the set-up (script_run.c) and the steps
 * (script_step.c) write to a run's connections, and how a run ends: a
 * command split into chunks at each synchronizing literal, sent as far
 * as the server's "+" allows, the failures a test gathers, and the
 * verdict that closes every connection.  It calls neither of them back. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

/* --- ending -------------------------------------------------------------- */

static void
close_all(struct script_run *r)
{
	for (unsigned i = 0; i < r->s->connections; i++)
		if (r->conn[i].open) {
			r->conn[i].open = false;
			r->io.close(r->ctx, i);
		}
	r->finished = true;
}

/* Failures past this many are counted, their details not kept. */
#define DETAILED_FAILURES 10

void
srun_note_failure(struct script_run *r, unsigned line, char *detail)
{
	struct script_outcome *o = &r->out;

	if (r->finished) {
		free(detail);
		return;
	}
	o->failures++;
	r->step_failures++;
	if (o->failures == 1) {
		o->line = line;
		o->detail = detail;
		return;
	}
	if (o->failures <= DETAILED_FAILURES) {
		struct sbuf b = { 0 };
		sbuf_adds(&b, o->detail ? o->detail : "");
		if (b.len > 0 && b.s[b.len - 1] != '\n')
			sbuf_adds(&b, "\n");
		if (line > 0)
			sbuf_addf(&b, "failure %u (line %u):\n", o->failures, line);
		else
			sbuf_addf(&b, "failure %u:\n", o->failures);
		sbuf_adds(&b, detail ? detail : "");
		free(o->detail);
		o->detail = sbuf_take(&b);
	}
	free(detail);
}

/* imaptest's count of the test's command groups (script_run.h): all of
 * them at a normal end; else the finished ones and the one under way
 * (its test_execute_cancel_by_client counts that one too). */
static unsigned
groups_counted(const struct script_run *r, enum script_verdict v)
{
	unsigned all = script_imaptest_groups(r->s);

	if (v == SCRIPT_SKIP || !r->in_steps)
		return 0;
	if (v == SCRIPT_PASS)
		return all;
	return r->step + 1 < all ? r->step + 1 : all;
}

void
srun_finish(struct script_run *r, enum script_verdict v, unsigned line,
	    char *detail)
{
	if (r->finished) {
		free(detail);
		return;
	}
	r->out.groups = groups_counted(r, v);
	if (v == SCRIPT_FAIL)
		srun_note_failure(r, line, detail);
	else if (v == SCRIPT_SKIP)
		r->out.detail = detail;
	else
		free(detail);
	if (r->out.failures > DETAILED_FAILURES) {
		struct sbuf b = { 0 };
		sbuf_adds(&b, r->out.detail ? r->out.detail : "");
		sbuf_addf(&b, "(%u more failures, not shown)\n",
			  r->out.failures - DETAILED_FAILURES);
		free(r->out.detail);
		r->out.detail = sbuf_take(&b);
	}
	r->out.verdict = r->out.failures > 0 ? SCRIPT_FAIL : v;
	close_all(r);
}

/* --- sending ------------------------------------------------------------ */

static void
chunk_push(struct rconn *c, const char *data, size_t len, bool wait_plus)
{
	c->chunks = xrealloc(c->chunks, (c->n_chunks + 1) * sizeof(*c->chunks));
	c->chunks[c->n_chunks].data = xmalloc(len + 1);
	memcpy(c->chunks[c->n_chunks].data, data, len);
	c->chunks[c->n_chunks].data[len] = '\0';
	c->chunks[c->n_chunks].len = len;
	c->chunks[c->n_chunks].wait_plus = wait_plus;
	c->n_chunks++;
}

/* Send what may go now: everything up to a chunk that waits for "+". */
void
srun_flush(struct script_run *r, unsigned conn)
{
	struct rconn *c = &r->conn[conn];
	unsigned i = 0;

	while (i < c->n_chunks && (i > 0 ? !c->chunks[i].wait_plus
				      : !c->chunks[0].wait_plus || c->plus_seen)) {
		c->plus_seen = false;
		r->io.send(r->ctx, conn, c->chunks[i].data, c->chunks[i].len);
		free(c->chunks[i].data);
		i++;
		if (r->finished)
			return;
	}
	memmove(c->chunks, c->chunks + i, (c->n_chunks - i) * sizeof(*c->chunks));
	c->n_chunks -= i;
}

void
srun_drop_chunks(struct script_run *r, unsigned conn)
{
	struct rconn *c = &r->conn[conn];

	for (unsigned i = 0; i < c->n_chunks; i++)
		free(c->chunks[i].data);
	c->n_chunks = 0;
	c->plus_seen = false;
}

/* tag SP text CRLF, split after each synchronizing literal's "{N}\r\n"
 * (the rest waits for the server's "+"); IDLE's DONE also waits for
 * one. */
void
srun_send(struct script_run *r, unsigned conn, const char *tag,
	  const char *text)
{
	srun_send_n(r, conn, tag, text, strlen(text));
}

void
srun_send_n(struct script_run *r, unsigned conn, const char *tag,
	    const char *text, size_t len)
{
	struct rconn *c = &r->conn[conn];
	struct sbuf b = { 0 };
	const char *p = text, *q, *end = text + len;
	bool wait = false;

	sbuf_addf(&b, "%s ", tag);
	while ((q = memmem(p, (size_t)(end - p), "}\r\n", 3)) != NULL) {
		size_t lit = 0;
		bool marker = spat_literal_marker(p, q, &lit);
		bool plus = marker && q[-1] == '+';
		if (!marker)
			lit = 0;
		sbuf_add(&b, p, (size_t)(q + 3 - p));
		if (marker && !plus) {
			chunk_push(c, b.s, b.len, wait);
			sbuf_reset(&b);
			wait = true;
		}
		/* the literal's octets may hold anything, "}\r\n" too */
		size_t avail = (size_t)(end - (q + 3));
		if (lit > avail)
			lit = avail;
		sbuf_add(&b, q + 3, lit);
		p = q + 3 + lit;
	}
	sbuf_add(&b, p, (size_t)(end - p));
	sbuf_add(&b, "\r\n", 2);
	chunk_push(c, b.s, b.len, wait);
	sbuf_reset(&b);
	if (strcasecmp(text, "idle") == 0)
		chunk_push(c, "DONE\r\n", 6, true);
	srun_flush(r, conn);
}
