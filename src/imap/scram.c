/* scram.c: see scram.h.  The names follow RFC 5802 section 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/b64.h"
#include "net/ossl.h"
#include "imap/scram.h"
#include "util/xmalloc.h"

#define SCRAM_MAX_MD 32		/* SHA-256 */
#define SCRAM_MAX_MSG 2048	/* any message we build or accept */

struct scram {
	const EVP_MD *md;
	size_t md_len;
	char *pass;
	char first[SCRAM_MAX_MSG];	/* client-first-message */
	size_t bare_off;		/* client-first-message-bare in it */
	char final[SCRAM_MAX_MSG + 96];	/* client-final-message */
	char auth_msg[3 * SCRAM_MAX_MSG];
	unsigned char salted[SCRAM_MAX_MD];
	bool have_final;
};

/* saslname: '=' and ',' escaped as =3D and =2C. */
static size_t
put_saslname(char *out, size_t room, const char *user)
{
	size_t o = 0;
	for (const char *p = user; *p != '\0' && o + 4 < room; p++) {
		if (*p == '=')
			o += (size_t)snprintf(out + o, room - o, "=3D");
		else if (*p == ',')
			o += (size_t)snprintf(out + o, room - o, "=2C");
		else
			out[o++] = *p;
	}
	out[o] = '\0';
	return o;
}

struct scram *
scram_new(enum scram_hash h, const char *user, const char *pass,
	  const char *nonce)
{
	char name[768];

	/* A run with mech=scram-* has loaded libcrypto before its workers
	 * start (setup.c); this call only finds it done. */
	if (!ossl_load(NULL, 0))
		return NULL;
	struct scram *s = xcalloc(1, sizeof(*s));
	s->md = h == SCRAM_SHA256 ? EVP_sha256() : EVP_sha1();
	s->md_len = (size_t)EVP_MD_get_size(s->md);
	s->pass = xstrdup(pass);
	put_saslname(name, sizeof(name), user);
	s->bare_off = 3;	/* after the GS2 header "n,," */
	snprintf(s->first, sizeof(s->first), "n,,n=%s,r=%.200s", name, nonce);
	return s;
}

void
scram_free(struct scram *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s->pass, strlen(s->pass));
	free(s->pass);
	explicit_bzero(s, sizeof(*s));
	free(s);
}

const char *
scram_client_first(const struct scram *s)
{
	return s->first;
}

static void
hmac(const struct scram *s, const unsigned char *key, size_t key_len,
     const void *msg, size_t len, unsigned char *out)
{
	unsigned int n = 0;
	HMAC(s->md, key, (int)key_len, msg, len, out, &n);
}

/* The value of attribute `a` ("r", "s", "i") in a comma-separated
 * message, or NULL. */
static const char *
attr(const char *msg, size_t len, char a, size_t *vlen)
{
	const char *p = msg, *end = msg + len;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma != NULL ? comma : end;
		if (stop - p >= 2 && p[0] == a && p[1] == '=') {
			*vlen = (size_t)(stop - p - 2);
			return p + 2;
		}
		p = stop + 1;
	}
	return NULL;
}

static const char *
fail(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	return NULL;
}

const char *
scram_client_final(struct scram *s, const char *sf, size_t len, char *err,
		   size_t errlen)
{
	const char *bare = s->first + s->bare_off;
	const char *cnonce = strstr(bare, ",r=") + 3;
	size_t rl, sl, il;
	const char *r = attr(sf, len, 'r', &rl);
	const char *salt64 = attr(sf, len, 's', &sl);
	const char *iter = attr(sf, len, 'i', &il);
	unsigned char salt[512];
	char num[16];

	if (len >= SCRAM_MAX_MSG || memchr(sf, '\0', len) != NULL)
		return fail(err, errlen, "server-first-message too long or "
			    "has NUL");
	if (len >= 2 && sf[0] == 'm' && sf[1] == '=')
		return fail(err, errlen, "server-first-message asks for an "
			    "extension (m=) we do not know");
	if (r == NULL || salt64 == NULL || iter == NULL)
		return fail(err, errlen, "server-first-message lacks r=, s= "
			    "or i=");
	if (rl <= strlen(cnonce) || strncmp(r, cnonce, strlen(cnonce)) != 0)
		return fail(err, errlen, "server nonce does not extend ours");
	int saltn = b64_decode(salt64, sl, salt, sizeof(salt));
	if (saltn <= 0)
		return fail(err, errlen, "salt is not base64");
	if (il == 0 || il >= sizeof(num) || strspn(iter, "0123456789") < il)
		return fail(err, errlen, "iteration count is not a number");
	memcpy(num, iter, il);
	num[il] = '\0';
	unsigned long iters = strtoul(num, NULL, 10);
	if (iters < 1 || iters > SCRAM_MAX_ITERATIONS)
		return fail(err, errlen, "iteration count out of range "
			    "(1-1000000)");

	if (PKCS5_PBKDF2_HMAC(s->pass, (int)strlen(s->pass), salt, saltn,
			      (int)iters, s->md, (int)s->md_len,
			      s->salted) != 1)
		return fail(err, errlen, "PBKDF2 failed");

	/* client-final-message-without-proof: c=base64("n,,") = "biws" */
	char without[SCRAM_MAX_MSG + 16];
	snprintf(without, sizeof(without), "c=biws,r=%.*s", (int)rl, r);
	int am = snprintf(s->auth_msg, sizeof(s->auth_msg), "%s,%.*s,%s",
			  bare, (int)len, sf, without);
	if (am < 0 || (size_t)am >= sizeof(s->auth_msg))
		return fail(err, errlen, "SCRAM messages too long");

	unsigned char ckey[SCRAM_MAX_MD], stored[SCRAM_MAX_MD];
	unsigned char csig[SCRAM_MAX_MD], proof[SCRAM_MAX_MD];
	unsigned int sn = 0;
	hmac(s, s->salted, s->md_len, "Client Key", 10, ckey);
	EVP_Digest(ckey, s->md_len, stored, &sn, s->md, NULL);
	hmac(s, stored, s->md_len, s->auth_msg, (size_t)am, csig);
	for (size_t i = 0; i < s->md_len; i++)
		proof[i] = ckey[i] ^ csig[i];
	char p64[64];
	b64_encode(proof, s->md_len, p64);
	snprintf(s->final, sizeof(s->final), "%s,p=%s", without, p64);
	explicit_bzero(ckey, sizeof(ckey));
	s->have_final = true;
	return s->final;
}

bool
scram_server_final_ok(struct scram *s, const char *msg, size_t len,
		      char *err, size_t errlen)
{
	unsigned char skey[SCRAM_MAX_MD], want[SCRAM_MAX_MD];
	unsigned char got[SCRAM_MAX_MD + 8];
	size_t vl;

	if (!s->have_final) {
		fail(err, errlen, "server-final-message before server-first");
		return false;
	}
	if (len >= 2 && msg[0] == 'e' && msg[1] == '=') {
		/* The server's words, printable only: they reach a terminal. */
		char why[101];
		size_t n = len - 2 < sizeof(why) - 1 ? len - 2 : sizeof(why) - 1;
		for (size_t i = 0; i < n; i++)
			why[i] = msg[2 + i] >= 0x20 && msg[2 + i] < 0x7f ?
			    msg[2 + i] : '?';
		why[n] = '\0';
		snprintf(err, errlen, "server reports error: %s", why);
		return false;
	}
	const char *v = attr(msg, len, 'v', &vl);
	if (v == NULL) {
		fail(err, errlen, "server-final-message lacks v=");
		return false;
	}
	int n = b64_decode(v, vl, got, sizeof(got));
	hmac(s, s->salted, s->md_len, "Server Key", 10, skey);
	hmac(s, skey, s->md_len, s->auth_msg, strlen(s->auth_msg), want);
	if (n != (int)s->md_len || CRYPTO_memcmp(got, want, s->md_len) != 0) {
		fail(err, errlen, "server signature mismatch (the server "
		     "does not know the password, or the exchange was altered)");
		return false;
	}
	return true;
}
