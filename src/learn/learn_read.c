/* learn_read.c: the two recorded formats, put back into sessions.
 *
 * Dovecot's rawlog: one session per pair of files, NAME.in (what the
 * client sent) and NAME.out (what the server sent), written from login on
 * (rawlog_dir) or from the connect (imap-login -R, the rawlog binary);
 * each line begins with "SECONDS.MICROSECONDS " when the log has times
 * (rawlog_dir always, the rawlog binary with -t).  The user is the LOGIN
 * in the log, else the name of the directory the files are in
 * (rawlog_dir = .../%u).
 *
 * imapstress's rawlog (--rawlog): one file per client slot, "# connection
 * N: connecting as USER" starting each session, "C: " and "S: " lines,
 * line ends written as one newline, long lines cut with "<N more octets>",
 * no times; "# stopping" says the run's end began, and what follows (the
 * LOGOUT of its drain) is no part of the mix.
 *
 * A file that is neither, holds a NUL, or records another protocol is
 * named with its line and skipped; a session cut short keeps the
 * commands it finished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn/learn_int.h"
#include "learn/learn_lines.h"
#include "util/infile.h"
#include "util/log.h"

/* A log is read whole; larger ones are refused by name. */
#define LEARN_FILE_MAX ((size_t)1 << 30)

struct lsrc {
	const char *path;
	const char *p, *end;
	unsigned line;
	bool ts;		/* lines begin with a time */
	bool partial;		/* the last line had no newline */
};

/* "1796502621.119140 ": its length, 0 when the text does not start so. */
static size_t
ts_len(const char *p, const char *end, double *t)
{
	const char *q = p;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q - p < 1 || q >= end || *q != '.')
		return 0;
	const char *f = ++q;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q - f != 6 || q >= end || *q != ' ')
		return 0;
	*t = strtod(p, NULL);
	return (size_t)(q + 1 - p);
}

/* The next line: text without its line end, term = octets of line end. */
static bool
src_line(struct lsrc *s, const char **text, size_t *len, unsigned *term,
	 double *t)
{
	if (s->p >= s->end)
		return false;
	const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
	const char *e = nl ? nl : s->end;
	s->line++;
	*t = -1;
	if (s->ts)
		s->p += ts_len(s->p, e, t);
	*text = s->p;
	*len = (size_t)(e - s->p);
	*term = nl ? 1 : 0;
	if (nl == NULL)
		s->partial = true;
	if (*len > 0 && (*text)[*len - 1] == '\r') {
		(*len)--;
		(*term)++;
	}
	s->p = nl ? nl + 1 : s->end;
	return true;
}

static char *
read_all(const char *path, size_t *len)
{
	char why[256];
	char *buf = infile_read(path, LEARN_FILE_MAX, len, why, sizeof(why));
	if (buf == NULL)
		log_warn("%s: %s: skipped", path, why);
	return buf;
}

/* A NUL: binary data, not a log.  Its line for the message. */
static bool
is_binary(const char *path, const char *buf, size_t len)
{
	const char *z = memchr(buf, '\0', len);
	if (z == NULL)
		return false;
	unsigned line = 1;
	for (const char *p = buf; p < z; p++)
		line += *p == '\n';
	log_warn("%s:%u: binary data (a NUL octet), not a rawlog: skipped",
		 path, line);
	return true;
}

/* POP3, SMTP and LMTP open with their verbs or replies: a rawlog_dir
 * that also logs them holds such files next to IMAP's. */
static const char *
other_protocol(const char *text, size_t len, bool server)
{
	static const char *const client_verbs[] = {
		"USER ", "PASS ", "APOP ", "CAPA", "STAT", "RETR ", "UIDL",
		"EHLO ", "HELO ", "LHLO ", "MAIL FROM:", "RCPT TO:", "DATA",
		"QUIT", "STLS", "AUTH "
	};
	if (server) {
		if (len >= 3 && strncmp(text, "+OK", 3) == 0)
			return "POP3";
		if (len >= 4 && (strncmp(text, "220 ", 4) == 0 ||
				 strncmp(text, "220-", 4) == 0 ||
				 strncmp(text, "250", 3) == 0))
			return "SMTP or LMTP";
		return NULL;
	}
	for (size_t i = 0; i < sizeof(client_verbs) / sizeof(*client_verbs); i++) {
		size_t n = strlen(client_verbs[i]);
		if (len >= n && strncasecmp(text, client_verbs[i], n) == 0)
			return "POP3, SMTP or LMTP";
	}
	return NULL;
}

/* A whole client unit: a command, or an AUTHENTICATE's SASL line, or the
 * DONE of an IDLE. */
static void
client_unit(struct learn *l, struct lsession *s, struct ldir *d)
{
	const char *t = d->buf;
	size_t len = d->len;
	if (len == 0)
		return;
	if (s->pending_auth && (memchr(t, ' ', len) == NULL ||
				strncmp(t, "<secret", 7) == 0))
		return;		/* SASL data: never kept */
	if (s->pending_idle && len == 4 && strncasecmp(t, "DONE", 4) == 0) {
		s->pending_idle = false;
		for (size_t i = s->n; i-- > 0;)
			if (s->c[i].op == OP_IDLE) {
				if (d->t0 >= 0 && s->c[i].t_sent >= 0)
					lhist_add(&l->idle_us, (d->t0 - s->c[i].t_sent) * 1e6);
				break;
			}
		return;
	}
	struct lcmd *c = lsession_add(s);
	c->line = d->line0;
	c->t_sent = d->t0;
	c->after_end = s->stopped || (l->until > 0 && d->t0 > l->until);
	learn_cmd_classify(l, s, c, t, len, d->lits, d->n_lits);
	if (c->op == OP_LOGIN || c->op == OP_AUTHENTICATE)
		s->implied_login = false;
}

static void
server_unit(struct learn *l, struct lsession *s, struct ldir *d)
{
	uint64_t sizes[LDIR_LITS];
	for (size_t i = 0; i < d->n_lits; i++)
		sizes[i] = d->lits[i].size;
	learn_resp(l, s, d->buf, d->len, d->t0, sizes, d->n_lits);
}

static void
times_seen(struct lsession *s, double t)
{
	if (t < 0)
		return;
	s->timed = true;
	if (s->t_first < 0 || t < s->t_first)
		s->t_first = t;
	if (t > s->t_last)
		s->t_last = t;
}

static void
truncated(struct learn *l, const char *path, const struct ldir *d,
	  unsigned last_line)
{
	l->truncated++;
	if (d->lit_left > 0)
		log_warn("%s:%u: truncated: a literal is %llu octets short at "
			 "line %u; that command is not counted", path, d->line0,
			 (unsigned long long)d->lit_left, last_line);
	else
		log_warn("%s:%u: truncated: the line has no end; that command "
			 "is not counted", path, d->line0);
}

/* Read one direction of a Dovecot session.  -1: skipped (said). */
static int
dovecot_side(struct learn *l, struct lsession *s, const char *path,
	     bool server)
{
	size_t blen;
	char *buf = read_all(path, &blen);
	if (buf == NULL)
		return -1;
	if (is_binary(path, buf, blen)) {
		free(buf);
		return -1;
	}
	struct lsrc src = { path, buf, buf + blen, 0, false, false };
	double t0;
	src.ts = ts_len(buf, buf + blen, &t0) > 0;
	struct ldir d = { .capture = !server };
	const char *text;
	size_t len;
	unsigned term;
	double t;
	int rc = 0;
	bool first = true;
	while (src_line(&src, &text, &len, &term, &t)) {
		if (first && d.lit_left == 0 && len > 0) {
			const char *other = other_protocol(text, len, server);
			if (other != NULL) {
				log_warn("%s:%u: looks like %s, not IMAP: "
					 "skipped", path, src.line, other);
				rc = -1;
				break;
			}
			first = false;
		}
		times_seen(s, t);
		if (term == 0)
			break;	/* a partial last line: see below */
		if (!ldir_feed(&d, text, len, term, 0, src.line, t))
			continue;
		if (d.overflow)
			log_warn("%s:%u: a line of over %u octets: not counted",
				 path, d.line0, LDIR_MAX);
		else if (server)
			server_unit(l, s, &d);
		else
			client_unit(l, s, &d);
		ldir_reset(&d);
	}
	if (rc == 0 && (ldir_pending(&d) || src.partial) && !server)
		truncated(l, path, &d, src.line);
	if (!server)
		l->formats[src.ts ? LFMT_DOVECOT_TS : LFMT_DOVECOT]++;
	ldir_free(&d);
	free(buf);
	return rc;
}

static void
new_session(struct lsession *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->user = -1;
	s->exists = -1;
	s->selected_box = -1;
	s->t_first = s->t_last = -1;
}

/* The user of a post-login Dovecot log: its directory's name. */
static int
dir_user(struct learn *l, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash == NULL || slash == path)
		return lnames_add(&l->users, ".", 1);
	const char *b = slash;
	while (b > path && b[-1] != '/')
		b--;
	return lnames_add(&l->users, b, (size_t)(slash - b));
}

static int
learn_dovecot(struct learn *l, const char *in_path)
{
	size_t n = strlen(in_path);
	char *out_path = malloc(n + 2);
	if (out_path == NULL)
		return -1;
	memcpy(out_path, in_path, n - 3);
	memcpy(out_path + n - 3, ".out", 5);
	struct lsession s;
	new_session(&s, in_path);
	s.implied_login = true;
	int rc = dovecot_side(l, &s, in_path, false);
	if (rc == 0) {
		FILE *f = fopen(out_path, "r");
		if (f == NULL)
			log_warn("%s: no %s beside it: commands only, no "
				 "answers", in_path, strrchr(out_path, '/') ?
				 strrchr(out_path, '/') + 1 : out_path);
		else {
			fclose(f);
			(void)dovecot_side(l, &s, out_path, true);
		}
		if (s.user < 0)
			s.user = dir_user(l, in_path);
		learn_session_end(l, &s);
	} else {
		lsession_free(&s);
	}
	free(out_path);
	return rc;
}

/* "C: ...", "S: ...", "# ...": an imapstress rawlog line? */
static bool
stress_line(const char *t, size_t len)
{
	return len >= 2 && (t[0] == 'C' || t[0] == 'S' || t[0] == '#') &&
	    (t[1] == ':' || t[0] == '#') && (len == 2 || t[2] == ' ' || t[0] == '#');
}

/* A line the rawlog writer cut: " <N more octets>" after 2048 octets. */
static uint64_t
stress_cut(const char *t, size_t *len)
{
	const char *tail = " more octets>";
	size_t tl = strlen(tail);
	if (*len < 2048 + tl + 3 || memcmp(t + *len - tl, tail, tl) != 0)
		return 0;
	const char *lt = t + 2048;
	if (lt[0] != ' ' || lt[1] != '<')
		return 0;
	uint64_t n = strtoull(lt + 2, NULL, 10);
	*len = 2048;
	return n;
}

static int
learn_stress(struct learn *l, const char *path, char *buf, size_t blen)
{
	struct lsrc src = { path, buf, buf + blen, 0, false, false };
	struct ldir cd = { .capture = true }, sd = { 0 };
	struct lsession s;
	bool open = false;
	unsigned bad = 0, sessions = 0;
	const char *text;
	size_t len;
	unsigned term;
	double t;
	new_session(&s, path);
	while (src_line(&src, &text, &len, &term, &t)) {
		if (len == 0)
			continue;
		if (!stress_line(text, len)) {
			if (bad++ == 0)
				log_warn("%s:%u: not an imapstress rawlog line: "
					 "skipped", path, src.line);
			continue;
		}
		if (text[0] == '#') {
			const char *as = memmem(text, len, ": connecting as ", 16);
			if (len >= 10 && memcmp(text, "# stopping", 10) == 0)
				s.stopped = true;
			if (as == NULL)
				continue;
			if (open) {
				if (ldir_pending(&cd))
					truncated(l, path, &cd, src.line);
				learn_session_end(l, &s);
				sessions++;
			}
			new_session(&s, path);
			open = true;
			ldir_reset(&cd);
			ldir_reset(&sd);
			const char *u = as + 16;
			s.user = lnames_add(&l->users, u, (size_t)(text + len - u));
			continue;
		}
		if (!open) {
			open = true;	/* a log that starts mid-session */
		}
		size_t body = len - (len >= 3 ? 3 : len);
		const char *bt = text + (len >= 3 ? 3 : len);
		uint64_t cut = stress_cut(bt, &body);
		struct ldir *d = text[0] == 'C' ? &cd : &sd;
		if (!ldir_feed(d, bt, body, term ? 2 : 0, cut, src.line, -1))
			continue;
		if (text[0] == 'C')
			client_unit(l, &s, d);
		else
			server_unit(l, &s, d);
		ldir_reset(d);
	}
	if (bad > 1)
		log_warn("%s: %u lines in all were not rawlog lines", path, bad);
	if (open) {
		if (ldir_pending(&cd))
			truncated(l, path, &cd, src.line);
		learn_session_end(l, &s);
		sessions++;
	} else {
		lsession_free(&s);
	}
	l->formats[LFMT_IMAPSTRESS]++;
	ldir_free(&cd);
	ldir_free(&sd);
	return sessions > 0 ? 0 : -1;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

int
learn_file(struct learn *l, const char *path)
{
	if (ends_with(path, ".in"))
		return learn_dovecot(l, path);
	size_t blen;
	char *buf = read_all(path, &blen);
	if (buf == NULL)
		return -1;
	int rc = -1;
	const char *nl = memchr(buf, '\n', blen);
	size_t first = nl ? (size_t)(nl - buf) : blen;
	if (is_binary(path, buf, blen))
		;
	else if (blen == 0)
		log_warn("%s: empty: skipped", path);
	else if (stress_line(buf, first))
		rc = learn_stress(l, path, buf, blen);
	else
		log_warn("%s:1: neither a Dovecot rawlog (NAME.in with NAME.out)"
			 " nor an imapstress rawlog (C:, S:, # lines): skipped",
			 path);
	free(buf);
	return rc;
}
