/* b64.c: see b64.h. */
#include <stdint.h>

#include "util/b64.h"

const char b64_alphabet[65] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
b64_encode(const void *in, size_t len, char *out)
{
	const unsigned char *p = in;
	size_t o = 0, i = 0;

	for (; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
		    p[i + 2];
		out[o++] = b64_alphabet[v >> 18];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = b64_alphabet[v >> 6 & 63];
		out[o++] = b64_alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		out[o++] = b64_alphabet[v >> 18];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64_alphabet[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

/* The 6-bit value of a base64 character, -1 for any other. */
static int
b64_value(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

int
b64_decode(const char *in, size_t len, unsigned char *out, size_t outlen)
{
	size_t o = 0;

	if (len % 4 != 0 || len / 4 > (size_t)INT32_MAX / 3)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4];
		size_t pad = 0;
		for (size_t k = 0; k < 4; k++) {
			char ch = in[i + k];
			/* "=" only in the last group's last two places, and
			 * nothing but "=" after the first one. */
			if (ch == '=' && i + 4 == len && k >= 2) {
				pad++;
				v[k] = 0;
				continue;
			}
			if (pad > 0 || (v[k] = b64_value(ch)) < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
		    (uint32_t)v[2] << 6 | (uint32_t)v[3];
		size_t n = 3 - pad;
		if (o + n > outlen)
			return -1;
		out[o++] = (unsigned char)(w >> 16);
		if (n > 1)
			out[o++] = (unsigned char)(w >> 8);
		if (n > 2)
			out[o++] = (unsigned char)w;
	}
	return (int)o;
}
