/* xmalloc.h: allocation that aborts on failure (out of memory in a load
 * generator is not a condition worth limping through). */
#ifndef IMAPSTRESS_XMALLOC_H
#define IMAPSTRESS_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The first n octets of s and a NUL after them: a NUL among them is
 * copied like any octet (the scripted tests' literals hold some). */
char *xstrndup(const char *s, size_t n);
/* n octets aligned to align (a power of two, a multiple of sizeof(void *));
 * release with free(). */
void *xaligned_alloc(size_t align, size_t n);

#endif
