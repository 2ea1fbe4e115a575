/* msg_sizes.c: see msg_sizes.h.  The parser is fed by users and by the
 * fuzzer (tests/fuzz/fuzz_config.c): it never reads past the NUL, and an
 * item it names is cut short and shown without control characters. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg/msg_sizes.h"
#include "util/units.h"

/* why = "item I 'TEXT': " + the reason; TEXT at most 24 bytes, printable. */
static int
item_fail(char *why, size_t whylen, unsigned i, const char *p, size_t len,
	  const char *fmt, ...)
{
	char shown[32];
	size_t n = 0;
	va_list ap;

	for (size_t k = 0; k < len && n < 24; k++)
		shown[n++] = p[k] >= 0x20 && p[k] < 0x7f ? p[k] : '?';
	shown[n] = '\0';
	int w = snprintf(why, whylen, "item %u '%s%s': ", i, shown,
			 len > 24 ? "..." : "");
	if (w < 0 || (size_t)w >= whylen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why + w, whylen - (size_t)w, fmt, ap);
	va_end(ap);
	return -1;
}

/* One "SIZE:WEIGHT" of len bytes at p, item number i (from 1). */
static int
parse_item(const char *p, size_t len, unsigned i, uint64_t *size,
	   uint32_t *weight, char *why, size_t whylen)
{
	char buf[64];
	const char *r;
	uint64_t v;

	if (len == 0)
		return item_fail(why, whylen, i, p, len, "empty (two commas, "
				 "or one at an end)");
	const char *colon = memchr(p, ':', len);
	if (colon == NULL || len >= sizeof(buf))
		return item_fail(why, whylen, i, p, len, "not SIZE:WEIGHT");
	memcpy(buf, p, len);
	buf[len] = '\0';
	buf[colon - p] = '\0';
	if (units_parse_size(buf, size, &r) < 0)
		return item_fail(why, whylen, i, p, len, "size: %s", r);
	if (*size < MSG_SIZES_MIN_SIZE || *size > MSG_SIZES_MAX_SIZE)
		return item_fail(why, whylen, i, p, len, "size out of range "
				 "(%u octets to 1g: the smallest message the "
				 "generator writes, and the largest)",
				 MSG_SIZES_MIN_SIZE);
	if (units_parse_uint(buf + (colon - p) + 1, 1, MSG_SIZES_MAX_WEIGHT,
			     &v, &r) < 0)
		return item_fail(why, whylen, i, p, len, "weight: %s (a whole "
				 "number, 1 to %u)", r, MSG_SIZES_MAX_WEIGHT);
	*weight = (uint32_t)v;
	return 0;
}

int
msg_sizes_parse(const char *spec, struct msg_sizes *out, char *why,
		size_t whylen)
{
	struct msg_sizes s = { 0 };
	const char *p = spec;
	unsigned i = 0;

	if (*spec == '\0') {
		snprintf(why, whylen, "empty: give SIZE:WEIGHT items, "
			 "e.g. 1k:30,4k:40,32k:20,256k:10");
		return -1;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		uint64_t size = 0;
		uint32_t weight = 0;

		if (++i > MSG_SIZES_MAX) {
			snprintf(why, whylen, "more than %d items",
				 MSG_SIZES_MAX);
			return -1;
		}
		if (parse_item(p, len, i, &size, &weight, why, whylen) < 0)
			return -1;
		/* Insert in size order: the table is small. */
		unsigned k = s.n;
		while (k > 0 && s.size[k - 1] > size) {
			s.size[k] = s.size[k - 1];
			s.weight[k] = s.weight[k - 1];
			k--;
		}
		if (k > 0 && s.size[k - 1] == size)
			return item_fail(why, whylen, i, p, len, "size %llu "
					 "given twice", (unsigned long long)size);
		s.size[k] = size;
		s.weight[k] = weight;
		s.n++;
		if (end == NULL)
			break;
		p = end + 1;
	}
	/* At most 16 * 10^6: no overflow of the uint32_t sums. */
	for (unsigned b = 0; b < s.n; b++)
		s.cum[b] = (b ? s.cum[b - 1] : 0) + s.weight[b];
	*out = s;
	return 0;
}

int
msg_sizes_format(const struct msg_sizes *s, char *out, size_t len)
{
	size_t w = 0;

	if (len > 0)
		out[0] = '\0';
	for (unsigned b = 0; b < s->n; b++) {
		uint64_t v = s->size[b];
		const char *unit = "";
		if (v % (1ULL << 20) == 0) {
			v >>= 20;
			unit = "m";
		} else if (v % 1024 == 0) {
			v >>= 10;
			unit = "k";
		}
		int n = snprintf(out + (w < len ? w : len), w < len ? len - w : 0,
				 "%s%llu%s:%u", b ? "," : "",
				 (unsigned long long)v, unit,
				 (unsigned)s->weight[b]);
		if (n < 0)
			return n;
		w += (size_t)n;
	}
	return (int)w;
}

double
msg_sizes_mean(const struct msg_sizes *s)
{
	double sum = 0;

	if (s->n == 0)
		return 0;
	for (unsigned b = 0; b < s->n; b++)
		sum += (double)s->size[b] * s->weight[b];
	return sum / s->cum[s->n - 1];
}
