/* profile_submit.c: the keys of the mail endpoints beside IMAP
 * (submission_*, lmtp_host, pop3_host and pop3_auth).  Those that make profile users send their mail by SMTP submission (RFC 6409)
 * instead of LMTP: submission_host (a numeric IPv4 or IPv6 address: no
 * name lookup at start-up or in a worker; default the IMAP server's
 * address), submission_port (1..65535; without it a user's send goes to
 * nobody, as imaptest's, and LoadSim's over LMTP), submission_auth (any,
 * plain, login or none), submission_domain (added to bare user names in
 * the envelope), submission_tls (none or starttls) and
 * submission_rcpt_count (recipients per message); and lmtp_host, LMTP's
 * own address (default the IMAP server's).  The long options
 * --submission-host/-port/-auth/-tls/-rcpts and --lmtp-host override
 * them. */
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
set_host(char **host, const char *val, char *why, size_t n)
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
	free(*host);
	*host = xstrdup(val);
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

/* A key of two words: *on = (val is `yes`), or -1 with why. */
static int
set_either(bool *on, const char *val, const char *no, const char *yes,
	   char *why, size_t n)
{
	char v[80];

	if (strcmp(val, no) == 0 || strcmp(val, yes) == 0) {
		*on = strcmp(val, yes) == 0;
		return 0;
	}
	escape_text(v, sizeof(v), val, strlen(val));
	snprintf(why, n, "'%s': not %s or %s", v, no, yes);
	return -1;
}

static int
set_tls(struct profile *p, const char *val, char *why, size_t n)
{
	return set_either(&p->submission_tls, val, "none", "starttls", why, n);
}

/* pop3_auth: user (USER and PASS, the default) or plain (AUTH PLAIN). */
static int
set_pop3_auth(struct profile *p, const char *val, char *why, size_t n)
{
	return set_either(&p->pop3_auth_plain, val, "user", "plain", why, n);
}

/* A number in lo..hi, or -1 with why. */
static int
set_uint(unsigned *out, const char *val, unsigned lo, unsigned hi,
	 char *why, size_t n)
{
	uint64_t u;
	const char *w;

	if (units_parse_uint(val, lo, hi, &u, &w) < 0) {
		char v[80];
		escape_text(v, sizeof(v), val, strlen(val));
		snprintf(why, n, "'%s': %s (%u..%u)", v, w, lo, hi);
		return -1;
	}
	*out = (unsigned)u;
	return 0;
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
	static const char *const keys[9] = {
		"submission_host", "submission_port", "submission_auth",
		"submission_domain", "submission_tls", "submission_rcpt_count",
		"lmtp_host", "pop3_host", "pop3_auth",
	};
	int k = -1;

	for (int i = 0; i < 9; i++)
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
	switch (k) {
	case 0:
		return set_host(&p->submission_host, val, why, n);
	case 1:
		return set_uint(&p->submission_port, val, 1, 65535, why, n);
	case 2:
		return set_auth(p, val, why, n);
	case 3:
		return set_domain(p, val, why, n);
	case 4:
		return set_tls(p, val, why, n);
	case 5:
		return set_uint(&p->submission_rcpts, val, 1,
				PROFILE_MAX_RCPTS, why, n);
	case 6:
		return set_host(&p->lmtp_host, val, why, n);
	case 8:
		return set_pop3_auth(p, val, why, n);
	default:
		return set_host(&p->pop3_host, val, why, n);
	}
}

int
profile_submit_cli(struct profile *p, const struct config *cfg, char *err,
		   size_t n)
{
	char why[160];

	if (cfg->submission_host != NULL &&
	    set_host(&p->submission_host, cfg->submission_host, why,
		     sizeof(why)) < 0) {
		snprintf(err, n, "--submission-host %s", why);
		return -1;
	}
	if (cfg->lmtp_host != NULL &&
	    set_host(&p->lmtp_host, cfg->lmtp_host, why, sizeof(why)) < 0) {
		snprintf(err, n, "--lmtp-host %s", why);
		return -1;
	}
	if (cfg->pop3_host != NULL &&
	    set_host(&p->pop3_host, cfg->pop3_host, why, sizeof(why)) < 0) {
		snprintf(err, n, "--pop3-host %s", why);
		return -1;
	}
	if (cfg->pop3_auth != NULL &&
	    set_pop3_auth(p, cfg->pop3_auth, why, sizeof(why)) < 0) {
		snprintf(err, n, "--pop3-auth %s", why);
		return -1;
	}
	if (cfg->submission_auth != NULL &&
	    set_auth(p, cfg->submission_auth, why, sizeof(why)) < 0) {
		snprintf(err, n, "--submission-auth %s", why);
		return -1;
	}
	if (cfg->submission_tls != NULL &&
	    set_tls(p, cfg->submission_tls, why, sizeof(why)) < 0) {
		snprintf(err, n, "--submission-tls %s", why);
		return -1;
	}
	if (cfg->submission_port != 0)
		p->submission_port = cfg->submission_port;
	if (cfg->submission_rcpts != 0)
		p->submission_rcpts = cfg->submission_rcpts;
	if (p->submission_rcpts == 0)
		p->submission_rcpts = 1;
	/* Without TLS anywhere, --ca-file and --insecure would be unused. */
	bool tls = cfg->tls != TLS_NONE ||
	    (p->submission_port != 0 && p->submission_tls);
	if (!tls && (cfg->ca_file != NULL || cfg->tls_insecure)) {
		snprintf(err, n, "%s: %s needs --tls, --starttls or "
			 "submission_tls = starttls",
			 p->path != NULL ? p->path : "profile",
			 cfg->tls_insecure ? "--insecure" : "--ca-file");
		return -1;
	}
	/* A submission key without a port would be silently unused. */
	if (p->submission_port == 0 &&
	    (p->submission_host != NULL || p->submission_seen[2] != 0 ||
	     p->submission_domain != NULL || cfg->submission_auth != NULL ||
	     p->submission_seen[4] != 0 || cfg->submission_tls != NULL ||
	     p->submission_rcpts > 1)) {
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
