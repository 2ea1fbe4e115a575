/* compress.c: RFC 4978 COMPRESS=DEFLATE as a libevent filter bufferevent.
 *
 * Both directions are raw DEFLATE (windowBits -15).  zlib reads straight
 * out of the evbuffer chains (evbuffer_peek) and writes straight into
 * reserved space of the destination (evbuffer_reserve_space), so octets are
 * copied only by zlib itself and nothing is allocated per call.
 *
 * The subtle part is what zlib holds back.  deflate keeps output until it
 * is flushed, so every batch ends with Z_SYNC_FLUSH and the flush is always
 * completed (deflate called until it returns with space to spare), even
 * past the write watermark.  inflate stops when its output space is full
 * and may then still owe output for input it has already taken.  libevent
 * calls the input filter again only while compressed input is waiting
 * below, so when none is, that owed output (about a kilobyte at most: the
 * rest of one 258-octet match plus what fewer than 8 buffered bits decode
 * to) is drained at once instead of waiting for the server's next octet.
 * When input is waiting, compress_resume_cb makes sure we are called. */
#define ZLIB_CONST
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <zlib.h>

#include "net/compress.h"
#include "util/xmalloc.h"

/* Output is reserved in windows of this size: a 75 KB body takes a few
 * zlib calls, and a one-line reply does not pin a large chain.  An evbuffer
 * chain adds its header to the allocation, hence not a power of two. */
#define COMPRESS_CHUNK 16000
/* Under a write watermark, a batch smaller than this waits for the wire to
 * drain rather than pay block framing and a flush marker for a few bytes. */
#define COMPRESS_MIN_BATCH 512
/* deflate wants more than six octets of room with Z_SYNC_FLUSH, or it may
 * repeat the flush marker. */
#define COMPRESS_DEFLATE_MIN_ROOM 16
/* A bomb bound: over every COMPRESS_RATIO_WINDOW inflated octets, at
 * most COMPRESS_MAX_RATIO of them per compressed octet.  DEFLATE's own
 * ceiling is about 1032:1 (long runs of one octet); IMAP traffic, even a
 * FETCH FLAGS of a whole mailbox, stays far below 100:1. */
#define COMPRESS_MAX_RATIO 256u
#define COMPRESS_RATIO_WINDOW (1024u * 1024u)
/* Input extents looked at per evbuffer_peek when deflating. */
#define COMPRESS_PEEK 8
struct compress_ctx {
	z_stream in;			/* inflate: server -> us */
	z_stream out;			/* deflate: us -> server */
	struct bufferevent *bev;	/* the filter, for error events */
	struct evbuffer_cb_entry *resume;	/* see compress_resume_cb */
	struct compress_counts *counts;
	struct compress_counts own_counts;	/* when the caller gave none */
	bool failed;
	bool in_ended;			/* the peer sent a final block */
	uint64_t win_in, win_out;	/* this ratio window's octets */
	char err[128];
};

static size_t
min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Reserved space in a destination evbuffer that zlib fills in order: up to
 * two vectors, so the tail of the last chain is used before a new one. */
struct sink {
	struct evbuffer *dst;
	struct evbuffer_iovec v[2];
	size_t used[2];
	int n;			/* vectors reserved; 0 when none */
	int cur;		/* the one being filled */
};

static int
sink_open(struct sink *s, size_t want)
{
	int n = evbuffer_reserve_space(s->dst, (ev_ssize_t)want, s->v, 2);
	if (n < 1)
		return -1;
	s->n = n > 2 ? 2 : n;
	s->cur = 0;
	s->used[0] = s->used[1] = 0;
	return 0;
}

/* Hand zlib free reserved space, at least `least` octets of it and at most
 * `cap`.  False when the reservation is used up. */
static bool
sink_point(struct sink *s, z_stream *z, size_t least, size_t cap)
{
	for (; s->cur < s->n; s->cur++) {
		size_t room = s->v[s->cur].iov_len - s->used[s->cur];
		if (room < least)
			continue;
		room = min_size(min_size(room, cap), UINT_MAX);
		z->next_out = (Bytef *)s->v[s->cur].iov_base + s->used[s->cur];
		z->avail_out = (uInt)room;
		return true;
	}
	return false;
}

/* Make visible what zlib wrote; the reservation ends here. */
static int
sink_close(struct sink *s)
{
	int n = 0;
	for (int i = 0; i < s->n; i++) {
		s->v[i].iov_len = s->used[i];
		if (s->used[i] > 0)
			n = i + 1;
	}
	s->n = 0;
	/* An unused reservation may simply be dropped. */
	return n == 0 ? 0 : evbuffer_commit_space(s->dst, s->v, n);
}

/* Mark the filter failed and tell the user through the event callback:
 * libevent 2.1 ignores BEV_ERROR from a filter.  The callback is deferred
 * because we are deep inside the filter's own processing. */
static enum bufferevent_filter_result
compress_fail(struct compress_ctx *c, struct evbuffer *src, short what,
	      const char *why)
{
	if (!c->failed) {
		c->failed = true;
		snprintf(c->err, sizeof(c->err), "%s", why);
		/* The caller reads the reason from its own counts. */
		snprintf(c->counts->error, sizeof(c->counts->error), "%s", why);
		if (c->bev != NULL)
			bufferevent_trigger_event(c->bev,
			    (short)(BEV_EVENT_ERROR | what),
			    BEV_TRIG_DEFER_CALLBACKS);
	}
	/* What follows a broken stream can never be decoded or sent. */
	evbuffer_drain(src, evbuffer_get_length(src));
	return BEV_ERROR;
}

static const char *
zlib_reason(const z_stream *z, int rc)
{
	return z->msg != NULL ? z->msg : zError(rc);
}

/* Compressed octets from below (src) to plain octets for the reader (dst).
 * lim, when not negative, is the room left under the reader's high
 * watermark. */
static enum bufferevent_filter_result
compress_in_filter(struct evbuffer *src, struct evbuffer *dst,
		   ev_ssize_t lim, enum bufferevent_flush_mode mode, void *arg)
{
	struct compress_ctx *c = arg;
	struct sink s = { .dst = dst };
	size_t room = lim < 0 ? SIZE_MAX : (size_t)lim, made = 0;
	bool owed = false;	/* inflate filled its space: it may owe more */
	const char *why = NULL;
	char ratio_why[96];

	if (c->failed)
		return compress_fail(c, src, BEV_EVENT_READING, c->err);
	for (;;) {
		size_t have = evbuffer_get_length(src);
		bool over = made >= room;
		/* At the limit, input still in src brings us back; output
		 * zlib owes for input already taken would not. */
		if (have == 0 ? !owed : over)
			break;
		if (c->in_ended) {
			if (have > 0)
				why = "data after the end of the compressed "
				      "stream";
			break;
		}
		size_t cap = over ? SIZE_MAX : room - made;
		if (!sink_point(&s, &c->in, 1, cap)) {
			if (sink_close(&s) < 0 ||
			    sink_open(&s, min_size(cap, COMPRESS_CHUNK)) < 0) {
				why = "cannot make room for inflated data";
				break;
			}
			continue;
		}
		struct evbuffer_iovec iv = { NULL, 0 };
		if (have > 0)
			evbuffer_peek(src, -1, NULL, &iv, 1);
		c->in.next_in = iv.iov_base;
		c->in.avail_in = (uInt)min_size(iv.iov_len, UINT_MAX);
		uInt in0 = c->in.avail_in, out0 = c->in.avail_out;
		int rc = inflate(&c->in, Z_SYNC_FLUSH);
		size_t took = in0 - c->in.avail_in;
		size_t got = out0 - c->in.avail_out;
		evbuffer_drain(src, took);
		s.used[s.cur] += got;
		made += got;
		c->counts->wire_in += took;
		c->counts->plain_in += got;
		owed = c->in.avail_out == 0;
		c->win_in += took;
		c->win_out += got;
		if (c->win_out >= COMPRESS_RATIO_WINDOW) {
			if (c->win_out > c->win_in * COMPRESS_MAX_RATIO) {
				snprintf(ratio_why, sizeof(ratio_why),
					 "inflation over %u:1 (%llu octets "
					 "from %llu)",
					 COMPRESS_MAX_RATIO,
					 (unsigned long long)c->win_out,
					 (unsigned long long)c->win_in);
				why = ratio_why;
				break;
			}
			c->win_in = c->win_out = 0;
		}
		if (rc == Z_STREAM_END) {
			c->in_ended = true;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			why = zlib_reason(&c->in, rc);
			break;
		}
		if (took == 0 && got == 0 && !c->in_ended)
			break;	/* nothing more zlib can do with what it has */
	}
	/* Data decoded before a fault is still delivered. */
	if (sink_close(&s) < 0 && why == NULL)
		why = "cannot commit inflated data";
	if (why != NULL)
		return compress_fail(c, src, BEV_EVENT_READING, why);
	if (made >= room && evbuffer_get_length(src) > 0)
		evbuffer_cb_set_flags(dst, c->resume, EVBUFFER_CB_ENABLED);
	return made > 0 ? BEV_OK : BEV_NEED_MORE;
}

/* The input filter stopped at the reader's limit with compressed input
 * still waiting below.  libevent 2.1 resumes such a filter only if the
 * reader's callback is deferred: it looks for a full buffer after running
 * a direct callback, which has emptied it.  So once the reader drains
 * below its limit, run the filter again from the loop. */
static void
compress_resume_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
		   void *arg)
{
	struct compress_ctx *c = arg;
	size_t high = 0;

	if (info->n_deleted == 0)
		return;
	bufferevent_getwatermark(c->bev, EV_READ, NULL, &high);
	if (high != 0 && evbuffer_get_length(buf) >= high)
		return;
	evbuffer_cb_clear_flags(buf, c->resume, EVBUFFER_CB_ENABLED);
	/* Deferred: the reader is in the middle of draining.  If the filter
	 * is freed first, the one below loses its callbacks and this is a
	 * no-op. */
	bufferevent_trigger(bufferevent_get_underlying(c->bev), EV_READ,
			    BEV_TRIG_IGNORE_WATERMARKS |
			    BEV_TRIG_DEFER_CALLBACKS);
}

/* Feed one piece of plain input to deflate and collect all it gives back.
 * With Z_SYNC_FLUSH that is everything: deflate is called until it returns
 * with output space to spare. */
static int
deflate_piece(struct compress_ctx *c, struct sink *s, const void *p,
	      size_t len, int flush, size_t *made)
{
	c->out.next_in = p;
	c->out.avail_in = (uInt)len;
	do {
		if (!sink_point(s, &c->out, COMPRESS_DEFLATE_MIN_ROOM,
				SIZE_MAX)) {
			size_t want = len + len / 8 + 64;
			if (sink_close(s) < 0 ||
			    sink_open(s, min_size(want, COMPRESS_CHUNK)) < 0)
				return Z_MEM_ERROR;
			continue;
		}
		uInt out0 = c->out.avail_out;
		int rc = deflate(&c->out, flush);
		size_t got = out0 - c->out.avail_out;
		s->used[s->cur] += got;
		*made += got;
		/* Z_BUF_ERROR only says a call had nothing to do. */
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return rc;
	} while (c->out.avail_in > 0 || c->out.avail_out == 0);
	return Z_OK;
}

/* Plain octets written by the user (src) to compressed octets below (dst).
 * lim, when not negative, is the room left under the write high watermark
 * of the bufferevent below. */
static enum bufferevent_filter_result
compress_out_filter(struct evbuffer *src, struct evbuffer *dst,
		    ev_ssize_t lim, enum bufferevent_flush_mode mode, void *arg)
{
	struct compress_ctx *c = arg;
	struct sink s = { .dst = dst };
	size_t have = evbuffer_get_length(src), made = 0;
	int rc = Z_OK;

	if (c->failed)
		return compress_fail(c, src, BEV_EVENT_WRITING, c->err);
	/* Each batch ended in a sync flush, so nothing is held back and a
	 * BEV_FINISHED has nothing to add.  RFC 4978 has no orderly end of
	 * stream, so there is no Z_FINISH either.  A BEV_FLUSH (libevent
	 * calls us with it even with nothing to send) ends the batch with a
	 * full flush: what follows refers to nothing before it
	 * (compress.h). */
	int end = mode == BEV_FLUSH ? Z_FULL_FLUSH : Z_SYNC_FLUSH;
	if (have == 0 && mode == BEV_FLUSH) {
		/* Room first: deflate_piece's loop ends at once on no input
		 * and no room. */
		rc = sink_open(&s, 64) < 0 ? Z_MEM_ERROR :
		    deflate_piece(c, &s, "", 0, end, &made);
		c->counts->wire_out += made;
		if (sink_close(&s) < 0 || rc != Z_OK)
			return compress_fail(c, src, BEV_EVENT_WRITING,
					     "deflate failed on a full flush");
		return BEV_OK;
	}
	if (have == 0)
		return BEV_NEED_MORE;
	size_t take = have;
	if (lim >= 0 && take > (size_t)lim) {
		/* Octets still waiting below will drain and bring us back
		 * through the write callback; with none, go on regardless. */
		if ((size_t)lim < COMPRESS_MIN_BATCH &&
		    evbuffer_get_length(dst) > 0)
			return BEV_NEED_MORE;
		take = (size_t)lim > 0 ? (size_t)lim : 1;
	}

	size_t left = take;
	while (left > 0 && rc == Z_OK) {
		struct evbuffer_iovec iv[COMPRESS_PEEK];
		int n = evbuffer_peek(src, (ev_ssize_t)left, NULL, iv,
				      COMPRESS_PEEK);
		size_t fed = 0;
		for (int i = 0; i < n && i < COMPRESS_PEEK && rc == Z_OK; i++) {
			size_t len = min_size(min_size(iv[i].iov_len, left),
					      UINT_MAX);
			left -= len;
			fed += len;
			rc = deflate_piece(c, &s, iv[i].iov_base, len,
			    left == 0 ? end : Z_NO_FLUSH, &made);
			if (len < iv[i].iov_len)
				break;	/* the rest of this extent next peek */
		}
		/* deflate copied what it took into its window. */
		evbuffer_drain(src, fed);
	}
	c->counts->plain_out += take - left;
	c->counts->wire_out += made;
	if (sink_close(&s) < 0 && rc == Z_OK)
		rc = Z_MEM_ERROR;
	if (rc != Z_OK) {
		char why[sizeof(c->err)];
		snprintf(why, sizeof(why), "deflate failed: %s",
			 zlib_reason(&c->out, rc));
		return compress_fail(c, src, BEV_EVENT_WRITING, why);
	}
	return BEV_OK;
}

static void
compress_ctx_free(void *arg)
{
	struct compress_ctx *c = arg;
	if (c == NULL)
		return;
	inflateEnd(&c->in);
	deflateEnd(&c->out);
	free(c);
}

static void
set_err(char *err, size_t errlen, const char *what, const char *detail)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s%s%s", what, detail ? ": " : "",
			 detail ? detail : "");
}

struct bufferevent *
compress_bev_new(struct bufferevent *under, int level,
		 struct compress_counts *counts, char *err, size_t errlen)
{
	char why[96];

	if (under == NULL) {
		set_err(err, errlen, "compress: no connection to compress",
			NULL);
		return NULL;
	}
	if (level < -1 || level > 9) {
		snprintf(why, sizeof(why), "compression level %d is out of "
			 "range (0..9, or -1 for zlib's default)", level);
		set_err(err, errlen, why, NULL);
		return NULL;
	}
	struct compress_ctx *c = xcalloc(1, sizeof(*c));
	c->counts = counts != NULL ? counts : &c->own_counts;
	int rc = inflateInit2(&c->in, -MAX_WBITS);
	if (rc != Z_OK) {
		set_err(err, errlen, "compress: inflateInit2 failed",
			zlib_reason(&c->in, rc));
		free(c);
		return NULL;
	}
	rc = deflateInit2(&c->out, level, Z_DEFLATED, -MAX_WBITS, 8,
			  Z_DEFAULT_STRATEGY);
	if (rc != Z_OK) {
		set_err(err, errlen, "compress: deflateInit2 failed",
			zlib_reason(&c->out, rc));
		inflateEnd(&c->in);
		free(c);
		return NULL;
	}
	c->bev = bufferevent_filter_new(under, compress_in_filter,
	    compress_out_filter, BEV_OPT_CLOSE_ON_FREE, compress_ctx_free, c);
	if (c->bev == NULL) {
		set_err(err, errlen, "compress: cannot create the filter "
			"bufferevent", NULL);
		compress_ctx_free(c);
		return NULL;
	}
	c->resume = evbuffer_add_cb(bufferevent_get_input(c->bev),
				    compress_resume_cb, c);
	if (c->resume == NULL) {
		/* Only malloc fails here; as everywhere (xmalloc.h), out of
		 * memory is not worth limping through. */
		fprintf(stderr, "imapstress: out of memory adding an evbuffer "
			"callback\n");
		abort();
	}
	evbuffer_cb_clear_flags(bufferevent_get_input(c->bev), c->resume,
				EVBUFFER_CB_ENABLED);
	/* Compressed octets that arrived with or right after the tagged OK
	 * are already below; the filter otherwise looks only at new ones. */
	if (evbuffer_get_length(bufferevent_get_input(under)) > 0)
		bufferevent_trigger(under, EV_READ, BEV_TRIG_IGNORE_WATERMARKS |
				    BEV_TRIG_DEFER_CALLBACKS);
	return c->bev;
}

const char *
compress_error(const struct compress_counts *counts)
{
	return counts != NULL && counts->error[0] != '\0' ? counts->error : NULL;
}
