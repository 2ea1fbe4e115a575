/* fuzz_result.c: libFuzzer harness for the result file reader
 * (src/merge/result_read.c).  Any bytes: the reader must accept or refuse them
 * with a message, never crash, hang or leak; an accepted file's
 * histograms must be self-consistent (count = sum of buckets). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/hist.h"
#include "report/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct stats_snap snap;
	static int ready;
	if (!ready) {
		snprintf(path, sizeof(path), "/tmp/fuzz-result-%d", (int)getpid());
		stats_snap_init(&snap);
		ready = 1;
	}
	FILE *f = fopen(path, "w");
	if (f == NULL)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);

	char err[512];
	struct result_reader *r = result_reader_open(path, err, sizeof(err));
	if (r == NULL)
		return 0;
	enum result_rec kind = RESULT_TICK;
	int64_t sec;
	struct report_run run;
	while (kind != RESULT_END &&
	       result_reader_next(r, &kind, &sec, &run, &snap, err,
				  sizeof(err)) == 0) {
		for (int op = 0; op < OP_COUNT; op++) {
			uint64_t n = 0, c;
			for (unsigned i = 0; hist_next_bucket(snap.lat[op], &i, &c); i++)
				n += c;
			if (n != hist_count(snap.lat[op]))
				abort();
			(void)hist_percentile(snap.lat[op], 99);
		}
	}
	result_reader_free(r);
	return 0;
}
