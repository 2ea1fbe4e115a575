/* b64.h: standard base64 (RFC 4648 section 4, "=" padding, no line
 * breaks), for SASL messages and --hdr-log's histograms.  Our own rather
 * than OpenSSL's EVP_EncodeBlock: a run that only needs base64 must not
 * load libcrypto (issue 19: 1.5 MB resident). */
#ifndef IMAPSTRESS_B64_H
#define IMAPSTRESS_B64_H

#include <stddef.h>

/* The 64 characters, in value order (msg_gen.c draws random base64 from
 * them too). */
extern const char b64_alphabet[65];

/* How much room b64_encode needs for len octets, the NUL included. */
#define B64_ENCODED_SIZE(len) (4 * (((len) + 2) / 3) + 1)

/* base64 of len octets into out (B64_ENCODED_SIZE(len) bytes), NUL-
 * terminated; returns the length written, the NUL not counted. */
size_t b64_encode(const void *in, size_t len, char *out);

/* Decodes len characters of base64 (a multiple of 4, padding only at the
 * end, no whitespace) into out; returns the octets written, or -1 when the
 * input is malformed or the result would exceed outlen. */
int b64_decode(const char *in, size_t len, unsigned char *out, size_t outlen);

#endif
