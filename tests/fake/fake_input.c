/* fake_input.c: what a client connection sends, as a state machine:
 * command lines gathered (with the literals in them counted away, never
 * buffered whole), AUTHENTICATE and IDLE lines, script continuations, and
 * a stop to reading while too much waits to go out (fake_conn.c sends). */
#include <stdint.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "fake.h"
#include "util/xmalloc.h"

/* A line ending in {N} or {N+} announces a literal. Returns 1 and the
 * size, 0 when the line has no literal, -1 when N is absurd. */
static int
fake_literal_marker(const char *s, size_t n, uint64_t *size, bool *plus)
{
	if (n < 3 || s[n - 1] != '}')
		return 0;
	size_t i = n - 1;
	*plus = false;
	if (s[i - 1] == '+') {
		*plus = true;
		i--;
	}
	size_t end = i;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == end || i == 0 || s[i - 1] != '{')
		return 0;
	if (end - i > 18)
		return -1;
	uint64_t v = 0;
	for (size_t k = i; k < end; k++)
		v = v * 10 + (uint64_t)(s[k] - '0');
	*size = v;
	return 1;
}

static void
fake_conn_reset_command(struct fake_conn *c)
{
	c->cmd_len = 0;
	c->cmd[0] = '\0';
	c->lit_count = 0;
	c->lit_bytes = 0;
	c->lit_mailbox = false;
	c->lit_mailbox_bytes = 0;
	c->n_lit_marks = 0;
}

/* A message literal read to its end: is it the tool's? */
static void
fake_lit_marked(struct fake_conn *c)
{
	if (c->n_lit_marks == c->cap_lit_marks) {
		c->cap_lit_marks = c->cap_lit_marks ? 2 * c->cap_lit_marks : 8;
		c->lit_marks = xrealloc(c->lit_marks, c->cap_lit_marks);
	}
	c->lit_marks[c->n_lit_marks++] = c->lit_mark.found;
}

static void
fake_conn_line(struct fake_conn *c, char *seg, size_t n)
{
	if (c->rstate == FAKE_R_AUTH) {
		c->rstate = FAKE_R_COMMAND;
		fake_cmd_auth_response(c, seg);
		fake_conn_reset_command(c);
		return;
	}
	if (c->rstate == FAKE_R_IDLE) {
		fake_cmd_idle_line(c, seg);
		fake_conn_reset_command(c);
		return;
	}
	if (c->script_cont) {
		c->script_cont = false;
		fake_script_continuation(c, seg);
		fake_conn_reset_command(c);
		return;
	}
	if (seg == c->cmd && fake_fault_line_start(c)) {
		fake_conn_reset_command(c);
		return;
	}
	uint64_t size = 0;
	bool plus = false;
	int lit = fake_literal_marker(seg, n, &size, &plus);
	if (lit < 0) {
		fake_reply_now(c, "* BAD literal size out of range", FAKE_P_CLOSE);
		return;
	}
	if (lit > 0) {
		if (c->lit_count == 0 &&
		    fake_cmd_first_literal_is_mailbox(c->cmd)) {
			c->lit_mailbox = true;
			c->lit_mailbox_bytes = size;
		}
		if (!plus && c->sh->script != NULL &&
		    fake_script_literal(c, c->cmd)) {
			fake_conn_reset_command(c);
			return;
		}
		bool message = !(c->lit_mailbox && c->lit_count == 0);
		c->lit_count++;
		c->lit_bytes += size;
		if (!plus && fake_fault_continuation_allowed(c))
			fake_reply_now(c, "+ OK", 0);
		fake_mark_start(&c->lit_mark);
		c->lit_is_msg = message;
		c->lit_mark.done = !message;	/* a mailbox name: no header */
		if (size > 0) {
			c->rstate = FAKE_R_LITERAL;
			c->lit_left = size;
		} else if (message) {
			fake_lit_marked(c);
		}
		return;
	}
	fake_cmd_dispatch(c);
	fake_conn_reset_command(c);
}

static void
fake_conn_too_long(struct fake_conn *c)
{
	fake_reply_now(c, "* BAD command line too long", FAKE_P_CLOSE);
}

void
fake_conn_parse(struct fake_conn *c, struct evbuffer *in)
{
	struct fake_stats *st = &c->loop->stats;
	for (;;) {
		size_t avail = evbuffer_get_length(in);
		if (avail == 0 || c->dead)
			return;
		if (c->closing || c->rstate == FAKE_R_SWALLOW) {
			evbuffer_drain(in, avail);
			st->bytes_in += avail;
			return;
		}
		if (fake_conn_backlogged(c)) {
			c->paused = true;
			bufferevent_disable(c->bev, EV_READ);
			return;
		}
		if (c->rstate == FAKE_R_LITERAL) {
			size_t n = avail < c->lit_left ? avail : (size_t)c->lit_left;
			if (!c->lit_mark.done) {
				/* The header only, a piece at a time. */
				char head[512];
				if (n > sizeof(head))
					n = sizeof(head);
				evbuffer_copyout(in, head, n);
				fake_mark_feed(&c->lit_mark, head, n);
			}
			evbuffer_drain(in, n);
			st->bytes_in += n;
			c->lit_left -= n;
			if (c->lit_left == 0) {
				c->rstate = FAKE_R_COMMAND;
				if (c->lit_is_msg)
					fake_lit_marked(c);
			}
			continue;
		}
		size_t eol_len = 0;
		struct evbuffer_ptr eol =
			evbuffer_search_eol(in, NULL, &eol_len, EVBUFFER_EOL_CRLF);
		if (eol.pos < 0) {
			if (avail > FAKE_LINE_MAX)
				fake_conn_too_long(c);
			return;
		}
		size_t n = (size_t)eol.pos;
		if (n > FAKE_LINE_MAX || c->cmd_len + n + 1 > FAKE_CMD_MAX) {
			fake_conn_too_long(c);
			return;
		}
		if (c->cmd_len + n + 1 > c->cmd_cap) {
			while (c->cmd_len + n + 1 > c->cmd_cap)
				c->cmd_cap *= 2;
			c->cmd = xrealloc(c->cmd, c->cmd_cap);
		}
		char *seg = c->cmd + c->cmd_len;
		evbuffer_remove(in, seg, n);
		evbuffer_drain(in, eol_len);
		st->bytes_in += n + eol_len;
		c->cmd_len += n;
		c->cmd[c->cmd_len] = '\0';
		fake_conn_line(c, seg, n);
	}
}
