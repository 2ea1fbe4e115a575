/* script_idate.c: the INTERNALDATE of each message of a test's mbox, from
 * its "From " line ("From user@domain  Fri Feb 22 00:00:00 2008"), as
 * imaptest appends them: its sort-arrival, sort-date and thread tests
 * order messages by these dates.  A line whose date does not parse gives
 * none (the server's clock then). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script/script.h"
#include "util/infile.h"
#include "util/xmalloc.h"

#define IDATE_LEN 32

/* "Fri Feb 22 00:00:00 2008 [+0200]" (after the sender) as IMAP's
 * date-time "22-Feb-2008 00:00:00 +0200" into out; false when it is not
 * one. */
static bool
from_date(const char *s, size_t n, char *out)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May",
		"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	char line[128];
	struct tm tm;

	if (n >= sizeof(line))
		return false;
	memcpy(line, s, n);
	line[n] = '\0';
	const char *sp = strchr(line + 5, ' ');	/* after "From sender" */
	if (sp == NULL)
		return false;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(sp, " %a %b %d %H:%M:%S %Y", &tm);
	if (end == NULL || tm.tm_mon < 0 || tm.tm_mon > 11)
		return false;
	/* a zone after the year ("2008 +0200", as imaptest's mboxes have):
	 * kept; none: +0000 */
	char zone[6] = "+0000";
	while (*end == ' ')
		end++;
	if ((end[0] == '+' || end[0] == '-') && strspn(end + 1, "0123456789") == 4)
		memcpy(zone, end, 5);
	snprintf(out, IDATE_LEN, "%02d-%s-%04d %02d:%02d:%02d %s", tm.tm_mday,
		 mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, zone);
	return true;
}

void
script_idates_load(struct script *s)
{
	char why[256];
	size_t n;
	char *buf = s->mbox_path ? infile_read(s->mbox_path, 1u << 30, &n, why,
					       sizeof(why)) : NULL;

	if (buf == NULL)
		return;	/* the pool's own load names the problem */
	for (const char *p = buf, *e = buf + n; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (le - p >= 5 && memcmp(p, "From ", 5) == 0) {
			char d[IDATE_LEN];
			s->idates = xrealloc(s->idates,
					     (s->n_idates + 1) * sizeof(char *));
			s->idates[s->n_idates++] = from_date(p, (size_t)(le - p), d)
						   ? xstrdup(d) : NULL;
		}
		p = nl ? nl + 1 : e;
	}
	free(buf);
}
