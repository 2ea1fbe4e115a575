/* profile_parse.c: profile text -> struct profile.  One pass over the
 * lines; each key is looked up in the table of the block it is in, its
 * value parsed by the key's kind, and every error stops the parse with
 * "FILE:LINE: KEY: problem".  The checks that need the whole file (required
 * keys, counts adding up to 100%) run at the end. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/infile.h"
#include "profile/profile_int.h"
#include "util/units.h"
#include "config/userfile.h"
#include "util/xmalloc.h"

enum key_kind {
	K_TIME,		/* uint64_t us */
	K_PCT,		/* unsigned, "50" or "50%" */
	K_COUNT,	/* unsigned, "50%" only */
	K_UINT,		/* unsigned in [min, max] */
	K_BOOL,
	K_FETCH,	/* char *, FETCH items */
	K_TEMPLATE,	/* struct profile_template + has_username */
	K_PATH,		/* char * */
	K_PROTOCOL,
	K_PUSH,		/* enum profile_push: idle, notify */
	K_SIZES,	/* struct msg_sizes, --msg-sizes' SPEC */
	K_REFUSED	/* imaptest has it, we do not: `why` says so */
};

struct key {
	const char *name;
	enum key_kind kind;
	size_t off;
	unsigned min, max;
	const char *why;	/* K_REFUSED */
};

#define U(f) offsetof(struct profile_user_block, f)
#define C(f) offsetof(struct profile_client_block, f)
#define G(f) offsetof(struct profile, f)

static const struct key global_keys[] = {
	{ "lmtp_port", K_UINT, G(lmtp_port), 1, 65535, NULL },
	{ "lmtp_max_parallel_count", K_UINT, G(lmtp_max_parallel), 0, 100000,
	  NULL },
	{ "total_user_count", K_UINT, G(total_users), 1, PROFILE_MAX_USERS,
	  NULL },
	{ "rampup_time", K_TIME, G(rampup_us), 0, 0, NULL },
	{ "msg_sizes", K_SIZES, G(msg_sizes), 0, 0, NULL },
	/* Ours: imaptest's POP3 clients use port= (its IMAP port) or 110. */
	{ "pop3_port", K_UINT, G(pop3_port), 1, 65535, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct key user_keys[] = {
	{ "count", K_COUNT, U(count_pct), 0, 0, NULL },
	{ "username_format", K_TEMPLATE, U(username), 0, 0, NULL },
	{ "username_start_index", K_UINT, U(start_index), 0, 2000000000u,
	  NULL },
	{ "userfile", K_PATH, U(userfile), 0, 0, NULL },
	{ "mail_session_length", K_TIME, U(session_length_us), 0, 0, NULL },
	{ "mail_inbox_delivery_interval", K_TIME, U(inbox_delivery_us), 0, 0,
	  NULL },
	{ "mail_spam_delivery_interval", K_TIME, U(spam_delivery_us), 0, 0,
	  NULL },
	{ "mail_action_delay", K_TIME, U(action_delay_us), 0, 0, NULL },
	{ "mail_action_repeat_delay", K_TIME, U(action_repeat_us), 0, 0, NULL },
	{ "mail_send_interval", K_TIME, U(send_interval_us), 0, 0, NULL },
	{ "mail_write_duration", K_TIME, U(write_duration_us), 0, 0, NULL },
	{ "mail_inbox_reply_percentage", K_PCT, U(reply_pct), 0, 0, NULL },
	{ "mail_inbox_delete_percentage", K_PCT, U(delete_pct), 0, 0, NULL },
	{ "mail_inbox_move_percentage", K_PCT, U(move_pct), 0, 0, NULL },
	{ "mail_inbox_move_filter_percentage", K_PCT, U(move_filter_pct), 0, 0,
	  NULL },
	{ "mail_write_size", K_REFUSED, 0, 0, 0,
	  "not supported by imapstress (written mail uses the generator's "
	  "size mix)" },
	{ "mail_inbox_search_percentage", K_REFUSED, 0, 0, 0,
	  "not supported by imapstress" },
	{ "user_count", K_REFUSED, 0, 0, 0,
	  "not supported: a block's users come from count = N%" },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct key client_keys[] = {
	{ "count", K_COUNT, C(count_pct), 0, 0, NULL },
	{ "connection_max_count", K_UINT, C(connection_max), 0, 100, NULL },
	{ "imap_idle", K_BOOL, C(imap_idle), 0, 0, NULL },
	{ "push", K_PUSH, C(push), 0, 0, NULL },
	{ "imap_fetch_immediate", K_FETCH, C(fetch_immediate), 0, 0, NULL },
	{ "imap_fetch_manual", K_FETCH, C(fetch_manual), 0, 0, NULL },
	{ "login_interval", K_TIME, C(login_interval_us), 0, 0, NULL },
	{ "protocol", K_PROTOCOL, C(protocol), 0, 0, NULL },
	/* A POP3 client: RETR without DELE (users_pop3.c). */
	{ "pop3_keep_mails", K_BOOL, C(pop3_keep_mails), 0, 0, NULL },
	/* imaptest parses it and never reads it (2013 to 2025): the same. */
	{ "imap_status_interval", K_TIME, C(status_interval_us), 0, 0, NULL },
	{ "imap_search_query", K_REFUSED, 0, 0, 0,
	  "not supported by imapstress" },
	{ NULL, 0, 0, 0, 0, NULL }
};

/* The same order as enum loadsim_where. */
enum where { IN_ROOT, IN_USER, IN_CLIENT };

#define MAX_KEYS 32	/* per table; the seen[] arrays below */

struct parser {
	struct profile *p;
	const char *path;
	unsigned line;
	enum where in;
	unsigned block_line;
	unsigned seen[MAX_KEYS];	/* line each key of this block was set */
	unsigned seen_global[MAX_KEYS];
	unsigned count_line[2];		/* last count= of user, client */
	char *err;
	size_t errlen;
};

/* A piece of the file, safe for a terminal (escape.h) and bounded. */
static void
shown(char *out, size_t n, const char *s)
{
	size_t len = strlen(s), w = escape_text(out, n, s, len);

	if (escape_len(s, len) > w && w >= 3)
		memcpy(out + w - 3, "...", 3);
}

static int __attribute__((format(printf, 4, 5)))
fail(struct parser *ps, unsigned line, const char *key, const char *fmt, ...)
{
	char k[72], why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	shown(k, sizeof(k), key);
	snprintf(ps->err, ps->errlen, "%s:%u: %s: %s", ps->path, line, k, why);
	/* The value in why came from the file: shown() escaped it. */
	return -1;
}

static const struct key *
key_find(const struct key *t, const char *name, unsigned *idx)
{
	for (unsigned i = 0; t[i].name != NULL; i++)
		if (strcmp(t[i].name, name) == 0) {
			*idx = i;
			return &t[i];
		}
	return NULL;
}

static int
set_value(struct parser *ps, const struct key *k, void *base,
	  const char *key, const char *val)
{
	char *field = (char *)base + k->off;
	const char *why = NULL;
	char v[80];
	uint64_t u64;

	shown(v, sizeof(v), val);
	switch (k->kind) {
	case K_TIME:
		if (profile_parse_time(val, (uint64_t *)(void *)field, &why) < 0)
			return fail(ps, ps->line, key, "'%s': %s", v, why);
		return 0;
	case K_PCT:
	case K_COUNT:
		if (profile_parse_pct(val, k->kind == K_COUNT,
				      (unsigned *)(void *)field, &why) < 0)
			return fail(ps, ps->line, key, "'%s': %s", v, why);
		return 0;
	case K_UINT:
		if (units_parse_uint(val, k->min, k->max, &u64, &why) < 0)
			return fail(ps, ps->line, key, "'%s': %s (%u..%u)", v,
				    why, k->min, k->max);
		*(unsigned *)(void *)field = (unsigned)u64;
		return 0;
	case K_BOOL:
		if (profile_parse_bool(val, (bool *)(void *)field, &why) < 0)
			return fail(ps, ps->line, key, "'%s': %s", v, why);
		return 0;
	case K_FETCH:
		if (profile_parse_fetch(val, (char **)(void *)field, &why) < 0)
			return fail(ps, ps->line, key, "'%s': %s", v, why);
		return 0;
	case K_TEMPLATE: {
		struct profile_user_block *ub = base;
		if (profile_parse_template(val, &ub->username, &why) < 0) {
			/* judged in finish(), once count = is known */
			ub->username_bad_line = ps->line;
			snprintf(ub->username_bad, sizeof(ub->username_bad),
				 "'%s': %s", v, why);
			return 0;
		}
		ub->has_username = true;
		ub->username_bad_line = 0;
		return 0;
	}
	case K_PATH: {
		struct profile_user_block *ub = base;
		if (val[0] == '\0')
			return fail(ps, ps->line, key, "empty value");
		ub->userfile = xstrdup(val);
		ub->userfile_line = ps->line;
		return 0;
	}
	case K_PROTOCOL:
		if (strcmp(val, "imap") == 0) {
			*(enum profile_protocol *)(void *)field = PROFILE_PROTO_IMAP;
			return 0;
		}
		if (strcmp(val, "pop3") == 0) {
			*(enum profile_protocol *)(void *)field = PROFILE_PROTO_POP3;
			return 0;
		}
		return fail(ps, ps->line, key, "'%s': not a protocol (imap, pop3)",
			    v);
	case K_PUSH:
		if (strcmp(val, "idle") == 0 || strcmp(val, "notify") == 0) {
			*(enum profile_push *)(void *)field = val[0] == 'i' ?
			    PROFILE_PUSH_IDLE : PROFILE_PUSH_NOTIFY;
			return 0;
		}
		return fail(ps, ps->line, key, "'%s': not a push mechanism "
			    "(idle, notify)", v);
	case K_SIZES: {
		char whybuf[160];
		if (msg_sizes_parse(val, (struct msg_sizes *)(void *)field,
				    whybuf, sizeof(whybuf)) < 0)
			return fail(ps, ps->line, key, "%s", whybuf);
		return 0;
	}
	case K_REFUSED:
		return fail(ps, ps->line, key, "%s", k->why);
	}
	return fail(ps, ps->line, key, "internal: unhandled key kind");
}

static int
key_value(struct parser *ps, char *line, char *eq)
{
	char *key = line, *val = eq + 1, *end = eq;
	const struct key *table;
	unsigned *seen, idx;
	void *base;

	while (end > key && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
	while (*val == ' ' || *val == '\t')
		val++;
	if (key[0] == '\0')
		return fail(ps, ps->line, "=", "a key is missing before '='");
	switch (ps->in) {
	case IN_USER:
		table = user_keys;
		base = &ps->p->users[ps->p->n_user_blocks - 1];
		seen = ps->seen;
		break;
	case IN_CLIENT:
		table = client_keys;
		base = &ps->p->clients[ps->p->n_client_blocks - 1];
		seen = ps->seen;
		break;
	default:
		table = global_keys;
		base = ps->p;
		seen = ps->seen_global;
		break;
	}
	const struct key *k = key_find(table, key, &idx);
	if (k == NULL) {
		/* The LoadSim extension (profile_loadsim.c) and submission
		 * (profile_submit.c) have their own. */
		char why[256];
		int sr = ps->in == IN_ROOT ? profile_submit_key(ps->p, key, val,
		    ps->line, why, sizeof(why)) : 1;
		if (sr <= 0)
			return sr == 0 ? 0 : fail(ps, ps->line, key, "%s", why);
		unsigned block = ps->in == IN_USER ? ps->p->n_user_blocks - 1
		    : ps->in == IN_CLIENT ? ps->p->n_client_blocks - 1 : 0;
		int r = profile_loadsim_key(ps->p, (enum loadsim_where)ps->in,
					    block, key, val, ps->line, why,
					    sizeof(why));
		if (r <= 0)
			return r == 0 ? 0 : fail(ps, ps->line, key, "%s", why);
		unsigned other;
		if (ps->in == IN_ROOT && (key_find(user_keys, key, &other) ||
					  key_find(client_keys, key, &other)))
			return fail(ps, ps->line, key, "belongs in a user { } "
				    "or client { } block");
		if (ps->in != IN_ROOT && key_find(global_keys, key, &other))
			return fail(ps, ps->line, key, "is a global key: put it "
				    "outside the blocks");
		return fail(ps, ps->line, key, "unknown key in %s",
			    ps->in == IN_USER ? "a user { } block"
			    : ps->in == IN_CLIENT ? "a client { } block"
			    : "the global section");
	}
	if (seen[idx] != 0)
		return fail(ps, ps->line, key, "given twice (first on line %u)",
			    seen[idx]);
	seen[idx] = ps->line;
	if (k->kind == K_COUNT)
		ps->count_line[ps->in == IN_CLIENT] = ps->line;
	return set_value(ps, k, base, key, val);
}

static int
open_block(struct parser *ps, char *line, size_t len)
{
	char *end = line + len - 1;	/* the '{' */
	char *kind = line, *name;

	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
	name = kind;
	while (*name != '\0' && *name != ' ' && *name != '\t')
		name++;
	if (*name != '\0')
		*name++ = '\0';
	while (*name == ' ' || *name == '\t')
		name++;
	if (ps->in != IN_ROOT)
		return fail(ps, ps->line, kind, "blocks do not nest (the block "
			    "from line %u is still open)", ps->block_line);
	bool user = strcmp(kind, "user") == 0;
	if (!user && strcmp(kind, "client") != 0) {
		if (strcmp(kind, "imap") == 0 || strcmp(kind, "pop3") == 0 ||
		    strcmp(kind, "lmtp") == 0)
			return fail(ps, ps->line, kind, "%s { } blocks are not "
				    "supported (the server is host=/port=, "
				    "LMTP is lmtp_port)", kind);
		return fail(ps, ps->line, kind[0] ? kind : "{",
			    "unknown block (user or client)");
	}
	size_t nlen = strlen(name);
	if (nlen > PROFILE_MAX_NAME)
		return fail(ps, ps->line, kind, "block name longer than %d",
			    PROFILE_MAX_NAME);
	for (size_t i = 0; i < nlen; i++)
		if (!isgraph((unsigned char)name[i]))
			return fail(ps, ps->line, kind, "block name must be one "
				    "word of printable characters");
	unsigned n = user ? ps->p->n_user_blocks : ps->p->n_client_blocks;
	if (n == PROFILE_MAX_BLOCKS)
		return fail(ps, ps->line, kind, "more than %d %s blocks",
			    PROFILE_MAX_BLOCKS, kind);
	/* A name is only a label: imaptest reads two blocks of one name
	 * (its pop3-profile.conf has two `client pop3 {`) as two blocks. */
	if (user) {
		struct profile_user_block *b = &ps->p->users[ps->p->n_user_blocks++];
		memcpy(b->name, name, nlen + 1);
		b->line = ps->line;
		b->start_index = 1;	/* imaptest's default */
		ps->in = IN_USER;
	} else {
		struct profile_client_block *b =
			&ps->p->clients[ps->p->n_client_blocks++];
		memcpy(b->name, name, nlen + 1);
		b->line = ps->line;
		b->connection_max = 1;	/* unset: one (imaptest: none) */
		ps->in = IN_CLIENT;
	}
	ps->block_line = ps->line;
	memset(ps->seen, 0, sizeof(ps->seen));
	return 0;
}

static int
parse_line(struct parser *ps, char *line)
{
	size_t len = strlen(line);

	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
			   line[len - 1] == '\r'))
		line[--len] = '\0';
	while (*line == ' ' || *line == '\t') {
		line++;
		len--;
	}
	if (len == 0 || line[0] == '#')
		return 0;
	if (strcmp(line, "}") == 0) {
		if (ps->in == IN_ROOT)
			return fail(ps, ps->line, "}", "no block is open");
		ps->in = IN_ROOT;
		return 0;
	}
	char *eq = strchr(line, '=');
	if (eq != NULL)
		return key_value(ps, line, eq);
	if (line[len - 1] == '{')
		return open_block(ps, line, len);
	char k[48];
	shown(k, sizeof(k), line);
	return fail(ps, ps->line, k, "not 'key = value', 'user NAME {', "
		    "'client NAME {' or '}'");
}

static const char *
block_desc(char *buf, size_t n, const char *kind, const char *name)
{
	snprintf(buf, n, name[0] ? "%s block '%s'" : "%s block%s", kind, name);
	return buf;
}

/* The checks that need every line. */
static int
finish(struct parser *ps)
{
	struct profile *p = ps->p;
	unsigned sum = 0;
	char d[96];

	if (ps->in != IN_ROOT)
		return fail(ps, ps->block_line, ps->in == IN_USER ? "user"
			    : "client", "block is never closed (no '}' "
			    "before the end of the file)");
	if (p->lmtp_port == 0)
		return fail(ps, ps->line, "lmtp_port", "missing (required)");
	if (p->total_users == 0)
		return fail(ps, ps->line, "total_user_count",
			    "missing (required)");
	if (p->n_user_blocks == 0)
		return fail(ps, ps->line, "user", "no user { } block (at least "
			    "one is required)");
	if (p->n_client_blocks == 0)
		return fail(ps, ps->line, "client", "no client { } block (at "
			    "least one is required)");
	for (unsigned i = 0; i < p->n_user_blocks; i++) {
		struct profile_user_block *b = &p->users[i];
		block_desc(d, sizeof(d), "user", b->name);
		if (b->username_bad_line && b->count_pct == 0)
			continue;	/* no users: never expanded */
		if (b->username_bad_line)
			return fail(ps, b->username_bad_line, "username_format",
				    "%s", b->username_bad);
		if (!b->has_username && b->userfile == NULL)
			return fail(ps, b->line, "username_format", "%s needs "
				    "username_format or userfile", d);
		sum += b->count_pct;
	}
	if (sum != 100)
		return fail(ps, ps->count_line[0], "count", "the user blocks' "
			    "counts add up to %u%%, not 100%%", sum);
	sum = 0;
	for (unsigned i = 0; i < p->n_client_blocks; i++) {
		const struct profile_client_block *cb = &p->clients[i];
		sum += cb->count_pct;
	}
	if (sum != 100)
		return fail(ps, ps->count_line[1], "count", "the client blocks' "
			    "counts add up to %u%%, not 100%%", sum);
	char why[256];
	const char *key = NULL;
	unsigned line = 0;
	if (profile_loadsim_finish(p, &line, &key, why, sizeof(why)) < 0)
		return fail(ps, line, key, "%s", why);
	return 0;
}

/* count= is required in every block: checked when the block closes,
 * while seen[] still says which keys it had. */
static int
close_check(struct parser *ps, enum where was)
{
	unsigned idx;
	char d[96];

	key_find(was == IN_USER ? user_keys : client_keys, "count", &idx);
	if (ps->seen[idx] != 0)
		return 0;
	if (was == IN_USER)
		block_desc(d, sizeof(d), "user",
			   ps->p->users[ps->p->n_user_blocks - 1].name);
	else
		block_desc(d, sizeof(d), "client",
			   ps->p->clients[ps->p->n_client_blocks - 1].name);
	return fail(ps, ps->block_line, "count", "missing in %s (required)", d);
}

struct profile *
profile_parse(const char *path, const char *text, size_t len, char *err,
	      size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen };
	char *copy = xmalloc(len + 1);
	int rc = 0;

	memcpy(copy, text, len);
	copy[len] = '\0';
	ps.p = xcalloc(1, sizeof(*ps.p));
	/* Kept escaped: it is only ever shown, in messages and the plan. */
	ps.p->path = xmalloc(escape_len(path, strlen(path)) + 1);
	escape_text(ps.p->path, escape_len(path, strlen(path)) + 1, path,
		    strlen(path));
	ps.path = ps.p->path;
	if (memchr(text, '\0', len) != NULL) {
		const char *nul = memchr(text, '\0', len);
		unsigned line = 1;
		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		rc = fail(&ps, line, "file", "holds a NUL byte (not a text file)");
	}
	for (char *at = copy; rc == 0 && at < copy + len;) {
		char *nl = memchr(at, '\n', (size_t)(copy + len - at));
		if (nl != NULL)
			*nl = '\0';
		ps.line++;
		enum where was = ps.in;
		rc = parse_line(&ps, at);
		if (rc == 0 && was != IN_ROOT && ps.in == IN_ROOT)
			rc = close_check(&ps, was);
		at = nl != NULL ? nl + 1 : copy + len;
	}
	free(copy);
	if (rc == 0)
		rc = finish(&ps);
	if (rc != 0) {
		profile_free(ps.p);
		return NULL;
	}
	return ps.p;
}

struct profile *
profile_load(const char *path, char *err, size_t errlen)
{
	char why[256];
	size_t len;
	/* A regular file only, and bounded: a FIFO or /dev/zero would hang
	 * or fill memory at startup. */
	char *buf = infile_read(path, PROFILE_MAX_FILE, &len, why, sizeof(why));

	if (buf == NULL) {
		char shown_path[256];
		escape_text(shown_path, sizeof(shown_path), path, strlen(path));
		snprintf(err, errlen, "%s: %s", shown_path, why);
		return NULL;
	}
	struct profile *p = profile_parse(path, buf, len, err, errlen);
	free(buf);
	return p;
}

void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	for (unsigned i = 0; i < p->n_user_blocks; i++) {
		profile_template_free(&p->users[i].username);
		free(p->users[i].userfile);
		userfile_free(p->userfiles[i]);
	}
	free(p->submission_host);
	free(p->submission_domain);
	free(p->lmtp_host);
	free(p->pop3_host);
	for (unsigned i = 0; i < p->n_client_blocks; i++) {
		free(p->clients[i].fetch_immediate);
		free(p->clients[i].fetch_manual);
	}
	for (unsigned i = 0; i < p->n_u; i++)
		free(p->u[i].name);
	free(p->u);
	free(p->path);
	free(p);
}
