/* profile_submit.c: the keys that make profile users send their mail by
 * SMTP submission (RFC 6409) instead of LMTP: submission_host (a numeric
 * IPv4 or IPv6 address: no name lookup at start-up or in a worker; default
 * the IMAP server's address), submission_port (1..65535; without it a
 * user's send goes to nobody, as imaptest's, and LoadSim's over LMTP),
 * submission_auth (any, plain, login or none) and
 * submission_domain (added to bare user names in the envelope).  The
 * long options --submission-host/-port/-auth override them. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "profile/profile_int.h"
#include "util/escape.h"
#include "util/units.h"
#include "util/xmalloc.h"

static const char *const auth_name[] = {
	[PROFILE_SUBMIT_ANY] = "any",
	[PROFILE_SUBMIT_PLAIN] = "plain",
	[PROFILE_SUBMIT_LOGIN] = "login",
	[PROFILE_SUBMIT_NONE] = "none",
};

static int
set_host(struct profile *p, const char *val, char *why, size_t n)
{
	struct in6_addr a6;
	struct in_addr a4;
	char v[80];

	if (inet_pton(AF_INET, val, &a4) != 1 &&
	    inet_pton(AF_INET6, val, &a6) != 1) {
		escape_text(v, sizeof(v), val, strlen(val));
		snprintf(why, n, "'%s': not a numeric IPv4 or IPv6 address", v);
		return -1;
	}
	free(p->submission_host);
	p->submission_host = xstrdup(val);
	return 0;
}

static int
set_auth(struct profile *p, const char *val, char *why, size_t n)
{
	char v[80];

	for (size_t i = 0; i < sizeof(auth_name) / sizeof(auth_name[0]); i++)
		if (strcmp(val, auth_name[i]) == 0) {
			p->submission_auth = (enum profile_submit_auth)i;
			return 0;
		}
	escape_text(v, sizeof(v), val, strlen(val));
	snprintf(why, n, "'%s': not any, plain, login or none", v);
	return -1;
}

static int
set_domain(struct profile *p, const char *val, char *why, size_t n)
{
	char v[80];
	size_t len = strlen(val);

	/* A DNS name: what an address's domain may be, nothing to escape. */
	if (len == 0 || len > 253 || strspn(val, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != len) {
		escape_text(v, sizeof(v), val, len);
		snprintf(why, n, "'%s': not a domain (letters, digits, '.', '-')",
			 v);
		return -1;
	}
	free(p->submission_domain);
	p->submission_domain = xstrdup(val);
	return 0;
}

int
profile_submit_key(struct profile *p, const char *key, const char *val,
		   unsigned line, char *why, size_t n)
{
	static const char *const keys[4] = {
		"submission_host", "submission_port", "submission_auth",
		"submission_domain",
	};
	int k = -1;
	uint64_t port;
	const char *w;

	for (int i = 0; i < 4; i++)
		if (strcmp(key, keys[i]) == 0)
			k = i;
	if (k < 0)
		return 1;
	if (p->submission_seen[k] != 0) {
		snprintf(why, n, "given twice (first on line %u)",
			 p->submission_seen[k]);
		return -1;
	}
	p->submission_seen[k] = line;
	if (k == 0)
		return set_host(p, val, why, n);
	if (k == 2)
		return set_auth(p, val, why, n);
	if (k == 3)
		return set_domain(p, val, why, n);
	if (units_parse_uint(val, 1, 65535, &port, &w) < 0) {
		char v[80];
		escape_text(v, sizeof(v), val, strlen(val));
		snprintf(why, n, "'%s': %s (1..65535)", v, w);
		return -1;
	}
	p->submission_port = (unsigned)port;
	return 0;
}

int
profile_submit_cli(struct profile *p, const struct config *cfg, char *err,
		   size_t n)
{
	char why[160];

	if (cfg->submission_host != NULL &&
	    set_host(p, cfg->submission_host, why, sizeof(why)) < 0) {
		snprintf(err, n, "--submission-host %s", why);
		return -1;
	}
	if (cfg->submission_auth != NULL &&
	    set_auth(p, cfg->submission_auth, why, sizeof(why)) < 0) {
		snprintf(err, n, "--submission-auth %s", why);
		return -1;
	}
	if (cfg->submission_port != 0)
		p->submission_port = cfg->submission_port;
	/* A host or an auth without a port would be silently unused. */
	if (p->submission_port == 0 &&
	    (p->submission_host != NULL || p->submission_seen[2] != 0 ||
	     p->submission_domain != NULL || cfg->submission_auth != NULL)) {
		snprintf(err, n, "%s: submission_port: missing (another "
			 "submission_ key is set; or give --submission-port)",
			 p->path != NULL ? p->path : "profile");
		return -1;
	}
	return 0;
}

const char *
profile_submit_auth_name(enum profile_submit_auth a)
{
	return auth_name[a];
}
