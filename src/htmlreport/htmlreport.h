/* htmlreport.h: `imapstress report`, one self-contained HTML page (inline
 * CSS and SVG, nothing fetched) from a run's --json lines, its result
 * files (shards merged), a compare --json, or a scripts/capacity
 * directory.  Usage: report [-o FILE] [--title TEXT] INPUT... */
#ifndef IMAPSTRESS_HTMLREPORT_H
#define IMAPSTRESS_HTMLREPORT_H

/* argv[0] is "report".  Returns the exit status: 0 written, 1 the page
 * could not be written, 2 bad usage or an input refused. */
int htmlreport_main(int argc, char **argv);

#endif
