/* fake_script.c: --script rule files for protocol-rule tests.
 *
 *   # comment
 *   greeting BODY
 *   on [once] COMMAND BODY        COMMAND is a word or *, case-insensitive
 *
 * A BODY is split into lines at the four characters \r\n.  Each line is
 * sent with CRLF after $tag is replaced by the command's tag (and $tagn
 * by the part after its last '.', for replies with another client's
 * tag), except the directives "sleep MS" (later lines go out MS later),
 * "close", "bye TEXT" ("* BYE TEXT", then close) and "repeat N LINE"
 * (LINE N times, N <= 10000000, with $i counting 1..N and $j N..1: a
 * storm of EXISTS, EXPUNGE or FETCH lines in a few bytes of script, made
 * a piece at a time as the client reads, fake_stream.c),
 * "fill N x" / "fill N random" (N octets, N <= 100000000, of 'x' or of
 * random letters, no CRLF: a line that never ends) and "deflate" (the
 * reply so far goes out as it is, then COMPRESS=DEFLATE both ways).  First matching rule wins; a
 * "once" rule fires once per connection, later matches fall through.
 * UID commands match the word UID.  A rule "on LITERAL" answers every
 * synchronizing literal instead of "+" (RFC 3501 allows a tagged NO or
 * BAD there), with the tag of the command that announced it.  When a reply ends in a "+" line the
 * client's next line is data, matched as DONE (if it is DONE) or
 * CONTINUE, with the tag of the command that asked for it.
 *
 * The foreign-mail check, UID SEARCH NOT HEADER X-Imapstress "", is
 * answered by a rule only when one names UID: without one the fake
 * answers it with an empty SEARCH, as a server holding none of the
 * messages a script may claim (none of them lacks the marker), so a
 * scenario about something else runs as it did before the check.  A
 * scenario that answers it (foreign mail, NO, no SEARCH) is a test of
 * the check (tests/fake/t_guard_fake.sh). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "util/xmalloc.h"

enum fake_op_kind {
	FAKE_OP_TEXT,
	FAKE_OP_SLEEP,
	FAKE_OP_CLOSE,
	FAKE_OP_BYE,
	FAKE_OP_REPEAT,
	FAKE_OP_FILL,
	FAKE_OP_DEFLATE,
};

struct fake_op {
	enum fake_op_kind kind;
	char *text;
	uint64_t ms;
};

struct fake_body {
	struct fake_op *ops;
	size_t n;
};

struct fake_rule {
	char *name;             /* NULL matches any command */
	bool once;
	struct fake_body body;
};

struct fake_script {
	struct fake_rule *rules;
	size_t n;
	bool has_greeting;
	struct fake_body greeting;
};

static void
fake_body_free(struct fake_body *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->ops[i].text);
	free(b->ops);
}

void
fake_script_free(struct fake_script *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->rules[i].name);
		fake_body_free(&s->rules[i].body);
	}
	free(s->rules);
	fake_body_free(&s->greeting);
	free(s);
}

size_t
fake_script_rules(const struct fake_script *s)
{
	return s->n;
}

static bool
fake_body_add(struct fake_body *b, const char *s, size_t len, char *err,
	      size_t err_len)
{
	struct fake_op op = { .kind = FAKE_OP_TEXT };
	if (len == 5 && strncmp(s, "close", 5) == 0) {
		op.kind = FAKE_OP_CLOSE;
	} else if (len >= 3 && strncmp(s, "bye", 3) == 0 &&
		   (len == 3 || s[3] == ' ')) {
		op.kind = FAKE_OP_BYE;
		op.text = xstrndup(len > 4 ? s + 4 : "", len > 4 ? len - 4 : 0);
	} else if (len >= 5 && strncmp(s, "sleep", 5) == 0 &&
		   (len == 5 || s[5] == ' ')) {
		char num[32];
		size_t nl = len > 6 ? len - 6 : 0;
		char *end;
		if (nl == 0 || nl >= sizeof(num)) {
			snprintf(err, err_len, "'sleep' needs milliseconds");
			return false;
		}
		memcpy(num, s + 6, nl);
		num[nl] = '\0';
		errno = 0;
		unsigned long long ms = strtoull(num, &end, 10);
		if (errno != 0 || *end != '\0' || !isdigit((unsigned char)num[0]) ||
		    ms > 3600000ull) {
			snprintf(err, err_len,
				 "'sleep %s': expected milliseconds 0..3600000",
				 num);
			return false;
		}
		op.kind = FAKE_OP_SLEEP;
		op.ms = ms;
	} else if (len == 7 && strncmp(s, "deflate", 7) == 0) {
		op.kind = FAKE_OP_DEFLATE;
	} else if (len >= 5 && strncmp(s, "fill ", 5) == 0) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(s + 5, &end, 10);
		size_t rest = (size_t)(s + len - end);
		bool x = rest == 2 && strncmp(end, " x", 2) == 0;
		bool rnd = rest == 7 && strncmp(end, " random", 7) == 0;
		if (errno != 0 || !isdigit((unsigned char)s[5]) || n == 0 ||
		    n > 100000000ull || !(x || rnd)) {
			snprintf(err, err_len, "'fill' needs a count "
				 "1..100000000 and 'x' or 'random'");
			return false;
		}
		op.kind = FAKE_OP_FILL;
		op.ms = n;
		op.text = xstrdup(x ? "x" : "random");
	} else if (len >= 7 && strncmp(s, "repeat ", 7) == 0) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(s + 7, &end, 10);
		if (errno != 0 || !isdigit((unsigned char)s[7]) || *end != ' ' ||
		    n == 0 || n > 10000000ull || end + 1 >= s + len) {
			snprintf(err, err_len, "'repeat' needs a count 1..10000000 "
				 "and a line");
			return false;
		}
		op.kind = FAKE_OP_REPEAT;
		op.ms = n;
		op.text = xstrndup(end + 1, (size_t)(s + len - end - 1));
	} else {
		op.text = xstrndup(s, len);
	}
	b->ops = xrealloc(b->ops, (b->n + 1) * sizeof(b->ops[0]));
	b->ops[b->n++] = op;
	return true;
}

static bool
fake_body_parse(struct fake_body *b, const char *s, char *err, size_t err_len)
{
	if (*s == '\0') {
		snprintf(err, err_len, "empty reply body");
		return false;
	}
	for (;;) {
		const char *sep = strstr(s, "\\r\\n");
		size_t len = sep != NULL ? (size_t)(sep - s) : strlen(s);
		if (!fake_body_add(b, s, len, err, err_len))
			return false;
		if (sep == NULL)
			return true;
		s = sep + 4;
		if (*s == '\0')
			return true;
	}
}

static char *
fake_next_word(char **p)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	char *w = s;
	while (*s != '\0' && *s != ' ' && *s != '\t')
		s++;
	if (*s != '\0')
		*s++ = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	*p = s;
	return w;
}

static bool
fake_script_line(struct fake_script *s, char *line, char *err, size_t err_len)
{
	char *p = line;
	char *kw = fake_next_word(&p);
	if (strcmp(kw, "greeting") == 0) {
		if (s->has_greeting) {
			snprintf(err, err_len, "a second 'greeting' line");
			return false;
		}
		s->has_greeting = true;
		return fake_body_parse(&s->greeting, p, err, err_len);
	}
	if (strcmp(kw, "on") != 0) {
		snprintf(err, err_len,
			 "unknown keyword '%s' (expected 'greeting' or 'on')", kw);
		return false;
	}
	struct fake_rule r = { 0 };
	char *name = fake_next_word(&p);
	if (strcmp(name, "once") == 0) {
		r.once = true;
		name = fake_next_word(&p);
	}
	if (*name == '\0') {
		snprintf(err, err_len, "'on' needs a command name and a body");
		return false;
	}
	if (!fake_body_parse(&r.body, p, err, err_len)) {
		fake_body_free(&r.body);
		return false;
	}
	r.name = strcmp(name, "*") == 0 ? NULL : xstrdup(name);
	s->rules = xrealloc(s->rules, (s->n + 1) * sizeof(s->rules[0]));
	s->rules[s->n++] = r;
	return true;
}

struct fake_script *
fake_script_load(const char *path, char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, err_len, "--script: cannot open '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	struct fake_script *s = xcalloc(1, sizeof(*s));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	char why[256];
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		if (!fake_script_line(s, p, why, sizeof(why))) {
			snprintf(err, err_len, "--script %s line %u: %s", path,
				 lineno, why);
			free(line);
			fclose(f);
			fake_script_free(s);
			return NULL;
		}
	}
	free(line);
	fclose(f);
	if (s->n == 0 && !s->has_greeting) {
		snprintf(err, err_len, "--script %s: no 'on' rules", path);
		fake_script_free(s);
		return NULL;
	}
	return s;
}

/* One line with $tag, $tagn and (inside a repeat) $i, $j replaced. */
static void
fake_script_line_out(struct fake_conn *c, const char *text, const char *tag,
		     uint64_t i, uint64_t j)
{
	const char *p = text, *hit;
	const char *dot = strrchr(tag, '.');
	while ((hit = strchr(p, '$')) != NULL) {
		fake_out(c, p, (size_t)(hit - p));
		if (strncmp(hit, "$tagn", 5) == 0) {
			fake_outs(c, dot ? dot + 1 : tag);
			p = hit + 5;
		} else if (strncmp(hit, "$tag", 4) == 0) {
			fake_outs(c, tag);
			p = hit + 4;
		} else if (i != 0 && (hit[1] == 'i' || hit[1] == 'j')) {
			fake_outf(c, "%llu", (unsigned long long)(hit[1] == 'i' ?
								  i : j));
			p = hit + 2;
		} else {
			fake_out(c, hit, 1);
			p = hit + 1;
		}
	}
	fake_outs(c, p);
	fake_out(c, "\r\n", 2);
}

static void
fake_script_text(struct fake_conn *c, const char *text, const char *tag)
{
	fake_script_line_out(c, text, tag, 0, 0);
}

/* A storm goes out as one write, not a write per line: under COMPRESS
 * each write is a deflate batch with its own flush marker, and a bomb
 * must deflate as one.  _begin collects into a buffer of its own and
 * returns where the reply was going; _end hands the lot over there. */
static struct evbuffer *
fake_script_batch_begin(struct fake_conn *c)
{
	struct evbuffer *real = c->w;
	c->w = evbuffer_new();
	return real;
}

static void
fake_script_batch_end(struct fake_conn *c, struct evbuffer *real)
{
	struct evbuffer *batch = c->w;
	c->w = real;
	evbuffer_add_buffer(c->w, batch);
	evbuffer_free(batch);
}

/* "fill N x": N octets of 'x' (else of random letters, the same every
 * time), in 1 MiB writes: under COMPRESS each deflates as one batch
 * (about 1000:1 for 'x'), and no more than that piles up here per
 * connection. */
static void
fake_script_fill(struct fake_conn *c, const void *arg)
{
	const struct fake_op *op = arg;
	enum { CHUNK = 1024 * 1024 };
	char *chunk = xmalloc(CHUNK);
	uint64_t r = 0x9e3779b97f4a7c15ull;
	for (size_t k = 0; k < CHUNK; k++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		chunk[k] = op->text[0] == 'x' ? 'x' :
		    (char)('a' + (r >> 33) % 26);
	}
	for (uint64_t left = op->ms; left > 0;) {
		size_t n = left < CHUNK ? (size_t)left : CHUNK;
		fake_out(c, chunk, n);
		left -= n;
	}
	free(chunk);
}

/* "repeat N TEXT" whose TEXT names no $tag, $i or $j: the same lines for
 * every connection, for fake_zcache_send. */
static void
fake_script_repeat_same(struct fake_conn *c, const void *arg)
{
	const struct fake_op *op = arg;
	for (uint64_t k = 1; k <= op->ms; k++)
		fake_script_line_out(c, op->text, "", k, op->ms + 1 - k);
}

/* Where a reply is: the op it is at, the next line of a repeat, and its
 * timing (delay_us after t0, moved on by each sleep). */
struct fake_run {
	const struct fake_body *b;
	size_t op;
	uint64_t k;
	uint64_t t0;
	uint64_t delay_us;
	bool cont;              /* the last line was a "+" continuation */
	char tag[FAKE_TAG_MAX + 1];
};

enum fake_run_end { FAKE_RUN_DONE, FAKE_RUN_PIECE, FAKE_RUN_CLOSED };

/* The delay still due of the reply part that starts now. */
static uint64_t
fake_run_delay(const struct fake_run *r)
{
	uint64_t due = r->t0 + r->delay_us, now = fake_now_us();
	return due > now ? due - now : 0;
}

/* Lines r->k.. of a repeat, as one batch (see fake_script_batch_begin)
 * of about a stream piece; true when the last was written. */
static bool
fake_run_repeat(struct fake_conn *c, struct fake_run *r,
		const struct fake_op *op)
{
	struct evbuffer *real = fake_script_batch_begin(c);
	for (; r->k <= op->ms &&
	     evbuffer_get_length(c->w) < FAKE_STREAM_PIECE; r->k++)
		fake_script_line_out(c, op->text, r->tag, r->k,
				     op->ms + 1 - r->k);
	fake_script_batch_end(c, real);
	return r->k > op->ms;
}

/* The reply from where r is, in a reply begun by the caller, up to its
 * end or the end of a piece of a long repeat (the reply is ended then). */
static enum fake_run_end
fake_run_ops(struct fake_conn *c, struct fake_run *r)
{
	for (; r->op < r->b->n; r->op++, r->k = 1) {
		const struct fake_op *op = &r->b->ops[r->op];
		switch (op->kind) {
		case FAKE_OP_TEXT:
			fake_script_text(c, op->text, r->tag);
			r->cont = op->text[0] == '+';
			break;
		case FAKE_OP_SLEEP:
			fake_reply_end(c, 0);
			r->delay_us += op->ms * 1000u;
			fake_reply_begin(c, fake_run_delay(r));
			break;
		case FAKE_OP_REPEAT:
			r->cont = false;
			/* The same for every connection unless it names
			 * $tag, $i or $j: then deflated once (fake_zcache.c). */
			if (r->k == 1 && strchr(op->text, '$') == NULL &&
			    fake_zcache_send(c, op, fake_script_repeat_same))
				break;
			if (!fake_run_repeat(c, r, op)) {
				fake_reply_end(c, 0);
				return FAKE_RUN_PIECE;
			}
			break;
		case FAKE_OP_FILL:
			if (!fake_zcache_send(c, op, fake_script_fill))
				fake_script_fill(c, op);
			r->cont = false;
			break;
		case FAKE_OP_DEFLATE:
			fake_reply_end(c, 0);
			if (!fake_conn_deflate(c)) {
				fake_reply_begin(c, 0);
				fake_outs(c, "* BYE cannot start COMPRESS\r\n");
				fake_reply_end(c, FAKE_P_CLOSE);
				return FAKE_RUN_CLOSED;
			}
			fake_reply_begin(c, fake_run_delay(r));
			break;
		case FAKE_OP_BYE:
			fake_outs(c, "* BYE ");
			fake_outs(c, op->text);
			fake_out(c, "\r\n", 2);
			fake_reply_end(c, FAKE_P_CLOSE);
			return FAKE_RUN_CLOSED;
		case FAKE_OP_CLOSE:
			fake_reply_end(c, FAKE_P_CLOSE);
			return FAKE_RUN_CLOSED;
		}
	}
	fake_reply_end(c, 0);
	return FAKE_RUN_DONE;
}

/* A reply ending in "+": the client's next line is data for its tag. */
static void
fake_run_done(struct fake_conn *c, const struct fake_run *r)
{
	if (r->cont) {
		snprintf(c->tag, sizeof(c->tag), "%s", r->tag);
		c->script_cont = true;
	}
}

/* fake_stream.c's next piece of a reply fake_script_run left mid-repeat. */
static bool
fake_run_more(struct fake_conn *c, void *arg)
{
	struct fake_run *r = arg;
	fake_reply_begin(c, fake_run_delay(r));
	enum fake_run_end e = fake_run_ops(c, r);
	if (e == FAKE_RUN_DONE)
		fake_run_done(c, r);
	return e != FAKE_RUN_PIECE;
}

static void
fake_script_run(struct fake_conn *c, const struct fake_body *b,
		const char *tag, uint64_t delay_us)
{
	struct fake_run *r = xcalloc(1, sizeof(*r));
	r->b = b;
	r->k = 1;
	r->t0 = fake_now_us();
	r->delay_us = delay_us;
	snprintf(r->tag, sizeof(r->tag), "%s", tag);
	fake_reply_begin(c, delay_us);
	switch (fake_run_ops(c, r)) {
	case FAKE_RUN_PIECE:
		fake_stream_start(c, fake_run_more, r);
		return;
	case FAKE_RUN_DONE:
		fake_run_done(c, r);
		break;
	case FAKE_RUN_CLOSED:
		break;
	}
	free(r);
}

bool
fake_script_greet(struct fake_conn *c)
{
	const struct fake_script *s = c->sh->script;
	if (!s->has_greeting)
		return false;
	fake_script_run(c, &s->greeting, "*", 0);
	return true;
}

/* Does a rule name this word? */
static bool
fake_script_names(const struct fake_script *s, const char *word)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rules[i].name != NULL && fake_eq(s->rules[i].name, word))
			return true;
	return false;
}

static void
fake_script_match(struct fake_conn *c, const char *word, const char *tag)
{
	const struct fake_script *s = c->sh->script;
	for (size_t i = 0; i < s->n; i++) {
		const struct fake_rule *r = &s->rules[i];
		if (r->name != NULL && !fake_eq(r->name, word))
			continue;
		if (r->once) {
			if (c->once_fired[i])
				continue;
			c->once_fired[i] = 1;
		}
		fake_script_run(c, &r->body, tag, fake_reply_delay(c));
		return;
	}
	fake_reply_begin(c, fake_reply_delay(c));
	fake_outf(c, "%s BAD no script rule for %s\r\n", tag, word);
	fake_reply_end(c, 0);
}

void
fake_script_command(struct fake_conn *c, const struct fake_cmd *cmd)
{
	struct fake_stats *st = &c->loop->stats;
	const char *word = cmd->uid ? "UID" : cmd->name;
	if (fake_eq(word, "LOGIN") || fake_eq(word, "AUTHENTICATE"))
		st->logins++;
	else if (fake_eq(word, "APPEND")) {
		st->appends += cmd->messages;
		st->append_bytes += cmd->message_bytes;
	} else if (fake_eq(cmd->name, "FETCH"))
		st->fetches++;
	if (fake_is_guard_search(cmd) && !fake_script_names(c->sh->script, "UID")) {
		fake_reply_begin(c, fake_reply_delay(c));
		fake_outf(c, "* SEARCH\r\n%s OK SEARCH completed\r\n", cmd->tag);
		fake_reply_end(c, 0);
		return;
	}
	fake_script_match(c, word, cmd->tag);
}

bool
fake_script_literal(struct fake_conn *c, const char *cmdline)
{
	char tag[FAKE_TAG_MAX + 1];
	size_t n = strcspn(cmdline, " ");

	if (!fake_script_names(c->sh->script, "LITERAL"))
		return false;
	if (n > FAKE_TAG_MAX)
		n = FAKE_TAG_MAX;
	memcpy(tag, cmdline, n);
	tag[n] = '\0';
	fake_script_match(c, "LITERAL", tag);
	return true;
}

void
fake_script_continuation(struct fake_conn *c, const char *line)
{
	char tag[FAKE_TAG_MAX + 1];
	snprintf(tag, sizeof(tag), "%s", c->tag);
	fake_script_match(c, fake_eq(line, "DONE") ? "DONE" : "CONTINUE", tag);
}
