/* msg_random.c: imaptest's random_msg_size=S pool: printable random
 * text of uniform size 1..S, CRLF every <= 76 characters. */
#include <stdlib.h>

#include "msg/msg.h"
#include "msg/msg_private.h"
#include "util/xmalloc.h"

static size_t
random_line(char *p, size_t width, bool exact, struct rng *r)
{
	for (size_t i = 0; i < width; i++)
		p[i] = (char)(0x20 + rng_below(r, 0x7f - 0x20));
	return width;
}

/* Sizes are drawn uniformly from 1..S like imaptest's, but a message must
 * end in CRLF, so a draw of 1 becomes the 2-byte "\r\n" (an empty
 * message); with S < 2 every message is that. */
struct msg_pool *
msg_pool_random(uint32_t seed, uint64_t max_size, uint64_t max_total)
{
	struct rng r = msg_rng_new(seed, 0x72616e646f6dULL);
	struct gbuf b = { 0 };
	size_t *off = xmalloc(MSG_POOL_MAX_COUNT * sizeof(*off));
	struct msg_pool *pool = xcalloc(1, sizeof(*pool));

	pool->msgs = xcalloc(MSG_POOL_MAX_COUNT, sizeof(*pool->msgs));
	while (pool->count < MSG_POOL_MAX_COUNT) {
		size_t size = 1 + rng_below(&r, max_size != 0 ? max_size : 1);
		if (size < 2)
			size = 2;
		if (pool->count >= MSG_POOL_MIN_COUNT &&
		    pool->bytes + size > max_total)
			break;
		off[pool->count] = b.len;
		gen_lines(&b, &r, size, 0, 76, 0, random_line);
		pool->msgs[pool->count++].len = size;
		pool->bytes += size;
	}
	pool->arena = b.p;
	for (unsigned i = 0; i < pool->count; i++)
		pool->msgs[i].data = b.p + off[i];
	free(off);
	return pool;
}
