/* escape.c: see escape.h. */
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/xmalloc.h"

static int
escape_plain(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

size_t
escape_text(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		if (escape_plain(c)) {
			if (o + 1 >= size)
				break;
			dst[o++] = (char)c;
		} else {
			if (o + 4 >= size)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 0xf];
		}
	}
	dst[o] = '\0';
	return o;
}

size_t
escape_len(const char *src, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += escape_plain((unsigned char)src[i]) ? 1 : 4;
	return n;
}

void
escape_in_place(char *buf, size_t size)
{
	if (buf == NULL || size == 0)
		return;
	size_t len = strnlen(buf, size - 1);
	size_t i = 0;
	while (i < len && escape_plain((unsigned char)buf[i]))
		i++;
	if (i == len)
		return;		/* the usual case: nothing to do */
	/* Escaped whole, then cut at the buffer's end like the message
	 * itself was (an escape may be cut there too): a short buffer
	 * holds exactly the start of what a long one would. */
	size_t need = escape_len(buf + i, len - i) + 1;
	char *esc = xmalloc(need);
	escape_text(esc, need, buf + i, len - i);
	size_t n = need - 1 < size - 1 - i ? need - 1 : size - 1 - i;
	memcpy(buf + i, esc, n);
	buf[i + n] = '\0';
	free(esc);
}

size_t
escape_find_ctl(const char *s)
{
	size_t i = 0;
	while (s[i] != '\0' && (unsigned char)s[i] >= 0x20 && s[i] != 0x7f)
		i++;
	return i;
}
