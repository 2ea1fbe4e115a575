/* result_fields.c: what the result writer and reader must agree on,
 * besides the keywords: the escaping of values and the table of
 * struct report_run fields.  A field added to struct report_run that a
 * merged report should show needs a row here (and a new version). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report/result.h"

void
result_escape(char *dst, size_t dstlen, const char *src)
{
	size_t o = 0;

	for (const unsigned char *s = (const unsigned char *)src;
	     *s != '\0' && o + 4 < dstlen; s++) {
		if (*s <= ' ' || *s >= 0x7f || *s == '%' || *s == '=')
			o += (size_t)snprintf(dst + o, dstlen - o, "%%%02X", *s);
		else
			dst[o++] = (char)*s;
	}
	if (dstlen > 0)
		dst[o < dstlen ? o : dstlen - 1] = '\0';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
result_unescape(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -1;
		*o++ = (char)(hi * 16 + lo);
		s += 2;
	}
	*o = '\0';
	return 0;
}

#define RF(t, f) { #f, t, offsetof(struct report_run, f) }

const struct result_field result_run_fields[] = {
	RF(RF_DOUBLE, elapsed_s),
	RF(RF_DOUBLE, measured_s),
	RF(RF_DOUBLE, measured_from_s),
	RF(RF_UNSIGNED, clients),
	RF(RF_UNSIGNED, workers),
	RF(RF_BOOL, ramping),
	RF(RF_UNSIGNED, ramp_pct),
	RF(RF_BOOL, warmup),
	RF(RF_DOUBLE, partial_s),
	RF(RF_DOUBLE, cpu_pct),
	RF(RF_U64, loop_lag_max_us),
	RF(RF_BOOL, self_limited),
	RF(RF_U64, cpu_user_us),
	RF(RF_U64, cpu_sys_us),
	RF(RF_U64, peak_rss_kb),
	RF(RF_U64, unfinished),
	RF(RF_INT, exit_status),
	RF(RF_UNSIGNED, sla_failed),
	RF(RF_BOOL, srv),
	RF(RF_BOOL, srv_io),
	RF(RF_BOOL, srv_pss),
	RF(RF_UNSIGNED, srv_procs),
	RF(RF_DOUBLE, srv_cpu_pct),
	RF(RF_DOUBLE, srv_cpu_max),
	RF(RF_U64, srv_mem_kb),
	RF(RF_U64, srv_read_bytes),
	RF(RF_U64, srv_write_bytes),
	RF(RF_DOUBLE, srv_secs),
	RF(RF_DOUBLE, net_users),
};

const size_t result_n_run_fields =
	sizeof(result_run_fields) / sizeof(result_run_fields[0]);
