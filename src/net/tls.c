/* tls.c: see tls.h. */
#include <stdio.h>
#include <string.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <arpa/inet.h>

#include "net/ossl.h"
#include "net/tls.h"
#include "util/xmalloc.h"

struct tls_ctx {
	SSL_CTX *ctx;
	char *name;		/* host= : SNI and the name to verify */
	bool verify;
};

static void
tls_err_string(char *buf, size_t n)
{
	unsigned long e = ERR_get_error();
	if (e == 0) {
		snprintf(buf, n, "unknown TLS error");
		return;
	}
	ERR_error_string_n(e, buf, n);
	while (ERR_get_error() != 0)
		;
}

/*
 * libevent 2.1 builds the BIO method behind bufferevent_openssl_filter_new
 * lazily, on first use, without a lock (BIO_s_bufferevent): two workers
 * starting their first STARTTLS at once both build one and one is lost
 * (LeakSanitizer: 96 + 12 bytes from CRYPTO_zalloc).  Building a throwaway
 * filter here, on the main thread before any worker runs, makes that first
 * use ours.  A failure only means the warm-up did not happen.
 */
static void
tls_warm_filter_method(SSL_CTX *ctx)
{
	struct event_base *base = event_base_new();
	if (base == NULL)
		return;
	struct bufferevent *plain = bufferevent_socket_new(base, -1, 0);
	SSL *ssl = SSL_new(ctx);
	if (plain != NULL && ssl != NULL) {
		struct bufferevent *f = bufferevent_openssl_filter_new(base,
		    plain, ssl, BUFFEREVENT_SSL_OPEN, BEV_OPT_CLOSE_ON_FREE);
		if (f != NULL) {
			bufferevent_free(f);	/* frees ssl and plain too */
			plain = NULL;
			ssl = NULL;
		}
	}
	if (ssl != NULL)
		SSL_free(ssl);
	if (plain != NULL)
		bufferevent_free(plain);
	event_base_free(base);
}

struct tls_ctx *
tls_ctx_new(const struct config *cfg, char *err, size_t errlen)
{
	struct tls_ctx *t;

	if (!ossl_load(err, errlen))
		return NULL;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (ctx == NULL) {
		tls_err_string(err, errlen);
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	if (!cfg->tls_insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		int ok = cfg->ca_file != NULL ?
		    SSL_CTX_load_verify_locations(ctx, cfg->ca_file, NULL) :
		    SSL_CTX_set_default_verify_paths(ctx);
		if (ok != 1) {
			char why[256];
			tls_err_string(why, sizeof(why));
			if (cfg->ca_file != NULL)
				snprintf(err, errlen, "--ca-file/ssl_ca_file=%s: cannot "
					 "load CA certificates: %s", cfg->ca_file, why);
			else
				snprintf(err, errlen, "cannot load the system's CA "
					 "certificates: %s", why);
			SSL_CTX_free(ctx);
			return NULL;
		}
	}
	if (cfg->tls_resume)
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT);
	else
		SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	tls_warm_filter_method(ctx);
	t = xcalloc(1, sizeof(*t));
	t->ctx = ctx;
	t->name = xstrdup(cfg->host);
	t->verify = !cfg->tls_insecure;
	return t;
}

void
tls_ctx_free(struct tls_ctx *t)
{
	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);
	free(t->name);
	free(t);
}

static SSL *
tls_ssl_new(struct tls_ctx *t)
{
	SSL *ssl = SSL_new(t->ctx);
	if (ssl == NULL)
		return NULL;
	/* SNI only for names, never for address literals (RFC 6066). */
	struct in6_addr a6;
	struct in_addr a4;
	bool literal = inet_pton(AF_INET, t->name, &a4) == 1 ||
	    inet_pton(AF_INET6, t->name, &a6) == 1;
	if (!literal)
		SSL_set_tlsext_host_name(ssl, t->name);
	if (t->verify) {
		X509_VERIFY_PARAM *p = SSL_get0_param(ssl);
		if (literal)
			X509_VERIFY_PARAM_set1_ip_asc(p, t->name);
		else
			X509_VERIFY_PARAM_set1_host(p, t->name, 0);
	}
	return ssl;
}

struct bufferevent *
tls_bev_new(struct tls_ctx *t, struct event_base *base, evutil_socket_t fd,
	    bool implicit, SSL_SESSION *resume)
{
	if (t == NULL || !implicit)
		return bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	SSL *ssl = tls_ssl_new(t);
	if (ssl == NULL)
		return NULL;
	if (resume != NULL)
		SSL_set_session(ssl, resume);
	return bufferevent_openssl_socket_new(base, fd, ssl,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
}

struct bufferevent *
tls_bev_upgrade(struct tls_ctx *t, struct event_base *base,
		struct bufferevent *plain, SSL_SESSION *resume)
{
	SSL *ssl = tls_ssl_new(t);
	if (ssl == NULL)
		return NULL;
	if (resume != NULL)
		SSL_set_session(ssl, resume);
	return bufferevent_openssl_filter_new(base, plain, ssl,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
}

bool
tls_bev_error(struct bufferevent *bev, char *buf, size_t n, bool *verify)
{
	unsigned long e, first = 0;

	*verify = false;
	if (!ossl_loaded())	/* a run without TLS: a plain connection */
		return false;
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	long vr = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;

	while ((e = bufferevent_get_openssl_error(bev)) != 0)
		if (first == 0)
			first = e;
	if (first == 0)
		return false;
	if (vr != X509_V_OK) {
		/* Say why the certificate was refused, not just that it was. */
		*verify = true;
		snprintf(buf, n, "certificate verification failed: %s",
			 X509_verify_cert_error_string(vr));
		return true;
	}
	int reason = ERR_GET_REASON(first);
	if (reason == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION ||
	    reason == SSL_R_UNSUPPORTED_PROTOCOL ||
	    reason == SSL_R_WRONG_SSL_VERSION ||
	    reason == SSL_R_VERSION_TOO_LOW) {
		/* Not transient either: a server offering only TLS 1.0/1.1
		 * refuses every connection the same way. */
		char ossl[160];
		ERR_error_string_n(first, ossl, sizeof(ossl));
		*verify = true;
		snprintf(buf, n, "TLS version refused: the server offers no "
			 "TLS 1.2 or later, which imapstress requires (%s)", ossl);
		return true;
	}
	ERR_error_string_n(first, buf, n);
	if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING && ssl != NULL &&
	    !SSL_is_init_finished(ssl)) {
		size_t k = strlen(buf);
		snprintf(buf + k, n - k, " (the server closed during the TLS "
			 "handshake: does it offer TLS 1.2 or later?)");
	}
	return true;
}

SSL_SESSION *
tls_bev_session(struct bufferevent *bev)
{
	if (!ossl_loaded())
		return NULL;
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	if (ssl == NULL)
		return NULL;
	/* Freeing an SSL that never shut down marks its session as not
	 * resumable; we are closing on purpose, so say the shutdown was
	 * sent and the session stays good for the next connection. */
	SSL_set_shutdown(ssl, SSL_get_shutdown(ssl) | SSL_SENT_SHUTDOWN);
	SSL_SESSION *s = SSL_get1_session(ssl);
	/* A TLS 1.3 session is only worth keeping once a ticket came. */
	if (s != NULL && !SSL_SESSION_is_resumable(s)) {
		SSL_SESSION_free(s);
		return NULL;
	}
	return s;
}

void
tls_session_free(SSL_SESSION *sess)
{
	if (sess != NULL)
		SSL_SESSION_free(sess);
}

bool
tls_bev_resumed(struct bufferevent *bev)
{
	if (!ossl_loaded())
		return false;
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	return ssl != NULL && SSL_session_reused(ssl);
}

bool
tls_bev_wire_bytes(struct bufferevent *bev, uint64_t *in, uint64_t *out)
{
	if (!ossl_loaded())
		return false;
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	if (ssl == NULL)
		return false;
	BIO *r = SSL_get_rbio(ssl), *w = SSL_get_wbio(ssl);
	/* A filter's BIOs sit on the plain bufferevent below: their counts
	 * are the same octets the socket carried. */
	*in = r ? BIO_number_read(r) : 0;
	*out = w ? BIO_number_written(w) : 0;
	return true;
}
