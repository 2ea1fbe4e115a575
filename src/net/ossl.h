/* ossl.h: OpenSSL and libevent_openssl, loaded at run time (issue 19).
 *
 * The binary does not link libssl, libcrypto or libevent_openssl: they are
 * bound at load time (BIND_NOW), so merely linking them kept about 1.7 MB
 * resident in every run, TLS or not.  ossl_load() dlopens them by soname
 * the first time a run needs them (TLS, STARTTLS, SCRAM) and fills one
 * table of function pointers, each typed from the real header with
 * __typeof__, so every call is still checked by the compiler.
 *
 * A file that calls OpenSSL includes this header instead of (or after)
 * the OpenSSL ones: the function-like macros at the end turn each call,
 * SSL_new(ctx), into ossl_fn.SSL_new(ctx), OpenSSL's own macros included
 * (SSL_set_tlsext_host_name expands to SSL_ctrl(...), which maps too).
 * A new OpenSSL function needs a line in OSSL_FUNCS and a macro below. */
#ifndef IMAPSTRESS_OSSL_H
#define IMAPSTRESS_OSSL_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/bufferevent_ssl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* The sonames, in loading order (each one's dependencies first). */
enum ossl_lib { OSSL_CRYPTO, OSSL_SSL, OSSL_EVENT, OSSL_N_LIBS };
#define OSSL_SONAMES { "libcrypto.so.3", "libssl.so.3", \
		"libevent_openssl-2.1.so.7" }

/* X(library, function): every function the program calls. */
#define OSSL_FUNCS(X)							\
	X(OSSL_CRYPTO, BIO_number_read)					\
	X(OSSL_CRYPTO, BIO_number_written)				\
	X(OSSL_CRYPTO, CRYPTO_memcmp)					\
	X(OSSL_CRYPTO, ERR_error_string_n)				\
	X(OSSL_CRYPTO, ERR_get_error)					\
	X(OSSL_CRYPTO, EVP_Digest)					\
	X(OSSL_CRYPTO, EVP_MD_get_size)					\
	X(OSSL_CRYPTO, EVP_sha1)					\
	X(OSSL_CRYPTO, EVP_sha256)					\
	X(OSSL_CRYPTO, HMAC)						\
	X(OSSL_CRYPTO, PKCS5_PBKDF2_HMAC)				\
	X(OSSL_CRYPTO, X509_VERIFY_PARAM_set1_host)			\
	X(OSSL_CRYPTO, X509_VERIFY_PARAM_set1_ip_asc)			\
	X(OSSL_CRYPTO, X509_verify_cert_error_string)			\
	X(OSSL_SSL, SSL_CTX_ctrl)					\
	X(OSSL_SSL, SSL_CTX_free)					\
	X(OSSL_SSL, SSL_CTX_load_verify_locations)			\
	X(OSSL_SSL, SSL_CTX_new)					\
	X(OSSL_SSL, SSL_CTX_set_default_verify_paths)			\
	X(OSSL_SSL, SSL_CTX_set_options)				\
	X(OSSL_SSL, SSL_CTX_set_verify)					\
	X(OSSL_SSL, SSL_SESSION_free)					\
	X(OSSL_SSL, SSL_SESSION_is_resumable)				\
	X(OSSL_SSL, SSL_ctrl)						\
	X(OSSL_SSL, SSL_free)						\
	X(OSSL_SSL, SSL_get0_param)					\
	X(OSSL_SSL, SSL_get1_session)					\
	X(OSSL_SSL, SSL_get_rbio)					\
	X(OSSL_SSL, SSL_get_shutdown)					\
	X(OSSL_SSL, SSL_get_verify_result)				\
	X(OSSL_SSL, SSL_get_wbio)					\
	X(OSSL_SSL, SSL_is_init_finished)				\
	X(OSSL_SSL, SSL_new)						\
	X(OSSL_SSL, SSL_session_reused)					\
	X(OSSL_SSL, SSL_set_session)					\
	X(OSSL_SSL, SSL_set_shutdown)					\
	X(OSSL_SSL, TLS_client_method)					\
	X(OSSL_EVENT, bufferevent_get_openssl_error)			\
	X(OSSL_EVENT, bufferevent_openssl_filter_new)			\
	X(OSSL_EVENT, bufferevent_openssl_get_ssl)			\
	X(OSSL_EVENT, bufferevent_openssl_socket_new)

struct ossl_table {
#define OSSL_FIELD(lib, fn) __typeof__(&fn) fn;
	OSSL_FUNCS(OSSL_FIELD)
#undef OSSL_FIELD
};

/* Filled by ossl_load; read-only afterwards. */
extern struct ossl_table ossl_fn;

/* Loads the three libraries and resolves the table, once per process
 * (later calls return the first one's result; safe from any thread, but
 * the run loads them on the main thread, before any worker starts, so a
 * failure is a start-up error).  False with a message naming the library
 * and dlerror()'s reason in err.  IMAPSTRESS_TEST_OSSL_DIR, a test hook,
 * makes it open DIR/soname instead of searching the library path. */
bool ossl_load(char *err, size_t errlen);

/* Has ossl_load succeeded?  Code that may see a plain connection in a
 * run without TLS (tls_bev_error on any error) asks before it calls. */
bool ossl_loaded(void);

/* Each call through the table. */
#define BIO_number_read(...) ossl_fn.BIO_number_read(__VA_ARGS__)
#define BIO_number_written(...) ossl_fn.BIO_number_written(__VA_ARGS__)
#define CRYPTO_memcmp(...) ossl_fn.CRYPTO_memcmp(__VA_ARGS__)
#define ERR_error_string_n(...) ossl_fn.ERR_error_string_n(__VA_ARGS__)
#define ERR_get_error(...) ossl_fn.ERR_get_error(__VA_ARGS__)
#define EVP_Digest(...) ossl_fn.EVP_Digest(__VA_ARGS__)
#define EVP_MD_get_size(...) ossl_fn.EVP_MD_get_size(__VA_ARGS__)
#define EVP_sha1(...) ossl_fn.EVP_sha1(__VA_ARGS__)
#define EVP_sha256(...) ossl_fn.EVP_sha256(__VA_ARGS__)
#define HMAC(...) ossl_fn.HMAC(__VA_ARGS__)
#define PKCS5_PBKDF2_HMAC(...) ossl_fn.PKCS5_PBKDF2_HMAC(__VA_ARGS__)
#define X509_VERIFY_PARAM_set1_host(...) \
	ossl_fn.X509_VERIFY_PARAM_set1_host(__VA_ARGS__)
#define X509_VERIFY_PARAM_set1_ip_asc(...) \
	ossl_fn.X509_VERIFY_PARAM_set1_ip_asc(__VA_ARGS__)
#define X509_verify_cert_error_string(...) \
	ossl_fn.X509_verify_cert_error_string(__VA_ARGS__)
#define SSL_CTX_ctrl(...) ossl_fn.SSL_CTX_ctrl(__VA_ARGS__)
#define SSL_CTX_free(...) ossl_fn.SSL_CTX_free(__VA_ARGS__)
#define SSL_CTX_load_verify_locations(...) \
	ossl_fn.SSL_CTX_load_verify_locations(__VA_ARGS__)
#define SSL_CTX_new(...) ossl_fn.SSL_CTX_new(__VA_ARGS__)
#define SSL_CTX_set_default_verify_paths(...) \
	ossl_fn.SSL_CTX_set_default_verify_paths(__VA_ARGS__)
#define SSL_CTX_set_options(...) ossl_fn.SSL_CTX_set_options(__VA_ARGS__)
#define SSL_CTX_set_verify(...) ossl_fn.SSL_CTX_set_verify(__VA_ARGS__)
#define SSL_SESSION_free(...) ossl_fn.SSL_SESSION_free(__VA_ARGS__)
#define SSL_SESSION_is_resumable(...) \
	ossl_fn.SSL_SESSION_is_resumable(__VA_ARGS__)
#define SSL_ctrl(...) ossl_fn.SSL_ctrl(__VA_ARGS__)
#define SSL_free(...) ossl_fn.SSL_free(__VA_ARGS__)
#define SSL_get0_param(...) ossl_fn.SSL_get0_param(__VA_ARGS__)
#define SSL_get1_session(...) ossl_fn.SSL_get1_session(__VA_ARGS__)
#define SSL_get_rbio(...) ossl_fn.SSL_get_rbio(__VA_ARGS__)
#define SSL_get_shutdown(...) ossl_fn.SSL_get_shutdown(__VA_ARGS__)
#define SSL_get_verify_result(...) ossl_fn.SSL_get_verify_result(__VA_ARGS__)
#define SSL_get_wbio(...) ossl_fn.SSL_get_wbio(__VA_ARGS__)
#define SSL_is_init_finished(...) ossl_fn.SSL_is_init_finished(__VA_ARGS__)
#define SSL_new(...) ossl_fn.SSL_new(__VA_ARGS__)
#define SSL_session_reused(...) ossl_fn.SSL_session_reused(__VA_ARGS__)
#define SSL_set_session(...) ossl_fn.SSL_set_session(__VA_ARGS__)
#define SSL_set_shutdown(...) ossl_fn.SSL_set_shutdown(__VA_ARGS__)
#define TLS_client_method(...) ossl_fn.TLS_client_method(__VA_ARGS__)
#define bufferevent_get_openssl_error(...) \
	ossl_fn.bufferevent_get_openssl_error(__VA_ARGS__)
#define bufferevent_openssl_filter_new(...) \
	ossl_fn.bufferevent_openssl_filter_new(__VA_ARGS__)
#define bufferevent_openssl_get_ssl(...) \
	ossl_fn.bufferevent_openssl_get_ssl(__VA_ARGS__)
#define bufferevent_openssl_socket_new(...) \
	ossl_fn.bufferevent_openssl_socket_new(__VA_ARGS__)

#endif
