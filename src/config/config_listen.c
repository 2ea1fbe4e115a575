/* config_listen.c: the [HOST:]PORT of --metrics-listen, checked as numeric
 * and told whether it is loopback.  Here, not in metrics.c, so that
 * parsing argv needs no libevent (the config fuzzer links only the config
 * files). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_int.h"

int
config_parse_listen(const char *s, char *host, size_t hostlen,
		    unsigned *port, bool *loopback, char *err, size_t errlen)
{
	const char *ps = s, *colon = strrchr(s, ':');
	size_t hl = 0;
	const char *h = "127.0.0.1";

	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (close == NULL || close[1] != ':') {
			snprintf(err, errlen, "expected [ADDRESS]:PORT");
			return -1;
		}
		h = s + 1;
		hl = (size_t)(close - h);
		ps = close + 2;
	} else if (colon != NULL) {
		h = s;
		hl = (size_t)(colon - s);
		ps = colon + 1;
	} else {
		hl = strlen(h);
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(err, errlen, "expected [HOST:]PORT");
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';

	char *end;
	errno = 0;
	unsigned long p = strtoul(ps, &end, 10);
	if (ps[0] < '0' || ps[0] > '9' || *end != '\0' || errno != 0 || p > 65535) {
		snprintf(err, errlen, "port must be a number 0-65535");
		return -1;
	}
	*port = (unsigned)p;

	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1) {
		*loopback = (ntohl(a4.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, host, &a6) == 1) {
		*loopback = IN6_IS_ADDR_LOOPBACK(&a6);
	} else {
		snprintf(err, errlen, "'%s' is not a numeric IPv4 or IPv6 "
			 "address", host);
		return -1;
	}
	return 0;
}
