/* fake_net.c: loopback-only listening sockets and the TLS context. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>

#include "fake.h"

/* Numeric addresses only, and only loopback: the fake must never become
 * a reachable server by accident. */
bool
fake_addr_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1) {
		if ((ntohl(sin->sin_addr.s_addr) >> 24) != 127)
			return false;
		sin->sin_family = AF_INET;
		*len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
			return false;
		sin6->sin6_family = AF_INET6;
		*len = sizeof(*sin6);
		return true;
	}
	return false;
}

static void
fake_addr_set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static unsigned
fake_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* Returns a bound, listening, non-blocking socket, or -1 with err set.
 * SO_REUSEPORT lets every loop own a listener on the same port. */
int
fake_listen_socket(const struct fake_cfg *cfg, unsigned port,
		   unsigned *bound_port, char *err, size_t err_len)
{
	struct sockaddr_storage ss = cfg->addr;
	fake_addr_set_port(&ss, port);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (fd < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (cfg->threads > 1 &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
		snprintf(err, err_len, "SO_REUSEPORT: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&ss, cfg->addr_len) < 0) {
		snprintf(err, err_len, "cannot bind %s port %u: %s",
			 cfg->listen, port, strerror(errno));
		close(fd);
		return -1;
	}
	if (bound_port != NULL) {
		socklen_t sl = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
			snprintf(err, err_len, "getsockname: %s",
				 strerror(errno));
			close(fd);
			return -1;
		}
		*bound_port = fake_addr_port(&ss);
	}
	return fd;
}

static void
fake_tls_err(char *err, size_t err_len, const char *what, const char *file)
{
	unsigned long e = ERR_get_error();
	char buf[256];
	ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, err_len, "%s '%s': %s", what, file,
		 e != 0 ? buf : "unknown error");
	ERR_clear_error();
}

SSL_CTX *
fake_tls_ctx(const char *cert, const char *key, char *err, size_t err_len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (ctx == NULL) {
		snprintf(err, err_len, "SSL_CTX_new failed");
		return NULL;
	}
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
		fake_tls_err(err, err_len, "--tls-cert: cannot load", cert);
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		fake_tls_err(err, err_len, "--tls-key: cannot load", key);
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		fake_tls_err(err, err_len, "--tls-key: does not match", cert);
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}
