/* compress.h: IMAP COMPRESS=DEFLATE (RFC 4978) as a libevent filter
 * bufferevent.  The layer above reads and writes plain IMAP octets; the
 * bufferevent below (socket or TLS) carries raw DEFLATE (no zlib or gzip
 * header).  Every batch of written data ends with a Z_SYNC_FLUSH, so each
 * command reaches the server without waiting for more; the stream is never
 * finished with Z_FINISH.  A batch is normally one write to the filter, so
 * a command written in one call costs one flush marker (4-5 octets).
 *
 * bufferevent_flush(filter, EV_WRITE, BEV_FLUSH) ends the batch with a
 * Z_FULL_FLUSH instead: what the filter sends after it refers to nothing
 * before it, so raw DEFLATE blocks made elsewhere by a fresh stream (and
 * ended by a sync or full flush) may be put on the wire below at that
 * point, and the peer's inflater still reads one whole stream.  A test
 * server uses it to deflate a large reply once for all its connections. */
#ifndef IMAPSTRESS_COMPRESS_H
#define IMAPSTRESS_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

struct bufferevent;

/* Octets moved so far: wire_* below the filter (compressed), plain_*
 * above it.  Owned by the caller; must outlive the bufferevent. */
struct compress_counts {
	uint64_t wire_in, wire_out, plain_in, plain_out;
	char error[128];	/* why the stream failed; empty while fine */
};

/* A compressing filter over `under`.  level is zlib's, 0..9 (1 is what
 * most IMAP servers use), or -1 for zlib's default.  counts may be NULL.
 *
 * On success the filter owns `under` (whose callbacks it takes over):
 * freeing the filter frees it.  Enable EV_READ on the filter as usual.  On
 * failure (bad level, zlib could not initialise) NULL is returned with a
 * message in err, and `under` is left untouched and still the caller's.
 *
 * The write high watermark of `under`, if set, bounds each batch; the read
 * high watermark of the filter bounds what is inflated ahead of the
 * reader.  The first may be overshot by a few octets of block framing, the
 * second by about a kilobyte at most: stopping in the middle of a flush,
 * or with decoded data still inside zlib, would strand it there. */
struct bufferevent *compress_bev_new(struct bufferevent *under, int level,
				     struct compress_counts *counts,
				     char *err, size_t errlen);

/* Why the filter failed: zlib's reason for rejecting the input stream
 * ("invalid stored block lengths", ...), or NULL while all is well.  A
 * corrupt stream reaches the event callback as
 * BEV_EVENT_ERROR|BEV_EVENT_READING, once; from then on the filter passes
 * nothing in either direction.  The reason is kept in the caller's counts
 * (libevent has no way back from a filter to its state, and a global
 * table would need a lock). */
const char *compress_error(const struct compress_counts *counts);

#endif
