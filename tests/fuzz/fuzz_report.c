/* fuzz_report.c: libFuzzer harness for `imapstress report`'s run page
 * (src/htmlreport/): any bytes, read as a --json file, are refused with
 * "fuzz.json:LINE: ..." or drawn into a page; the page then holds no raw
 * control character but newline, no markup the input brought (no
 * "<script", no "<img", no "<link": text from the input is escaped), and
 * ends as a page ends.  The JSON reader alone is fed the same bytes too,
 * with its depth limit against the stack. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlreport/hr_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_report: %s\n", what);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	char *text = malloc(size + 1);
	struct jv v;

	memcpy(text, data, size);
	text[size] = '\0';
	if (jv_parse(text, &v, err, sizeof(err)) == 0)
		jv_free(&v);
	else
		fz_require(strncmp(err, "column ", 7) == 0, "JSON error "
			   "without its column");
	free(text);

	FILE *f = fmemopen((void *)data, size, "r");
	if (f == NULL)
		return 0;
	struct hr_run r = { 0 };
	r.sources = strdup("fuzz.json");
	int rc = hr_read_jsonl("fuzz.json", f, &r, err, sizeof(err));
	fclose(f);
	if (rc < 0) {
		fz_require(strncmp(err, "fuzz.json:", 10) == 0, "error without "
			   "the file name");
		fz_require(strchr(err, '\n') == NULL, "error of two lines");
		hr_run_free(&r);
		return 0;
	}
	struct hbuf b;
	hb_init(&b);
	hr_page_open(&b, "fuzz");
	hr_run_page(&b, &r);
	hr_page_close(&b);
	for (size_t i = 0; i < b.len; i++)
		fz_require((unsigned char)b.p[i] >= 0x20 || b.p[i] == '\n',
			   "a raw control character in the page");
	fz_require(strstr(b.p, "<script") == NULL, "<script in the page");
	fz_require(strstr(b.p, "<img") == NULL, "<img in the page");
	fz_require(strstr(b.p, "<link") == NULL, "<link in the page");
	fz_require(b.len > 16 && strcmp(b.p + b.len - 15, "</body></html>\n")
		   == 0, "the page does not end");
	hb_free(&b);
	hr_run_free(&r);
	return 0;
}
