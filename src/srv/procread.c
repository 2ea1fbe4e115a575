/* procread.c: the /proc readers and parsers of the server watch (see
 * procread.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv/procread.h"

int
srv_read_proc(const char *root, pid_t pid, const char *file, char *buf,
	      size_t len)
{
	char path[512];

	if (pid > 0)
		snprintf(path, sizeof(path), "%s/%d/%s", root, (int)pid, file);
	else
		snprintf(path, sizeof(path), "%s/%s", root, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return got > 0 ? 0 : -1;
}

int
srv_parse_stat(const char *line, struct srv_stat *out)
{
	/* comm may hold spaces and ')': the fields start after the last ')'. */
	const char *p = strrchr(line, ')');
	if (p == NULL)
		return -1;
	p++;
	uint64_t f[25] = { 0 };
	unsigned k = 3;		/* field 3 is the state letter */
	while (k <= 24) {
		while (*p == ' ')
			p++;
		if (*p == '\0' || *p == '\n')
			return -1;
		if (k == 3) {
			p++;
		} else {
			char *end;
			errno = 0;
			long long v = strtoll(p, &end, 10);
			if (end == p || errno != 0)
				return -1;
			f[k] = v < 0 ? 0 : (uint64_t)v;
			p = end;
		}
		if (*p != ' ' && *p != '\0' && *p != '\n')
			return -1;
		k++;
	}
	out->ppid = (pid_t)f[4];
	out->utime = f[14];
	out->stime = f[15];
	out->cutime = f[16];
	out->cstime = f[17];
	out->start = f[22];
	out->rss_pages = f[24];
	return 0;
}

/* The number after "key" at the start of a line of text. */
static int
field_after(const char *text, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	for (const char *p = text; p != NULL && *p != '\0';) {
		if (strncmp(p, key, kl) == 0) {
			p += kl;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			*v = strtoull(p, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -1;
}

int
srv_parse_io(const char *text, uint64_t *rd, uint64_t *wr)
{
	if (field_after(text, "read_bytes:", rd) < 0 ||
	    field_after(text, "write_bytes:", wr) < 0)
		return -1;
	return 0;
}

int
srv_parse_pss(const char *text, uint64_t *kb)
{
	return field_after(text, "Pss:", kb);
}

int
srv_parse_uptime(const char *text, long tck, uint64_t *ticks)
{
	/* "12345.67 ...": whole seconds, then the digits of a fraction,
	 * in integers (a double would round 10 ms ticks either way). */
	const char *p = text;
	if (!isdigit((unsigned char)*p) || tck <= 0)
		return -1;
	uint64_t sec = 0, num = 0, den = 1;
	while (isdigit((unsigned char)*p))
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p) && den < 1000000000u) {
			num = num * 10 + (uint64_t)(*p++ - '0');
			den *= 10;
		}
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != ' ' && *p != '\n' && *p != '\0')
		return -1;
	*ticks = sec * (uint64_t)tck + num * (uint64_t)tck / den;
	return 0;
}
