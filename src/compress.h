/* compress.h: IMAP COMPRESS=DEFLATE (RFC 4978) as a libevent filter
 * bufferevent.  The layer above reads and writes plain IMAP octets; the
 * bufferevent below (socket or TLS) carries raw DEFLATE (no zlib or gzip
 * header).  Every batch of written data ends with a Z_SYNC_FLUSH, so each
 * command reaches the server without waiting for more; the stream is never
 * finished with Z_FINISH. */
#ifndef IMAPSTRESS_COMPRESS_H
#define IMAPSTRESS_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

struct bufferevent;

/* Octets moved so far: wire_* below the filter (compressed), plain_*
 * above it.  Owned by the caller; must outlive the bufferevent. */
struct compress_counts {
	uint64_t wire_in, wire_out, plain_in, plain_out;
};

/* A compressing filter over `under`.  level is zlib's, 0..9 (1 is what
 * most IMAP servers use), or -1 for zlib's default.  counts may be NULL.
 *
 * On success the filter owns `under`: freeing the filter frees it.  On
 * failure (bad level, zlib could not initialise) NULL is returned with a
 * message in err, and `under` is left untouched and still the caller's.
 *
 * The write high watermark of `under`, if set, bounds each batch; the read
 * high watermark of the filter bounds what is inflated ahead of the
 * reader.  Either may be overshot by a few hundred octets: stopping in the
 * middle of a flush would strand data inside zlib. */
struct bufferevent *compress_bev_new(struct bufferevent *under, int level,
				     struct compress_counts *counts,
				     char *err, size_t errlen);

/* Why the filter failed: zlib's reason for rejecting the input stream
 * ("invalid stored block lengths", ...), or NULL while all is well and for
 * a bufferevent that is not a compress filter.  A corrupt stream reaches
 * the event callback as BEV_EVENT_ERROR|BEV_EVENT_READING.  The text
 * lives as long as the bufferevent. */
const char *compress_bev_error(struct bufferevent *bev);

#endif
