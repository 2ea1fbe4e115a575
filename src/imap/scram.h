/* scram.h: the client side of SCRAM-SHA-1 and SCRAM-SHA-256 (RFC 5802,
 * RFC 7677), as pure functions over the SASL messages (no base64, no
 * sockets).  PBKDF2 and HMAC are OpenSSL's, loaded at run time (ossl.h).
 * No channel binding ("n,,"); the password is used as given (SASLprep of
 * non-ASCII passwords is not done, which only matters for such
 * passwords). */
#ifndef IMAPSTRESS_SCRAM_H
#define IMAPSTRESS_SCRAM_H

#include <stdbool.h>
#include <stddef.h>

enum scram_hash { SCRAM_SHA1, SCRAM_SHA256 };

/* A server asking for more PBKDF2 rounds than this is refused: each login
 * would cost the tester seconds of CPU (servers use 4096). */
#define SCRAM_MAX_ITERATIONS 1000000

struct scram;

/* nonce: printable, no ','; the caller draws it at random (a fixed one
 * makes the RFC test vectors reproducible).  NULL when libcrypto cannot
 * be loaded (ossl.h). */
struct scram *scram_new(enum scram_hash h, const char *user,
			const char *pass, const char *nonce);
void scram_free(struct scram *s);	/* NULL is a no-op */

/* client-first-message ("n,,n=user,r=nonce"), NUL-terminated. */
const char *scram_client_first(const struct scram *s);

/* Takes server-first-message, gives client-final-message (NUL-terminated,
 * valid until the next call or scram_free).  NULL with the reason in err
 * when the server's message is malformed or unsafe. */
const char *scram_client_final(struct scram *s, const char *server_first,
			       size_t len, char *err, size_t errlen);

/* Checks server-final-message: true when its ServerSignature is the one
 * the password gives (the server knows the password, not just our
 * proof); false with the reason in err otherwise. */
bool scram_server_final_ok(struct scram *s, const char *server_final,
			   size_t len, char *err, size_t errlen);

#endif
