/* hr_capacity.c: the page of a scripts/capacity directory (placeholder
 * until its reader lands). */
#include <stdio.h>

#include "htmlreport/hr_int.h"

int
hr_capacity_page(struct hbuf *b, const char *dir, char *err, size_t errlen)
{
	(void)b;
	snprintf(err, errlen, "%s: capacity directories are not read yet",
		 dir);
	return -1;
}
