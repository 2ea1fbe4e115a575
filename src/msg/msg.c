/* msg.c: the message pool and its mbox source.  Each pool is one arena of
 * CRLF text plus an index, built once at startup and read-only afterwards,
 * so workers share it without locks and APPEND sends bodies straight from
 * the arena.  The generators live in msg_gen.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/infile.h"
#include "msg/msg.h"
#include "msg/msg_private.h"
#include "util/xmalloc.h"

void
msg_pool_free(struct msg_pool *p)
{
	if (p == NULL)
		return;
	free(p->arena);
	free(p->msgs);
	free(p);
}

unsigned
msg_pool_count(const struct msg_pool *p)
{
	return p->count;
}

/* NULL when idx is out of range. */
const struct msg *
msg_pool_get(const struct msg_pool *p, unsigned idx)
{
	return idx < p->count ? &p->msgs[idx] : NULL;
}

unsigned
msg_pool_pick(const struct msg_pool *p, struct rng *r)
{
	if (p->sizes.n == 0)
		return rng_below(r, p->count);
	unsigned b = msg_sizes_draw(&p->sizes, r);
	return p->first[b] + rng_below(r, p->per[b]);
}

uint64_t
msg_pool_bytes(const struct msg_pool *p)
{
	return p->bytes;
}

/* The Message-ID line up to its sequence number, and the marker line:
 * both depend on the run id alone, so each thread writes them once per
 * run id and copies them after.  Every APPEND and LMTP delivery sends the
 * marker (its 16 hex digits written afresh were 157 instructions of each
 * pipelined APPEND, callgrind), and a generated message an id line, which
 * was an snprintf each. */
#define MSG_ID_PREFIX "Message-ID: <"
#define MSG_ID_SUFFIX "@imapstress.invalid>\r\n"
#define MSG_ID_SEQ_AT (sizeof(MSG_ID_PREFIX) - 1 + 16 + 1)
_Static_assert(MSG_ID_SEQ_AT + 8 + sizeof(MSG_ID_SUFFIX) - 1 ==
	       MSG_ID_LINE_LEN, "the id line is MSG_ID_LINE_LEN octets");

struct msg_lines {
	uint64_t run_id;
	bool made;
	char mark[MSG_MARK_LINE_LEN + 1];
	char id[MSG_ID_LINE_LEN + 1];
};
static _Thread_local struct msg_lines msg_lines;

/* v's n low nibbles as lowercase hex digits at out, the highest first. */
static void
hex_digits(char *out, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = "0123456789abcdef"[(v >> (4 * (n - 1 - i))) & 0xf];
}

static const struct msg_lines *
lines_of(uint64_t run_id)
{
	struct msg_lines *l = &msg_lines;
	if (l->made && l->run_id == run_id)
		return l;
	size_t n = sizeof(MSG_MARK_PREFIX) - 1;
	memcpy(l->mark, MSG_MARK_PREFIX, n);
	hex_digits(l->mark + n, run_id, 16);
	memcpy(l->mark + n + 16, MSG_MARK_SUFFIX, sizeof(MSG_MARK_SUFFIX));
	n = sizeof(MSG_ID_PREFIX) - 1;
	memcpy(l->id, MSG_ID_PREFIX, n);
	hex_digits(l->id + n, run_id, 16);
	l->id[n + 16] = '.';
	memcpy(l->id + MSG_ID_SEQ_AT + 8, MSG_ID_SUFFIX, sizeof(MSG_ID_SUFFIX));
	l->run_id = run_id;
	l->made = true;
	return l;
}

void
msg_id_line(char *out, uint64_t run_id, uint32_t seq)
{
	memcpy(out, lines_of(run_id)->id, MSG_ID_LINE_LEN + 1);
	hex_digits(out + MSG_ID_SEQ_AT, seq, 8);
}

void
msg_mark_line(char *out, uint64_t run_id)
{
	memcpy(out, lines_of(run_id)->mark, MSG_MARK_LINE_LEN + 1);
}

size_t
msg_head(char *out, const struct msg *m, uint64_t run_id, uint32_t seq)
{
	msg_mark_line(out, run_id);
	if (!m->needs_id)
		return MSG_MARK_LINE_LEN;
	msg_id_line(out + MSG_MARK_LINE_LEN, run_id, seq);
	return MSG_MARK_LINE_LEN + MSG_ID_LINE_LEN;
}

/* ------------------------------------------------------------------ */
/* mbox                                                                */

/* One scan serves two passes: with out == NULL it only measures, so the
 * arena is allocated once at its exact size (a bare-LF mbox grows when
 * converted; sizing for the worst case would double a large file). */
struct mbox_scan {
	char *out;		/* NULL on the measuring pass */
	size_t cap, len, start;
	struct msg *msgs;
	unsigned msgs_cap, count;
	bool nonempty, overflow;
	/* In the message's header section; skipping an X-Imapstress field
	 * (and its folded lines) the file brought along: the sender puts
	 * this run's marker first, and a message carries one marker. */
	bool in_header, skip_field;
	/* A mapped file: the pages behind the scan are dropped as it goes
	 * (mbox_release), so that the file and the arena are never both
	 * resident: a 149 MB mbox peaks near 1x its size, not 2x. */
	const char *map;
	size_t released;
};

/* Pages dropped at a time: large enough that madvise is rare. */
#define MBOX_RELEASE_STEP (4u << 20)

static void
mbox_release(struct mbox_scan *s, const char *upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t off = (size_t)(upto - s->map) / page * page;

	if (s->map == NULL || off - s->released < MBOX_RELEASE_STEP)
		return;
	/* A private read-only file mapping: the pages come back from the
	 * page cache if touched again, so this only lowers our RSS. */
	(void)madvise((char *)s->map + s->released, off - s->released,
	    MADV_DONTNEED);
	s->released = off;
}

static void
mbox_emit_line(struct mbox_scan *s, const char *p, size_t n)
{
	if (s->out != NULL) {
		/* The file changed between passes: never write past the
		 * arena sized by the first one. */
		if (s->cap - s->len < n + 2) {
			s->overflow = true;
			return;
		}
		memcpy(s->out + s->len, p, n);
		memcpy(s->out + s->len + n, "\r\n", 2);
	}
	s->len += n + 2;
	if (n > 0)
		s->nonempty = true;
}

static void
mbox_end_msg(struct mbox_scan *s)
{
	if (!s->nonempty) {
		/* Only blank lines (or none): nothing worth APPENDing. */
		s->len = s->start;
	} else if (s->out != NULL) {
		if (s->count >= s->msgs_cap) {
			s->overflow = true;
			return;
		}
		s->msgs[s->count].data = s->out + s->start;
		s->msgs[s->count].len = s->len - s->start;
		s->msgs[s->count].needs_id = false;
		s->count++;
	} else {
		s->count++;
	}
	s->start = s->len;
	s->nonempty = false;
}

/* True when the line [p, le) is part of an X-Imapstress field in the
 * header section (say an mbox saved from a mailbox an earlier run
 * filled); tracks where the header section ends. */
static bool
mbox_old_mark(struct mbox_scan *s, const char *p, const char *le)
{
	static const char field[] = MSG_MARK_FIELD ":";
	const size_t fl = sizeof(field) - 1;
	const char *e = le;

	if (!s->in_header)
		return false;
	while (e > p && e[-1] == '\r')
		e--;
	if (e == p) {
		s->in_header = s->skip_field = false;
		return false;
	}
	if (*p != ' ' && *p != '\t')
		s->skip_field = (size_t)(le - p) >= fl &&
		    strncasecmp(p, field, fl) == 0;
	return s->skip_field;
}

static void
mbox_scan(struct mbox_scan *s, const char *in, size_t n)
{
	const char *p = in, *end = in + n;
	bool in_msg = false;

	while (p < end && !s->overflow) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		const char *next = nl != NULL ? nl + 1 : end;

		if (le - p >= 5 && memcmp(p, "From ", 5) == 0) {
			if (in_msg)
				mbox_end_msg(s);
			in_msg = true;
			s->in_header = true;
			s->skip_field = false;
		} else if (in_msg && mbox_old_mark(s, p, le)) {
			/* dropped: an earlier run's marker */
		} else if (in_msg) {
			const char *b = p, *e = le, *q = p;
			/* All trailing CRs go, so "\r\r\n" cannot become
			 * CR CR LF on the wire. */
			while (e > b && e[-1] == '\r')
				e--;
			/* mboxrd: ">From ", ">>From " ... lose one '>'. */
			while (q < e && *q == '>')
				q++;
			if (q > b && e - q >= 5 && memcmp(q, "From ", 5) == 0)
				b++;
			mbox_emit_line(s, b, (size_t)(e - b));
		}
		p = next;
		mbox_release(s, p);
	}
	if (in_msg && !s->overflow)
		mbox_end_msg(s);
}

struct msg_pool *
msg_pool_from_mbox(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *in = NULL, why[256];
	size_t n = 0;
	bool mapped = false;
	/* A regular file only (infile.h): a FIFO or /dev/zero would hang
	 * the start or fill memory. */
	int fd = infile_open(path, MSG_MBOX_MAX, &st, why, sizeof(why));

	if (fd < 0) {
		snprintf(err, errlen, "mbox=%s: %s", path, why);
		return NULL;
	}
	if (st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ,
		    MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			in = m;
			n = (size_t)st.st_size;
			mapped = true;
			(void)madvise(m, n, MADV_SEQUENTIAL);
		}
	}
	if (!mapped && (in = infile_read_fd(fd, MSG_MBOX_MAX, &n, why,
					    sizeof(why))) == NULL) {
		snprintf(err, errlen, "mbox=%s: %s", path, why);
		close(fd);
		return NULL;
	}
	close(fd);

	struct msg_pool *pool = NULL;
	struct mbox_scan s = { 0 };
	if (mapped)
		s.map = in;
	if (n >= 5 && memcmp(in, "From ", 5) == 0)
		mbox_scan(&s, in, n);
	if (s.count == 0) {
		snprintf(err, errlen, "mbox=%s: no messages found (not an "
		    "mbox? first line must start with 'From ')", path);
		goto out;
	}
	pool = xcalloc(1, sizeof(*pool));
	pool->arena = xmalloc(s.len);
	pool->msgs = xmalloc(s.count * sizeof(*pool->msgs));
	s = (struct mbox_scan){ .out = pool->arena, .cap = s.len,
	    .msgs = pool->msgs, .msgs_cap = s.count,
	    .map = mapped ? in : NULL };
	mbox_scan(&s, in, n);
	if (s.overflow) {
		snprintf(err, errlen, "mbox=%s: file changed while being read",
		    path);
		msg_pool_free(pool);
		pool = NULL;
		goto out;
	}
	pool->count = s.count;
	pool->bytes = s.len;
out:
	if (mapped)
		munmap(in, n);
	else
		free(in);
	return pool;
}
