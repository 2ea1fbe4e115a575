/* hdrlog.c: the HdrHistogram interval log (format version 1.3).
 *
 *   #[Histogram log format version 1.3]
 *   #[StartTime: <epoch s> (seconds since epoch), <ISO time>]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=APPEND,<start s>,<length s>,<max ms>,HISTF...
 *
 * Values are microseconds; Interval_Max is in milliseconds (the max over
 * 1000, which is the unit ratio the HdrHistogram tools apply to the
 * histogram itself when told the values are microseconds).  Timestamps are
 * relative to StartTime, which readers detect because they are far smaller
 * than the epoch.
 *
 * The histogram is the V2 encoding (big-endian header, then counts as
 * ZigZag LEB128-64b9B varints, a run of zeros as one negative number),
 * deflated with zlib behind the compressed-V2 header, then base64.  Our
 * histogram's buckets are HdrHistogram's (see hist.h), so the counts array
 * is our bucket array as it is. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "util/b64.h"
#include "report/hdrlog.h"
#include "util/log.h"
#include "plan/ops.h"
#include "util/xmalloc.h"

#define V2_COOKIE 0x1c849313u		/* V2 encoding, 9-byte words */
#define V2_COMPRESSED_COOKIE 0x1c849314u
#define V2_HEADER 40u

struct hdrlog {
	FILE *f;
	char *path;
	uint64_t t0_us, t_prev_us;
	uint64_t *counts;	/* HIST_N_BUCKETS, reused per line */
	bool failed;
};

static uint8_t *
put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	return p + bytes;
}

/* LEB128-64b9B: seven bits per byte for the first eight bytes, then the
 * ninth byte carries the last eight, so no value needs more than 9. */
static uint8_t *
put_zigzag(uint8_t *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	for (int i = 0; i < 8; i++) {
		if (z < 0x80) {
			*p++ = (uint8_t)z;
			return p;
		}
		*p++ = (uint8_t)((z & 0x7f) | 0x80);
		z >>= 7;
	}
	*p++ = (uint8_t)z;
	return p;
}

/* The uncompressed V2 encoding into buf (V2_HEADER + 9 bytes per count at
 * most); returns its length. */
static size_t
encode_v2(const uint64_t *counts, unsigned len, uint8_t *buf)
{
	uint8_t *p = buf + V2_HEADER;
	for (unsigned i = 0; i < len;) {
		if (counts[i] != 0) {
			p = put_zigzag(p, (int64_t)counts[i++]);
			continue;
		}
		unsigned run = 0;
		while (i < len && counts[i] == 0) {
			run++;
			i++;
		}
		p = put_zigzag(p, run == 1 ? 0 : -(int64_t)run);
	}
	uint64_t one;
	double d = 1.0;		/* integerToDoubleValueConversionRatio */
	memcpy(&one, &d, sizeof(one));
	uint8_t *h = buf;
	h = put_be(h, V2_COOKIE, 4);
	h = put_be(h, (uint64_t)(p - buf - V2_HEADER), 4);
	h = put_be(h, 0, 4);			/* normalizingIndexOffset */
	h = put_be(h, HIST_SIG_DIGITS, 4);
	h = put_be(h, 1, 8);			/* lowest discernible value */
	h = put_be(h, HIST_MAX_US, 8);		/* highest trackable value */
	put_be(h, one, 8);
	return (size_t)(p - buf);
}

static char *
encode_counts(const uint64_t *counts, unsigned len)
{
	size_t raw_cap = V2_HEADER + 9u * (size_t)len;
	uint8_t *raw = xmalloc(raw_cap);
	size_t raw_len = encode_v2(counts, len, raw);
	uLongf zlen = compressBound((uLong)raw_len);
	uint8_t *z = xmalloc(8 + zlen);
	if (compress2(z + 8, &zlen, raw, (uLong)raw_len, Z_DEFAULT_COMPRESSION) != Z_OK)
		fatal(1, "hdrlog: zlib could not compress a histogram");
	put_be(put_be(z, V2_COMPRESSED_COOKIE, 4), zlen, 4);
	size_t n = 8 + zlen;
	char *out = xmalloc(B64_ENCODED_SIZE(n));
	b64_encode(z, n, out);
	free(z);
	free(raw);
	return out;
}

char *
hdrlog_encode(const struct hist *h)
{
	uint64_t *counts = xmalloc(HIST_N_BUCKETS * sizeof(*counts));
	char *s = encode_counts(counts, hist_export(h, counts, HIST_N_BUCKETS));
	free(counts);
	return s;
}

static void
hdrlog_check(struct hdrlog *h, int rc)
{
	if (rc < 0 && !h->failed) {
		h->failed = true;
		log_error("--hdr-log %s: write failed: %s", h->path, strerror(errno));
	}
}

struct hdrlog *
hdrlog_open(const char *path, uint64_t t0_us, char *err, size_t errlen)
{
	/* Standard output carries the report; a log mixed into it would be
	 * unreadable by either reader. */
	if (strcmp(path, "-") == 0) {
		snprintf(err, errlen, "--hdr-log -: standard output is not "
			 "supported, name a file");
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "--hdr-log %s: %s", path, strerror(errno));
		return NULL;
	}
	struct hdrlog *h = xcalloc(1, sizeof(*h));
	h->f = f;
	h->path = xstrdup(path);
	h->t0_us = h->t_prev_us = t0_us;
	h->counts = xmalloc(HIST_N_BUCKETS * sizeof(*h->counts));

	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	char iso[32];
	gmtime_r(&now.tv_sec, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	hdrlog_check(h, fprintf(f, "#[Histogram log format version 1.3]\n"
		"#[StartTime: %lld.%03ld (seconds since epoch), %s]\n"
		"#[imapstress: latency from send to tagged reply, values in "
		"microseconds, Interval_Max in milliseconds; tag = command]\n"
		"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		"\"Interval_Compressed_Histogram\"\n",
		(long long)now.tv_sec, now.tv_nsec / 1000000, iso));
	return h;
}

void
hdrlog_window(struct hdrlog *h, const struct stats_snap *win, uint64_t now_us)
{
	if (h == NULL)
		return;
	double start = (double)(h->t_prev_us - h->t0_us) / 1e6;
	double len = (double)(now_us - h->t_prev_us) / 1e6;
	h->t_prev_us = now_us;
	for (int op = 0; op < OP_COUNT; op++) {
		const struct hist *l = win->lat[op];
		if (hist_count(l) == 0)
			continue;
		char *b64 = encode_counts(h->counts,
		    hist_export(l, h->counts, HIST_N_BUCKETS));
		uint64_t mx = hist_max(l);
		hdrlog_check(h, fprintf(h->f, "Tag=%s,%.3f,%.3f,%" PRIu64 ".%03u,%s\n",
			op_table[op].name, start, len, mx / 1000,
			(unsigned)(mx % 1000), b64));
		free(b64);
	}
	hdrlog_check(h, fflush(h->f) == 0 ? 0 : -1);
}

void
hdrlog_skip(struct hdrlog *h, uint64_t now_us)
{
	if (h != NULL)
		h->t_prev_us = now_us;
}

int
hdrlog_close(struct hdrlog *h)
{
	if (h == NULL)
		return 0;
	hdrlog_check(h, fflush(h->f) == 0 ? 0 : -1);
	hdrlog_check(h, ferror(h->f) ? -1 : 0);
	if (fclose(h->f) != 0)
		hdrlog_check(h, -1);
	int rc = h->failed ? -1 : 0;
	free(h->counts);
	free(h->path);
	free(h);
	return rc;
}
