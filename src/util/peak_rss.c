/* peak_rss.c: see peak_rss.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/peak_rss.h"

uint64_t
peak_rss_parse_status(const char *text)
{
	for (const char *p = text; p != NULL && *p != '\0'; ) {
		if (strncmp(p, "VmHWM:", 6) == 0) {
			char *end;
			unsigned long long kb = strtoull(p + 6, &end, 10);
			/* the kernel prints "VmHWM:\t   1234 kB" */
			return end != p + 6 && strncmp(end, " kB", 3) == 0 ?
			    (uint64_t)kb : 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return 0;
}

static uint64_t
hwm_kb(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return peak_rss_parse_status(buf);
}

uint64_t
peak_rss_kb(bool *from_hwm)
{
	uint64_t kb = hwm_kb();
	if (from_hwm != NULL)
		*from_hwm = kb != 0;
	if (kb != 0)
		return kb;
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_maxrss;
}
