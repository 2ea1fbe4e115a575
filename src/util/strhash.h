/* strhash.h: FNV-1a over a NUL-terminated string, for the string-keyed
 * tables (the model's store map, the profile's set of user names). */
#ifndef IMAPSTRESS_STRHASH_H
#define IMAPSTRESS_STRHASH_H

#include <stdint.h>

static inline uint32_t
strhash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

#endif
