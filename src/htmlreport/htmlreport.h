/* htmlreport.h: `imapstress report`, one self-contained HTML page (inline
 * CSS and SVG, nothing fetched) from a run's --json lines, its result
 * files (shards merged), a compare --json, or a scripts/capacity
 * directory.  Usage: report [-o FILE] [--title TEXT] INPUT..., or
 * report [-o FILE] [--title TEXT] [COMPARE OPTIONS] BASE... -- NEW... */
#ifndef IMAPSTRESS_HTMLREPORT_H
#define IMAPSTRESS_HTMLREPORT_H

#include <stddef.h>

/* argv[0] is "report".  Returns the exit status: 0 written, 1 the page
 * could not be written, 2 bad usage or an input refused. */
int htmlreport_main(int argc, char **argv);

/* --report FILE on a run: the page of the run's JSON lines (json_path,
 * complete by now) with its options (args, as config's args_key) written
 * to out.  Its size in bytes, or -1 with a message. */
long htmlreport_run(const char *json_path, const char *args, const char *out,
		    char *err, size_t errlen);

#endif
