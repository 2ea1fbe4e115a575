/* tls.h: one SSL_CTX per run and the bufferevents built on it.
 * Certificate and host-name verification are on by default (with SNI);
 * `ssl=any-cert` / --insecure turns them off explicitly.  TLS 1.2 is the
 * minimum. */
#ifndef IMAPSTRESS_TLS_H
#define IMAPSTRESS_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/util.h>

#include "config/config.h"

struct event_base;
struct bufferevent;
struct tls_ctx;
struct ssl_session_st;

/* NULL with a message in err when the CA file cannot be loaded etc. */
struct tls_ctx *tls_ctx_new(const struct config *cfg, char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *t);	/* NULL is a no-op */

/* A bufferevent over fd: TLS from the first byte when tls != NULL and
 * implicit, plain otherwise.  NULL on failure. */
struct bufferevent *tls_bev_new(struct tls_ctx *t, struct event_base *base,
				evutil_socket_t fd, bool implicit,
				struct ssl_session_st *resume);

/* STARTTLS: a TLS filter over an established plain bufferevent.  The
 * underlying one is freed with the filter. */
struct bufferevent *tls_bev_upgrade(struct tls_ctx *t, struct event_base *base,
				    struct bufferevent *plain,
				    struct ssl_session_st *resume);

/* --tls-resume: the session of an established TLS bufferevent (a new
 * reference, or NULL), to be offered again on the next connection with
 * tls_bev_new(..., sess).  Was the handshake of bev a resumption? */
struct ssl_session_st *tls_bev_session(struct bufferevent *bev);
void tls_session_free(struct ssl_session_st *sess);	/* NULL ok */
bool tls_bev_resumed(struct bufferevent *bev);

/* Octets read and written on the socket under a TLS bufferevent, so far.
 * False for a plain bufferevent. */
bool tls_bev_wire_bytes(struct bufferevent *bev, uint64_t *in, uint64_t *out);

/* If bev carries a TLS error, describe it (OpenSSL's reason, or why the
 * certificate was refused, or that the server's TLS version was refused;
 * queue drained) and return true.  *verify says whether it was a failure
 * that no retry can cure (certificate verification, TLS version). */
bool tls_bev_error(struct bufferevent *bev, char *buf, size_t n, bool *verify);

#endif
