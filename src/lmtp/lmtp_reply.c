/* lmtp_reply.c: an LMTP or SMTP reply read from the socket's bytes: the
 * next line (with its length bound) and the lines gathered into one reply
 * (one code, a bound on the lines, EHLO's keywords).  No session here, so
 * the client (lmtp_client.c) and the fuzz harness (tests/fuzz/fuzz_smtp.c)
 * read replies through the same code. */
#include <string.h>

#include <event2/buffer.h>

#include "lmtp/lmtp_int.h"

int
lmtp_read_line(struct evbuffer *in, char *line, size_t max, size_t *len)
{
	size_t eol_len = 0, have = evbuffer_get_length(in);
	struct evbuffer_ptr p = evbuffer_search_eol(in, NULL, &eol_len,
						    EVBUFFER_EOL_CRLF);

	if (p.pos < 0) {
		/* A line of max octets may wait for its LF with its CR
		 * already here: that is max + 1 octets, and not too long. */
		if (have > max + 1)
			return -1;
		if (have == max + 1) {
			unsigned char last;
			struct evbuffer_ptr at;
			evbuffer_ptr_set(in, &at, max, EVBUFFER_PTR_SET);
			if (evbuffer_copyout_from(in, &at, &last, 1) != 1 ||
			    last != '\r')
				return -1;
		}
		return 0;
	}
	if ((size_t)p.pos > max)
		return -1;
	evbuffer_remove(in, line, (size_t)p.pos);
	line[p.pos] = '\0';
	evbuffer_drain(in, eol_len);
	*len = (size_t)p.pos;
	return 1;
}

enum lmtp_rl
lmtp_reply_add(struct lmtp_reply *r, const char *line, size_t len,
	       unsigned max_lines, struct lmtp_ext *ehlo)
{
	const char *text;
	size_t tlen;
	int code;
	bool last;

	if (lmtp_reply_line(line, len, &code, &last, &text, &tlen) < 0)
		return LMTP_RL_NOT_REPLY;
	if (r->lines == 0) {
		r->code = code;
		lmtp_printable(r->text, sizeof(r->text), text, tlen);
	} else if (code != r->code) {
		return LMTP_RL_MIXED;
	}
	if (++r->lines > max_lines)
		return LMTP_RL_TOO_MANY;
	/* EHLO's first line is the greeting's domain, the keywords follow. */
	if (ehlo != NULL && r->lines > 1)
		lmtp_ehlo_line(ehlo, text, tlen);
	if (!last)
		return LMTP_RL_MORE;
	r->lines = 0;
	return LMTP_RL_DONE;
}

const char *
lmtp_rl_why(enum lmtp_rl rl)
{
	switch (rl) {
	case LMTP_RL_NOT_REPLY:
		return "not an LMTP reply line";
	case LMTP_RL_MIXED:
		return "reply lines with different codes";
	case LMTP_RL_TOO_MANY:
		return "reply has too many lines";
	case LMTP_RL_MORE:
	case LMTP_RL_DONE:
		break;
	}
	return "";
}
