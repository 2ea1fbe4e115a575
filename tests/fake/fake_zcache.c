/* fake_zcache.c: a large scripted reply under COMPRESS deflated once per
 * event loop and sent as the same bytes to every connection.  Deflating
 * it per connection (20 MB at level 9 is 0.4 s of CPU) made the fake, not
 * the client, the slow side of a 50-client hostile run.  Splicing is
 * sound because the connection's own stream ends in a full flush first
 * (compress.h): nothing before or after the spliced blocks refers across
 * them, and the cached blocks come from a fresh stream of their own. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fake.h"
#include "util/xmalloc.h"

struct fake_zcache {
	const void *key;
	unsigned char *raw;	/* raw DEFLATE, ended by a sync flush */
	size_t len;
	uint64_t plain;		/* octets it inflates to */
	struct fake_zcache *next;
};

/* Raw DEFLATE (level 9, as the connection's filter) of all of plain,
 * which is drained. */
static struct fake_zcache *
fake_zcache_make(struct evbuffer *plain)
{
	struct fake_zcache *e = xcalloc(1, sizeof(*e));
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t n = evbuffer_get_length(plain);
	e->plain = n;
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	e->raw = xmalloc(cap);
	z.next_in = evbuffer_pullup(plain, -1);
	z.avail_in = (uInt)n;
	z.next_out = e->raw;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_SYNC_FLUSH) != Z_OK || z.avail_in != 0)
		abort();
	e->len = cap - z.avail_out;
	deflateEnd(&z);
	evbuffer_drain(plain, n);
	return e;
}

bool
fake_zcache_send(struct fake_conn *c, const void *key,
		 void (*make)(struct fake_conn *, const void *))
{
	/* Only a reply going out now, in order: a delayed or dripped one
	 * waits in plain form, and the splice would overtake it. */
	if (!c->deflating || !c->w_direct || c->sh->cfg->mode == FAKE_M_DRIP)
		return false;
	struct fake_zcache *e = c->loop->zcache;
	while (e != NULL && e->key != key)
		e = e->next;
	if (e == NULL) {
		struct evbuffer *real = c->w, *plain = evbuffer_new();
		c->w = plain;
		make(c, key);
		c->w = real;
		e = fake_zcache_make(plain);
		evbuffer_free(plain);
		e->key = key;
		e->next = c->loop->zcache;
		c->loop->zcache = e;
	}
	/* What the reply has so far leaves the filter, ending in a full
	 * flush; then the cached blocks, straight onto the socket's output. */
	bufferevent_flush(c->bev, EV_WRITE, BEV_FLUSH);
	struct bufferevent *under = bufferevent_get_underlying(c->bev);
	evbuffer_add_reference(bufferevent_get_output(under), e->raw, e->len,
			       NULL, NULL);
	c->loop->stats.bytes_out += e->plain;
	return true;
}

void
fake_zcache_free(struct fake_zcache *z)
{
	while (z != NULL) {
		struct fake_zcache *next = z->next;
		free(z->raw);
		free(z);
		z = next;
	}
}
