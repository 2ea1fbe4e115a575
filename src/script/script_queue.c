/* script_queue.c: untagged replies that arrive on a connection while a
 * step of another connection runs.  A server may send some at any time
 * (RFC 3501 5.2: an EXISTS after another session's APPEND); imaptest
 * stops reading the other connections during a step, so their replies
 * count for their own next step.  We keep them (copies) and the next
 * step of their connection takes them first, as if they came then. */
#include <stdlib.h>
#include <string.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

#define QUEUE_MAX 10000		/* a flood beyond this is dropped */

struct squeued {
	struct imap_resp resp;	/* its pointers into line */
	char *line;
};

static const char *
rebase(const char *p, const struct imap_resp *from, const char *to)
{
	return p >= from->line && p <= from->line + from->line_len
	       ? to + (p - from->line) : p;
}

void
squeue_push(struct rconn *c, const struct imap_resp *resp)
{
	if (c->n_queued >= QUEUE_MAX)
		return;
	c->queued = xrealloc(c->queued, (c->n_queued + 1) * sizeof(*c->queued));
	struct squeued *q = &c->queued[c->n_queued++];
	q->line = xmalloc(resp->line_len + 1);
	memcpy(q->line, resp->line, resp->line_len);
	q->line[resp->line_len] = '\0';
	q->resp = *resp;
	q->resp.line = q->line;
	q->resp.tag = rebase(resp->tag, resp, q->line);
	q->resp.keyword = rebase(resp->keyword, resp, q->line);
	q->resp.text = rebase(resp->text, resp, q->line);
}

bool
squeue_pop(struct rconn *c, struct imap_resp *resp, char **line)
{
	if (c->q_next >= c->n_queued) {
		squeue_free(c);
		return false;
	}
	struct squeued *q = &c->queued[c->q_next++];
	*resp = q->resp;
	*line = q->line;	/* the caller's now */
	q->line = NULL;
	return true;
}

void
squeue_free(struct rconn *c)
{
	for (unsigned i = 0; i < c->n_queued; i++)
		free(c->queued[i].line);
	free(c->queued);
	c->queued = NULL;
	c->n_queued = c->q_next = 0;
}
