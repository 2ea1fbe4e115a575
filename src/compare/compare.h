/* compare.h: the `imapstress compare` subcommand: are the NEW runs'
 * commands slower than the BASE runs', with 95% confidence intervals over
 * the runs of each side and their seconds, and an exit status a CI job
 * can gate an upgrade on.  Usage: compare [OPTIONS] BASE... -- NEW... */
#ifndef IMAPSTRESS_COMPARE_H
#define IMAPSTRESS_COMPARE_H

/* argv[0] is "compare".  Returns the exit status: 0 (no row worse), 1
 * (some row worse), 2 (bad usage, or files refused). */
int compare_main(int argc, char **argv);

#endif
